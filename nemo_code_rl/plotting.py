"""Training curves of GRPO runs, read from their logs, with the steps where collapse or a stall sets in.

A collapsing code policy shows it in its responses before the reward curve says much: more of
them hit the generation limit or leave a code fence open, and they fill up with one repeated
phrase. A stalled one shows it in its groups: when every sample of a group gets the same reward,
the group's advantages are all zero and it teaches nothing. This module draws the standard GRPO
curves (reward; pass rate where it differs from the reward; response length; truncation and
repetition; entropy; KL; loss; gradient norm; the fraction of zero-advantage groups; the
verification rates), smoothed with the raw trace faint, held-out (validation/eval) series as
points, several runs overlaid, and a vertical line where a collapse indicator rises and stays
up (black, dashed) or where most groups stop giving a gradient (red, dotted).

Where the numbers come from (a tag matches a pattern when it equals it or ends with ``/`` plus
it, so the environment's metrics are found under whatever prefix the trainer logs them):

- NeMo RL's ``Logger`` writes TensorBoard scalars under ``<logger.log_dir>/tensorboard`` with
  ``train/`` (``reward``, and the rollout's ``truncation_rate``, ``mean_gen_tokens_per_sample``,
  ``max_gen_tokens_per_sample``) and ``validation/`` (``accuracy``, ``avg_length``) prefixes;
- the code metrics (``nemo_code_rl/training_metrics.py``): ``pass_rate``,
  ``first_turn_pass_rate``, ``episode_pass_rate``, ``mean_reward``, ``response_chars_mean``,
  ``response_chars_max``, ``truncation_rate``, ``unclosed_fence_rate``, ``repetition_rate``,
  ``max_ngram_coverage_mean``, and the verification rates (``ran_without_error_rate``,
  ``infra_fault_rate``, ``uniform_reward_group_rate``, ``solved_problem_rate``). NeMo RL itself
  never asks the environment for them: a trainer of our own logs them under a prefix, or the
  environment writes them to its ``metrics_jsonl`` (``environments/metrics_log.py``), one row
  per environment step; validation batches, feedback turns and asynchronous rollouts' per-sample
  calls are steps too, so that axis runs ahead of the trainer's;
- TRL's ``GRPOTrainer`` logs (its ``log_history``, or a JSONL of it): ``reward``,
  ``completions/mean_length``, ``completions/clipped_ratio``, ``entropy``, ``kl``, ``loss``,
  ``grad_norm``, ``frac_reward_zero_std``; NeMo RL's training step adds ``train/loss``,
  ``train/grad_norm``, ``train/approx_entropy`` and ``train/kl_penalty`` where its loss reports them;
- metrics JSONL files: one object per line with a ``step`` (or ``global_step``, ``_step``,
  ``total_steps``) and scalar metrics, flat (``"train/reward"``) or nested (``{"train":
  {"reward": ...}}``, read as ``train/reward``). They are read beside the event files, so the
  environment's file in the log folder adds its series to the trainer's (where both log a tag,
  the event files' values are kept). The last line of a file may be cut short (a run still
  writing, or one that crashed mid-line): it is skipped with a warning.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from statistics import median
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

logger = logging.getLogger(__name__)

# Tag -> (step, value) points, sorted by step, one value per step (the last one logged).
Scalars = dict[str, list[tuple[int, float]]]

EVENT_FILE_GLOB = "events.out.tfevents.*"
STEP_KEYS = ("step", "global_step", "_step", "total_steps")
# NeMo RL's per-sample dumps (``train_data_step12.jsonl``): large, and not metrics.
SAMPLE_DUMP = re.compile(r".*_data_step\d+\.jsonl$")
PLOTS_DIRNAME = "plots"
OVERVIEW_NAME = "overview"
# Black and red: a line that marks a step is told apart from the curves by colour and style.
COLLAPSE_COLOR = "black"
STALL_COLOR = "tab:red"
# Held-out series (drawn as points, never smoothed) are logged under these prefixes.
HELD_OUT = re.compile(r"^(validation|val|eval|test)[/_]")
# Smoothing: an exponential moving average (TensorBoard's, bias-corrected) over series longer than
# SMOOTH_MIN_POINTS, the raw trace drawn faint behind it.
SMOOTHING = 0.6
SMOOTH_MIN_POINTS = 15
RAW_ALPHA = 0.25
LINESTYLES = ("-", "--", ":", "-.")


@dataclass(frozen=True)
class TagGroup:
    """Tags drawn together on one axis, and the axis label they share."""

    ylabel: str
    patterns: tuple[str, ...]


@dataclass(frozen=True)
class Panel:
    """One figure. ``groups`` are alternatives, most wanted first: the first with any matching tag
    is drawn, so token counts are preferred over character counts, for instance."""

    name: str
    title: str
    groups: tuple[TagGroup, ...]
    unit_interval: bool = False

    @property
    def patterns(self) -> tuple[str, ...]:
        return tuple(pattern for group in self.groups for pattern in group.patterns)


PANELS = (
    Panel(
        "reward",
        "Reward",
        (
            TagGroup("mean reward", ("train/reward", "validation/accuracy", "reward", "eval_reward")),
            TagGroup("mean reward", ("mean_reward",)),
        ),
    ),
    Panel(
        "pass_rate",
        "Pass rate",
        (TagGroup("fraction of samples", ("pass_rate", "first_turn_pass_rate", "episode_pass_rate")),),
        unit_interval=True,
    ),
    Panel(
        "response_length",
        "Response length",
        (
            TagGroup(
                "tokens per response",
                (
                    "train/mean_gen_tokens_per_sample",
                    "train/max_gen_tokens_per_sample",
                    "validation/avg_length",
                    "completions/mean_length",
                    "completions/max_length",
                ),
            ),
            TagGroup("characters per response", ("response_chars_mean", "response_chars_max")),
        ),
    ),
    Panel(
        "truncation",
        "Truncation and repetition",
        (
            TagGroup(
                "fraction of responses",
                (
                    "truncation_rate",
                    "clipped_ratio",
                    "unclosed_fence_rate",
                    "repetition_rate",
                    "max_ngram_coverage_mean",
                ),
            ),
        ),
        unit_interval=True,
    ),
    Panel(
        "verification",
        "Verification",
        (
            TagGroup(
                "fraction of samples (problems: solved)",
                (
                    "ran_without_error_rate",
                    "infra_fault_rate",
                    "uniform_reward_group_rate",
                    "solved_problem_rate",
                ),
            ),
        ),
        unit_interval=True,
    ),
    Panel("entropy", "Entropy", (TagGroup("nats per token", ("entropy", "approx_entropy")),)),
    Panel("kl", "KL to the reference", (TagGroup("KL", ("kl", "kl_penalty", "approx_kl")),)),
    Panel("loss", "Loss", (TagGroup("loss", ("loss",)),)),
    Panel("grad_norm", "Gradient norm", (TagGroup("gradient norm", ("grad_norm",)),)),
    Panel(
        "zero_advantage",
        "Groups without a gradient",
        (
            TagGroup(
                "fraction of groups with one reward", ("frac_reward_zero_std", "uniform_reward_group_rate")
            ),
        ),
        unit_interval=True,
    ),
)
# Pass rate is drawn only where it differs from the reward (under a binary reward it is the same curve).
PASS_RATE_PANEL = "pass_rate"
REWARD_PANEL = "reward"


@dataclass(frozen=True)
class Indicator:
    """A collapse indicator: a tag pattern, and the rise over the run's early level that counts."""

    pattern: str
    rise: float


