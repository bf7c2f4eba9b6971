"""Judge ARC completions: extract the program, run it on the task's grids, compare, reward.

``ArcVerifier.verify_batch`` takes (task, completion) pairs and makes one engine call for the
whole batch, one sandboxed run per completion. A model fault (no code, a crash, a wrong or
malformed grid) is a judgement and a reward; an infrastructure fault (``worker_lost``) is flagged
and gets no reward, never a failing one that would teach the model something false.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from nemo_code_rl.arc.execution import (
    ARC_PRELOAD,
    ArcExecutionConfig,
    GridRun,
    ProgramRun,
    build_program,
    load_helper,
    parse_run,
)
from nemo_code_rl.arc.grids import Grid, describe_difference, overlap_similarity, pixel_accuracy
from nemo_code_rl.arc.metrics import ArcOutcome
from nemo_code_rl.arc.rewards import ARC_REWARD_VERSION, ArcRewardConfig, arc25_reward, arc_reward
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.config_keys import ConfigSection, config_section
from nemo_code_rl.engine.backend import BackendConfig, ExecutionBackend, make_backend
from nemo_code_rl.extraction import ExtractionConfig, extract_code
from nemo_code_rl.outcomes import AttemptStatus, Verdict


@config_section
class ArcVerifierConfig(ConfigSection):
    """How ARC completions are judged: code extraction, execution and reward."""

    WHERE = "verifier"

    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    execution: ArcExecutionConfig = field(default_factory=ArcExecutionConfig)
    reward: ArcRewardConfig = field(default_factory=ArcRewardConfig)


@dataclass(frozen=True)
class GridJudgement:
    """How one output grid compares with the expected one.

    Attributes:
        output: the valid grid the program returned, or ``None``.
        correct: exactly the expected grid; ``None`` when the expected grid is unknown.
        pixel: pixel accuracy (0 for a missing output or another shape); ``None`` when unknown.
        verdict: ``passed``, ``wrong_answer``, ``unjudged`` (no expected grid), or why there is
            no output (``GridRun.verdict``: ``timeout``, ``runtime_error``, ``missing_module``,
            ``invalid_output``, ``not_run``).
        detail: for humans: the first difference, or the error.
    """

    output: Grid | None
    correct: bool | None
    pixel: float | None
    verdict: Verdict
    detail: str = ""

    @property
    def valid(self) -> bool:
        return self.output is not None


def judge_grid(run: GridRun, expected: Grid | None) -> GridJudgement:
    """Compare what the program returned with ``expected`` (``None`` when unknown)."""
    known = expected is not None
    if run.output is None:
        return GridJudgement(None, False if known else None, 0.0 if known else None, run.verdict, run.error)
    if expected is None:
        return GridJudgement(run.output, None, None, Verdict.UNJUDGED)
    if run.output == expected:
        return GridJudgement(run.output, True, 1.0, Verdict.PASSED)
    return GridJudgement(
        run.output,
        False,
        pixel_accuracy(run.output, expected),
        Verdict.WRONG_ANSWER,
        describe_difference(run.output, expected),
    )


@dataclass(frozen=True)
class ArcVerification:
    """Everything known about one completion of one task after verification.

    Attributes:
        task_id: the task.
        format_ok: a code block was found.
        code: the extracted program, or ``None``.
        compiled: the program is valid Python.
        error: why no grid could be computed at all (no code, syntax error, load failure), or "".
        train / test: one judgement per train and test pair.
        reward: the reward; ``None`` on an infrastructure fault.
        infra_fault: the sandbox failed; nothing here judges the program.
        execution_s: sandbox wall-clock seconds.
        failure: the verdict of ``error`` (``ProgramRun.failure``); ``None`` when the function ran.
    """

    task_id: str
    format_ok: bool
    code: str | None
    compiled: bool
    error: str
    train: tuple[GridJudgement, ...]
    test: tuple[GridJudgement, ...]
    reward: float | None
    infra_fault: bool = False
    execution_s: float = 0.0
    reward_version: str = ARC_REWARD_VERSION
    failure: Verdict | None = None

    @property
    def verdict(self) -> Verdict | AttemptStatus:
        """What became of the program, in one word of the outcome vocabulary: ``no_code``, the
        program's ``failure``, else the first train (then test) grid that is not right, else
        ``passed`` (``unjudged`` when the test outputs are unknown)."""
        return self._reason()[0]

    @property
    def message(self) -> str:
        """Why, for humans: the error, the exception's last line, or what is wrong with which grid."""
        return self._reason()[1]

    def _reason(self) -> tuple[Verdict | AttemptStatus, str]:
        if self.infra_fault:
            return Verdict.WORKER_LOST, self.error
        if not self.format_ok:
            return AttemptStatus.NO_CODE, self.error
        if self.failure is not None:
            return self.failure, self.error
        for split, judgements in (("train", self.train), ("test", self.test)):
            for number, judgement in enumerate(judgements, start=1):
                if judgement.verdict not in (Verdict.PASSED, Verdict.UNJUDGED):
                    return judgement.verdict, f"{split} {number}: {judgement.detail}"
        return (Verdict.PASSED if self.test_known else Verdict.UNJUDGED), ""

    @property
    def valid_code(self) -> bool:
        return self.format_ok and self.compiled

    @property
    def valid_outputs(self) -> bool:
        return all(j.valid for j in (*self.train, *self.test))

    @property
    def train_accuracy(self) -> float:
        return sum(bool(j.correct) for j in self.train) / len(self.train)

    @property
    def train_passed(self) -> bool:
        """Every train output exactly right: the program does what the task demonstrates."""
        return all(j.correct for j in self.train)

    @property
    def train_pixel_score(self) -> float:
        return fmean(j.pixel or 0.0 for j in self.train)

    @property
    def test_known(self) -> bool:
        return all(j.correct is not None for j in self.test)

    @property
    def passed(self) -> bool | None:
        """Every test output exactly right; ``None`` when the test outputs are unknown."""
        return all(bool(j.correct) for j in self.test) if self.test_known else None

    @property
    def predictions(self) -> list[Grid | None]:
        """One grid (or ``None``) per test input, in the task's own frame."""
        return [j.output for j in self.test]

    def outcome(self) -> ArcOutcome:
        """The summary the ARC table is computed from."""
        outputs = [j.output for j in (*self.train, *self.test)]
        known = self.test_known
        return ArcOutcome(
            task_id=self.task_id,
            valid_code=self.valid_code,
            valid_outputs=self.valid_outputs,
            outputs_hash=hashlib.sha256(json.dumps(outputs).encode()).hexdigest()[:16]
            if self.valid_outputs
            else None,
            train_pixel_score=self.train_pixel_score,
            train_accuracy=self.train_accuracy,
            test_pixel_score=fmean(j.pixel or 0.0 for j in self.test) if known else None,
            test_correct_grids=sum(bool(j.correct) for j in self.test) / len(self.test) if known else None,
            passed=self.passed,
            reward=self.reward,
            infra_fault=self.infra_fault,
        )


