"""An evaluation's summary of coding problems: pass@k overall and per source and difficulty.

Built on ``score``'s own summary (``unit_tests.scoring.summarize``: what was judged, verdicts, what was not
judged), with pass@k at the requested ``k`` (those up to the samples per problem) over every
problem and over each group of ``problem_set.GROUP_FIELDS`` the data has, and how many
completions ran out of tokens. Written as ``summary.json`` and as a Markdown table.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from nemo_code_rl.passk import pass_at_k_table
from nemo_code_rl.unit_tests.scoring import summarize

ALL = "all"


def eval_summary(
    rows: Sequence[Mapping[str, Any]],
    groups: Mapping[str, Mapping[str, str]],
    ks: Sequence[int],
    finish_reasons: Sequence[str],
) -> dict[str, Any]:
    """``score``'s summary of ``rows`` plus ``table``: per group (``all``, ``source=...``,
    ``difficulty=...``) its number of problems and pass@k; and ``finish_reasons`` counted."""
    per_problem: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        if row["passed"] is not None:
            per_problem[str(row["id"])].append(bool(row["passed"]))
    members: dict[str, list[str]] = {ALL: sorted(per_problem)}
    for problem_id in sorted(per_problem):
        for name, value in sorted(groups.get(problem_id, {}).items()):
            members.setdefault(f"{name}={value}", []).append(problem_id)
    table = {
        group: {"problems": len(ids), "pass_at_k": pass_at_k_table([per_problem[i] for i in ids], ks)}
        for group, ids in members.items()
        if ids
    }
    summary = summarize(rows)
    summary["pass_at_k"] = table[ALL]["pass_at_k"] if ALL in table else {}
    summary["table"] = table
    summary["finish_reasons"] = dict(sorted(Counter(finish_reasons).items()))
    return summary


def format_table(summary: Mapping[str, Any]) -> str:
    """The table as Markdown: one row per group, one column per k."""
    table = summary["table"]
    ks = sorted({k for entry in table.values() for k in entry["pass_at_k"]})
    lines = [
        "| group | problems | " + " | ".join(f"pass@{k}" for k in ks) + " |",
        "|---|---:|" + "---:|" * len(ks),
    ]
    for group, entry in table.items():
        cells = [f"{entry['pass_at_k'][k]:.2%}" if k in entry["pass_at_k"] else "" for k in ks]
        lines.append(f"| {group} | {entry['problems']} | " + " | ".join(cells) + " |")
    judged = f"{summary['judged']} of {summary['completions']} completions judged"
    if summary["not_judged"]:
        judged += " (not judged: " + ", ".join(f"{k}={v}" for k, v in summary["not_judged"].items()) + ")"
    reasons = ", ".join(f"{k}={v}" for k, v in summary["finish_reasons"].items())
    verdicts = ", ".join(f"{k}={v}" for k, v in summary["verdicts"].items())
    return "\n".join([*lines, "", f"{judged}; generation ended: {reasons}; verdicts: {verdicts}"])
