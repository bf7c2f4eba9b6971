"""The ``nemo-code-rl`` command: score completions, and benchmark the engine."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from nemo_code_rl import plotting_cli
from nemo_code_rl.arc import cli as arc_cli
from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.engine import IsolationUnavailable, Limits
from nemo_code_rl.extraction import ExtractionConfig
from nemo_code_rl.problems import ProblemFormatError, load_problems
from nemo_code_rl.rewards import RewardConfig


def _score_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "score",
        help="score completions against problems' unit tests",
        description="Score COMPLETIONS.jsonl rows {id, completion} against PROBLEMS.jsonl (unit-test "
        "problems, or ARC tasks, detected from the file). With no files, scores the embedded default: "
        "HumanEval's canonical solutions and a few wrong answers.",
    )
    parser.add_argument(
        "problems", nargs="?", help="problems file (.jsonl, .json or .parquet; format auto-detected)"
    )
    parser.add_argument("completions", nargs="?", help="completions file (.jsonl)")
    parser.add_argument(
        "-o", "--output", help="results file (default: <completions stem>.results.jsonl beside it)"
    )
    parser.add_argument("--workers", type=int, default=None, help="parallel workers (default: CPUs)")
    parser.add_argument("--backend", choices=["process"], default="process", help="where programs run")
    parser.add_argument("--isolation", choices=["full", "none"], default="full")
    parser.add_argument("--reward", choices=["binary", "fraction", "shaped"], default="binary")
    parser.add_argument(
        "--format",
        choices=["fenced", "gym", "code_tags", "regex"],
        default="fenced",
        help="how code is extracted",
    )
    parser.add_argument("--pattern", help="regex for --format regex (group 1 is the code)")
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per test where the data has no limit"
    )
    parser.add_argument("--memory-mb", type=int, default=Limits().memory_bytes // 2**20)
    parser.add_argument(
        "--early-exit", action="store_true", help="stop each program at its first failing test"
    )
    parser.add_argument("--max-tests", type=int, default=None, help="run at most this many tests per problem")
    parser.add_argument(
        "--checkers",
        help="folder of special judges named <problem id>.py, each defining check(input, expected, actual)",
    )
    parser.add_argument(
        "--helper",
        help="ARC: the helper library programs import, a .py file, a package folder or a folder of modules "
        "(default: our BARC-compatible `common`)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=_score)


def _score(args: argparse.Namespace) -> int:
    from nemo_code_rl import scoring
    from nemo_code_rl.default_job import default_job
    from nemo_code_rl.progress import progress_bar
    from nemo_code_rl.verification import Verifier, VerifierConfig

    if (args.problems is None) != (args.completions is None):
        raise SystemExit(
            "nemo-code-rl score: give both PROBLEMS and COMPLETIONS, or neither for the default job"
        )
    if args.problems is None:
        problems, rows = default_job()
        completions = scoring.number_completions(rows)
        output = Path(args.output or "humaneval_default.results.jsonl")
    else:
        handled = arc_cli.score_rows_if_arc(
            args.problems,
            args.completions,
            args.output,
            workers=args.workers,
            isolation=args.isolation,
            extraction=ExtractionConfig(mode=args.format, pattern=args.pattern),
            timeout_s=args.timeout,
            memory_mb=args.memory_mb,
            quiet=args.quiet,
            helper=args.helper,
        )
        if handled is not None:
            return handled
        problems = load_problems(args.problems)
        completions = scoring.read_completions(args.completions)
        output = Path(args.output) if args.output else scoring.default_results_path(args.completions)
    checkers = {}
    if args.checkers:
        folder = Path(args.checkers)
        if not folder.is_dir():
            raise SystemExit(f"nemo-code-rl score: --checkers {folder} is not a folder")
        checkers = {path.stem: path.read_text() for path in folder.glob("*.py")}
    config = VerifierConfig(
        extraction=ExtractionConfig(mode=args.format, pattern=args.pattern),
        reward=RewardConfig(mode=args.reward),
        timeout_s=args.timeout,
        limits=Limits(memory_bytes=args.memory_mb * 2**20),
        early_exit=args.early_exit,
        max_tests=args.max_tests,
        checkers=checkers,
    )
    update, close = progress_bar("scoring", enabled=not args.quiet)
    with Verifier(config, workers=args.workers, isolation=args.isolation) as verifier:
        try:
            rows = scoring.score(problems, completions, verifier, progress=update)
        finally:
            close()
    scoring.write_results(rows, output)
    print(scoring.format_summary(scoring.summarize(rows)))
    print(f"results: {output}")
    return 0


def _bench_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "bench", help="benchmark the execution engine against common baselines", add_help=False
    )
    parser.set_defaults(handler=_bench)


def _bench(args: argparse.Namespace) -> int:
    from nemo_code_rl.benchmarking.engine_bench import main as bench_main

    return bench_main(args.rest)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nemo-code-rl", description="Reinforcement learning on code for NeMo RL."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the engine does")
    sub = parser.add_subparsers(dest="command", required=True)
    _score_parser(sub)
    _bench_parser(sub)
    plotting_cli.add_subcommand(sub)
    arc_cli.add_subcommands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if argv[:1] == ["bench"]:
        args = argparse.Namespace(handler=_bench, rest=argv[1:], verbose=False)
    else:
        args = parser.parse_args(argv)
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
