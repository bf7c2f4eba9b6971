"""A NeMo Gym resources server backed by nemo-code-rl's verifier: a drop-in for Gym's ``code_gen``.

It speaks Gym's resources-server HTTP contract (``/seed_session``, ``/verify``,
``/aggregate_metrics``) with ``code_gen``'s defaults (its code extraction and comparison, so rewards
agree on the same data), and adds the sandbox, special judges, tolerances and reward modes. Under
Gym's launcher it runs on Gym's base classes (``gym_resources_server``); elsewhere ``create_app``
serves the same endpoints without Gym. With ``family: arc_programs`` either one judges NeMo Gym's
``arc_agi`` rows as ARC programs. See this folder's README for pointing a NeMo RL + Gym run at it.
"""

from nemo_code_rl.gym_server.app import create_app
from nemo_code_rl.gym_server.models import ServerOptions

__all__ = ["ServerOptions", "create_app"]
