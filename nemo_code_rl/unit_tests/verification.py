"""Unit-test verification: extract code from completions, run the tests, judge, reward.

``Verifier.verify_batch`` takes (problem, completion) pairs and makes one engine call for the
whole batch (plus one for special judges, when problems have them). A model fault (no code, a
wrong answer, a crash) is a verdict and a reward; an infrastructure fault (``worker_lost``) is
flagged and yields no reward, never a zero that would teach the model something false.
"""

from __future__ import annotations

import ast
import functools
import json
import math
import random
import typing
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, get_args

import pydantic

from nemo_code_rl.config_keys import ConfigError, ConfigSection, config_section
from nemo_code_rl.engine import ExecutionResult, Limits, PlannedProgram, Program, Verdict
from nemo_code_rl.engine.backend import BackendConfig, ExecutionBackend, make_backend
from nemo_code_rl.engine.collector_pause import collector_paused_while_routing
from nemo_code_rl.engine.languages import FENCE_NAMES, CompileSettings, Language
from nemo_code_rl.engine.limits import DEFAULT_TIMEOUT_S, MAX_SECONDS, check_seconds, no_timeout_in_limits
from nemo_code_rl.engine.results import Judgement
from nemo_code_rl.extraction import ExtractionConfig, extract_code, strip_think_sections
from nemo_code_rl.unit_tests.comparison import ComparisonConfig, ValueComparisonConfig
from nemo_code_rl.unit_tests.harness import programs
from nemo_code_rl.unit_tests.problems import Problem
from nemo_code_rl.unit_tests.rewards import (
    REWARD_VERSION,
    RewardConfig,
    VerificationSummary,
    compute_reward,
)
from nemo_code_rl.unit_tests.time_limits import CEILING_S, FACTOR, FLOOR_S, TimeLimitCache, problem_key

INFRA_VERDICTS = frozenset({Verdict.WORKER_LOST.value})
FeedbackReveals = Literal["verdict", "input", "input_and_expected"]
AfterTimeout = Literal["run", "skip"]
AFTER_TIMEOUT: tuple[str, ...] = get_args(AfterTimeout)