# All are fractions in [0, 1]. A healthy run keeps them roughly flat; a collapse lifts them by
# tens of points, so a sustained rise of 0.1-0.15 is well clear of batch-to-batch noise.
INDICATORS = (
    Indicator("truncation_rate", 0.15),
    Indicator("clipped_ratio", 0.15),
    Indicator("unclosed_fence_rate", 0.15),
    Indicator("repetition_rate", 0.15),
    Indicator("max_ngram_coverage_mean", 0.1),
)
# A rise must hold for this many logged points: one bad batch is not a collapse.
SUSTAIN_POINTS = 3
# A stall: at least this fraction of groups gave all their samples one reward (no advantage, no
# gradient), for SUSTAIN_POINTS points in a row.
STALL_PATTERNS = ("frac_reward_zero_std", "uniform_reward_group_rate")
STALL_LEVEL = 0.8


@dataclass(frozen=True)
class CollapseSignal:
    """A marked step. ``collapse``: an indicator that rose and stayed up, from ``step`` on above
    ``baseline`` + its rise. ``stall``: from ``step`` on, at least ``baseline`` (``STALL_LEVEL``)
    of the groups had no gradient."""

    tag: str
    step: int
    baseline: float
    value: float
    kind: str = "collapse"

    def describe(self) -> str:
        if self.kind == "stall":
            return (
                f"{self.tag} stays at {self.baseline:.0%} or more from step {self.step} ({self.value:.3g}): "
                "most groups give no gradient"
            )
        return f"{self.tag} rises at step {self.step}: {self.value:.3g} (early level {self.baseline:.3g})"


