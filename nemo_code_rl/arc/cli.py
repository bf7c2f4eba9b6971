"""ARC parts of the ``nemo-code-rl`` command: scoring ARC completions, and Kaggle submissions.

``nemo-code-rl score`` hands a problems source over to ``score_rows_if_arc`` first; it scores the
completions when the source holds ARC tasks and answers ``None`` otherwise.

``nemo-code-rl arc-submission RESULTS.jsonl [-o submission.json] [--validate CHALLENGES.json]``
writes a Kaggle submission from scored ARC completions; with ``--validate`` the submission covers
exactly the challenges' tasks (placeholders where nothing was predicted) and is checked against
them. ``nemo-code-rl arc-submission SUBMISSION.json --validate CHALLENGES.json`` only checks an
existing submission. Defects are listed on stderr and the exit status is 1. Tasks without a
prediction are named in a warning; results that hold no ARC predictions are an error; an existing
OUTPUT is never replaced by a submission that lacks some of its tasks or predictions, unless
``--force`` is given.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nemo_code_rl.engine import Limits
from nemo_code_rl.engine.backend import BackendKind
from nemo_code_rl.extraction import ExtractionConfig
from nemo_code_rl.outcomes import AttemptStatus
from nemo_code_rl.rows import ProblemFormatError

MAX_LISTED_ERRORS = 50
MAX_LISTED_IDS = 10


def score_rows_if_arc(
    problems: str,
    completions: str,
    output: str | None = None,
    *,
    workers: int | None = None,
    isolation: str = "full",
    backend: BackendKind = "process",
    extraction: ExtractionConfig | None = None,
    timeout_s: float | None = None,
    memory_mb: int | None = None,
    quiet: bool = False,
    strict: bool = False,
    helper: str | None = None,
) -> int | None:
    """Score ``completions`` against the ARC tasks in ``problems``; ``None`` when they are not ARC.

    Writes the RESULTS rows (default ``<completions stem>.results.jsonl``), prints the ARC table
    and returns the exit status: 1 with ``strict`` when a completion was not judged (a bad line or
    an unknown task, each named in a warning). ``timeout_s`` is the time limit per grid (``None``:
    ``ArcExecutionConfig``'s); ``helper`` the helper library programs can import
    (``ArcExecutionConfig.helper``; ``None``: our BARC-compatible ``common``); ``backend`` where
    programs run (``make_backend``).
    """
    from nemo_code_rl import results_files
    from nemo_code_rl.arc.data import is_arc_source, load_arc_tasks
    from nemo_code_rl.arc.execution import ArcExecutionConfig
    from nemo_code_rl.arc.rewards import ARC_REWARD_VERSION
    from nemo_code_rl.arc.scoring import format_arc_summary, score_arc, summarize_arc
    from nemo_code_rl.arc.verifier import ArcVerifier, ArcVerifierConfig
    from nemo_code_rl.progress import progress_bar

    if not is_arc_source(problems):
        return None
    tasks = load_arc_tasks(problems)
    read = results_files.read_completions(completions)
    if all(c.error for c in read):
        raise results_files.CompletionsError(f"{completions}: no completions could be read")
    rows = [c for c in read if not c.error]
    limits = Limits() if memory_mb is None else Limits(memory_bytes=memory_mb * 2**20)
    config = ArcVerifierConfig(
        extraction=extraction or ExtractionConfig(),
        execution=ArcExecutionConfig(
            limits=limits, helper=helper, timeout_s=timeout_s or ArcExecutionConfig().timeout_s
        ),
    )
    destination = Path(output) if output else results_files.default_results_path(completions)
    update, close = progress_bar("scoring ARC", enabled=not quiet)
    with ArcVerifier(config, workers=workers, isolation=isolation, backend=backend) as verifier:
        try:
            results = score_arc(tasks, rows, verifier, progress=update)
        finally:
            close()
    # Lines that are not completions keep their place in RESULTS, as bad_input rows.
    bad = [
        results_files.unjudged_row(c, AttemptStatus.BAD_INPUT, c.error, ARC_REWARD_VERSION)
        for c in read
        if c.error
    ]
    results = sorted([*results, *bad], key=lambda row: row["index"])
    results_files.write_results(results, destination)
    statuses = [
        AttemptStatus.UNKNOWN_PROBLEM
        if row.get("error") == AttemptStatus.UNKNOWN_PROBLEM
        else row.get("status", AttemptStatus.JUDGED)
        for row in results
    ]
    warnings = results_files.input_warnings(read, statuses)
    for warning in warnings:
        sys.stderr.write(f"nemo-code-rl score: warning: {warning}\n")
    scored = [row for row in results if row.get("status") != AttemptStatus.BAD_INPUT]
    sys.stdout.write(format_arc_summary(summarize_arc(scored, tasks)) + f"\nresults: {destination}\n")
    if strict and (warnings or any(row.get("infra_fault") for row in results)):
        sys.stderr.write("nemo-code-rl score: --strict: not everything was judged\n")
        return 1
    return 0


def add_subcommands(subparsers: argparse._SubParsersAction) -> None:
    """Add ``arc-submission`` to the ``nemo-code-rl`` command's subcommands."""
    parser = subparsers.add_parser(
        "arc-submission",
        help="write (and check) a Kaggle ARC Prize submission from scored ARC completions",
        description="Write a Kaggle submission.json from the RESULTS.jsonl of `nemo-code-rl score` on ARC "
        "tasks: two attempts per test input, chosen by train accuracy, then by votes among identical "
        "predictions. Given a .json submission instead, only check it (needs --validate).",
    )
    parser.add_argument(
        "results", help="RESULTS.jsonl of scored ARC completions, or a submission .json to check"
    )
    parser.add_argument("-o", "--output", default="submission.json", help="where to write the submission")
    parser.add_argument(
        "--validate",
        metavar="CHALLENGES",
        help="a Kaggle *_challenges.json (or any ARC source): cover exactly its tasks, check the submission",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace OUTPUT even when it holds tasks or predictions the new submission lacks",
    )
    parser.set_defaults(handler=run_submission)


def run_submission(args: argparse.Namespace) -> int:
    """The ``arc-submission`` command (see the module doc)."""
    from nemo_code_rl.arc.data import load_arc_tasks, read_json
    from nemo_code_rl.arc.submission import (
        build_submission,
        lost_by_replacing,
        predicted_tasks,
        validate_submission,
    )

    tasks = load_arc_tasks(args.validate) if args.validate else None
    source = Path(args.results)
    if source.suffix == ".json":
        if tasks is None:
            raise SystemExit(
                "nemo-code-rl arc-submission: checking a submission .json needs --validate CHALLENGES"
            )
        return _report(validate_submission(read_json(source), tasks), source)
    rows = _read_results(source)
    if not any("predictions" in row for row in rows):
        raise ProblemFormatError(
            "no row has ARC predictions: pass the RESULTS of `nemo-code-rl score` on ARC tasks",
            location=str(source),
        )
    submission = build_submission(rows, tasks)
    if not submission:
        raise ProblemFormatError("no task has a prediction: nothing to submit", location=str(source))
    task_ids = (
        [task.id for task in tasks] if tasks is not None else list(dict.fromkeys(str(r["id"]) for r in rows))
    )
    predicted = predicted_tasks(rows)
    missing = [task_id for task_id in task_ids if task_id not in predicted]
    if missing:
        placeholders = [task_id for task_id in missing if task_id in submission]
        left_out = [task_id for task_id in missing if task_id not in submission]
        fates = [
            f"{len(ids)} {fate} ({_first_ids(ids)})"
            for ids, fate in ((placeholders, "with placeholder attempts"), (left_out, "left out"))
            if ids
        ]
        sys.stderr.write(
            f"nemo-code-rl arc-submission: warning: {len(missing)} of {len(task_ids)} tasks have no "
            f"prediction: {'; '.join(fates)}\n"
        )
    output = Path(args.output)
    if not args.force:
        lost = lost_by_replacing(output, submission)
        if lost:
            raise SystemExit(
                f"nemo-code-rl arc-submission: error: {output} not replaced: {lost}; --force replaces it"
            )
    temporary = output.with_name(f".{output.name}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(submission, handle)
    temporary.replace(output)
    sys.stdout.write(
        f"submission: {output} ({len(submission)} tasks, {len(task_ids) - len(missing)} predicted)\n"
    )
    return _report(validate_submission(submission, tasks), output) if tasks is not None else 0


def _first_ids(ids: list[str]) -> str:
    more = len(ids) - MAX_LISTED_IDS
    return ", ".join(ids[:MAX_LISTED_IDS]) + (f", ... {more} more" if more > 0 else "")


def _report(errors: list[str], path: Path) -> int:
    if not errors:
        sys.stdout.write(f"{path}: valid\n")
        return 0
    listed = errors[:MAX_LISTED_ERRORS]
    more = f"\n... and {len(errors) - len(listed)} more" if len(errors) > len(listed) else ""
    sys.stderr.write(
        f"{path}: {len(errors)} problem(s):\n" + "\n".join(f"  {e}" for e in listed) + more + "\n"
    )
    return 1


def _read_results(path: Path) -> list[dict[str, Any]]:
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as error:
                raise ProblemFormatError(
                    f"not valid JSON ({error})", location=f"{path}: line {number}"
                ) from None
            if not isinstance(row, dict) or "id" not in row:
                raise ProblemFormatError(
                    'expected a RESULTS row with "id"', location=f"{path}: line {number}"
                )
            rows.append(row)
    return rows
