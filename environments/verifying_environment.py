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

What differs between families (reading the subject, a problem or an ARC task, from a sample's
metadata, the verifier and its job, what a verification means) is the family's
(``nemo_code_rl.family_pieces``): this class is the one NeMo RL environment, generic over it, and
each family's environment is this class with its ``PIECES`` (``code_environment``,
``arc_environment``).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

import torch

from nemo_code_rl.coalescer import BatchCoalescer
from nemo_code_rl.environments.chat_turns import UserTurnFormat, load_tokenizer, user_turn_format
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
from nemo_code_rl.environments.metrics_log import MetricsLog
from nemo_code_rl.environments.nemo_rl_compat import EnvironmentInterface, EnvironmentReturn
from nemo_code_rl.families import resolve
from nemo_code_rl.family_pieces import BatchVerifier, FamilyPieces, Verdict
from nemo_code_rl.fault_policy import Attempt, FaultPolicy
from nemo_code_rl.training_metrics import SampleOutcome, response_metrics, verification_metrics

Subject = TypeVar("Subject")
Job = TypeVar("Job")
Result = TypeVar("Result", bound=Verdict)


@dataclass(frozen=True)
class Sample(Generic[Subject]):
    """One sample of a step, read defensively: ``error`` says why it cannot be verified."""

    info: dict[str, Any]
    completion: str
    subject: Subject | None
    turns_done: int
    episode_reward: float
    error: str | None


class _Conclusion(NamedTuple):
    """What ``step`` returns for one sample, and what it keeps for the metrics."""

    observation: str
    metadata: dict[str, Any]
    reward: float
    terminated: bool
    answer: str | None
    outcome: SampleOutcome
    record: Any


class VerifyingEnvironment(EnvironmentInterface, Generic[Subject, Job, Result]):
    """A NeMo RL environment that verifies the last assistant message of each sample in a sandbox.

    Generic over the task family: a family's environment is a subclass that sets ``PIECES``.

    Args:
        cfg: the ``env.<name>`` config dict, validated by the family's ``env_config`` (every key,
            so a typo fails at start-up rather than changing the reward). The environment starts
            the family's verifier on the configured backend, owns it and closes it at ``shutdown``.
    """

    PIECES: ClassVar[FamilyPieces[Any, Any, Any]]

    def __init__(self, cfg: Mapping[str, Any] | None = None) -> None:
        pieces = self.PIECES
        # the family's EpisodeConfig, with its ``verifier`` section
        config: Any = resolve(pieces.family.env_config)(cfg)
        self.config = config
        self._turn_format: UserTurnFormat | None = None
        if config.multi_turn:
            assert config.tokenizer is not None
            tokenizer = load_tokenizer(config.tokenizer)
            self._turn_format = user_turn_format(tokenizer, config.tokenizer.chat_template_kwargs)
        self._verifier: BatchVerifier[Job, Result] | None = pieces.make_verifier(
            config.verifier, workers=config.workers, isolation=config.isolation, backend=config.backend
        )
        self._coalescer: BatchCoalescer[Job, Result] = BatchCoalescer(self._verify)
        self._records: deque[tuple[SampleOutcome, Any]] = deque(maxlen=MAX_PENDING_OUTCOMES)
        self._records_lock = threading.Lock()
        self._metrics_log = MetricsLog(config.metrics_jsonl) if config.metrics_jsonl else None
        self._faults = FaultPolicy(config.faults)

    def _record_metrics(self, records: Sequence[tuple[SampleOutcome, Any]]) -> dict[str, float]:
        """Metrics of verified attempts, and the family's own over the finished episodes."""
        metrics = verification_metrics([outcome for outcome, _ in records])
        finished = [record for outcome, record in records if outcome.terminal and record is not None]
        prefix = self.PIECES.metrics_prefix
        metrics.update({prefix + key: value for key, value in self.PIECES.metrics(finished).items()})
        return metrics

    def step(self, message_log_batch: list[list[dict[str, Any]]], metadata: list[Any]) -> EnvironmentReturn:
        """Verify the last assistant message of every conversation; one reward per sample."""
        samples = [
            self._read_sample(log, info) for log, info in zip(message_log_batch, metadata, strict=True)
        ]
        jobs = [self.PIECES.job(s.subject, s.completion) for s in samples if s.subject is not None]
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
            subject = self.PIECES.subject_from_env_info(info)
        except Exception as error:  # noqa: BLE001 - an unreadable subject is this sample's fault, not the batch's
            return Sample(info, completion, None, turns_done, float(episode_reward), str(error))
        return Sample(info, completion, subject, turns_done, float(episode_reward), None)

    def _attempt(self, sample: Sample[Subject], verification: Result | None, fault: str) -> Attempt:
        """What the fault policy needs of a readable sample: its group, its reward, its episode so far."""
        assert sample.subject is not None
        group = self.PIECES.subject_id(sample.subject)
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
                problem_id=self.PIECES.subject_id(sample.subject) if sample.subject is not None else None,
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
            observation = f"Environment: the answer could not be {self.PIECES.check_verb} ({error})."
            return _Conclusion(
                observation, metadata, reward - sample.episode_reward, True, None, outcome, None
            )

        assert sample.subject is not None
        judgement = self.PIECES.judge(
            sample.subject,
            verification,
            turn=turn,
            reward=reward,
            max_turns=self.config.max_rollout_turns,
            config=self.config.verifier,
        )
        terminated = judgement.outcome.terminal
        metadata = {**sample.info, TURN_KEY: turn, EPISODE_REWARD_KEY: reward, RESULT_KEY: judgement.result}
        if terminated:
            observation = self.PIECES.summary(verification)
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