def plot_run(run_dir: str | Path, out_dir: str | Path | None = None) -> list[Path]:
    """Write a run's curves as PNGs, one per panel with data plus an overview; return their paths.

    Args:
        run_dir: the run's log folder (NeMo RL's ``logger.log_dir``), or one event file or JSONL.
        out_dir: where the PNGs go (default: ``plots/`` in the run's folder).

    Raises:
        FileNotFoundError: ``run_dir`` does not exist.
        ValueError: no metrics found, metrics of several runs found, or none of them plottable.
    """
    scalars = load_scalars(run_dir)
    out = out_dir if out_dir is not None else default_out_dir(run_dir)
    return write_plots(scalars, detect_collapse(scalars), out, Path(run_dir).resolve().name)


def plot_runs(run_dirs: Sequence[str | Path], out_dir: str | Path) -> list[Path]:
    """Write the curves of several runs overlaid (one colour per run) into ``out_dir``.

    Runs are labelled by their folder names (made unique with their parents where they clash).
    """
    runs = {label: load_scalars(path) for label, path in zip(run_labels(run_dirs), run_dirs, strict=True)}
    return write_run_plots(
        runs, {label: detect_collapse(scalars) for label, scalars in runs.items()}, out_dir
    )


def run_labels(run_dirs: Sequence[str | Path]) -> list[str]:
    """Short distinct names for runs: the folder name, with parents added while two clash."""
    paths = [Path(p).resolve() for p in run_dirs]
    depth = 1
    while True:
        labels = ["/".join(p.parts[-depth:]) for p in paths]
        if len(set(labels)) == len(labels) or depth >= max(len(p.parts) for p in paths):
            return labels
        depth += 1


def default_out_dir(run_path: str | Path) -> Path:
    """``plots/`` beside the metrics: in the run folder, or beside the file given."""
    path = Path(run_path)
    return (path.parent if path.is_file() else path) / PLOTS_DIRNAME