def _arc25_reward(task: ArcTask, train: Sequence[GridJudgement], test: Sequence[GridJudgement]) -> float:
    """arc25's reward from the judgements (``rewards.arc25_reward``), its similarity computed here."""
    judged = (*train, *test)
    if not all(j.valid for j in judged):
        return arc25_reward(False, [], [], None, None, len(test))
    similarity = [
        overlap_similarity(j.output, pair.output)
        for j, pair in zip(judged, (*task.train, *task.test), strict=True)
        if j.output is not None and pair.output is not None
    ]
    known = all(pair.output is not None for pair in task.test)
    return arc25_reward(
        True,
        [bool(j.correct) for j in train],
        similarity[: len(train)],
        [bool(j.correct) for j in test] if known else None,
        similarity[len(train) :] if known else None,
        len(test),
    )


class ArcVerifier:
    """Judges ARC completions in the sandboxed engine.

    Args:
        config: how to judge (see ``ArcVerifierConfig``); its helper library is read once, here.
        pool: an execution backend to use (borrowed: never closed here); when ``None`` the
            verifier starts one with ``make_backend`` and owns it.
        workers / isolation / backend: for the backend the verifier starts (``make_backend``).
    """

    def __init__(
        self,
        config: ArcVerifierConfig | None = None,
        pool: ExecutionBackend | None = None,
        workers: int | None = None,
        isolation: str = "full",
        backend: BackendConfig | Mapping[str, Any] | str | None = None,
    ) -> None:
        self.config = config or ArcVerifierConfig()
        self._helpers = load_helper(self.config.execution.helper)
        self._owns_pool = pool is None
        if pool is None:
            pool = make_backend(backend, workers=workers, isolation=isolation, preload=ARC_PRELOAD)
        self.pool = pool

    def verify_batch(
        self,
        items: Sequence[tuple[ArcTask, str]],
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[int], bool] | None = None,
    ) -> list[ArcVerification]:
        """Verify every (task, completion) pair; one result per pair, in order.

        ``cancelled(index)`` is asked before the pair's program starts and while it runs (the
        backend's ``run_batch(cancelled=...)``): once it says True, the program is never started,
        or stopped (mid-run: an ARC program runs every grid in one input), and its grids are
        ``not_run``.
        """
        extracted = [extract_code(completion, self.config.extraction) for _, completion in items]
        runnable = [i for i, found in enumerate(extracted) if found.code is not None]
        programs = [
            build_program(items[i][0], extracted[i].code or "", self.config.execution, self._helpers)
            for i in runnable
        ]
        check = (lambda program: cancelled(runnable[program])) if cancelled is not None else None
        runs = dict(
            zip(runnable, self.pool.run_batch(programs, progress=progress, cancelled=check), strict=True)
        )
        verifications = []
        for index, (task, _) in enumerate(items):
            if index in runs:
                run = parse_run(runs[index][0], len(task.train) + len(task.test))
                verifications.append(self._judge(task, extracted[index].code, run))
            else:
                verifications.append(self._no_code(task, extracted[index].reason))
        return verifications

    def _judge(self, task: ArcTask, code: str | None, run: ProgramRun) -> ArcVerification:
        n_train = len(task.train)
        train = tuple(judge_grid(g, p.output) for g, p in zip(run.grids[:n_train], task.train, strict=True))
        test = tuple(judge_grid(g, p.output) for g, p in zip(run.grids[n_train:], task.test, strict=True))
        reward = None
        if not run.infra_fault and self.config.reward.mode == "arc25":
            reward = _arc25_reward(task, train, test)
        elif not run.infra_fault:
            reward = arc_reward(
                run.compiled,
                [j.valid for j in train],
                [bool(j.correct) for j in train],
                [j.pixel or 0.0 for j in train],
                self.config.reward,
            )
        return ArcVerification(
            task.id,
            True,
            code,
            run.compiled,
            run.error,
            train,
            test,
            reward,
            run.infra_fault,
            run.wall_s,
            failure=run.failure,
        )

    def _no_code(self, task: ArcTask, reason: str) -> ArcVerification:
        missing = GridRun(None, Verdict.NOT_RUN, "no code")
        train = tuple(judge_grid(missing, p.output) for p in task.train)
        test = tuple(judge_grid(missing, p.output) for p in task.test)
        reward = (
            0.0 if self.config.reward.mode == "arc25" else arc_reward(False, [], [], [], self.config.reward)
        )
        return ArcVerification(task.id, False, None, False, reason, train, test, reward)

    def close(self) -> None:
        if self._owns_pool:
            self.pool.close()

    def __enter__(self) -> ArcVerifier:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
