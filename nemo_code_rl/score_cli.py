"""``nemo-code-rl score``: its options, and scoring completions files against problems' unit tests."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import get_args

from nemo_code_rl import backend_start, results_files
from nemo_code_rl.arc import cli as arc_cli
from nemo_code_rl.arc.data import is_arc_source
from nemo_code_rl.arc.execution import ArcExecutionConfig
from nemo_code_rl.engine import Limits
from nemo_code_rl.engine.backend import BackendConfig, BackendKind, ExecutionBackend
from nemo_code_rl.engine.collector_pause import collector_paused_while_routing
from nemo_code_rl.engine.languages import CompileSettings, Language
from nemo_code_rl.engine.limits import check_seconds
from nemo_code_rl.engine.sandbox import FULL, USER_LEVELS
from nemo_code_rl.extraction import ExtractionConfig, ExtractionMode
from nemo_code_rl.rows import ProblemFormatError, RowError
from nemo_code_rl.unit_tests import scoring
from nemo_code_rl.unit_tests.checkers import SHIPPED_CHECKERS, read_checkers
from nemo_code_rl.unit_tests.comparison import ComparisonConfig, ComparisonMode
from nemo_code_rl.unit_tests.problems import Problem, read_problems
from nemo_code_rl.unit_tests.rewards import RewardConfig, RewardMode
from nemo_code_rl.unit_tests.time_limits import CEILING_S, FACTOR, FLOOR_S, TimeLimitCache, default_cache_path
from nemo_code_rl.unit_tests.verification import AFTER_TIMEOUT, Verifier, VerifierConfig


def add_subcommand(sub: argparse._SubParsersAction) -> None:
    """Add ``score`` and its options (their defaults read from the configs) to the command line."""
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
    parser.add_argument(
        "--backend",
        choices=get_args(BackendKind),
        default=BackendConfig().kind,
        help="where programs run: worker processes here, Docker containers ($NEMO_CODE_RL_DOCKER_IMAGE), "
        "or Ray actors ($RAY_ADDRESS, else a local cluster)",
    )
    parser.add_argument("--isolation", choices=USER_LEVELS, default=FULL)
    parser.add_argument("--reward", choices=get_args(RewardMode), default=RewardConfig().mode)
    parser.add_argument(
        "--format",
        choices=get_args(ExtractionMode),
        default=ExtractionConfig().mode,
        help="how code is extracted",
    )
    parser.add_argument("--pattern", help="regex for --format regex (group 1 is the code)")
    parser.add_argument(
        "--timeout",
        type=_seconds,
        help=(
            f"seconds per test where the data has no limit (above 0, at most a day; default "
            f"{VerifierConfig().timeout_s:g}, or {ArcExecutionConfig().timeout_s:g} per grid for ARC tasks)"
        ),
    )
    parser.add_argument("--memory-mb", type=int, default=Limits().memory_bytes // 2**20)
    parser.add_argument(
        "--early-exit", action="store_true", help="stop each program at its first failing test"
    )
    defaults = VerifierConfig()
    parser.add_argument(
        "--calibrate",
        action=argparse.BooleanOptionalAction,
        default=defaults.calibrate,
        help="per-problem time limits from the problem's reference solution, where it has one: "
        f"{FACTOR:g} x its slowest test, in [{FLOOR_S:g}, {CEILING_S:g}] s; measured once per problem "
        "content and kept in --time-limit-cache (default: on)",
    )
    parser.add_argument(
        "--time-limit-cache",
        type=Path,
        default=None,
        help=f"file of calibrated limits (default: {default_cache_path()})",
    )
    parser.add_argument(
        "--after-timeout",
        choices=AFTER_TIMEOUT,
        default=defaults.after_timeout,
        help="what a program's remaining tests get after one timed out: skip (recorded not_run, not run; "
        "pass/fail unchanged, fraction rewards lose those tests) or run (default: %(default)s)",
    )
    parser.add_argument(
        "--language",
        choices=list(Language),
        default=defaults.language.value,
        help="the language of an answer whose code block names none, where the problem's row names "
        "none (a ```cpp block is C++ whatever this says; C++ is judged on stdin/stdout tests and "
        "special judges only) (default: %(default)s)",
    )
    parser.add_argument(
        "--cpp-std",
        type=_cpp_standard,
        default=defaults.compile.standard,
        help="the C++ standard answers are compiled with, g++'s -std= (default: %(default)s)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows already in the results file (an interrupted run of the same completions) "
        "and judge only the others",
    )
    parser.add_argument("--max-tests", type=int, default=None, help="run at most this many tests per problem")
    comparison = ComparisonConfig()
    parser.add_argument(
        "--comparison",
        choices=get_args(ComparisonMode),
        default=comparison.mode,
        help="how stdout is compared (the verifier's comparison.mode): lines (LiveCodeBench, NeMo Gym) "
        "or tokens (whitespace and line layout do not matter)",
    )
    parser.add_argument(
        "--abs-tol", type=_tolerance, default=comparison.abs_tol, help="absolute tolerance for non-integers"
    )
    parser.add_argument(
        "--rel-tol", type=_tolerance, default=comparison.rel_tol, help="relative tolerance for non-integers"
    )
    parser.add_argument(
        "--case-insensitive", action="store_true", help="compare case-folded text (case_sensitive: false)"
    )
    judges = parser.add_mutually_exclusive_group()
    judges.add_argument(
        "--checkers",
        default=str(SHIPPED_CHECKERS),
        help="folder of special judges named <problem id>.py, each defining check(input, expected, actual) "
        "(default: the shipped ones, for problems that accept many answers)",
    )
    judges.add_argument(
        "--no-checkers", action="store_true", help="no special judges, not even the shipped ones"
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 when anything was not judged (unknown ids, bad rows, infrastructure faults)",
    )
    parser.add_argument(
        "--helper",
        help="ARC: the helper library programs import, a .py file, a package folder or a folder of modules "
        "(default: our BARC-compatible `common`)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=_score)


def _score(args: argparse.Namespace) -> int:
    if (args.problems is None) != (args.completions is None):
        raise SystemExit(
            "nemo-code-rl score: give both PROBLEMS and COMPLETIONS, or neither for the default job"
        )
    if args.problems is not None:
        if args.early_start is not None and is_arc_source(args.problems):
            args.early_start.discard(wait=False)  # ARC's workers preload other modules: it starts its own
        handled = arc_cli.score_rows_if_arc(
            args.problems,
            args.completions,
            args.output,
            workers=args.workers,
            isolation=args.isolation,
            backend=args.backend,
            extraction=ExtractionConfig(mode=args.format, pattern=args.pattern),
            timeout_s=args.timeout,
            memory_mb=args.memory_mb,
            quiet=args.quiet,
            strict=args.strict,
            helper=args.helper,
        )
        if handled is not None:
            return handled
    # Started before the heavy imports where it could be (``backend_start``); its workers start
    # while the input is read.
    starting = backend_start.backend(args.early_start, args.backend, args.workers, args.isolation)
    with collector_paused_while_routing(periodic=False):
        return _read_and_judge(args, starting)


def _read_and_judge(args: argparse.Namespace, starting: Future[ExecutionBackend]) -> int:
    """Read the input, judge it into the results file, then print the summary. ``score`` runs this
    with the collector paused and no periodic collection (``engine.collector_pause`` says why):
    what is read and made here lives until this returns, and is freed before the collector resumes."""
    from nemo_code_rl.unit_tests.default_job import default_job

    try:
        if args.problems is None:
            problems, rows = default_job()
            problem_errors: list[RowError] = []
            completions = results_files.number_completions(rows)
            output = Path(args.output or "humaneval_default.results.jsonl")
        else:
            problems, problem_errors = read_problems(args.problems)
            completions = results_files.read_completions(args.completions)
            output = (
                Path(args.output) if args.output else results_files.default_results_path(args.completions)
            )
        _check_inputs(args, problems, problem_errors, completions)
        config = _verifier_config(args)
        cache = TimeLimitCache(args.time_limit_cache or default_cache_path()) if args.calibrate else None
        # fails now, before judging, if the output cannot be written
        results = results_files.ResultsFile(output, completions, resume=args.resume)
    except BaseException:
        backend_start.close_when_started(starting)
        raise

    @contextmanager
    def open_verifier() -> Iterator[Verifier]:
        with starting.result() as backend, Verifier(config, pool=backend, time_limits=cache) as verifier:
            yield verifier

    judged = scoring.score_to_file(
        results, open_verifier, problems, completions, "score", args.quiet, problem_errors
    )
    if judged is None:
        return results_files.INTERRUPTED
    scored, warnings = judged
    summary = scoring.summarize(scored)
    print(scoring.format_summary(summary))
    print(f"results: {results.path}")
    if args.strict and (warnings or summary["not_judged"]):
        print("nemo-code-rl score: --strict: not everything was judged", file=sys.stderr)
        return 1
    return 0


def _verifier_config(args: argparse.Namespace) -> VerifierConfig:
    return VerifierConfig(
        extraction=ExtractionConfig(mode=args.format, pattern=args.pattern),
        comparison=ComparisonConfig(
            mode=args.comparison,
            abs_tol=args.abs_tol,
            rel_tol=args.rel_tol,
            case_sensitive=not args.case_insensitive,
        ),
        reward=RewardConfig(mode=args.reward),
        timeout_s=args.timeout or VerifierConfig().timeout_s,
        limits=Limits(memory_bytes=args.memory_mb * 2**20),
        early_exit=args.early_exit,
        max_tests=args.max_tests,
        checkers={} if args.no_checkers else read_checkers(args.checkers),
        calibrate=args.calibrate,
        after_timeout=args.after_timeout,
        language=Language(args.language),
        compile=CompileSettings(standard=args.cpp_std),
    )


def _check_inputs(
    args: argparse.Namespace,
    problems: list[Problem],
    problem_errors: list[RowError],
    completions: list[results_files.Completion],
) -> None:
    """Stop before any work when there is nothing to judge: no problem or no completion was read."""
    if not problems:
        listed = (
            f" ({len(problem_errors)} row(s) cannot be used, first: {problem_errors[0].error})"
            if problem_errors
            else ""
        )
        raise ProblemFormatError(f"no problems could be read{listed}", location=str(args.problems))
    if not any(not c.error for c in completions):
        first = next(iter(completions), None)
        listed = (
            f" ({len(completions)} line(s) cannot be used, first: line {first.line}: {first.error})"
            if first
            else ""
        )
        raise results_files.CompletionsError(f"{args.completions}: no completions could be read{listed}")


def _seconds(text: str) -> float:
    """An argparse type: a usable time limit, or argparse's own error (no traceback)."""
    try:
        return check_seconds("the time limit", float(text))
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _cpp_standard(text: str) -> str:
    """An argparse type: a ``-std=`` value g++ takes (``c++17``, ``gnu++20`` ...)."""
    try:
        return CompileSettings(standard=text).standard
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _tolerance(text: str) -> float:
    """An argparse type: a comparison tolerance (a number >= 0), checked where tolerances are."""
    try:
        return ComparisonConfig(abs_tol=float(text)).abs_tol
    except ValueError as error:
        raise argparse.ArgumentTypeError(
            str(error).replace("ComparisonConfig.abs_tol", "a tolerance")
        ) from None
