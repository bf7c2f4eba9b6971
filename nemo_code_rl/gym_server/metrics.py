"""``/aggregate_metrics``: Gym's metric names, computed from verify responses without pandas.

Gym aggregates in two parts, and both apps here answer with the same names:

- baseline statistics (``mean/``, ``max/``, ``min/``, ``median/``, ``std/`` of every numeric field
  of the responses, and of the response's token usage), per task and over all rollouts. Under Gym's
  base classes Gym computes these itself; ``aggregate_metrics`` does it for the standalone app.
- the family's task metrics (``task_metrics``): ``code_gen``'s ``pass@k`` (unbiased),
  ``pass@1[avg-of-k]``, ``majority@k`` and ``no_answer``, in percent, overall and per
  ``difficulty``, with what counts as right (``accuracy``) and as the answer voted on the
  family's (``GymFamily.solved`` / ``answer``: for unit tests ``code_gen``'s reward > 0 and
  extracted code), and the family's own metrics beside (ARC's table); ``key_metrics`` picks the
  headline ones.

Rows flagged as infrastructure faults (``_ng_failure_class``) say nothing about the policy and are
left out, as Gym's rollout collection leaves them out of its results file.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from statistics import fmean, median, stdev
from typing import TYPE_CHECKING, Any

from nemo_code_rl.gym_server.models import AggregateMetrics
from nemo_code_rl.gym_server.service import FAILURE_CLASS_KEY
from nemo_code_rl.passk import pass_at_k

if TYPE_CHECKING:
    from nemo_code_rl.gym_server.family_io import GymFamily

TASK_INDEX_KEY = "_ng_task_index"
ROLLOUT_INDEX_KEY = "_ng_rollout_index"
SUBSET_KEY = "difficulty"

_STATISTICS: dict[str, Callable[[list[float]], float]] = {
    "mean": fmean,
    "max": max,
    "min": min,
    "median": median,
    "std": lambda values: stdev(values) if len(values) > 1 else 0.0,
}


def aggregate_metrics(verify_responses: Sequence[Mapping[str, Any]], family: GymFamily) -> AggregateMetrics:
    """The answer to ``/aggregate_metrics`` for the standalone app serving ``family``."""
    rows = [row for row in verify_responses if row.get(FAILURE_CLASS_KEY) is None]
    if not rows:
        return AggregateMetrics()
    tasks = group_by_task(rows)
    group_level = []
    for task_index, task_rows in sorted(tasks.items()):
        group: dict[str, float] = {TASK_INDEX_KEY: task_index, "num_rollouts": len(task_rows)}
        group.update(baseline_statistics(task_rows))
        group_level.append(group)
    agent_metrics = baseline_statistics(rows)
    agent_metrics.update(task_metrics([tasks[index] for index in sorted(tasks)], family))
    return AggregateMetrics(
        group_level_metrics=group_level, agent_metrics=agent_metrics, key_metrics=key_metrics(agent_metrics)
    )


def group_by_task(rows: Sequence[Mapping[str, Any]]) -> dict[int, list[Mapping[str, Any]]]:
    """Rollouts by Gym's task index (0 when absent), each task's in rollout order."""
    tasks: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        tasks[row.get(TASK_INDEX_KEY, 0)].append(row)
    return {
        index: sorted(task_rows, key=lambda row: row.get(ROLLOUT_INDEX_KEY, 0))
        for index, task_rows in tasks.items()
    }


def baseline_statistics(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """``<statistic>/<field>`` for each numeric field (booleans count as 0 / 1)."""
    values: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for name, value in _numeric_fields(row).items():
            values[name].append(value)
    return {
        f"{statistic}/{name}": float(function(column))
        for name, column in values.items()
        for statistic, function in _STATISTICS.items()
    }


def task_metrics(tasks: Sequence[Sequence[Mapping[str, Any]]], family: GymFamily) -> dict[str, float]:
    """The task metrics of ``family`` over ``tasks`` (each a task's rollouts): ``code_gen``'s,
    overall and per difficulty (``pass_metrics``), and the family's own."""
    responses = [row for rollouts in tasks for row in rollouts]
    return {**pass_metrics(tasks, family), **family.own_metrics(responses)}


def pass_metrics(tasks: Sequence[Sequence[Mapping[str, Any]]], family: GymFamily) -> dict[str, float]:
    """``code_gen``'s task metrics over ``tasks``, and per difficulty, judged as ``family`` says."""
    metrics = _pass_metrics(tasks, family)
    subsets: dict[str, list[Sequence[Mapping[str, Any]]]] = defaultdict(list)
    for rollouts in tasks:
        if rollouts and rollouts[0].get(SUBSET_KEY):
            subsets[str(rollouts[0][SUBSET_KEY])].append(rollouts)
    for subset, subset_tasks in sorted(subsets.items()):
        metrics.update(
            {f"{subset}/{key}": value for key, value in _pass_metrics(subset_tasks, family).items()}
        )
    return metrics


def key_metrics(agent_metrics: Mapping[str, Any]) -> dict[str, Any]:
    """The headline metrics: token means, and accuracy at the highest k, overall and per subset."""
    key = {
        name: agent_metrics[name]
        for name in ("mean/input_tokens", "mean/output_tokens")
        if name in agent_metrics
    }
    subsets = {name.split("/pass@")[0] for name in agent_metrics if "/pass@" in name}
    for prefix in ("", *sorted(f"{subset}/" for subset in subsets)):
        patterns = ("pass@1[avg-of-{k}]",) if prefix else ("pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}")
        for pattern in patterns:
            key.update(_highest_k(agent_metrics, prefix + pattern + "/accuracy"))
    return key


def _pass_metrics(tasks: Sequence[Sequence[Mapping[str, Any]]], family: GymFamily) -> dict[str, float]:
    tasks = [rollouts for rollouts in tasks if rollouts]
    if not tasks:
        return {}
    answers = [[family.answer(row) for row in rollouts] for rollouts in tasks]
    scores = [
        [
            {"accuracy": int(family.solved(row)), "no_answer": int(answer is None)}
            for row, answer in zip(rollouts, task_answers, strict=True)
        ]
        for rollouts, task_answers in zip(tasks, answers, strict=True)
    ]
    metrics: dict[str, float] = {}
    for k in range(1, max(len(rollouts) for rollouts in tasks) + 1):
        for name in ("accuracy", "no_answer"):
            values = [[score[name] for score in task] for task in scores]
            passing = [pass_at_k(len(v), sum(v), k) for v in values if len(v) >= k]
            if passing:
                metrics[f"pass@{k}/{name}"] = 100.0 * fmean(passing)
            metrics[f"pass@1[avg-of-{k}]/{name}"] = 100.0 * fmean(fmean(v[:k]) for v in values)
        majority = [
            _majority(task_answers[:k], [score["accuracy"] for score in task[:k]])
            for task_answers, task in zip(answers, scores, strict=True)
        ]
        metrics[f"majority@{k}/accuracy"] = 100.0 * fmean(majority)
    return metrics


def _majority(answers: Sequence[Any], scores: Sequence[int]) -> float:
    """The score of the most frequent answer (ties: their mean score); 0 when none was given."""
    votes = Counter(
        (answer, score) for answer, score in zip(answers, scores, strict=True) if answer is not None
    )
    if not votes:
        return 0.0
    top = max(votes.values())
    return fmean(score for (_, score), count in votes.items() if count == top)


def _highest_k(metrics: Mapping[str, Any], pattern: str) -> dict[str, Any]:
    regex = re.compile("^" + re.escape(pattern).replace(re.escape("{k}"), r"(\d+)") + "$")
    found = {int(match.group(1)): name for name in metrics if (match := regex.match(name))}
    if not found:
        return {}
    name = found[max(found)]
    return {name: metrics[name]}


def _numeric_fields(row: Mapping[str, Any]) -> dict[str, float]:
    response = row.get("response")
    usage = response.get("usage") if isinstance(response, Mapping) else None
    merged = {**row, **(usage if isinstance(usage, Mapping) else {})}
    return {
        name: float(value)
        for name, value in merged.items()
        if name not in (TASK_INDEX_KEY, ROLLOUT_INDEX_KEY)
        and isinstance(value, (int, float))
        and not (isinstance(value, float) and value != value)
    }
