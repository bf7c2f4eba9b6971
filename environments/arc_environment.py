"""The NeMo RL environment that rewards ARC programs by running them on the task's grids.

``ArcProgramsEnvironment`` is the Ray actor NeMo RL creates (registered as ``arc_programs``);
``ArcProgramEnvironment`` is the same class, usable in process. Per step, each sample's last
assistant message is judged on the task the processor put in its ``extra_env_info``, all samples
in one sandbox batch: one run per program over every train and test grid, the reward from the
train pairs (``nemo_code_rl.arc.rewards``). It shares the unit-test environment's machinery:
concurrent ``step`` calls are coalesced into one batch, a sample the sandbox could not judge gets
its group's mean reward (``neutral_rewards``) and is flagged, unreadable metadata gets 0.

Multi-turn (``max_rollout_turns > 1``): a program that misses a train pair is told which pairs
failed and where the first wrong grid differs, as a new user turn in the policy's chat format.
Each turn returns the change in the episode's reward, so NeMo RL's sum is the last attempt's.

Metrics: the unit-test environment's verification and response metrics, plus the ARC table under
``arc/`` (valid code, valid outputs, unique outputs, pixel scores, correct grids, pass rates,
pass@n) over the finished episodes.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import ray
import torch

from nemo_code_rl.arc.augment import Augmentation
from nemo_code_rl.arc.feedback import feedback_text
from nemo_code_rl.arc.metrics import ArcOutcome, arc_metrics
from nemo_code_rl.arc.scoring import result_fields
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.arc.verifier import ArcVerification, ArcVerifier
from nemo_code_rl.environments.arc_config import ArcEnvConfig
from nemo_code_rl.environments.chat_turns import UserTurnFormat, load_tokenizer, user_turn_format
from nemo_code_rl.environments.coalescer import BatchCoalescer
from nemo_code_rl.environments.config import FEEDBACK_PLACEHOLDER
from nemo_code_rl.environments.messages import (
    ENVIRONMENT_ROLE,
    EPISODE_REWARD_KEY,
    MAX_PENDING_OUTCOMES,
    RESULT_KEY,
    TURN_KEY,
    assistant_text,
    last_assistant_content,
    truncation_flags,
)
from nemo_code_rl.environments.metrics import SampleOutcome, response_metrics, verification_metrics
from nemo_code_rl.environments.nemo_rl_compat import EnvironmentInterface, EnvironmentReturn
from nemo_code_rl.environments.neutral_rewards import neutral_rewards
from nemo_code_rl.processors.arc_processors import task_from_env_info

logger = logging.getLogger(__name__)

ARC_METRIC_PREFIX = "arc/"


@dataclass(frozen=True)
class _Sample:
    """One sample of a step, read defensively: ``error`` says why it cannot be judged."""

    info: dict[str, Any]
    completion: str
    task: ArcTask | None
    augmentation: Augmentation | None
    turns_done: int
    episode_reward: float
    error: str | None


class _Conclusion(NamedTuple):
    """What ``step`` returns for one sample, and the records kept for the metrics."""

    observation: str
    metadata: dict[str, Any]
    reward: float
    terminated: bool
    answer: str | None
    outcome: SampleOutcome
    arc_outcome: ArcOutcome | None


class ArcProgramEnvironment(EnvironmentInterface):
    """Judges ARC programs in a sandbox and returns NeMo RL rewards, observations and metrics.

    Args:
        cfg: the ``env.arc_programs`` config dict (see ``nemo_code_rl.environments.arc_config``);
            every key is validated here, so a typo fails at start-up rather than changing the reward.
    """

    def __init__(self, cfg: Mapping[str, Any] | None = None) -> None:
        self.config = ArcEnvConfig.from_dict(cfg, where="env config")
        self._turn_format: UserTurnFormat | None = None
        if self.config.multi_turn:
            assert self.config.tokenizer is not None
            tokenizer = load_tokenizer(self.config.tokenizer)
            self._turn_format = user_turn_format(tokenizer, self.config.tokenizer.chat_template_kwargs)
        self._verifier: ArcVerifier | None = ArcVerifier(
            self.config.verifier, workers=self.config.workers, isolation=self.config.isolation
        )
        self._coalescer: BatchCoalescer[tuple[ArcTask, str], ArcVerification] = BatchCoalescer(self._verify)
        self._records: deque[tuple[SampleOutcome, ArcOutcome | None]] = deque(maxlen=MAX_PENDING_OUTCOMES)
        self._records_lock = threading.Lock()

    def step(self, message_log_batch: list[list[dict[str, Any]]], metadata: list[Any]) -> EnvironmentReturn:
        """Judge the last assistant message of every conversation; one reward per sample."""
        samples = [_read_sample(log, info) for log, info in zip(message_log_batch, metadata, strict=True)]
        jobs = [(s.task, s.completion) for s in samples if s.task is not None]
        verifications: list[ArcVerification | None] = [None] * len(jobs)
        fault = ""
        if jobs:
            try:
                verifications = list(self._coalescer.submit(jobs))
            except Exception as error:  # the whole batch is lost; flagged, never raised
                logger.exception("verification of a batch of %d ARC samples failed", len(jobs))
                fault = f"verification failed: {type(error).__name__}: {error}"
        found = iter(verifications)
        paired = [(sample, next(found) if sample.task is not None else None) for sample in samples]
        neutral = neutral_rewards(
            [v.task_id if v is not None else None for _, v in paired],
            [v.reward if v is not None else None for _, v in paired],
        )
        results = [
            self._conclude(sample, verification, fault, fallback)
            for (sample, verification), fallback in zip(paired, neutral, strict=True)
        ]
        with self._records_lock:
            self._records.extend((result.outcome, result.arc_outcome) for result in results)
        return EnvironmentReturn(
            observations=[{"role": ENVIRONMENT_ROLE, "content": result.observation} for result in results],
            metadata=[result.metadata for result in results],
            next_stop_strings=[None] * len(results),
            rewards=torch.tensor([result.reward for result in results], dtype=torch.float32),
            terminateds=torch.tensor([result.terminated for result in results], dtype=torch.bool),
            answers=[result.answer for result in results],
        )

    def global_post_process_and_metrics(self, batch: Any) -> tuple[Any, dict[str, float]]:
        """Metrics of every attempt judged since the last call, and of the batch's responses."""
        with self._records_lock:
            records = list(self._records)
            self._records.clear()
        metrics = verification_metrics([outcome for outcome, _ in records])
        finished = [arc for outcome, arc in records if outcome.terminal and arc is not None]
        metrics.update({ARC_METRIC_PREFIX + key: value for key, value in arc_metrics(finished).items()})
        if "message_log" in batch:
            texts = [assistant_text(log) for log in batch["message_log"]]
            metrics.update(response_metrics(texts, truncation_flags(batch)))
        return batch, metrics

    def shutdown(self) -> None:
        """Stop the sandbox workers; safe to call more than once."""
        verifier, self._verifier = self._verifier, None
        if verifier is not None:
            verifier.close()

    def _verify(self, jobs: list[tuple[ArcTask, str]]) -> list[ArcVerification]:
        if self._verifier is None:
            raise RuntimeError("the environment has been shut down")
        return self._verifier.verify_batch(jobs)

    def _conclude(
        self, sample: _Sample, verification: ArcVerification | None, fault: str, neutral_reward: float
    ) -> _Conclusion:
        turn = sample.turns_done + 1
        if sample.error is not None or verification is None:
            error = sample.error or fault
            outcome = SampleOutcome(
                problem_id=sample.task.id if sample.task is not None else None,
                turn=turn,
                passed=None,
                infra_fault=sample.error is None,
                bad_metadata=sample.error is not None,
            )
            metadata = {**sample.info, TURN_KEY: turn, EPISODE_REWARD_KEY: 0.0, RESULT_KEY: {"error": error}}
            observation = f"Environment: the answer could not be judged ({error})."
            return _Conclusion(observation, metadata, 0.0 - sample.episode_reward, True, None, outcome, None)

        reward = neutral_reward if verification.reward is None else float(verification.reward)
        execution = self.config.verifier.execution
        feedback = feedback_text(verification, execution.function_name)
        terminated = (
            verification.train_passed or verification.infra_fault or turn >= self.config.max_rollout_turns
        )
        kinds = Counter(j.kind for j in verification.train)
        outcome = SampleOutcome(
            problem_id=verification.task_id,
            turn=turn,
            terminal=terminated,
            format_ok=verification.format_ok,
            passed=None if verification.infra_fault else verification.train_passed,
            fraction_passed=verification.train_accuracy,
            ran_without_error=verification.valid_outputs,
            verdicts=dict(kinds),
            infra_fault=verification.infra_fault,
            execution_s=verification.execution_s,
            timeout_lost_s=min(verification.execution_s, kinds["timeout"] * execution.timeout_s),
            reward=reward,
        )
        result = result_fields(verification, sample.augmentation)
        metadata = {**sample.info, TURN_KEY: turn, EPISODE_REWARD_KEY: reward, RESULT_KEY: result}
        if terminated:
            observation = _summary(verification)
        else:
            assert self._turn_format is not None
            text = self.config.feedback_template.replace(FEEDBACK_PLACEHOLDER, feedback)
            observation = self._turn_format.render(text)
        return _Conclusion(
            observation,
            metadata,
            reward - sample.episode_reward,
            terminated,
            verification.code,
            outcome,
            verification.outcome(),
        )


