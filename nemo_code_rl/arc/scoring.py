"""Score completions of ARC tasks: the RESULTS rows and the summary of ``nemo-code-rl score`` on ARC.

One row per completion, in order: ``id``, ``index``, ``sample``, ``reward``, ``passed`` (every
test output exactly right; null when the task's test outputs are unknown), ``verdict`` and
``message`` (what became of the program and why, in the words of ``nemo_code_rl.outcomes``:
``passed``, ``wrong_answer``, ``timeout``, ``runtime_error`` with the exception's last line,
``missing_module``, ``invalid_output`` with why the grid is invalid, ``syntax_error``,
``no_code``, ...), ``train_accuracy``
(fraction of train pairs exactly right), ``predictions`` (one grid or null per test input), and
``format_ok``, ``valid_code``, ``valid_outputs``, ``outputs_hash``, ``train_pixel_score``,
``test_pixel_score``, ``test_correct_grids``, ``infra_fault``, ``error``, ``code``,
``reward_version``. Predictions made on an augmented view of a task are mapped back to the task.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from nemo_code_rl.arc.augment import Augmentation
from nemo_code_rl.arc.metrics import ARC25_COLUMNS, ArcOutcome, arc25_table, arc_metrics, per_task_passes
from nemo_code_rl.arc.rewards import ARC_REWARD_VERSION
from nemo_code_rl.arc.submission import build_submission, submission_score
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.arc.verifier import ArcVerification, ArcVerifier
from nemo_code_rl.outcomes import Verdict
from nemo_code_rl.passk import pass_at_k_table
from nemo_code_rl.results_files import Completion


def score_arc(
    tasks: Sequence[ArcTask],
    completions: Sequence[Completion],
    verifier: ArcVerifier,
    progress: Callable[[int, int], None] | None = None,
    augmentations: Sequence[Augmentation | None] | None = None,
) -> list[dict[str, Any]]:
    """One RESULTS row per completion (see the module doc).

    Args:
        augmentations: per completion, the augmentation of the task it was prompted with (its
            program is run on that view, and its predictions are mapped back), or ``None``.
    """
    by_id = {task.id: task for task in tasks}
    views = list(augmentations) if augmentations is not None else [None] * len(completions)
    if len(views) != len(completions):
        raise ValueError(f"{len(views)} augmentations for {len(completions)} completions")
    known = [(c, a) for c, a in zip(completions, views, strict=True) if c.id in by_id]
    jobs = [(a.apply_task(by_id[str(c.id)]) if a else by_id[str(c.id)], c.completion) for c, a in known]
    verified = iter(verifier.verify_batch(jobs, progress=progress))
    rows = []
    for completion, augmentation in zip(completions, views, strict=True):
        base = {"id": completion.id, "index": completion.index, "sample": completion.sample}
        if completion.id not in by_id:
            rows.append(
                {
                    **base,
                    "reward": None,
                    "passed": None,
                    "verdict": Verdict.UNKNOWN_PROBLEM,
                    "message": f"no task {completion.id!r} in the problems",
                    "error": Verdict.UNKNOWN_PROBLEM,
                }
            )
        else:
            rows.append({**base, **result_fields(next(verified), augmentation)})
    return rows


def result_fields(verification: ArcVerification, augmentation: Augmentation | None = None) -> dict[str, Any]:
    """A verification as RESULTS fields, its predictions in the original task's frame."""
    outcome = asdict(verification.outcome())
    outcome.pop("task_id")
    predictions = verification.predictions
    if augmentation is not None:
        predictions = [None if grid is None else augmentation.invert(grid) for grid in predictions]
    return {
        **outcome,
        "verdict": verification.verdict,
        "message": verification.message,
        "predictions": predictions,
        "format_ok": verification.format_ok,
        "error": verification.error,
        "code": verification.code,
        "reward_version": verification.reward_version,
    }


def summarize_arc(rows: Sequence[Mapping[str, Any]], tasks: Sequence[ArcTask]) -> dict[str, Any]:
    """arc25's table, our ARC metrics, unbiased pass@k, the score of the two-attempt submission
    the rows make, and the tasks of ``tasks`` that have no completion at all (e.g. left out for
    their prompt length): listed, and counted as unsolved in ``solved_of_all_tasks``."""
    outcomes = [ArcOutcome.from_row(row) for row in rows if row.get("error") != Verdict.UNKNOWN_PROBLEM]
    passes = per_task_passes(outcomes)
    scored_ids = {outcome.task_id for outcome in outcomes}
    scored = [task for task in tasks if task.id in scored_ids]
    solved = sum(any(flags) for flags in passes.values())
    return {
        "completions": len(rows),
        "unknown_tasks": sum(1 for row in rows if row.get("error") == Verdict.UNKNOWN_PROBLEM),
        "tasks_without_completions": [task.id for task in tasks if task.id not in scored_ids],
        "solved_of_all_tasks": solved / len(tasks) if tasks else 0.0,
        "table": arc25_table(outcomes),
        "metrics": arc_metrics(outcomes),
        "pass_at_k": pass_at_k_table(passes) if passes else {},
        "submission_score": submission_score(build_submission(rows, scored), scored),
        "reward_version": ARC_REWARD_VERSION,
    }


def format_arc_summary(summary: Mapping[str, Any]) -> str:
    """The summary as arc25's table (task averages, one column per line), then pass@n and pass@k."""
    metrics, table = summary["metrics"], summary["table"]
    lines = [f"{summary['completions']} completions of {int(metrics['tasks'])} ARC tasks"]
    if summary["unknown_tasks"]:
        lines.append(f"  completions of unknown tasks (not scored): {summary['unknown_tasks']}")
    missing = summary["tasks_without_completions"]
    if missing:
        listed = ", ".join(missing[:20]) + (f", ... ({len(missing) - 20} more)" if len(missing) > 20 else "")
        lines.append(f"  tasks without completions (unsolved below): {len(missing)}: {listed}")
    for key in ARC25_COLUMNS:
        if key in table:
            value = f"{table[key]:7.2f}" if key == "n_preds" else f"{table[key]:7.2%}"
            lines.append(f"  {key:<20} {value}")
    for key in ("train_pass@n", "pass@n"):
        if key in metrics:
            lines.append(f"  {key:<20} {metrics[key]:7.2%}")
    if missing and "pass@n" in metrics:
        lines.append(f"  {'solved, all tasks':<20} {summary['solved_of_all_tasks']:7.2%}")
    for k, value in summary["pass_at_k"].items():
        lines.append(f"  {'pass@' + str(k):<20} {value:7.2%}")
    if summary["submission_score"] is not None:
        lines.append(f"  {'submission (2 tries)':<20} {summary['submission_score']:7.2%}")
    lines.append(f"  {'mean reward':<20} {metrics['mean_reward']:7.4f}")
    if metrics["infra_faults"]:
        lines.append(f"  infrastructure faults (not scored): {int(metrics['infra_faults'])}")
    return "\n".join(lines)
