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

That step is ``verifying_environment``'s, generic over the task family; what a unit-test
verification means (when the episode ends, its metrics record, its closing words) is the
family's (``nemo_code_rl.unit_tests.family``).
"""

from __future__ import annotations

import ray

from nemo_code_rl.environments.verifying_environment import VerifyingEnvironment
from nemo_code_rl.unit_tests.family import PIECES
from nemo_code_rl.unit_tests.problems import Problem
from nemo_code_rl.unit_tests.verification import Verification


class UnitTestEnvironment(VerifyingEnvironment[Problem, tuple[Problem, str], Verification]):
    """Verifies code completions in a sandbox and returns NeMo RL rewards, observations and metrics.

    Args:
        cfg: the ``env.<name>`` config dict (see ``nemo_code_rl.environments.config``); every key
            is validated here, so a typo fails at start-up rather than changing the reward.
    """

    PIECES = PIECES


# ray's stubs lack max_concurrency for actor classes
CodeUnitTestEnvironment = ray.remote(max_restarts=-1, max_task_retries=-1, max_concurrency=1000)(  # type: ignore[call-overload]
    UnitTestEnvironment
)
"""The Ray actor class NeMo RL instantiates with the ``env.<name>`` dict (register this fqn)."""
