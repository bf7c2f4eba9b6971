"""``nemo-code-rl plot RUN_DIR``: a run's training curves as PNGs, with collapse markers.

Kept apart from ``plotting`` so that building the command line never imports matplotlib or
TensorBoard: the other subcommands work without the ``plot`` extra.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_subcommand(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plot RUN_DIR [-o OUT_DIR]`` to the ``nemo-code-rl`` command's subparsers."""
    parser = subparsers.add_parser(
        "plot",
        help="plot a run's reward, pass rate, response length and truncation, marking collapse",
        description="Read a training run's TensorBoard event files (or a metrics JSONL) and write PNG "
        "curves of reward, pass rate, response length and truncation/repetition, with a dashed line "
        "where the collapse indicators (truncation, unclosed code fences, repetition) rise and stay up.",
    )
    parser.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        help="the run's log folder (NeMo RL's logger.log_dir), or one event file or metrics .jsonl",
    )
    parser.add_argument("-o", "--output-dir", help="where the PNGs go (default: plots/ in RUN_DIR)")
    parser.set_defaults(handler=_plot)


def _plot(args: argparse.Namespace) -> int:
    try:
        from nemo_code_rl import plotting
    except ImportError as error:
        raise SystemExit(
            f"nemo-code-rl plot: {error}; install the plot extra: pip install 'nemo-code-rl[plot]'"
        ) from error
    try:
        scalars = plotting.load_scalars(args.run_dir)
    except ImportError as error:  # TensorBoard is imported only when there are event files to read
        raise SystemExit(
            f"nemo-code-rl plot: reading event files needs TensorBoard ({error}); "
            "pip install 'nemo-code-rl[plot]'"
        ) from error
    signals = plotting.detect_collapse(scalars)
    out_dir = Path(args.output_dir) if args.output_dir else plotting.default_out_dir(args.run_dir)
    paths = plotting.write_plots(scalars, signals, out_dir, Path(args.run_dir).resolve().name)
    lines = [f"wrote {path}" for path in paths]
    lines += [
        f"not in the logs: {panel.title.lower()} (no tag matching {', '.join(panel.patterns)})"
        for panel in plotting.missing_panels(scalars)
    ]
    lines += [f"collapse indicator: {signal.describe()}" for signal in signals] or [
        "collapse indicators: none rose"
    ]
    print("\n".join(lines))  # noqa: T201 (the command's report)
    return 0
