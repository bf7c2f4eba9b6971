"""The NeMo RL environment that rewards code by running it against the problem's unit tests.

``CodeUnitTestEnvironment`` is the Ray actor NeMo RL creates (register it under a name of our own,
e.g. ``code_unit_tests``; ``code`` is NeMo RL's REPL tool environment). ``UnitTestEnvironment``
is the same class, usable in process.

Per step, each sample's last assistant message is verified against the problem the processor put
in its ``extra_env_info``, all samples in one sandbox batch. A step never raises for a sample:
unreadable metadata gets reward 0, and a sample the sandbox could not judge (an infrastructure
fault) gets the mean reward of its problem's other samples in the step (see ``neutral_rewards``);
both are flagged in the returned metadata and counted in the metrics, so one bad row or a lost
sandbox worker can neither stop training nor teach the model something false.

Multi-turn (``max_rollout_turns > 1``): a failing program gets its test report back as a new user
turn and the episode goes on, until it passes or the turns run out. NeMo RL adds up the rewards
of all turns, so each turn returns the *change* in the episode's reward (this attempt's reward
minus the previous one's): the sum is the reward of the last attempt, however the rollout ends.
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

from nemo_code_rl.environments.chat_turns import UserTurnFormat, load_tokenizer, user_turn_format
from nemo_code_rl.environments.coalescer import BatchCoalescer
from nemo_code_rl.environments.config import FEEDBACK_PLACEHOLDER, CodeEnvConfig
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
from nemo_code_rl.problems import Problem
from nemo_code_rl.processors.env_info import problem_from_env_info
from nemo_code_rl.verification import Verification, Verifier

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Sample:
    """One sample of a step, read defensively: ``error`` says why it cannot be verified."""

    info: dict[str, Any]
    completion: str
    problem: Problem | None
    turns_done: int
    episode_reward: float
    error: str | None


class _Conclusion(NamedTuple):
    """What ``step`` returns for one sample, and the record kept for the metrics."""

    observation: str
    metadata: dict[str, Any]
    reward: float
    terminated: bool
    answer: str | None
    outcome: SampleOutcome


class UnitTestEnvironment(EnvironmentInterface):
    """Verifies code completions in a sandbox and returns NeMo RL rewards, observations and metrics.

    Args:
        cfg: the ``env.<name>`` config dict (see ``nemo_code_rl.environments.config``); every key
            is validated here, so a typo fails at start-up rather than changing the reward.
    """

    def __init__(self, cfg: Mapping[str, Any] | None = None) -> None:
        self.config = CodeEnvConfig.from_dict(cfg, where="env config")
        self._turn_format: UserTurnFormat | None = None
        if self.config.multi_turn:
            assert self.config.tokenizer is not None
            tokenizer = load_tokenizer(self.config.tokenizer)
            self._turn_format = user_turn_format(tokenizer, self.config.tokenizer.chat_template_kwargs)
        self._verifier: Verifier | None = Verifier(
            self.config.verifier, workers=self.config.workers, isolation=self.config.isolation
        )
        self._coalescer: BatchCoalescer[tuple[Problem, str], Verification] = BatchCoalescer(self._verify)
        self._outcomes: deque[SampleOutcome] = deque(maxlen=MAX_PENDING_OUTCOMES)
        self._outcomes_lock = threading.Lock()

    def step(self, message_log_batch: list[list[dict[str, Any]]], metadata: list[Any]) -> EnvironmentReturn:
        """Verify the last assistant message of every conversation; one reward per sample."""
        samples = [_read_sample(log, info) for log, info in zip(message_log_batch, metadata, strict=True)]
        jobs = [(s.problem, s.completion) for s in samples if s.problem is not None]
        verifications: list[Verification | None] = [None] * len(jobs)
        fault = ""
        if jobs:
            try:
                verifications = list(self._coalescer.submit(jobs))
            except Exception as error:  # the whole batch is lost; flagged, never raised
                logger.exception("verification of a batch of %d samples failed", len(jobs))
                fault = f"verification failed: {type(error).__name__}: {error}"
        found = iter(verifications)
        paired = [(sample, next(found) if sample.problem is not None else None) for sample in samples]
        neutral = neutral_rewards(
            [v.problem_id if v is not None else None for _, v in paired],
            [v.reward if v is not None else None for _, v in paired],
        )
        results = [
            self._conclude(sample, verification, fault, fallback)
            for (sample, verification), fallback in zip(paired, neutral, strict=True)
        ]
        with self._outcomes_lock:
            self._outcomes.extend(result.outcome for result in results)
        return EnvironmentReturn(
            observations=[{"role": ENVIRONMENT_ROLE, "content": result.observation} for result in results],
            metadata=[result.metadata for result in results],
            next_stop_strings=[None] * len(results),
            rewards=torch.tensor([result.reward for result in results], dtype=torch.float32),
            terminateds=torch.tensor([result.terminated for result in results], dtype=torch.bool),
            answers=[result.answer for result in results],
        )

    def global_post_process_and_metrics(self, batch: Any) -> tuple[Any, dict[str, float]]:
        """Metrics of every attempt verified since the last call, and of the batch's responses.

        NeMo RL's finished-episode metadata does not reach the batch, so verification details are
        accumulated by ``step`` and reported (and reset) here. Response texts come from the batch's
        ``message_log``; truncation from ``truncated`` (set by NeMo RL's rollouts) or ``is_end``.
        """
        with self._outcomes_lock:
            outcomes = list(self._outcomes)
            self._outcomes.clear()
        metrics = verification_metrics(outcomes)
        if "message_log" in batch:
            texts = [assistant_text(log) for log in batch["message_log"]]
            metrics.update(response_metrics(texts, truncation_flags(batch)))
        return batch, metrics

    def shutdown(self) -> None:
        """Stop the sandbox workers; safe to call more than once."""
        verifier, self._verifier = self._verifier, None
        if verifier is not None:
            verifier.close()

    def _verify(self, jobs: list[tuple[Problem, str]]) -> list[Verification]:
        if self._verifier is None:
            raise RuntimeError("the environment has been shut down")
        return self._verifier.verify_batch(jobs)

    def _conclude(
        self, sample: _Sample, verification: Verification | None, fault: str, neutral_reward: float
    ) -> _Conclusion:
        turn = sample.turns_done + 1
        if sample.error is not None or verification is None:
            error = sample.error or fault
            outcome = SampleOutcome(
                problem_id=sample.problem.id if sample.problem is not None else None,
                turn=turn,
                passed=None,
                infra_fault=sample.error is None,
                bad_metadata=sample.error is not None,
            )
            metadata = {**sample.info, TURN_KEY: turn, EPISODE_REWARD_KEY: 0.0, RESULT_KEY: {"error": error}}
            observation = f"Environment: the answer could not be verified ({error})."
            return _Conclusion(observation, metadata, 0.0 - sample.episode_reward, True, None, outcome)

        reward = neutral_reward if verification.reward is None else float(verification.reward)
        verdicts = Counter(test.verdict for test in verification.tests)
        terminated = (
            bool(verification.passed)
            or verification.infra_fault
            or turn >= self.config.max_rollout_turns
            or not verification.feedback
        )
        outcome = SampleOutcome(
            problem_id=verification.problem_id,
            turn=turn,
            terminal=terminated,
            format_ok=verification.format_ok,
            passed=verification.passed,
            fraction_passed=verification.n_passed / verification.n_total if verification.n_total else 0.0,
            ran_without_error=verification.ran_without_error,
            verdicts=dict(verdicts),
            infra_fault=verification.infra_fault,
            execution_s=verification.execution_s,
            timeout_lost_s=verification.timeout_lost_s,
            reward=reward,
        )
        result = {
            "passed": verification.passed,
            "n_passed": verification.n_passed,
            "n_total": verification.n_total,
            "format_ok": verification.format_ok,
            "infra_fault": verification.infra_fault,
            "reward": verification.reward,
            "reward_version": verification.reward_version,
            "verdicts": dict(verdicts),
        }
        metadata = {**sample.info, TURN_KEY: turn, EPISODE_REWARD_KEY: reward, RESULT_KEY: result}
        if terminated:
            observation = _summary(verification)
        else:
            assert self._turn_format is not None
            feedback = self.config.feedback_template.replace(FEEDBACK_PLACEHOLDER, verification.feedback)
            observation = self._turn_format.render(feedback)
        return _Conclusion(
            observation, metadata, reward - sample.episode_reward, terminated, verification.code, outcome
        )


CodeUnitTestEnvironment = ray.remote(max_restarts=-1, max_task_retries=-1, max_concurrency=1000)(
    UnitTestEnvironment
)
"""The Ray actor class NeMo RL instantiates with the ``env.<name>`` dict (register this fqn)."""


def _read_sample(message_log: Any, info: Any) -> _Sample:
    """The sample's completion, problem and episode state; never raises."""
    completion = last_assistant_content(message_log)
    if isinstance(info, str):
        try:
            info = json.loads(info)
        except ValueError:
            pass
    if not isinstance(info, Mapping):
        error = f"metadata must be a dict (extra_env_info), got {type(info).__name__}"
        return _Sample({}, completion, None, 0, 0.0, error)
    info = dict(info)
    turns_done = info.get(TURN_KEY, 0)
    episode_reward = info.get(EPISODE_REWARD_KEY, 0.0)
    if isinstance(turns_done, bool) or not isinstance(turns_done, int) or turns_done < 0:
        return _Sample(
            info, completion, None, 0, 0.0, f"metadata {TURN_KEY!r} must be a count, got {turns_done!r}"
        )
    if isinstance(episode_reward, bool) or not isinstance(episode_reward, (int, float)):
        error = f"metadata {EPISODE_REWARD_KEY!r} must be a number, got {episode_reward!r}"
        return _Sample(info, completion, None, turns_done, 0.0, error)
    try:
        problem = problem_from_env_info(info)
    except Exception as error:  # any unreadable problem is this sample's fault, not the batch's
        return _Sample(info, completion, None, turns_done, float(episode_reward), str(error))
    return _Sample(info, completion, problem, turns_done, float(episode_reward), None)


def _summary(verification: Verification) -> str:
    """A short closing observation: NeMo RL appends it to the conversation (it is not trained on)."""
    if verification.infra_fault:
        return "Environment: verification failed (sandbox fault); not scored as a failure."
    if not verification.format_ok:
        return "Environment: no code found."
    if verification.passed:
        return f"Environment: all {verification.n_total} tests passed."
    return f"Environment: {verification.n_passed}/{verification.n_total} tests passed."
