"""The step both sandbox environments share: read each sample, verify all in one batch, conclude.

The unit-test environment (``code_environment``) and the ARC environment (``arc_environment``)
differ in what they verify and what a verification means, not in how a step protects training,
so that part lives here once:

- a step never raises for a sample: unreadable metadata gets reward 0, and a sample the sandbox
  could not judge (an infrastructure fault, or the whole batch lost twice) is settled by the
  package's one fault policy (``nemo_code_rl.fault_policy``): a neutral reward from its problem's
  recent judged samples across steps, or, after a judged turn, that turn's episode reward (a
  reward change of 0); both are flagged in the returned metadata and counted in the metrics. Only
  when more than ``faults.max_fault_rate`` of recent samples faulted does ``step`` raise, with the
  cause, after recording the step's metrics (the actor stays alive);
- concurrent ``step`` calls (NeMo RL's asynchronous rollouts) share one verifier batch (``coalescer``);
- each turn returns the change in the episode's reward, so NeMo RL's sum over the turns is the
  last attempt's reward; while turns are left, a failing attempt gets its feedback as a new user
  turn in the policy's chat format;
- the attempts' metrics are kept for ``global_post_process_and_metrics`` and, with
  ``metrics_jsonl`` set, appended to that file at every step (``metrics_log``), since NeMo RL
  never asks the environment for them.

A subclass reads its subject (a problem, an ARC task) from a sample's metadata, makes the
verifier's job from it, and turns a verification into a ``Judgement``.
"""

from __future__ import annotations

import abc
import contextlib
import json
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

import torch

from nemo_code_rl.coalescer import BatchCoalescer
from nemo_code_rl.environments.chat_turns import UserTurnFormat, load_tokenizer, user_turn_format
from nemo_code_rl.environments.config import FEEDBACK_PLACEHOLDER, EpisodeConfig
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
from nemo_code_rl.environments.metrics_log import MetricsLog
from nemo_code_rl.environments.nemo_rl_compat import EnvironmentInterface, EnvironmentReturn
from nemo_code_rl.fault_policy import Attempt, FaultPolicy
from nemo_code_rl.training_metrics import SampleOutcome, response_metrics, verification_metrics


class Verdict(Protocol):
    """What the shared step reads of a verification: its reward (``None``: not judged) and code."""

    @property
    def reward(self) -> float | None: ...
    @property
    def code(self) -> str | None: ...


Config = TypeVar("Config", bound=EpisodeConfig)
Subject = TypeVar("Subject")
Job = TypeVar("Job")
Result = TypeVar("Result", bound=Verdict)


class BatchVerifier(Protocol[Job, Result]):
    """A sandbox verifier: one result per job, in order; ``close`` stops its workers."""

    def verify_batch(self, jobs: list[Job]) -> list[Result]: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class Sample(Generic[Subject]):
    """One sample of a step, read defensively: ``error`` says why it cannot be verified."""

    info: dict[str, Any]
    completion: str
    subject: Subject | None
    turns_done: int
    episode_reward: float
    error: str | None


@dataclass(frozen=True)
class Judgement:
    """What an environment makes of one verified attempt.

    Attributes:
        outcome: the attempt for the metrics; its ``terminal`` says whether the episode ends.
        result: the verification's details, returned in the sample's metadata.
        feedback: the report the next turn shows the policy, when the episode goes on.
        record: anything else the environment's metrics need of the attempt.
    """

    outcome: SampleOutcome
    result: dict[str, Any]
    feedback: str
    record: Any = None


class _Conclusion(NamedTuple):
    """What ``step`` returns for one sample, and what it keeps for the metrics."""

    observation: str
    metadata: dict[str, Any]
    reward: float
    terminated: bool
    answer: str | None
    outcome: SampleOutcome
    record: Any


