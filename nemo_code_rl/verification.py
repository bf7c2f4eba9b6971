"""Unit-test verification: extract code from completions, run the tests, judge, reward.

``Verifier.verify_batch`` takes (problem, completion) pairs and makes one engine call for the
whole batch (plus one for special judges, when problems have them). A model fault (no code, a
wrong answer, a crash) is a verdict and a reward; an infrastructure fault (``worker_lost``) is
flagged and yields no reward, never a zero that would teach the model something false.
"""

from __future__ import annotations

import ast
import json
import math
import random
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal, get_args

from nemo_code_rl.comparison import ComparisonConfig, ValueComparisonConfig
from nemo_code_rl.config_keys import ConfigError, check_keys
from nemo_code_rl.engine import ExecutionResult, Limits, Program, Verdict
from nemo_code_rl.engine.backend import BackendConfig, ExecutionBackend, make_backend
from nemo_code_rl.engine.limits import MAX_SECONDS, check_seconds
from nemo_code_rl.extraction import ExtractionConfig, extract_code, strip_think_sections
from nemo_code_rl.harness import programs
from nemo_code_rl.harness.programs import Judgement
from nemo_code_rl.problems import Problem
from nemo_code_rl.rewards import (
    REWARD_VERSION,
    RewardConfig,
    ShapedWeights,
    VerificationSummary,
    compute_reward,
)

INFRA_VERDICTS = frozenset({Verdict.WORKER_LOST.value})
FeedbackReveals = Literal["verdict", "input", "input_and_expected"]
FEEDBACK_REVEALS: tuple[str, ...] = get_args(FeedbackReveals)


