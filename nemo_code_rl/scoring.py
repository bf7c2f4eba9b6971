"""Score a file of completions against a file of problems: the ``nemo-code-rl score`` command.

Results keep the completions' order, one row per completion, so they can be joined back by
``index`` (the position among the non-empty lines of the completions file).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nemo_code_rl.outcomes import Verdict
from nemo_code_rl.passk import pass_at_k_table
from nemo_code_rl.problems import Problem
from nemo_code_rl.rewards import REWARD_VERSION
from nemo_code_rl.verification import Verifier


class CompletionsError(ValueError):
    """A completions file that cannot be read; the message names the line."""


@dataclass(frozen=True)
class Completion:
    id: str
    completion: str
    index: int
    sample: int


def read_completions(path: str | Path) -> list[Completion]:
    """Rows ``{"id": ..., "completion": ...}``; ``index`` counts non-empty lines, ``sample`` per id."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        lines = [(number, line) for number, line in enumerate(handle, start=1) if line.strip()]
    for number, line in lines:
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CompletionsError(f"{path}: line {number}: not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict) or "completion" not in row or "id" not in row:
            raise CompletionsError(f'{path}: line {number}: expected an object with "id" and "completion"')
        if not isinstance(row["completion"], str):
            raise CompletionsError(f'{path}: line {number}: "completion" must be a string')
        rows.append(row)
    return number_completions(rows)


def number_completions(rows: Iterable[Mapping[str, Any]]) -> list[Completion]:
    counts: Counter[str] = Counter()
    completions = []
    for index, row in enumerate(rows):
        key = str(row["id"])
        completions.append(Completion(key, row["completion"], index, counts[key]))
        counts[key] += 1
    return completions


def score(
    problems: Sequence[Problem],
    completions: Sequence[Completion],
    verifier: Verifier,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """One result row per completion, in order (see the module doc for the fields)."""
    by_id = {p.id: p for p in problems}
    known = [c for c in completions if c.id in by_id]
    verified = iter(verifier.verify_batch([(by_id[c.id], c.completion) for c in known], progress=progress))
    rows = []
    for completion in completions:
        base = {"id": completion.id, "index": completion.index, "sample": completion.sample}
        if completion.id not in by_id:
            rows.append(
                {
                    **base,
                    "reward": None,
                    "passed": None,
                    "tests": [{"verdict": Verdict.UNKNOWN_PROBLEM}],
                    "reward_version": REWARD_VERSION,
                }
            )
            continue
        result = next(verified).to_dict()
        result.pop("problem_id")
        rows.append({**base, **result})
    return rows


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """pass@k for each k the data allows, mean reward, and counts of every verdict."""
    per_problem: dict[str, list[bool]] = defaultdict(list)
    verdicts: Counter[str] = Counter()
    rewards = []
    for row in rows:
        verdicts.update(t["verdict"] for t in row["tests"])
        if row.get("format_ok") is False:
            verdicts["no_code"] += 1
        if row["passed"] is not None:
            per_problem[row["id"]].append(bool(row["passed"]))
            rewards.append(row["reward"])
    return {
        "completions": len(rows),
        "problems": len(per_problem),
        "pass_at_k": pass_at_k_table(list(per_problem.values())) if per_problem else {},
        "mean_reward": sum(rewards) / len(rewards) if rewards else None,
        "infra_faults": sum(1 for row in rows if row.get("infra_fault")),
        "verdicts": dict(sorted(verdicts.items())),
    }


def format_summary(summary: Mapping[str, Any]) -> str:
    lines = [f"{summary['completions']} completions of {summary['problems']} problems"]
    for k, value in summary["pass_at_k"].items():
        lines.append(f"  pass@{k:<4} {value:7.2%}")
    if summary["mean_reward"] is not None:
        lines.append(f"  mean reward {summary['mean_reward']:.4f}")
    if summary["infra_faults"]:
        lines.append(f"  infrastructure faults (not scored): {summary['infra_faults']}")
    lines.append("  verdicts: " + ", ".join(f"{k}={v}" for k, v in summary["verdicts"].items()))
    return "\n".join(lines)


def write_results(rows: Iterable[Mapping[str, Any]], path: str | Path) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


def default_results_path(completions_path: str | Path) -> Path:
    path = Path(completions_path)
    return path.with_name(f"{path.stem}.results.jsonl")