@config_section
class VerifierConfig(ConfigSection):
    """How completions are judged. Defaults suit evaluation; training usually sets a short
    ``timeout_s``, ``early_exit=True`` and ``max_tests``.

    Args:
        extraction: how code is found in a completion.
        comparison: how stdout is compared with the expected output.
        values: how call-based return values are compared.
        reward: the reward mode.
        early_exit: stop a program at its first failing test (the rest are ``not_run``).
        max_tests: run at most this many tests per problem, a sample fixed by the problem id.
        timeout_s: per-test wall-clock limit where the data gives none.
        calibrate: where a problem has a reference solution, its per-test limit is
            ``time_limits.FACTOR`` x the reference's slowest test here (clamped to
            ``[FLOOR_S, CEILING_S]``), measured once per problem content and remembered by the
            verifier (and by ``score`` on disk); the data's or the configured limit otherwise.
        wall_backstop: per-test limits count the program's CPU time, so a busy machine does not
            turn a correct program into a timeout: one that waited for the CPU gets the time it
            waited, up to this multiple of the limit in wall-clock time (a sleeping or blocked
            program stops there). ``None``: the limits are wall-clock time.
        after_timeout: what a program's remaining tests get once one test timed out. ``skip``
            (default): they are recorded ``not_run`` without running: a program that timed out
            fails whatever follows, so pass/fail and the binary reward are unchanged, while an
            endless loop costs one limit instead of one per test. In ``fraction`` / ``shaped``
            reward modes it takes the credit of the tests after the first timeout (they would
            have been run, and might have passed). ``run`` runs every test (the old behaviour).
        use_data_time_limits: use a problem's own time limit (times ``time_limit_factor``).
        time_limit_factor: multiplies data time limits (judges' limits are often set for C++).
        limits: the other per-test limits (memory, output, files, processes).
        feedback_chars: length of the failing-test report used for multi-turn feedback.
        feedback_reveals: what that report shows of the first failing test: ``verdict`` (its
            number and verdict only), ``input`` (also its input, the program's output and error
            output), ``input_and_expected`` (also the expected output and the comparison's detail;
            the only level that shows anything more than the verdict of an assert-based test).
            Tests are hidden by default: a policy shown them can earn reward (in ``fraction``
            mode) by hard-coding them instead of solving the problem; showing more helps it
            debug honest mistakes. The program's own output is shown only with the input, since
            a program can print its input.
        checkers: special judges by problem id: Python source defining
            ``check(input: str, expected: str, actual: str) -> bool``.
        language: the language of an answer whose code block has no label, where the problem
            names none (a row's ``language`` field); a labelled block (```` ```cpp ````) is in its
            own language. C++ answers are judged on stdin/stdout tests and special judges;
            call-based and assert tests run Python only (a C++ answer to one gets ``bad_input``).
        compile: how C++ answers are compiled (standard, flags, the compiler's limits).
    """

    WHERE = "verifier"

    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    comparison: ComparisonConfig = field(default_factory=ComparisonConfig)
    values: ValueComparisonConfig = field(default_factory=ValueComparisonConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    early_exit: bool = False
    max_tests: int | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    use_data_time_limits: bool = True
    time_limit_factor: float = 1.0
    limits: Limits = field(default_factory=Limits)
    feedback_chars: int = 1000
    checkers: Mapping[str, str] = field(default_factory=dict)
    feedback_reveals: FeedbackReveals = "verdict"
    calibrate: bool = True
    wall_backstop: float | None = 2.0
    after_timeout: AfterTimeout = "skip"
    language: Language = Language.PYTHON
    compile: CompileSettings = field(default_factory=CompileSettings)

    def __post_init__(self) -> None:
        if self.max_tests is not None and self.max_tests < 1:
            raise ConfigError(f"max_tests must be at least 1 or None, got {self.max_tests}")
        try:
            check_seconds("timeout_s", self.timeout_s)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        if self.wall_backstop is not None and not 1 <= self.wall_backstop < math.inf:
            raise ConfigError(f"wall_backstop must be a number >= 1 or None, got {self.wall_backstop!r}")
        if not 0 < self.time_limit_factor < math.inf:
            raise ConfigError(f"time_limit_factor must be a positive number, got {self.time_limit_factor!r}")

    @pydantic.model_validator(mode="before")
    @classmethod
    def _limits_keys_set_elsewhere(cls, data: Any) -> Any:
        limits = data.get("limits") if isinstance(data, dict) else None
        for key, instead in (("stop_after_timeout", "after_timeout"), ("wall_backstop_s", "wall_backstop")):
            if isinstance(limits, dict) and key in limits:
                raise ConfigError(f"limits.{key} is not used: set it with {instead}")
        return no_timeout_in_limits(data, "per-test wall")


@dataclass(frozen=True)
class TestOutcome:
    """One test's verdict: ``passed``, ``wrong_answer``, ``not_run`` or an engine verdict."""

    verdict: str
    wall_s: float = 0.0
    detail: str = ""


@dataclass(frozen=True)
class Verification:
    """Everything known about one completion after verification."""

    problem_id: str
    format_ok: bool
    code: str | None
    tests: list[TestOutcome]
    passed: bool | None
    reward: float | None
    infra_fault: bool
    execution_s: float
    timeout_lost_s: float
    feedback: str
    reward_version: str = REWARD_VERSION
    format_detail: str = ""

    @property
    def n_passed(self) -> int:
        return _passed(self.tests)

    @property
    def n_total(self) -> int:
        return len(self.tests)

    @property
    def ran_without_error(self) -> bool:
        return _ran_without_error(self.tests)

    def to_dict(self) -> dict[str, Any]:
        """Its fields (tests as dicts), ``n_passed`` and ``n_total``: ``dataclasses.asdict``'s
        layout, built directly (``score`` makes one per completion; ``asdict`` deep-copies)."""
        data = {name: getattr(self, name) for name in _VERIFICATION_FIELDS}
        data["tests"] = [{name: getattr(t, name) for name in _TEST_FIELDS} for t in self.tests]
        data.update(n_passed=self.n_passed, n_total=self.n_total)
        return data


def _passed(tests: Sequence[TestOutcome]) -> int:
    return sum(t.verdict == Verdict.PASSED for t in tests)


def _ran_without_error(tests: Sequence[TestOutcome]) -> bool:
    """Every test ran to its end: a wrong answer counts, an error, a timeout or a kill does not."""
    return bool(tests) and all(
        t.verdict in (Verdict.PASSED, Verdict.WRONG_ANSWER, Verdict.NOT_RUN) for t in tests
    )


_VERIFICATION_FIELDS = tuple(f.name for f in fields(Verification))
_TEST_FIELDS = tuple(f.name for f in fields(TestOutcome))


def selected_tests(problem: Problem, max_tests: int | None) -> list[int]:
    """All tests, or a sample of ``max_tests`` fixed by the problem id (the same every step)."""
    count = programs.test_count(problem)
    if max_tests is None or count <= max_tests:
        return list(range(count))
    return sorted(random.Random(zlib.crc32(problem.id.encode())).sample(range(count), max_tests))


def candidate_code(
    problem: Problem, completion: str, config: ExtractionConfig, language: Language = Language.PYTHON
) -> tuple[str | None, str, Language]:
    """The program to run for ``completion``, or ``None`` and why (a format failure), and the
    language it is in (its block's, else ``language``: the problem's or the configured default).

    Where the problem has a ``completion_prefix`` (HumanEval's prompt), completions are often a
    bare function body: a completion without a code block is taken as code, and code that does not
    define the entry point runs after the prefix.
    """
    extracted = extract_code(completion, config, language)
    code = extracted.code
    if problem.completion_prefix is not None:
        code = code if code is not None else strip_think_sections(completion)
        if code.strip() and not _defines(code, problem.entry_point or ""):
            code = problem.completion_prefix + code
    if code is None or not code.strip():
        return None, extracted.reason, extracted.language
    return code, "", extracted.language


def problem_language(problem: Problem, default: Language) -> Language | str:
    """The language ``problem`` asks answers in (its row's ``language`` field, by any fenced-block
    name: ``cpp``, ``c++``, ``python3``), else ``default``; a name the engine cannot run is
    returned as the text of the ``bad_input`` it gets."""
    named = problem.metadata.get("language")
    if named is None:
        return default
    found = FENCE_NAMES.get(str(named).strip().lower())
    if found is None:
        return f"the problem's language {named!r} is not one the engine runs ({', '.join(Language)})"
    return found


def _defines(code: str, name: str) -> bool:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name for node in tree.body
    )


