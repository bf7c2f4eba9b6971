"""The NeMo RL environment that rewards code by running it against the problem's unit tests.

``CodeUnitTestEnvironment`` is the Ray actor NeMo RL creates (register it under a name of our own,
e.g. ``code_unit_tests``; ``code`` is NeMo RL's REPL tool environment). ``UnitTestEnvironment``
is the same class, usable in process.

Per step, each sample's last assistant message is verified against the problem the processor put
in its ``extra_env_info``, all samples in one sandbox batch. A step never raises for a sample:
unreadable metadata gets reward 0, and a sample the sandbox could not judge (an infrastructure
fault) gets a neutral reward from its problem's recent judged samples (``nemo_code_rl.fault_policy``);
both are flagged in the returned metadata and counted in the metrics, so one bad row or a lost
sandbox worker can neither stop training nor teach the model something false.

Multi-turn (``max_rollout_turns > 1``): a failing program gets its test report back as a new user
turn and the episode goes on, until it passes or the turns run out. NeMo RL adds up the rewards
of all turns, so each turn returns the *change* in the episode's reward (this attempt's reward
minus the previous one's): the sum is the reward of the last attempt, however the rollout ends.

That step is ``verifying_environment``'s, shared with the ARC environment; this module says what
a unit-test verification means: when the episode ends, its metrics record, its closing words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ray

from nemo_code_rl.environments.config import CodeEnvConfig
from nemo_code_rl.environments.verifying_environment import Judgement, Sample, VerifyingEnvironment
from nemo_code_rl.problems import Problem
from nemo_code_rl.processors.env_info import problem_from_env_info
from nemo_code_rl.training_metrics import verification_outcome
from nemo_code_rl.verification import Verification, Verifier


class UnitTestEnvironment(VerifyingEnvironment[CodeEnvConfig, Problem, tuple[Problem, str], Verification]):
    """Verifies code completions in a sandbox and returns NeMo RL rewards, observations and metrics.

    Args:
        cfg: the ``env.<name>`` config dict (see ``nemo_code_rl.environments.config``); every key
            is validated here, so a typo fails at start-up rather than changing the reward.
    """

    def __init__(self, cfg: Mapping[str, Any] | None = None) -> None:
        config = CodeEnvConfig.from_dict(cfg)
        super().__init__(
            config,
            Verifier(
                config.verifier, workers=config.workers, isolation=config.isolation, backend=config.backend
            ),
        )

    def _read_subject(self, info: dict[str, Any]) -> Problem:
        return problem_from_env_info(info)

    def _subject_id(self, subject: Problem) -> str:
        return subject.id

    def _job(self, subject: Problem, completion: str) -> tuple[Problem, str]:
        return subject, completion

    def _judge(
        self, sample: Sample[Problem], verification: Verification, turn: int, reward: float
    ) -> Judgement:
        terminated = (
            bool(verification.passed)
            or verification.infra_fault
            or turn >= self.config.max_rollout_turns
            or not verification.feedback
        )
        outcome = verification_outcome(verification, reward, turn=turn, terminal=terminated)
        result = {
            "passed": verification.passed,
            "n_passed": verification.n_passed,
            "n_total": verification.n_total,
            "format_ok": verification.format_ok,
            "infra_fault": verification.infra_fault,
            "reward": verification.reward,
            "reward_version": verification.reward_version,
            "verdicts": dict(outcome.verdicts),
        }
        return Judgement(outcome, result, verification.feedback)

    def _summary(self, verification: Verification) -> str:
        if verification.infra_fault:
            return "Environment: verification failed (sandbox fault); not scored as a failure."
        if not verification.format_ok:
            return "Environment: no code found."
        if verification.passed:
            return f"Environment: all {verification.n_total} tests passed."
        return f"Environment: {verification.n_passed}/{verification.n_total} tests passed."


# ray's stubs lack max_concurrency for actor classes
CodeUnitTestEnvironment = ray.remote(max_restarts=-1, max_task_retries=-1, max_concurrency=1000)(  # type: ignore[call-overload]
    UnitTestEnvironment
)
"""The Ray actor class NeMo RL instantiates with the ``env.<name>`` dict (register this fqn)."""