class VerifyingEnvironment(EnvironmentInterface, Generic[Config, Subject, Job, Result]):
    """A NeMo RL environment that verifies the last assistant message of each sample in a sandbox.

    Args:
        config: the validated ``env.<name>`` settings.
        verifier: the sandbox verifier; the environment owns it and closes it at ``shutdown``.
    """

    # What the observation of a sample that could not be checked says: "could not be verified".
    CHECK_VERB = "verified"

    def __init__(self, config: Config, verifier: BatchVerifier[Job, Result]) -> None:
        self.config = config
        self._turn_format: UserTurnFormat | None = None
        if config.multi_turn:
            assert config.tokenizer is not None
            tokenizer = load_tokenizer(config.tokenizer)
            self._turn_format = user_turn_format(tokenizer, config.tokenizer.chat_template_kwargs)
        self._verifier: BatchVerifier[Job, Result] | None = verifier
        self._coalescer: BatchCoalescer[Job, Result] = BatchCoalescer(self._verify)
        self._records: deque[tuple[SampleOutcome, Any]] = deque(maxlen=MAX_PENDING_OUTCOMES)
        self._records_lock = threading.Lock()
        self._metrics_log = MetricsLog(config.metrics_jsonl) if config.metrics_jsonl else None
        self._faults = FaultPolicy(config.faults)

    @abc.abstractmethod
    def _read_subject(self, info: dict[str, Any]) -> Subject:
        """What the sample asks to verify, from its metadata; raises when unreadable."""

    @abc.abstractmethod
    def _subject_id(self, subject: Subject) -> str:
        """The problem's id: samples of one problem form a GRPO group."""

    @abc.abstractmethod
    def _job(self, subject: Subject, completion: str) -> Job:
        """The verifier's job for one sample."""

    @abc.abstractmethod
    def _judge(self, sample: Sample[Subject], verification: Result, turn: int, reward: float) -> Judgement:
        """The meaning of a verification that judged the attempt: episode end, metrics, details."""

    @abc.abstractmethod
    def _summary(self, verification: Result) -> str:
        """A short closing observation: NeMo RL appends it to the conversation (it is not trained on)."""

    def _record_metrics(self, records: Sequence[tuple[SampleOutcome, Any]]) -> dict[str, float]:
        """Metrics of verified attempts; an environment with its own records adds its own."""
        return verification_metrics([outcome for outcome, _ in records])

    def step(self, message_log_batch: list[list[dict[str, Any]]], metadata: list[Any]) -> EnvironmentReturn:
        """Verify the last assistant message of every conversation; one reward per sample."""
        samples = [
            self._read_sample(log, info) for log, info in zip(message_log_batch, metadata, strict=True)
        ]
        jobs = [self._job(s.subject, s.completion) for s in samples if s.subject is not None]
        verifications: list[Result] | None = []
        fault = ""
        if jobs:
            verifications, fault = self._faults.verify(self._coalescer.submit, jobs)
        found: Iterator[Result | None] = iter(verifications) if verifications else iter([None] * len(jobs))
        paired = [(sample, next(found) if sample.subject is not None else None) for sample in samples]
        readable = [(sample, verification) for sample, verification in paired if sample.error is None]
        settlement = self._faults.settle(
            [self._attempt(sample, verification, fault) for sample, verification in readable]
        )
        settled = iter(settlement.rewards)
        results = [
            self._conclude(sample, verification, fault, next(settled) if sample.error is None else 0.0)
            for sample, verification in paired
        ]
        records = [(result.outcome, result.record) for result in results]
        with self._records_lock:
            self._records.extend(records)
        if self._metrics_log is not None:
            texts = [assistant_text(log) for log in message_log_batch]
            self._metrics_log.append(
                {**self._record_metrics(records), **response_metrics(texts), **self._faults.metrics()}
            )
        settlement.raise_if_failed()
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
        with self._records_lock:
            records = list(self._records)
            self._records.clear()
        metrics = {**self._record_metrics(records), **self._faults.metrics()}
        if "message_log" in batch:
            texts = [assistant_text(log) for log in batch["message_log"]]
            metrics.update(response_metrics(texts, truncation_flags(batch)))
        return batch, metrics

    def shutdown(self) -> None:
        """Stop the sandbox workers; safe to call more than once."""
        verifier, self._verifier = self._verifier, None
        if verifier is not None:
            verifier.close()

    def _verify(self, jobs: list[Job]) -> list[Result]:
        if self._verifier is None:
            raise RuntimeError("the environment has been shut down")
        return self._verifier.verify_batch(jobs)

    def _read_sample(self, message_log: Any, info: Any) -> Sample[Subject]:
        """The sample's completion, subject and episode state; never raises."""
        completion = last_assistant_content(message_log)
        if isinstance(info, str):
            with contextlib.suppress(ValueError):
                info = json.loads(info)
        if not isinstance(info, Mapping):
            error = f"metadata must be a dict (extra_env_info), got {type(info).__name__}"
            return Sample({}, completion, None, 0, 0.0, error)
        info = dict(info)
        turns_done, episode_reward = info.get(TURN_KEY, 0), info.get(EPISODE_REWARD_KEY, 0.0)
        if isinstance(turns_done, bool) or not isinstance(turns_done, int) or turns_done < 0:
            error = f"metadata {TURN_KEY!r} must be a count, got {turns_done!r}"
            return Sample(info, completion, None, 0, 0.0, error)
        if isinstance(episode_reward, bool) or not isinstance(episode_reward, (int, float)):
            error = f"metadata {EPISODE_REWARD_KEY!r} must be a number, got {episode_reward!r}"
            return Sample(info, completion, None, turns_done, 0.0, error)
        try:
            subject = self._read_subject(info)
        except Exception as error:  # noqa: BLE001 - an unreadable subject is this sample's fault, not the batch's
            return Sample(info, completion, None, turns_done, float(episode_reward), str(error))
        return Sample(info, completion, subject, turns_done, float(episode_reward), None)

    def _attempt(self, sample: Sample[Subject], verification: Result | None, fault: str) -> Attempt:
        """What the fault policy needs of a readable sample: its group, its reward, its episode so far."""
        assert sample.subject is not None
        group = self._subject_id(sample.subject)
        reward = verification.reward if verification is not None else None
        cause = fault or f"{group}: the sandbox lost the program twice (worker_lost)"
        previous = sample.episode_reward if sample.turns_done > 0 else None
        return Attempt(group, None if reward is None else float(reward), previous, cause)

    def _conclude(
        self, sample: Sample[Subject], verification: Result | None, fault: str, reward: float
    ) -> _Conclusion:
        """One sample's answer to NeMo RL; ``reward`` is the episode's reward after this turn, as
        judged or as the fault policy settled it."""
        turn = sample.turns_done + 1
        if sample.error is not None or verification is None:
            error = sample.error or fault
            outcome = SampleOutcome(
                problem_id=self._subject_id(sample.subject) if sample.subject is not None else None,
                turn=turn,
                passed=None,
                infra_fault=sample.error is None,
                bad_metadata=sample.error is not None,
                reward=reward,
            )
            metadata = {
                **sample.info,
                TURN_KEY: turn,
                EPISODE_REWARD_KEY: reward,
                RESULT_KEY: {"error": error},
            }
            observation = f"Environment: the answer could not be {self.CHECK_VERB} ({error})."
            return _Conclusion(
                observation, metadata, reward - sample.episode_reward, True, None, outcome, None
            )

        judgement = self._judge(sample, verification, turn, reward)
        terminated = judgement.outcome.terminal
        metadata = {**sample.info, TURN_KEY: turn, EPISODE_REWARD_KEY: reward, RESULT_KEY: judgement.result}
        if terminated:
            observation = self._summary(verification)
        else:
            assert self._turn_format is not None
            text = self.config.feedback_template.replace(FEEDBACK_PLACEHOLDER, judgement.feedback)
            observation = self._turn_format.render(text)
        return _Conclusion(
            observation,
            metadata,
            reward - sample.episode_reward,
            terminated,
            verification.code,
            judgement.outcome,
            judgement.record,
        )