@dataclass
class _Job:
    index: int
    problem: Problem
    code: str
    tests: list[int]
    language: Language = Language.PYTHON
    judgements: list[Judgement] = field(default_factory=list)
    results: list[ExecutionResult] = field(default_factory=list)
    # built once, as soon as the job's verdicts are known (streamed, or when the batch is over)
    verification: Verification | None = None


OUTPUT_SLACK_BYTES = 64 * 1024


def output_cap(problem: Problem) -> int:
    """The stdout a test's judge can need: twice the largest expected output, plus some slack.

    A right answer laid out differently (spaces, line ends) fits easily; anything larger is wrong
    whatever it holds, so it is cut there and counted instead of travelling to the judge. Assert
    tests print only the pass marker. This keeps a judging batch's memory near
    (stdout cap + ``Limits.stderr_bytes``) per test, not 8 MiB per stream per test.
    """
    if problem.kind == "assert":
        return OUTPUT_SLACK_BYTES
    largest = max((len(output.encode("utf-8", "surrogatepass")) for output in problem.outputs), default=0)
    return 2 * largest + OUTPUT_SLACK_BYTES


class Verifier:
    """Judges completions against unit tests in the sandboxed engine.

    Args:
        config: how to judge (see ``VerifierConfig``).
        pool: an execution backend to use (borrowed: never closed here); when ``None`` the
            verifier starts one with ``make_backend`` and owns it.
        workers / isolation / backend: for the backend the verifier starts (``make_backend``).

    Example:
        >>> with Verifier() as verifier:                                 # doctest: +SKIP
        ...     [v.reward for v in verifier.verify_batch([(problem, "```python\\nprint(1)\\n```")])]
        [0.0]
    """

    def __init__(
        self,
        config: VerifierConfig | None = None,
        pool: ExecutionBackend | None = None,
        workers: int | None = None,
        isolation: str = "full",
        time_limits: TimeLimitCache | None = None,
        backend: BackendConfig | Mapping[str, Any] | str | None = None,
    ) -> None:
        self.config = config or VerifierConfig()
        self._owns_pool = pool is None
        self.pool = pool if pool is not None else make_backend(backend, workers=workers, isolation=isolation)
        self.time_limits = time_limits if time_limits is not None else TimeLimitCache()
        self._calibration = (
            FACTOR,
            FLOOR_S,
            CEILING_S,
        )
        self._explicit: set[str] = set()
        self._keys: dict[int, tuple[Problem, str]] = {}
        self._limits_made: dict[tuple[float, int], Limits] = {}

    def _key(self, problem: Problem) -> str:
        known = self._keys.get(id(problem))
        if known is not None and known[0] is problem:
            return known[1]
        key = problem_key(problem, self.config.max_tests, *self._calibration)
        self._keys[id(problem)] = (problem, key)
        return key

    def time_limit(self, problem: Problem) -> float:
        """The per-test wall limit: calibrated, else the data's own (times the factor, at most
        ``MAX_SECONDS``: a row's limit must not stop a batch), else the configured one."""
        if problem.reference_solution:
            key = self._key(problem)
            calibrated = self.time_limits.get(key)
            if calibrated is not None and (self.config.calibrate or key in self._explicit):
                return calibrated
        if self.config.use_data_time_limits and problem.time_limit_s:
            return min(problem.time_limit_s * self.config.time_limit_factor, MAX_SECONDS)
        return self.config.timeout_s

    def calibrate_time_limits(
        self,
        problems: Sequence[Problem],
        factor: float = FACTOR,
        floor_s: float = FLOOR_S,
        ceiling_s: float = CEILING_S,
    ) -> dict[str, float]:
        """Set each problem's limit to ``factor`` x its reference solution's slowest test, clamped
        (these parameters then hold for every problem this verifier calibrates).

        Problems without a reference solution, or whose solution fails its own tests, keep their
        limit. A problem whose content was calibrated before (by this verifier, or in its cache's
        file) is not run again. Returns the limits set, by problem id.
        """
        if (factor, floor_s, ceiling_s) != self._calibration:
            self._calibration = (factor, floor_s, ceiling_s)
            self._keys.clear()
        candidates = [p for p in problems if p.reference_solution]
        self._explicit.update(self._key(p) for p in candidates)
        self._calibrate(candidates)
        limits = {p.id: self.time_limits.get(self._key(p)) for p in candidates}
        return {problem_id: limit for problem_id, limit in limits.items() if limit is not None}

    def _calibrate(self, problems: Sequence[Problem]) -> None:
        """Run the reference of every problem whose content is not in the cache yet, once each."""
        todo: dict[str, Problem] = {}
        for problem in problems:
            if not problem.reference_solution:  # nothing to calibrate: its key is not worth a digest
                continue
            key = self._key(problem)
            if key not in self.time_limits:
                todo.setdefault(key, problem)
        if not todo:
            return
        factor, floor_s, ceiling_s = self._calibration
        probe = replace(
            self.config,
            early_exit=False,
            timeout_s=ceiling_s,
            use_data_time_limits=False,
            calibrate=False,
            after_timeout="skip",
        )
        checked = Verifier(probe, pool=self.pool).verify_batch(
            [(p, f"```python\n{p.reference_solution}\n```") for p in todo.values()]
        )
        found: dict[str, float | None] = {}
        for key, verification in zip(todo, checked, strict=True):
            if verification.passed is None:  # an infrastructure fault: measure again next time
                continue
            slowest = max((t.wall_s for t in verification.tests), default=0.0)
            found[key] = min(ceiling_s, max(floor_s, factor * slowest)) if verification.passed else None
        self.time_limits.update(found)

    def verify_batch(
        self,
        items: Sequence[tuple[Problem, str]],
        progress: Callable[[int, int], None] | None = None,
        on_verified: Callable[[int, Verification], None] | None = None,
        cancelled: Callable[[int], bool] | None = None,
    ) -> list[Verification]:
        """Verify every (problem, completion) pair; one result per pair, in order.

        The same code for the same problem object runs once: GRPO groups repeat answers (more so
        as the policy sharpens), and a repeat gets its first occurrence's verdicts, with no
        sandbox time of its own. ``on_verified(index, verification)`` is called once per pair
        as soon as its verdicts are known (as each program finishes, so a caller can stream
        them), before the whole batch returns. ``cancelled(index)`` is asked before the pair's
        program starts and while it runs (the backend's ``run_batch(cancelled=...)``); once it
        (and that of every repeat of the answer) says True, the program is never started, or
        stopped mid-test, and its tests not run are ``not_run`` (whoever asked has gone).

        The cyclic garbage collector waits for the batch's end, as it does for the backend's
        ``run_batch`` (``engine.collector_pause``): its collections, of what the batch made,
        then run when no worker waits for this process.
        """
        with collector_paused_while_routing():
            return self._verify_batch(items, progress, on_verified, cancelled)

    def _verify_batch(
        self,
        items: Sequence[tuple[Problem, str]],
        progress: Callable[[int, int], None] | None,
        on_verified: Callable[[int, Verification], None] | None,
        cancelled: Callable[[int], bool] | None,
    ) -> list[Verification]:
        self._keys.clear()
        self._limits_made.clear()
        if self.config.calibrate:
            self._calibrate([problem for problem, _ in items])
        verifications: list[Verification | None] = [None] * len(items)
        jobs: dict[tuple[int, str, Language], _Job] = {}
        repeats: dict[int, list[int]] = {}
        for index, (problem, completion) in enumerate(items):
            wanted, language = problem_language(problem, self.config.language), Language.PYTHON
            if isinstance(wanted, Language):
                code, reason, language = candidate_code(problem, completion, self.config.extraction, wanted)
            else:
                code, reason = None, wanted
            failure = None
            if code is None:
                failure = self._format_failure(problem, reason)
            elif language is not Language.PYTHON and problem.kind != "stdio":
                failure = self._unjudgeable(problem, code, language)
            elif (id(problem), code, language) in jobs:
                repeats.setdefault(jobs[id(problem), code, language].index, []).append(index)
            else:
                tests = selected_tests(problem, self.config.max_tests)
                jobs[id(problem), code, language] = _Job(index, problem, code, tests, language)
            if failure is not None:
                verifications[index] = failure
                if on_verified is not None:
                    on_verified(index, failure)
        unique = list(jobs.values())

        def finished(job: _Job, verification: Verification) -> None:
            job.verification = verification
            if on_verified is not None:
                on_verified(job.index, verification)
                for index in repeats.get(job.index, ()):
                    on_verified(index, _repeat(verification))

        def dropped(job: _Job) -> bool:
            assert cancelled is not None
            return cancelled(job.index) and all(cancelled(index) for index in repeats.get(job.index, ()))

        self._run(
            unique, progress, finished if on_verified is not None else None, dropped if cancelled else None
        )
        self._run_checkers(unique)
        for job in unique:
            if job.verification is None:
                finished(job, self._verification(job))
            verification = verifications[job.index] = typing.cast("Verification", job.verification)
            for index in repeats.get(job.index, ()):
                verifications[index] = _repeat(verification)
        missing = [index for index, v in enumerate(verifications) if v is None]
        assert not missing, f"completions {missing} have no verification"
        return typing.cast("list[Verification]", verifications)

    def _limits(self, problem: Problem) -> Limits:
        """The limits of ``problem``'s program: one ``Limits`` per (time limit, output cap), built
        once (a batch's programs share a few)."""
        limit, cap = self.time_limit(problem), output_cap(problem)
        known = self._limits_made.get((limit, cap))
        if known is None:
            known = self._limits_made[limit, cap] = self._new_limits(limit, cap)
        return known

    def _new_limits(self, limit: float, cap: int) -> Limits:
        backstop = self.config.wall_backstop
        return self.config.limits.with_overrides(
            timeout_s=limit,
            wall_backstop_s=None if backstop is None else min(MAX_SECONDS, limit * backstop),
            stop_after_timeout=self.config.after_timeout == "skip",
            output_bytes=min(self.config.limits.output_bytes, cap),
        )

    def _judge_spec(self, job: _Job) -> dict[str, Any] | None:
        """How the workers judge ``job``'s results; ``None`` for a problem with a special judge,
        which decides here, on the whole output."""
        if job.problem.id in self.config.checkers:
            return None
        return programs.judge_spec(
            job.problem, job.tests, self.config.comparison, _values(self.config, job.problem)
        )

    def _run(
        self,
        jobs: list[_Job],
        progress: Callable[[int, int], None] | None,
        finished: Callable[[_Job, Verification], None] | None,
        dropped: Callable[[_Job], bool] | None = None,
    ) -> None:
        """Run the jobs' programs and judge them. Each program is judged as its results arrive,
        while the others still run, so the batch ends with little left to do in this process.
        With ``finished``, each job whose verdicts are known from the results streamed so far
        (every test in, or the program stopped) is passed to it at once; without it, such a job
        has its ``verification`` set. The others (special judges pending, a program that never
        ran) are the caller's when the batch is over. The programs are planned, not built: the
        backend builds each as its turn comes, while the first ones run."""
        batch = [PlannedProgram(len(j.tests), functools.partial(self._program, j)) for j in jobs]
        seen: list[dict[int, ExecutionResult]] = [{} for _ in jobs]
        skip_after_timeout = self.config.after_timeout == "skip"
        first_failure = _FirstFailure(self.config, jobs) if self.config.early_exit else None

        def on_input(program: int, position: int, result: ExecutionResult) -> bool:
            job = jobs[program]
            if job.verification is not None:  # decided already (a result that came after the stop)
                return True
            stop = first_failure is not None and first_failure(program, position, result)
            if finished is not None and job.problem.id not in self.config.checkers:
                seen[program][position] = result
                ends = stop or (skip_after_timeout and result.verdict is Verdict.TIMEOUT)
                if ends or len(seen[program]) == len(job.tests):
                    finished(job, self._verification(self._judged(job, seen[program])))
            return stop

        def on_done(program: int, per_test: list[ExecutionResult]) -> None:
            job = jobs[program]
            self._settle(job, per_test)
            if job.problem.id in self.config.checkers:
                return
            verification = self._verification(job)
            if finished is not None:
                finished(job, verification)
            else:
                job.verification = verification

        # Each test's result comes to this process (``stop_when``) only where a decision is taken
        # here on it: early exit while results stream. Otherwise a program's results come once,
        # when it ends (``on_done``): a tenth of the messages for ten tests. The Ray backend asks
        # ``stop_when`` in its actors (the picklable early-exit check alone). A cancellation is
        # the backend's ``cancelled``, asked here while programs run, whatever the backend.
        per_test = self.pool.asks_stop_when_here and finished is not None and first_failure is not None
        results = self.pool.run_batch(
            batch,
            progress=progress,
            stop_when=on_input if per_test else first_failure,
            on_done=None if per_test else on_done,
            cancelled=(lambda program: dropped(jobs[program])) if dropped is not None else None,
        )
        for job, outcome in zip(jobs, results, strict=True):
            if job.results is not outcome:  # not settled by on_done
                self._settle(job, outcome)

    def _program(self, job: _Job) -> Program:
        return programs.build_program(
            job.problem,
            job.code,
            job.tests,
            self._limits(job.problem),
            self._judge_spec(job),
            job.language,
            self.config.compile,
        )

    def _settle(self, job: _Job, results: list[ExecutionResult]) -> None:
        """Give ``job`` its program's results and their judgements (cut after the first failure
        with early exit, so rewards do not depend on timing)."""
        job.results = results
        job.judgements = [_judge(self.config, job, position, r) for position, r in enumerate(results)]
        if self.config.early_exit and job.problem.id not in self.config.checkers:
            _cut_after_first_failure(job)

    def _judged(self, job: _Job, seen: Mapping[int, ExecutionResult]) -> _Job:
        """A copy of ``job`` judged on the results streamed so far; the tests with none are
        those its program will not run (it was stopped)."""
        not_run = ExecutionResult(Verdict.NOT_RUN, error="not run: an earlier input timed out")
        copy = replace(job, results=[seen.get(p, not_run) for p in range(len(job.tests))])
        copy.judgements = [_judge(self.config, copy, p, r) for p, r in enumerate(copy.results)]
        if self.config.early_exit:
            _cut_after_first_failure(copy)
        return copy

    def _run_checkers(self, jobs: list[_Job]) -> None:
        """Let each problem's special judge decide the tests whose program ran cleanly."""
        pending = [
            (job, position)
            for job in jobs
            if job.problem.id in self.config.checkers and job.problem.kind == "stdio"
            for position, result in enumerate(job.results)
            if result.verdict is Verdict.OK
        ]
        if not pending:
            return
        checks = []
        for job, position in pending:
            test = job.tests[position]
            arguments = [job.problem.inputs[test], job.problem.outputs[test], job.results[position].stdout]
            checker = Program(
                programs.checker_source(self.config.checkers[job.problem.id]),
                [json.dumps(arguments)],
                limits=self._limits(job.problem).with_overrides(
                    timeout_s=max(DEFAULT_TIMEOUT_S, self.time_limit(job.problem))
                ),
            )
            checks.append(checker)
        for (job, position), verdicts in zip(pending, self.pool.run_batch(checks), strict=True):
            job.judgements[position] = programs.judge_checker(verdicts[0], job.results[position].stdout)

    def _verification(self, job: _Job) -> Verification:
        pairs = zip(job.judgements, job.results, strict=True)
        tests = [
            TestOutcome(judgement.verdict, result.wall_s, judgement.detail) for judgement, result in pairs
        ]
        infra = any(t.verdict in INFRA_VERDICTS for t in tests)
        n_passed = _passed(tests)
        all_passed = n_passed == len(tests)
        summary = VerificationSummary(
            format_ok=True,
            ran_without_error=_ran_without_error(tests),
            n_passed=n_passed,
            n_total=len(tests),
            infra_fault=infra,
        )
        # built once, its reward known first: the routing process makes one per program
        return Verification(
            problem_id=job.problem.id,
            format_ok=True,
            code=job.code,
            tests=tests,
            passed=None if infra else all_passed,
            reward=compute_reward(summary, self.config.reward),
            infra_fault=infra,
            execution_s=sum(r.wall_s for r in job.results),
            timeout_lost_s=sum(r.wall_s for r in job.results if r.verdict is Verdict.TIMEOUT),
            feedback="" if all_passed else self._feedback(job),
        )

    def _format_failure(self, problem: Problem, reason: str) -> Verification:
        summary = VerificationSummary(
            format_ok=False, ran_without_error=False, n_passed=0, n_total=programs.test_count(problem)
        )
        return Verification(
            problem_id=problem.id,
            format_ok=False,
            code=None,
            tests=[],
            passed=False,
            reward=compute_reward(summary, self.config.reward),
            infra_fault=False,
            execution_s=0.0,
            timeout_lost_s=0.0,
            feedback=f"No code was found in your answer ({reason}). Put your program in a ```python block.",
            format_detail=reason,
        )

    def _unjudgeable(self, problem: Problem, code: str, language: Language) -> Verification:
        """A non-Python answer to a call-based or assert problem: its tests call Python functions."""
        reason = f"{problem.kind} tests run Python only; this answer is in {language}"
        count = programs.test_count(problem)
        summary = VerificationSummary(format_ok=True, ran_without_error=False, n_passed=0, n_total=count)
        return Verification(
            problem_id=problem.id,
            format_ok=True,
            code=code,
            tests=[TestOutcome(Verdict.BAD_INPUT, 0.0, reason)] * count,
            passed=False,
            reward=compute_reward(summary, self.config.reward),
            infra_fault=False,
            execution_s=0.0,
            timeout_lost_s=0.0,
            feedback=f"Your answer could not be judged: {reason}. Answer in Python.",
        )

    def _feedback(self, job: _Job) -> str:
        failing = next(
            (p for p, j in enumerate(job.judgements) if j.verdict not in (Verdict.PASSED, Verdict.NOT_RUN)),
            None,
        )
        if failing is None:
            return ""
        judgement, result = job.judgements[failing], job.results[failing]
        test = job.tests[failing]
        lines = [f"Test {failing + 1} of {len(job.tests)} failed: {judgement.verdict.replace('_', ' ')}."]
        if judgement.verdict == Verdict.COMPILE_ERROR:  # the compiler's words reveal no test
            return self._cut("\n".join([*lines, "Compiler output:", _preview(result.stderr, 800)]))
        reveals = self.config.feedback_reveals
        # An assert's code is its input and expected value at once, and tracebacks quote it.
        if reveals == "verdict" or (job.problem.kind == "assert" and reveals != "input_and_expected"):
            return lines[0]
        if job.problem.kind != "assert":
            lines += ["Input:", _preview(job.problem.inputs[test])]
            if reveals == "input_and_expected":
                lines += ["Expected:", _preview(job.problem.outputs[test])]
            lines += ["Got:", _preview(judgement.got)]
        # A wrong answer's detail quotes the expected output (or the failed assert).
        if judgement.detail and (
            reveals == "input_and_expected" or judgement.verdict != Verdict.WRONG_ANSWER
        ):
            lines.append(f"Details: {judgement.detail}")
        if result.stderr.strip() and judgement.verdict != Verdict.PASSED:
            lines += ["Error output:", _preview(result.stderr, 400)]
        return self._cut("\n".join(lines))

    def _cut(self, text: str) -> str:
        limit = self.config.feedback_chars
        return text if len(text) <= limit else text[: limit - 15] + "\n[... truncated]"

    def close(self) -> None:
        if self._owns_pool:
            self.pool.close()

    def __enter__(self) -> Verifier:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _repeat(verification: Verification) -> Verification:
    """The verdicts of a repeated answer: its first occurrence's, with no sandbox time of its own."""
    return replace(verification, execution_s=0.0, timeout_lost_s=0.0)


