"""The NeMo RL environment that rewards ARC programs by running them on the task's grids.

``ArcProgramsEnvironment`` is the Ray actor NeMo RL creates (registered as ``arc_programs``);
``ArcProgramEnvironment`` is the same class, usable in process. Per step, each sample's last
assistant message is judged on the task the processor put in its ``extra_env_info``, all samples
in one sandbox batch: one run per program over every train and test grid, the reward from the
train pairs (``nemo_code_rl.arc.rewards``). The step is ``verifying_environment``'s, shared with
the unit-test environment and generic over the family (what an ARC verification means is
``nemo_code_rl.arc.family``'s): concurrent ``step`` calls are coalesced into one batch, a sample the
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

import ray

from nemo_code_rl.arc.family import PIECES, ArcSubject
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.arc.verifier import ArcVerification
from nemo_code_rl.environments.verifying_environment import VerifyingEnvironment


class ArcProgramEnvironment(VerifyingEnvironment[ArcSubject, tuple[ArcTask, str], ArcVerification]):
    """Judges ARC programs in a sandbox and returns NeMo RL rewards, observations and metrics.

    Args:
        cfg: the ``env.arc_programs`` config dict (see ``nemo_code_rl.environments.arc_config``);
            every key is validated here, so a typo fails at start-up rather than changing the reward.
    """

    PIECES = PIECES


# ray's stubs lack max_concurrency for actor classes
ArcProgramsEnvironment = ray.remote(max_restarts=-1, max_task_retries=-1, max_concurrency=1000)(  # type: ignore[call-overload]
    ArcProgramEnvironment
)
"""The Ray actor class NeMo RL instantiates with the ``env.arc_programs`` dict (register this fqn)."""