ArcProgramsEnvironment = ray.remote(max_restarts=-1, max_task_retries=-1, max_concurrency=1000)(
    ArcProgramEnvironment
)
"""The Ray actor class NeMo RL instantiates with the ``env.arc_programs`` dict (register this fqn)."""


def _read_sample(message_log: Any, info: Any) -> _Sample:
    """The sample's completion, task and episode state; never raises."""
    completion = last_assistant_content(message_log)
    if isinstance(info, str):
        try:
            info = json.loads(info)
        except ValueError:
            pass
    if not isinstance(info, Mapping):
        error = f"metadata must be a dict (extra_env_info), got {type(info).__name__}"
        return _Sample({}, completion, None, None, 0, 0.0, error)
    info = dict(info)
    turns_done, episode_reward = info.get(TURN_KEY, 0), info.get(EPISODE_REWARD_KEY, 0.0)
    if isinstance(turns_done, bool) or not isinstance(turns_done, int) or turns_done < 0:
        error = f"metadata {TURN_KEY!r} must be a count, got {turns_done!r}"
        return _Sample(info, completion, None, None, 0, 0.0, error)
    if isinstance(episode_reward, bool) or not isinstance(episode_reward, (int, float)):
        error = f"metadata {EPISODE_REWARD_KEY!r} must be a number, got {episode_reward!r}"
        return _Sample(info, completion, None, None, turns_done, 0.0, error)
    try:
        task, augmentation = task_from_env_info(info)
    except Exception as error:  # any unreadable task is this sample's fault, not the batch's
        return _Sample(info, completion, None, None, turns_done, float(episode_reward), str(error))
    return _Sample(info, completion, task, augmentation, turns_done, float(episode_reward), None)


def _summary(verification: ArcVerification) -> str:
    """A short closing observation: NeMo RL appends it to the conversation (it is not trained on)."""
    if verification.infra_fault:
        return "Environment: the sandbox failed; this answer is not scored."
    if not verification.format_ok:
        return "Environment: no code found."
    if not verification.compiled:
        return "Environment: the program does not compile."
    right = sum(bool(j.correct) for j in verification.train)
    total = len(verification.train)
    return f"Environment: {right}/{total} training examples right; reward {verification.reward:g}."