def _judge(config: VerifierConfig, job: _Job, position: int, result: ExecutionResult) -> Judgement:
    """The worker's judgement of a result; results the backend or the verifier made (a lost
    worker, an input not run) and those of special-judge problems are judged here."""
    if result.judgement is not None:
        return result.judgement
    return programs.judge(
        job.problem, job.tests[position], result, config.comparison, _values(config, job.problem)
    )


def _values(config: VerifierConfig, problem: Problem) -> ValueComparisonConfig:
    """How ``problem``'s returned values are compared: the configured way, unwrapping an expected
    one-element list where the data says its outputs are wrapped so."""
    if config.values.unwrap_singleton or not problem.singleton_outputs:
        return config.values
    return replace(config.values, unwrap_singleton=True)


@dataclass(frozen=True)
class _FirstFailure:
    """Early exit's ``stop_when``: true at a program's first failing test (for a special judge's
    problem, its first test that did not run cleanly).

    It holds only what judging needs, never the verifier or its backend, so the ``ray`` backend
    can ship it to the actors that run the programs.
    """

    config: VerifierConfig
    jobs: list[_Job]

    def __call__(self, program: int, position: int, result: ExecutionResult) -> bool:
        job = self.jobs[program]
        if job.problem.id in self.config.checkers:
            return result.verdict is not Verdict.OK
        return _judge(self.config, job, position, result).verdict != Verdict.PASSED


def _cut_after_first_failure(job: _Job) -> None:
    """Early exit is asynchronous; whatever ran after the first failure is dropped, so rewards
    do not depend on timing."""
    first = next((p for p, j in enumerate(job.judgements) if j.verdict != Verdict.PASSED), None)
    if first is None:
        return
    skipped = ExecutionResult(Verdict.NOT_RUN, error="not run: an earlier test failed")
    for position in range(first + 1, len(job.judgements)):
        job.judgements[position] = Judgement(Verdict.NOT_RUN)
        job.results[position] = skipped


def _preview(text: str, limit: int = 300) -> str:
    text = text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more characters]"
    return text.rstrip("\n") or "(empty)"
