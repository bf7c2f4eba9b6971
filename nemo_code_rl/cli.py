"""The ``nemo-code-rl`` command: score completions, and benchmark the engine."""

from __future__ import annotations

import argparse
import logging
import sys

from nemo_code_rl import __version__, backend_start


def _bench_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "bench", help="benchmark the execution engine against common baselines", add_help=False
    )
    parser.set_defaults(handler=_bench)


def _bench(args: argparse.Namespace) -> int:
    from nemo_code_rl.benchmarking.engine_bench import main as bench_main

    return bench_main(args.rest)


def build_parser(only_score: bool = False) -> argparse.ArgumentParser:
    """The whole command line. ``only_score``: just the ``score`` subcommand, for arguments that
    start with it (argparse then answers, ``--help`` and errors included, from that subcommand
    alone), so that the other subcommands' imports stay out of ``score``'s start."""
    parser = argparse.ArgumentParser(
        prog="nemo-code-rl", description="Reinforcement learning on code for NeMo RL."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the engine does")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    from nemo_code_rl import score_cli

    score_cli.add_subcommand(sub)
    if only_score:
        return parser
    from nemo_code_rl import plotting_cli
    from nemo_code_rl.arc import cli as arc_cli
    from nemo_code_rl.evaluation.cli import add_subcommand as add_eval_subcommand

    _bench_parser(sub)
    plotting_cli.add_subcommand(sub)
    arc_cli.add_subcommands(sub)
    add_eval_subcommand(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # ``score``'s pool starts first, so that its workers come up while the rest is imported; any
    # way out of here that does not hand it to ``score`` closes it.
    early = backend_start.start_early(argv)
    try:
        return _run(argv, early)
    finally:
        if early is not None:
            early.discard()


def _run(argv: list[str], early: backend_start.EarlyStart | None) -> int:
    if argv[:1] == ["bench"]:
        args = argparse.Namespace(handler=_bench, rest=argv[1:], verbose=False)
    elif argv[:1] == ["score"]:
        args, unknown = build_parser(only_score=True).parse_known_args(argv)
        if unknown:  # reported as the whole command line reports it (its usage names every subcommand)
            build_parser().parse_args(argv)
    else:
        args = build_parser().parse_args(argv)
    from nemo_code_rl.config_keys import ConfigError
    from nemo_code_rl.engine import IsolationUnavailable
    from nemo_code_rl.rows import ProblemFormatError

    args.early_start = early
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        return args.handler(args)
    except (ProblemFormatError, ConfigError, IsolationUnavailable, OSError, ValueError) as exc:
        print(f"nemo-code-rl: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
