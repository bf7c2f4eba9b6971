"""``nemo-code-rl plot RUN_DIR``: a run's training curves as PNGs, with collapse markers.

Kept apart from ``plotting`` so that building the command line never imports matplotlib or
TensorBoard: the other subcommands work without the ``plot`` extra.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_subcommand(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plot RUN_DIR [RUN_DIR ...] [-o OUT_DIR]`` to the ``nemo-code-rl`` command's subparsers."""
    parser = subparsers.add_parser(
        "plot",
        help="plot runs' GRPO curves (reward, pass rate, length, truncation, entropy, KL, loss, ...)",
        description="Read training runs' TensorBoard event files (or metrics JSONL: NeMo RL's, TRL's) and "
        "write PNG curves of reward, pass rate, response length, truncation/repetition, entropy, KL, loss, "
        "gradient norm and zero-advantage groups, smoothed, several runs overlaid, with a dashed line "
        "where collapse indicators (truncation, unclosed code fences, repetition) rise and stay up and a "
        "dotted one where most groups stop giving a gradient.",
    )
    parser.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        nargs="+",
        help="a run's log folder (NeMo RL's logger.log_dir), or one event file or metrics .jsonl; "
        "several are overlaid",
    )
    parser.add_argument(
        "-o", "--output-dir", help="where the PNGs go (default: plots/ in RUN_DIR; needed for several runs)"
    )
    parser.set_defaults(handler=_plot)


def _plot(args: argparse.Namespace) -> int:
    try:
        from nemo_code_rl import plotting
    except ImportError as error:
        raise SystemExit(
            f"nemo-code-rl plot: {error}; install the plot extra: pip install 'nemo-code-rl[plot]'"
        ) from error
    if len(args.run_dir) > 1 and not args.output_dir:
        raise SystemExit("nemo-code-rl plot: give -o OUT_DIR to plot several runs together")
    labels = plotting.run_labels(args.run_dir)
    try:
        runs = {label: plotting.load_scalars(path) for label, path in zip(labels, args.run_dir, strict=True)}
    except ImportError as error:  # TensorBoard is imported only when there are event files to read
        raise SystemExit(
            f"nemo-code-rl plot: reading event files needs TensorBoard ({error}); "
            "pip install 'nemo-code-rl[plot]'"
        ) from error
    signals = {label: plotting.detect_collapse(scalars) for label, scalars in runs.items()}
    several = len(runs) > 1
    out_dir = Path(args.output_dir) if args.output_dir else plotting.default_out_dir(args.run_dir[0])
    title = "" if several else Path(args.run_dir[0]).resolve().name
    paths = plotting.write_run_plots(runs, signals, out_dir, title)
    lines = [f"wrote {path}" for path in paths]
    for label, scalars in runs.items():
        where = f"{label}: " if several else ""
        lines += [
            f"{where}not drawn: {panel.title.lower()} (no tag matching {', '.join(panel.patterns)}"
            + (", or only the reward's own curve)" if panel.name == plotting.PASS_RATE_PANEL else ")")
            for panel in plotting.missing_panels(scalars)
        ]
        found = signals[label]
        lines += [
            f"{where}{'stall' if s.kind == 'stall' else 'collapse indicator'}: {s.describe()}" for s in found
        ] or [f"{where}collapse indicators: none rose"]
    print("\n".join(lines))  # noqa: T201 (the command's report)
    return 0
