"""Score a file of completions against a file of problems: the ``nemo-code-rl score`` command.

Results keep the completions' order, one row per completion, so they can be joined back by
``index`` (the position among the non-empty lines of the completions file). Every row has a
``status`` (``nemo_code_rl.outcomes.AttemptStatus``): ``judged`` and ``no_code`` rows count in
pass@k; ``unknown_problem``, ``bad_input`` and ``infra_fault`` rows have ``passed: null``, are
counted apart and reported (``input_warnings``), so nothing is dropped and nothing is silent.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from itertools import chain
from operator import itemgetter
from typing import Any

from nemo_code_rl.outcomes import AttemptStatus
from nemo_code_rl.passk import pass_at_k_table
from nemo_code_rl.progress import progress_bar
from nemo_code_rl.results_files import Completion, ResultsFile, input_warnings, unjudged_row
from nemo_code_rl.rows import RowError
from nemo_code_rl.unit_tests.problems import Problem
from nemo_code_rl.unit_tests.rewards import REWARD_VERSION
from nemo_code_rl.unit_tests.verification import Verification, Verifier


def score_to_file(
    results: ResultsFile,
    open_verifier: Callable[[], AbstractContextManager[Verifier]],
    problems: Sequence[Problem],
    completions: Sequence[Completion],
    command: str,
    quiet: bool = False,
    problem_errors: Sequence[RowError] = (),
) -> tuple[list[dict[str, Any]], list[str]] | None:
    """``score`` into ``results`` as the ``score`` and ``eval`` commands do: each row appended as
    its program finishes (rows already there are kept, not judged again), a progress bar, then
    the input warnings printed as ``command``'s. The rows and those warnings; ``None`` after
    Ctrl-C (``ResultsFile.collect`` has told the user). ``open_verifier()`` is entered only here,
    so a backend still starting is waited for as late as possible."""
    update, close = progress_bar("scoring", enabled=not quiet)

    def judge() -> list[dict[str, Any]]:
        with open_verifier() as verifier:
            return score(
                problems,
                completions,
                verifier,
                progress=update,
                problem_errors=problem_errors,
                on_row=results.append,
                done=results.done,
            )

    try:
        rows = results.collect(judge, command)
    finally:
        close()
    if rows is None:
        return None
    if results.done:
        sys.stderr.write(
            f"nemo-code-rl {command}: resumed {results.path}: {len(results.done)} rows kept as they were, "
            f"{len(rows) - len(results.done)} judged now\n"
        )
    warnings = input_warnings(completions, [row["status"] for row in rows], problem_errors)
    for warning in warnings:
        sys.stderr.write(f"nemo-code-rl {command}: warning: {warning}\n")
    return rows, warnings


def score(
    problems: Sequence[Problem],
    completions: Sequence[Completion],
    verifier: Verifier,
    progress: Callable[[int, int], None] | None = None,
    problem_errors: Sequence[RowError] = (),
    on_row: Callable[[dict[str, Any]], None] | None = None,
    done: Mapping[int, dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """One result row per completion, in order (see the module doc for the fields).

    Only completions of known problems reach the sandbox; the others get a row with ``status``
    ``unknown_problem`` or ``bad_input`` (their problem row, or their own line, is unusable) and
    ``passed: null``, so they are counted apart and never enter pass@k. ``on_row(row)`` gets each
    new row as soon as it is known (as its program finishes); ``done`` holds rows of an earlier
    run by ``index``, kept as they are and not judged again. ``progress(done, total)`` counts
    rows, those of ``done`` included.
    """
    by_id = {p.id: p for p in problems}
    bad_problems = {e.problem_id: e for e in problem_errors if e.problem_id is not None}
    rows: dict[int, dict[str, Any]] = dict(done or {})
    total = len(completions)

    def emit(row: dict[str, Any]) -> None:
        rows[row["index"]] = row
        if on_row is not None:
            on_row(row)
        if progress is not None:
            progress(len(rows), total)

    if progress is not None:
        progress(len(rows), total)
    known = []
    for completion in completions:
        if completion.index in rows:
            continue
        if completion.error:
            emit(unjudged_row(completion, AttemptStatus.BAD_INPUT, completion.error, REWARD_VERSION))
        elif completion.id in bad_problems:
            error = bad_problems[completion.id]
            reason = f"its problem row ({error.where}) cannot be used: {error.reason}"
            emit(unjudged_row(completion, AttemptStatus.BAD_INPUT, reason, REWARD_VERSION))
        elif completion.id not in by_id:
            emit(
                unjudged_row(
                    completion, AttemptStatus.UNKNOWN_PROBLEM, "no problem with this id", REWARD_VERSION
                )
            )
        else:
            known.append(completion)

    def judged(position: int, verification: Verification) -> None:
        completion = known[position]
        result = verification.to_dict()
        result.pop("problem_id")
        base = {"id": completion.id, "index": completion.index, "sample": completion.sample}
        emit({**base, "status": _status(result), **result})

    verifier.verify_batch([(by_id[str(c.id)], c.completion) for c in known], on_verified=judged)
    return [rows[completion.index] for completion in completions]


def _status(result: Mapping[str, Any]) -> str:
    if result["infra_fault"]:
        return AttemptStatus.INFRA_FAULT.value
    if not result["format_ok"]:
        return AttemptStatus.NO_CODE.value
    return AttemptStatus.JUDGED.value


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """pass@k over the judged completions, mean reward, verdict counts, and what was not judged.

    A completion is judged when it got a verdict on the model's account (``passed`` is true or
    false: a wrong or missing program included); ``not_judged`` counts the others by status
    (``unknown_problem``, ``bad_input``, ``infra_fault``).
    """
    per_problem: dict[str, list[bool]] = defaultdict(list)
    # one count over every test of every row (a count per row was a quarter of the summary's
    # time, which the user waits for: 0.3 s on 50,000 rows of 10 tests on the 16-core host)
    verdicts = Counter(map(itemgetter("verdict"), chain.from_iterable(row["tests"] for row in rows)))
    no_code = sum(row.get("format_ok") is False for row in rows)
    if no_code:
        verdicts["no_code"] += no_code
    not_judged: Counter[str] = Counter()
    rewards = []
    for row in rows:
        if row["passed"] is not None:
            per_problem[row["id"]].append(bool(row["passed"]))
            rewards.append(row["reward"])
        else:
            not_judged[row.get("status") or AttemptStatus.INFRA_FAULT] += 1
    return {
        "completions": len(rows),
        "judged": len(rewards),
        "problems": len(per_problem),
        "not_judged": dict(sorted(not_judged.items())),
        "pass_at_k": pass_at_k_table(list(per_problem.values())) if per_problem else {},
        "mean_reward": sum(rewards) / len(rewards) if rewards else None,
        "verdicts": dict(sorted(verdicts.items())),
    }


def format_summary(summary: Mapping[str, Any]) -> str:
    """The summary for people: what was judged first, then pass@k over exactly that."""
    lines = [
        f"{summary['completions']} completions: {summary['judged']} judged ({summary['problems']} problems)"
    ]
    if summary["not_judged"]:
        counts = ", ".join(f"{k}={v}" for k, v in summary["not_judged"].items())
        lines[0] += f"; {summary['completions'] - summary['judged']} NOT judged ({counts}), not in pass@k"
    if summary["pass_at_k"]:
        lines.append(f"  pass@k over the {summary['judged']} judged completions:")
    for k, value in summary["pass_at_k"].items():
        lines.append(f"  pass@{k:<4} {value:7.2%}")
    if summary["mean_reward"] is not None:
        lines.append(f"  mean reward {summary['mean_reward']:.4f}")
    lines.append("  verdicts: " + ", ".join(f"{k}={v}" for k, v in summary["verdicts"].items()))
    return "\n".join(lines)
