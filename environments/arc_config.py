"""The typed, validated form of the ``env.arc_programs`` config dict NeMo RL hands the ARC environment.

As for the unit-test environment, every key is checked at every level, and an unknown one is an
error that suggests the right one: NeMo RL passes the dict through unchecked, and a misspelled
key silently falling back to a default would train on the wrong reward.

Keys (defaults in brackets):
    workers [None], isolation ["full"], backend [kind "process"], max_rollout_turns [1], tokenizer
        [None], metrics_jsonl [None]: as for the unit-test environment
        (``nemo_code_rl.environments.config``); above one turn, a program that fails a train pair
        is told which pairs failed and where the first wrong grid differs.
    feedback_template [``DEFAULT_ARC_FEEDBACK_TEMPLATE``]: the feedback turn's text; ``{feedback}``
        is replaced by the report.
    extraction [fenced]: ``mode``, ``pattern``, ``strip_think`` (``nemo_code_rl.extraction``).
    execution: ``function_name`` ["transform"], ``input_type`` ["auto": BARC's ``[x, y]`` numpy
        arrays for programs importing ``common``, lists of rows otherwise; or "list", "numpy",
        "barc"], ``preamble`` [""], ``helper`` [None: our BARC-compatible ``common``; or a .py
        file, a package folder or a folder of modules importable in the sandbox; a missing path
        is a config error],
        ``timeout_s`` [2.0 per grid], ``limits`` (``memory_bytes``, ``output_bytes``,
        ``file_bytes``, ``processes``, ``cpu_s``).
    reward: ``mode`` ["shaped"; or "binary"], ``no_code`` [-1], ``no_valid_output`` [0],
        ``valid_output`` [1], ``correct_weight`` [8], ``pixel_weight`` [1].
"""

from __future__ import annotations

from dataclasses import field

from nemo_code_rl.arc.verifier import ArcVerifierConfig
from nemo_code_rl.config_keys import config_section
from nemo_code_rl.environments.config import EpisodeConfig

ARC_ENV_NAME = "arc_programs"
ARC_ENV_FQN = "nemo_code_rl.environments.arc_environment.ArcProgramsEnvironment"
DEFAULT_ARC_FEEDBACK_TEMPLATE = (
    "Your program does not solve the training examples yet.\n\n{feedback}\n\n"
    "Fix it and reply with the complete corrected program in a single ```python code block."
)


@config_section
class ArcEnvConfig(EpisodeConfig):
    """The ARC environment's settings; build it with ``ArcEnvConfig.from_dict`` (see the module doc).

    The episode settings are the unit-test environment's (``EpisodeConfig``), checked the same way.

    >>> ArcEnvConfig.from_dict({"execution": {"function_name": "main"}}).verifier.execution.function_name
    'main'
    >>> ArcEnvConfig.from_dict({"rewards": {}})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    nemo_code_rl.config_keys.ConfigError: unknown key 'rewards' in env; did you mean 'reward'? ...
    """

    feedback_template: str = DEFAULT_ARC_FEEDBACK_TEMPLATE
    verifier: ArcVerifierConfig = field(default_factory=ArcVerifierConfig)
