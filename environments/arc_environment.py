"""The NeMo RL environment that rewards ARC programs by running them on the task's grids.

``ArcProgramsEnvironment`` is the Ray actor NeMo RL creates (registered as ``arc_programs``);
``ArcProgramEnvironment`` is the same class, usable in process. Per step, each sample's last
assistant message is judged on the task the processor put in its ``extra_env_info``, all samples
in one sandbox batch: one run per program over every train and test grid, the reward from the
train pairs (``nemo_code_rl.arc.rewards``). The step is ``verifying_environment``'s, shared with
the unit-test environment: concurrent ``step`` calls are coalesced into one batch, a sample the
sandbox could not judge gets a neutral reward (``nemo_code_rl.fault_policy``) and is flagged,
unreadable metadata gets 0.

Multi-turn (``max_rollout_turns > 1``): a program that misses a train pair is told which pairs
failed and where the first wrong grid differs, as a new user turn in the policy's chat format.
Each turn returns the change in the episode's reward, so NeMo RL's sum is the last attempt's.

Metrics: the unit-test environment's verification and response metrics, plus the ARC table under
``arc/`` (valid code, valid outputs, unique outputs, pixel scores, correct grids, pass rates,
pass@n) over the finished episodes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import ray

from nemo_code_rl.arc.augment import Augmentation
from nemo_code_rl.arc.feedback import feedback_text
from nemo_code_rl.arc.metrics import arc_metrics
from nemo_code_rl.arc.scoring import result_fields
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.arc.verifier import ArcVerification, ArcVerifier
from nemo_code_rl.environments.arc_config import ArcEnvConfig
from nemo_code_rl.environments.verifying_environment import Judgement, Sample, VerifyingEnvironment
from nemo_code_rl.outcomes import Verdict
from nemo_code_rl.processors.arc_processors import task_from_env_info
from nemo_code_rl.training_metrics import SampleOutcome

ARC_METRIC_PREFIX = "arc/"


class ArcSubject(NamedTuple):
    """What a sample asks to judge: the task as the policy saw it, and how it was augmented."""

    task: ArcTask
    augmentation: Augmentation | None


class ArcProgramEnvironment(
    VerifyingEnvironment[ArcEnvConfig, ArcSubject, tuple[ArcTask, str], ArcVerification]
):
    """Judges ARC programs in a sandbox and returns NeMo RL rewards, observations and metrics.

    Args:
        cfg: the ``env.arc_programs`` config dict (see ``nemo_code_rl.environments.arc_config``);
            every key is validated here, so a typo fails at start-up rather than changing the reward.
    """

    CHECK_VERB = "judged"

    def __init__(self, cfg: Mapping[str, Any] | None = None) -> None:
        config = ArcEnvConfig.from_dict(cfg)
        super().__init__(
            config,
            ArcVerifier(
                config.verifier, workers=config.workers, isolation=config.isolation, backend=config.backend
            ),
        )

    def _read_subject(self, info: dict[str, Any]) -> ArcSubject:
        return ArcSubject(*task_from_env_info(info))

    def _subject_id(self, subject: ArcSubject) -> str:
        return subject.task.id

    def _job(self, subject: ArcSubject, completion: str) -> tuple[ArcTask, str]:
        return subject.task, completion

    def _judge(
        self, sample: Sample[ArcSubject], verification: ArcVerification, turn: int, reward: float
    ) -> Judgement:
        execution = self.config.verifier.execution
        terminated = (
            verification.train_passed or verification.infra_fault or turn >= self.config.max_rollout_turns
        )
        verdicts = Counter(j.verdict.value for j in verification.train)
        outcome = SampleOutcome(
            problem_id=verification.task_id,
            turn=turn,
            terminal=terminated,
            format_ok=verification.format_ok,
            passed=None if verification.infra_fault else verification.train_passed,
            fraction_passed=verification.train_accuracy,
            ran_without_error=verification.valid_outputs,
            verdicts=dict(verdicts),
            infra_fault=verification.infra_fault,
            execution_s=verification.execution_s,
            timeout_lost_s=min(verification.execution_s, verdicts[Verdict.TIMEOUT] * execution.timeout_s),
            reward=reward,
        )
        assert sample.subject is not None
        return Judgement(
            outcome,
            result_fields(verification, sample.subject.augmentation),
            feedback_text(verification, execution.function_name),
            verification.outcome(),
        )

    def _record_metrics(self, records: Sequence[tuple[SampleOutcome, Any]]) -> dict[str, float]:
        """The verification metrics, and the ARC table over the finished episodes."""
        metrics = super()._record_metrics(records)
        finished = [arc for outcome, arc in records if outcome.terminal and arc is not None]
        metrics.update({ARC_METRIC_PREFIX + key: value for key, value in arc_metrics(finished).items()})
        return metrics

    def _summary(self, verification: ArcVerification) -> str:
        if verification.infra_fault:
            return "Environment: the sandbox failed; this answer is not scored."
        if not verification.format_ok:
            return "Environment: no code found."
        if not verification.compiled:
            return "Environment: the program does not compile."
        right = sum(bool(j.correct) for j in verification.train)
        total = len(verification.train)
        return f"Environment: {right}/{total} training examples right; reward {verification.reward:g}."


# ray's stubs lack max_concurrency for actor classes
ArcProgramsEnvironment = ray.remote(max_restarts=-1, max_task_retries=-1, max_concurrency=1000)(  # type: ignore[call-overload]
    ArcProgramEnvironment
)
"""The Ray actor class NeMo RL instantiates with the ``env.arc_programs`` dict (register this fqn)."""