def load_scalars(run_path: str | Path) -> Scalars:
    """Every scalar series of one run: from its TensorBoard event files and its metrics JSONL.

    Event files (and JSONL files) are grouped by folder, one folder being one run; files of one
    folder are merged, as a resumed run appends a new one. Scalars in several folders mean
    several runs (say ``logs/`` holding ``exp_001`` and ``exp_002``), and mixing them would draw
    nonsense, so that is an error naming them. The event files and the JSONL files may lie in
    different folders (NeMo RL's under ``tensorboard/``, the environment's beside it); a tag
    both log is taken from the event files.
    """
    path = Path(run_path)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    if path.is_file():
        if path.name.startswith(EVENT_FILE_GLOB[:-1]):
            return _read_event_files([path])
        if path.suffix == ".jsonl":
            return _read_jsonl_files([path])
        raise ValueError(f"{path} is neither a TensorBoard event file nor a .jsonl file")
    event_files = sorted(path.rglob(EVENT_FILE_GLOB))
    jsonl_files = sorted(p for p in path.rglob("*.jsonl") if not SAMPLE_DUMP.match(p.name))
    merged = {
        **_one_run(path, _by_folder(jsonl_files), _read_jsonl_files),
        **_one_run(path, _by_folder(event_files), _read_event_files),
    }
    found = dict(sorted(merged.items()))
    if not found:
        raise ValueError(
            f"no training metrics under {path}: expected TensorBoard event files ({EVENT_FILE_GLOB}; NeMo RL "
            "writes them under <logger.log_dir>/tensorboard when logger.tensorboard_enabled is true) or a "
            f"metrics JSONL whose rows have a step key ({', '.join(STEP_KEYS)})"
        )
    return found


def matching_tags(scalars: Mapping[str, object], pattern: str) -> list[str]:
    """The tags a pattern names: equal to it, or ending with ``/`` plus it (shell wildcards allowed)."""
    return sorted(tag for tag in scalars if fnmatchcase(tag, pattern) or fnmatchcase(tag, f"*/{pattern}"))


def detect_collapse(scalars: Scalars) -> list[CollapseSignal]:
    """The indicator series that rose and stayed up, earliest first (see ``find_rise``)."""
    signals = []
    for indicator in INDICATORS:
        for tag in matching_tags(scalars, indicator.pattern):
            signal = find_rise(tag, scalars[tag], indicator.rise)
            if signal is not None:
                signals.append(signal)
    for pattern in STALL_PATTERNS:
        for tag in matching_tags(scalars, pattern):
            signal = find_stall(tag, scalars[tag])
            if signal is not None:
                signals.append(signal)
    return sorted(signals, key=lambda signal: (signal.step, signal.tag))


def find_stall(
    tag: str, points: Sequence[tuple[int, float]], level: float = STALL_LEVEL, sustain: int = SUSTAIN_POINTS
) -> CollapseSignal | None:
    """The first step from which ``sustain`` points in a row are at ``level`` or above (a fraction
    of groups without a gradient), or ``None``.

    >>> find_stall("frac_reward_zero_std", [(1, 0.1), (2, 0.9), (3, 0.85), (4, 1.0), (5, 0.2)]).step
    2
    """
    for index in range(len(points) - sustain + 1):
        if all(value >= level for _, value in points[index : index + sustain]):
            step, value = points[index]
            return CollapseSignal(tag=tag, step=step, baseline=level, value=value, kind="stall")
    return None