@dataclass(frozen=True)
class VerifierConfig:
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
    """

    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    comparison: ComparisonConfig = field(default_factory=ComparisonConfig)
    values: ValueComparisonConfig = field(default_factory=ValueComparisonConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    early_exit: bool = False
    max_tests: int | None = None
    timeout_s: float = 10.0
    use_data_time_limits: bool = True
    time_limit_factor: float = 1.0
    limits: Limits = field(default_factory=Limits)
    feedback_chars: int = 1000
    checkers: Mapping[str, str] = field(default_factory=dict)
    feedback_reveals: FeedbackReveals = "verdict"

    def __post_init__(self) -> None:
        if self.max_tests is not None and self.max_tests < 1:
            raise ConfigError(f"max_tests must be at least 1 or None, got {self.max_tests}")
        try:
            check_seconds("timeout_s", self.timeout_s)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        if self.feedback_reveals not in FEEDBACK_REVEALS:
            raise ConfigError(
                f"feedback_reveals must be one of {FEEDBACK_REVEALS}, got {self.feedback_reveals!r}"
            )
        if not 0 < self.time_limit_factor < math.inf:
            raise ConfigError(f"time_limit_factor must be a positive number, got {self.time_limit_factor!r}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "verifier") -> VerifierConfig:
        """Build from plain (YAML) data; unknown keys at any level are an error with a suggestion."""
        data = dict(data)
        check_keys(data, [f.name for f in fields(cls)], where)
        nested = {
            "extraction": ExtractionConfig,
            "comparison": ComparisonConfig,
            "values": ValueComparisonConfig,
            "limits": Limits,
        }
        if isinstance(data.get("limits"), Mapping) and "timeout_s" in data["limits"]:
            raise ConfigError(
                f"{where}.limits.timeout_s is not used: set the per-test wall limit with {where}.timeout_s"
            )
        for key, kind in nested.items():
            if key in data and not isinstance(data[key], kind):
                check_keys(data[key], [f.name for f in fields(kind)], f"{where}.{key}")
                data[key] = kind(**data[key])
        if "reward" in data and not isinstance(data["reward"], RewardConfig):
            reward = dict(data["reward"])
            check_keys(reward, ["mode", "weights"], f"{where}.reward")
            if "weights" in reward:
                check_keys(
                    reward["weights"], [f.name for f in fields(ShapedWeights)], f"{where}.reward.weights"
                )
                reward["weights"] = ShapedWeights(**reward["weights"])
            data["reward"] = RewardConfig(**reward)
        return cls(**data)


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
        return sum(t.verdict == Verdict.PASSED for t in self.tests)

    @property
    def n_total(self) -> int:
        return len(self.tests)

    @property
    def ran_without_error(self) -> bool:
        return bool(self.tests) and all(
            t.verdict in (Verdict.PASSED, Verdict.WRONG_ANSWER, Verdict.NOT_RUN) for t in self.tests
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(n_passed=self.n_passed, n_total=self.n_total)
        return data


def selected_tests(problem: Problem, max_tests: int | None) -> list[int]:
    """All tests, or a sample of ``max_tests`` fixed by the problem id (the same every step)."""
    count = programs.test_count(problem)
    if max_tests is None or count <= max_tests:
        return list(range(count))
    return sorted(random.Random(zlib.crc32(problem.id.encode())).sample(range(count), max_tests))


def candidate_code(problem: Problem, completion: str, config: ExtractionConfig) -> tuple[str | None, str]:
    """The program to run for ``completion``, or ``None`` and why (a format failure).

    HumanEval completions are often a bare function body: when the code does not define the
    entry point, the program is the prompt followed by the completion.
    """
    extracted = extract_code(completion, config)
    code = extracted.code
    if problem.source_format == "humaneval":
        code = code if code is not None else strip_think_sections(completion)
        if code.strip() and not _defines(code, problem.entry_point or ""):
            code = problem.prompt + code
    if code is None or not code.strip():
        return None, extracted.reason
    return code, ""


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
    judgements: list[Judgement] = field(default_factory=list)
    results: list[ExecutionResult] = field(default_factory=list)


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
        backend: BackendConfig | Mapping[str, Any] | str | None = None,
    ) -> None:
        self.config = config or VerifierConfig()
        self._owns_pool = pool is None
        self.pool = pool if pool is not None else make_backend(backend, workers=workers, isolation=isolation)
        self._time_limits: dict[str, float] = {}

    def time_limit(self, problem: Problem) -> float:
        """The per-test wall limit: calibrated, else the data's own (times the factor, at most
        ``MAX_SECONDS``: a row's limit must not stop a batch), else the configured one."""
        if problem.id in self._time_limits:
            return self._time_limits[problem.id]
        if self.config.use_data_time_limits and problem.time_limit_s:
            return min(problem.time_limit_s * self.config.time_limit_factor, MAX_SECONDS)
        return self.config.timeout_s

    def calibrate_time_limits(
        self, problems: Sequence[Problem], factor: float = 3.0, floor_s: float = 1.0, ceiling_s: float = 20.0
    ) -> dict[str, float]:
        """Set each problem's limit to ``factor`` x its reference solution's slowest test, clamped.

        Problems without a reference solution, or whose solution fails its own tests, keep their
        limit. Returns the limits set, by problem id.
        """
        candidates = [p for p in problems if p.reference_solution]
        probe = replace(self.config, early_exit=False, timeout_s=ceiling_s, use_data_time_limits=False)
        verifier = Verifier(probe, pool=self.pool)
        checked = verifier.verify_batch([(p, f"```python\n{p.reference_solution}\n```") for p in candidates])
        for problem, verification in zip(candidates, checked, strict=True):
            if verification.passed:
                slowest = max((t.wall_s for t in verification.tests), default=0.0)
                self._time_limits[problem.id] = min(ceiling_s, max(floor_s, factor * slowest))
        return {p.id: self._time_limits[p.id] for p in candidates if p.id in self._time_limits}

    def verify_batch(
        self, items: Sequence[tuple[Problem, str]], progress: Callable[[int, int], None] | None = None
    ) -> list[Verification]:
        """Verify every (problem, completion) pair; one result per pair, in order.

        The same code for the same problem object runs once: GRPO groups repeat answers (more so
        as the policy sharpens), and a repeat gets its first occurrence's verdicts, with no
        sandbox time of its own.
        """
        verifications: list[Verification | None] = [None] * len(items)
        jobs: dict[tuple[int, str], _Job] = {}
        repeats: list[tuple[int, _Job]] = []
        for index, (problem, completion) in enumerate(items):
            code, reason = candidate_code(problem, completion, self.config.extraction)
            if code is None:
                verifications[index] = self._format_failure(problem, reason)
            elif (id(problem), code) in jobs:
                repeats.append((index, jobs[id(problem), code]))
            else:
                tests = selected_tests(problem, self.config.max_tests)
                jobs[id(problem), code] = _Job(index, problem, code, tests)
        unique = list(jobs.values())
        self._run(unique, progress)
        self._run_checkers(unique)
        for job in unique:
            verifications[job.index] = self._verification(job)
        for index, job in repeats:
            verifications[index] = replace(verifications[job.index], execution_s=0.0, timeout_lost_s=0.0)
        return [v for v in verifications if v is not None]

    def _limits(self, problem: Problem) -> Limits:
        return self.config.limits.with_overrides(
            timeout_s=self.time_limit(problem),
            cpu_s=None,
            output_bytes=min(self.config.limits.output_bytes, output_cap(problem)),
        )

    def _run(self, jobs: list[_Job], progress: Callable[[int, int], None] | None) -> None:
        batch = [programs.build_program(j.problem, j.code, j.tests, self._limits(j.problem)) for j in jobs]
        results = self.pool.run_batch(
            batch,
            progress=progress,
            stop_when=_FirstFailure(self.config, jobs) if self.config.early_exit else None,
        )
        for job, per_test in zip(jobs, results, strict=True):
            job.results = per_test
            job.judgements = [_judge(self.config, job, position, r) for position, r in enumerate(per_test)]
            if self.config.early_exit and job.problem.id not in self.config.checkers:
                _cut_after_first_failure(job)

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
                    timeout_s=max(10.0, self.time_limit(job.problem))
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
        all_passed = all(t.verdict == Verdict.PASSED for t in tests)
        verification = Verification(
            problem_id=job.problem.id,
            format_ok=True,
            code=job.code,
            tests=tests,
            passed=None if infra else all_passed,
            reward=None,
            infra_fault=infra,
            execution_s=sum(r.wall_s for r in job.results),
            timeout_lost_s=sum(r.wall_s for r in job.results if r.verdict is Verdict.TIMEOUT),
            feedback="" if all_passed else self._feedback(job),
        )
        summary = VerificationSummary(
            format_ok=True,
            ran_without_error=verification.ran_without_error,
            n_passed=verification.n_passed,
            n_total=verification.n_total,
            infra_fault=infra,
        )
        return replace(verification, reward=compute_reward(summary, self.config.reward))

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
        text = "\n".join(lines)
        limit = self.config.feedback_chars
        return text if len(text) <= limit else text[: limit - 15] + "\n[... truncated]"

    def close(self) -> None:
        if self._owns_pool:
            self.pool.close()

    def __enter__(self) -> Verifier:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _judge(config: VerifierConfig, job: _Job, position: int, result: ExecutionResult) -> Judgement:
    values = replace(
        config.values, unwrap_singleton=config.values.unwrap_singleton or job.problem.singleton_outputs
    )
    return programs.judge(job.problem, job.tests[position], result, config.comparison, values)


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