def find_rise(
    tag: str, points: Sequence[tuple[int, float]], rise: float, sustain: int = SUSTAIN_POINTS
) -> CollapseSignal | None:
    """The first step from which ``sustain`` points in a row lie ``rise`` or more above the early level.

    The early level is the median of the run's first points (a tenth of them, 3 to 10): it is
    measured against the start rather than a moving window, because a moving window follows a
    slow collapse up and never fires. A series too short to have both an early level and a
    sustained rise gives ``None``.
    """
    window = min(10, max(3, len(points) // 10))
    if len(points) < window + sustain:
        return None
    baseline = median(value for _, value in points[:window])
    for index in range(window, len(points) - sustain + 1):
        if all(value >= baseline + rise for _, value in points[index : index + sustain]):
            step, value = points[index]
            return CollapseSignal(tag=tag, step=step, baseline=baseline, value=value)
    return None


def missing_panels(scalars: Scalars) -> list[Panel]:
    """Panels none of whose tags are in the logs (pass rate too where it only repeats the reward)."""
    return [panel for panel in PANELS if _chosen_tags(panel, scalars) is None]


def write_plots(
    scalars: Scalars, signals: Sequence[CollapseSignal], out_dir: str | Path, title: str = ""
) -> list[Path]:
    """Draw each panel that has data into ``<name>.png``, and all of them into ``overview.png``."""
    return write_run_plots({title: scalars}, {title: list(signals)}, out_dir, title)


def write_run_plots(
    runs: Mapping[str, Scalars],
    signals: Mapping[str, Sequence[CollapseSignal]],
    out_dir: str | Path,
    title: str = "",
) -> list[Path]:
    """``write_plots`` for one or several runs (label -> scalars), overlaid on the same axes."""
    drawn = []
    for panel in PANELS:
        chosen = {label: found for label, scalars in runs.items() if (found := _chosen_tags(panel, scalars))}
        if chosen:
            group = next(iter(chosen.values()))[0]
            drawn.append((panel, group, {label: tags for label, (_, tags) in chosen.items()}))
    if not drawn:
        wanted = ", ".join(pattern for panel in PANELS for pattern in panel.patterns)
        raise ValueError(f"none of the plotted metrics is in the logs (looked for tags matching {wanted})")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for panel, group, tags in drawn:
        figure = Figure(figsize=(8, 4.5), layout="constrained")
        _draw_panel(figure.add_subplot(), panel, group, tags, runs, signals)
        paths.append(_save(figure, out / f"{panel.name}.png"))
    columns = 2 if len(drawn) > 1 else 1
    rows = math.ceil(len(drawn) / columns)
    overview = Figure(figsize=(8 * columns, 4.5 * rows), layout="constrained")
    if title or len(runs) > 1:
        overview.suptitle(title or " vs ".join(runs))
    for index, (panel, group, tags) in enumerate(drawn, start=1):
        _draw_panel(overview.add_subplot(rows, columns, index), panel, group, tags, runs, signals)
    paths.append(_save(overview, out / f"{OVERVIEW_NAME}.png"))
    return paths


def smooth(values: Sequence[float], weight: float = SMOOTHING) -> list[float]:
    """TensorBoard's smoothing: an exponential moving average, corrected for its start at zero.

    >>> [round(v, 3) for v in smooth([1.0, 1.0, 0.0])]
    [1.0, 1.0, 0.49]
    """
    average, out = 0.0, []
    for count, value in enumerate(values, start=1):
        average = average * weight + (1 - weight) * value
        out.append(average / (1 - weight**count))
    return out


def _chosen_tags(panel: Panel, scalars: Scalars) -> tuple[TagGroup, list[str]] | None:
    for group in panel.groups:
        tags = [tag for pattern in group.patterns for tag in matching_tags(scalars, pattern)]
        if panel.name == PASS_RATE_PANEL:
            tags = [tag for tag in tags if not _repeats_reward(tag, scalars)]
        if tags:
            return group, list(dict.fromkeys(tags))
    return None


def _repeats_reward(tag: str, scalars: Scalars) -> bool:
    """Whether a pass-rate series is point for point one of the reward series (a binary reward)."""
    reward = next(panel for panel in PANELS if panel.name == REWARD_PANEL)
    rewards = [t for pattern in reward.patterns for t in matching_tags(scalars, pattern)]
    return any(
        len(scalars[t]) == len(scalars[tag])
        and all(
            s1 == s2 and abs(v1 - v2) < 1e-9
            for (s1, v1), (s2, v2) in zip(scalars[t], scalars[tag], strict=True)
        )
        for t in rewards
    )


def _draw_panel(
    axes: Axes,
    panel: Panel,
    group: TagGroup,
    tags: Mapping[str, Sequence[str]],
    runs: Mapping[str, Scalars],
    signals: Mapping[str, Sequence[CollapseSignal]],
) -> None:
    several = len(runs) > 1
    colors = iter(f"C{index % 10}" for index in range(1000))
    run_colors = {label: f"C{index % 10}" for index, label in enumerate(runs)}
    for label, run_tags in tags.items():
        for tag_index, tag in enumerate(run_tags):
            color = run_colors[label] if several else next(colors)
            name = f"{label}: {tag}" if several else tag
            _draw_series(axes, runs[label][tag], tag, name, color, LINESTYLES[tag_index % len(LINESTYLES)])
    marks: dict[tuple[int, str], dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for label in runs:
        for signal in signals.get(label, ()):
            marks[(signal.step, signal.kind)][label].append(signal.tag.rsplit("/", 1)[-1])
    labelled: set[str] = set()
    for index, ((step, kind), by_run) in enumerate(sorted(marks.items())):
        color = STALL_COLOR if kind == "stall" else COLLAPSE_COLOR
        legend = "most groups give no gradient" if kind == "stall" else "collapse indicators rise"
        axes.axvline(
            step,
            color=color,
            linestyle=":" if kind == "stall" else "--",
            linewidth=1.3,
            label=legend if legend not in labelled else None,
        )
        labelled.add(legend)
        names = [name for found in by_run.values() for name in found]
        if kind == "stall":
            text = f"no gradient in {STALL_LEVEL:.0%}+ of groups"
        else:
            text = names[0] if len(names) == 1 else f"{len(names)} indicators"
        if several:
            text += f" ({', '.join(by_run)})"
        axes.annotate(
            f"step {step}: {text}",
            xy=(step, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(4, -4 - 12 * index),
            textcoords="offset points",
            va="top",
            fontsize=8,
            color=color,
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1},
        )
    if panel.unit_interval:
        axes.set_ylim(-0.02, 1.02)
    axes.set_title(panel.title)
    axes.set_xlabel("step")
    axes.set_ylabel(group.ylabel)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8, loc="best")


def _draw_series(
    axes: Axes, points: Sequence[tuple[int, float]], tag: str, name: str, color: str, linestyle: str
) -> None:
    """Held-out series as points joined thinly; long training series smoothed, the raw trace faint."""
    steps, values = zip(*points, strict=True)
    if HELD_OUT.match(tag):
        axes.plot(
            steps, values, label=f"{name} (held-out)", color=color, linestyle=":", marker="o", markersize=4
        )
    elif len(values) > SMOOTH_MIN_POINTS:
        axes.plot(steps, values, color=color, linestyle=linestyle, linewidth=0.8, alpha=RAW_ALPHA)
        axes.plot(steps, smooth(values), label=name, color=color, linestyle=linestyle, linewidth=1.6)
    else:
        axes.plot(
            steps,
            values,
            label=name,
            color=color,
            linestyle=linestyle,
            linewidth=1.4,
            marker="o",
            markersize=3,
        )


def _save(figure: Figure, path: Path) -> Path:
    """Render with the Agg canvas explicitly: no display is needed, and pyplot's global figure
    registry (which keeps every figure alive until closed) is never involved."""
    FigureCanvasAgg(figure)
    figure.savefig(path, dpi=110)
    return path


def _by_folder(files: Iterable[Path]) -> dict[Path, list[Path]]:
    folders: dict[Path, list[Path]] = defaultdict(list)
    for file in files:
        folders[file.parent].append(file)
    return folders


def _one_run(
    root: Path, folders: Mapping[Path, list[Path]], read: Callable[[Sequence[Path]], Scalars]
) -> Scalars:
    """The scalars of the one folder that has any; empty when none has."""
    runs = {folder: scalars for folder, files in folders.items() if (scalars := read(files))}
    if len(runs) > 1:
        names = ", ".join(str(folder.relative_to(root)) for folder in sorted(runs))
        raise ValueError(f"{root} holds the metrics of several runs ({names}): give one of these folders")
    return next(iter(runs.values()), {})


def _read_event_files(files: Sequence[Path]) -> Scalars:
    """Scalars of the event files of one folder, oldest first, of both kinds TensorBoard writers
    produce: ``simple_value`` (``torch.utils.tensorboard``, which NeMo RL uses) and scalar
    tensors (``tensorboard.summary.Writer``, TF2)."""
    from tensorboard.backend.event_processing import event_accumulator as ea
    from tensorboard.util import tensor_util

    # 0 keeps every point (by default scalars are sampled down to 10,000); 1 keeps only the last
    # of the kinds never drawn, to spare memory.
    guidance = {ea.SCALARS: 0, ea.TENSORS: 0, ea.HISTOGRAMS: 1, ea.IMAGES: 1, ea.AUDIO: 1}
    points: dict[str, dict[int, float]] = defaultdict(dict)
    for file in sorted(files):  # named events.out.tfevents.<unix time>...: name order is time order
        accumulator = ea.EventAccumulator(str(file), size_guidance=guidance)
        accumulator.Reload()
        tags = accumulator.Tags()
        for tag in tags.get(ea.SCALARS, []):
            for event in accumulator.Scalars(tag):
                _append(points[tag], event.step, event.value)
        for tag in tags.get(ea.TENSORS, []):
            if accumulator.SummaryMetadata(tag).plugin_data.plugin_name != "scalars":
                continue
            for event in accumulator.Tensors(tag):
                array = tensor_util.make_ndarray(event.tensor_proto)
                if array.ndim == 0:
                    _append(points[tag], event.step, float(array))
    return _finish(points)


def _read_jsonl_files(files: Sequence[Path]) -> Scalars:
    """Scalars of metrics JSONL files; a file whose first row has no step key is something else
    (a sample dump, a results file) and is skipped without reading further."""
    points: dict[str, dict[int, float]] = defaultdict(dict)
    for file in files:
        with open(file, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        last = max((number for number, line in enumerate(lines, start=1) if line.strip()), default=0)
        first = True
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                if number == last:  # a run still writing, or one that died mid-line
                    logger.warning("%s:%d: skipping the last line, cut short (%s)", file, number, error)
                    break
                raise ValueError(f"{file}:{number}: not JSON ({error})") from error
            step = _step_of(row)
            if step is None and first:
                break
            if step is None:
                raise ValueError(f"{file}:{number}: no step key ({', '.join(STEP_KEYS)})")
            first = False
            for tag, value in _flatten(row):
                if tag not in STEP_KEYS:
                    _append(points[tag], step, value)
    return _finish(points)


def _append(series: dict[int, float], step: int, value: float) -> None:
    """Add a point to a series kept in step order. A step at or before the last one means the
    writer went back (a run resumed from an earlier checkpoint, in a new event file or further
    down the same JSONL): the points it logs again supersede the old ones, and the old attempt's
    later points are stale, so they go too. The same step twice keeps the last value."""
    if series and step <= next(reversed(series)):
        for stale in [logged for logged in series if logged >= step]:
            del series[stale]
    series[step] = value


def _step_of(row: object) -> int | None:
    if not isinstance(row, dict):
        return None
    for key in STEP_KEYS:
        value = row.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return int(value)
    return None


def _flatten(row: Mapping[str, Any], prefix: str = "") -> Iterable[tuple[str, float]]:
    for key, value in row.items():
        tag = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from _flatten(value, f"{tag}/")
        elif isinstance(value, int | float):
            yield tag, float(value)


def _finish(points: Mapping[str, Mapping[int, float]]) -> Scalars:
    """Series without non-finite values (a NaN loss must not break the plot's scale)."""
    scalars = {
        tag: [(step, value) for step, value in by_step.items() if math.isfinite(value)]
        for tag, by_step in points.items()
    }
    return {tag: series for tag, series in sorted(scalars.items()) if series}
