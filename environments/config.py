"""The typed, validated form of the ``env.<name>`` config dict NeMo RL hands the environment.

NeMo RL passes that dict through unchecked (``MasterConfig.env`` is ``dict[str, Any]``), so a
misspelled key would silently fall back to a default and train on the wrong reward. Every key is
therefore checked here, at every level, and an unknown one is an error that suggests the right one.

Keys (defaults in brackets):
    workers [None]: sandbox worker processes; ``None`` uses every CPU the actor may use.
    isolation ["full"]: ``full`` (namespaces and a cgroup bounding each program's processes
        together; refuses to start where the host forbids either), ``namespaces`` (the same
        without the cgroup, where none can be made: non-root Slurm jobs, some containers) or
        ``none`` (rlimits only; for hosts without namespaces, untrusted code is then not contained).
    backend [kind "process"]: where programs run (``nemo_code_rl.engine.backend.BackendConfig``):
        ``kind`` ``process`` (worker processes in the environment's actor), ``docker`` (worker
        containers; ``image``) or ``ray`` (engine actors over the cluster's nodes; ``ray``:
        ``num_actors``, ``actor_options``). ``workers`` and ``isolation`` apply to each kind.
    max_rollout_turns [1]: set it to ``grpo.max_rollout_turns``. NeMo RL does not tell the
        environment the turn limit, so the environment counts turns itself and ends the episode
        at this many; above 1 a failing program gets its test report back as a new user turn.
    tokenizer [None]: the policy's tokenizer config (``${policy.tokenizer}``: ``name``,
        ``chat_template``, ``chat_template_kwargs``, plus ``gguf_file`` for a GGUF checkpoint);
        required when ``max_rollout_turns > 1``, to write feedback turns in the model's chat format.
    feedback_template [see ``DEFAULT_FEEDBACK_TEMPLATE``]: the feedback turn's text; ``{feedback}``
        is replaced by the verifier's report of the first failing test.
    metrics_jsonl [None]: a file to which every ``step`` appends one JSON line of the step's
        metrics (``{"step": n, "pass_rate": ...}``, n counting the environment's steps), for
        ``nemo-code-rl plot``: NeMo RL never asks the environment for its metrics. Parent folders
        are created; a failed write is a warning, never an error.
    faults [see ``FaultPolicyConfig``]: the infrastructure-fault policy's bounds (``history``,
        ``problems``, ``window``, ``max_fault_rate``; ``nemo_code_rl.fault_policy``).
    verifier keys, passed to ``VerifierConfig.from_dict``: ``extraction``, ``comparison``,
        ``values``, ``reward`` (``mode`` and shaped ``weights``), ``early_exit``, ``max_tests``,
        ``timeout_s``, ``use_data_time_limits``, ``time_limit_factor``, ``limits`` (
        ``cpu_s``, ``memory_bytes``, ``output_bytes``, ``file_bytes``, ``processes``),
        ``feedback_chars``, ``checkers``, ``feedback_reveals`` (``verdict`` [default]: a feedback
        turn names the failing test's number and verdict, never a hidden test's input or expected
        output; ``input``; ``input_and_expected``; see ``VerifierConfig``).
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import field, fields
from typing import Any

import pydantic

from nemo_code_rl.config_keys import ConfigError, ConfigSection, check_keys, config_section, parse_section
from nemo_code_rl.engine.backend import BackendConfig, backend_config
from nemo_code_rl.engine.sandbox import USER_LEVELS as ISOLATION_LEVELS
from nemo_code_rl.fault_policy import FaultPolicyConfig
from nemo_code_rl.unit_tests.verification import VerifierConfig

FEEDBACK_PLACEHOLDER = "{feedback}"
DEFAULT_FEEDBACK_TEMPLATE = (
    "Your program did not pass the tests.\n\n{feedback}\n\n"
    "Fix it and reply with the complete corrected program in a single ```python code block."
)
# Keys of NeMo RL's policy tokenizer config that only matter to the policy; accepted so that
# ``tokenizer: ${policy.tokenizer}`` works, and otherwise ignored.
_POLICY_ONLY_TOKENIZER_KEYS = ("audio", "video", "use_processor", "use_fastokens")


@config_section
class TokenizerSettings(ConfigSection):
    """Where the chat template for feedback turns comes from (NeMo RL's ``policy.tokenizer`` shape).

    Attributes:
        name: a Hugging Face model id or a local directory.
        chat_template: ``None`` means "not given" (use the tokenizer's own) unless ``passthrough``;
            otherwise ``"default"``, a path ending in ``.jinja``, or a template string.
        passthrough: the config set ``chat_template: null``, which NeMo RL reads as its
            passthrough template (message contents concatenated, no markup).
        chat_template_kwargs: extra arguments for ``apply_chat_template`` (e.g. ``enable_thinking``).
        gguf_file: a GGUF file inside ``name`` to read the tokenizer from.
    """

    WHERE = "tokenizer"

    name: str
    chat_template: str | None = None
    passthrough: bool = False
    chat_template_kwargs: Mapping[str, Any] = field(default_factory=dict)
    gguf_file: str | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ConfigError("name must be a model id or directory, got ''")

    @pydantic.model_validator(mode="before")
    @classmethod
    def _from_policy_shape(cls, data: Any) -> Any:
        """Read NeMo RL's shape: ``chat_template: null`` is its passthrough; policy-only keys go."""
        if not isinstance(data, Mapping):
            return data
        if "passthrough" in data:
            raise ConfigError("passthrough is not a tokenizer key: write chat_template: null for it")
        data = {key: value for key, value in data.items() if key not in _POLICY_ONLY_TOKENIZER_KEYS}
        if data.get("chat_template_kwargs", {}) is None:
            del data["chat_template_kwargs"]
        if "chat_template" in data and data["chat_template"] is None:
            data["passthrough"] = True
        return data


@config_section
class EpisodeConfig(ConfigSection):
    """The settings every verifying environment has beside its verifier (see the module doc)."""

    WHERE = "env"

    workers: int | None = None
    isolation: str = "full"
    backend: BackendConfig = field(default_factory=BackendConfig)
    max_rollout_turns: int = 1
    tokenizer: TokenizerSettings | None = None
    feedback_template: str = DEFAULT_FEEDBACK_TEMPLATE
    metrics_jsonl: str | None = None
    faults: FaultPolicyConfig = field(default_factory=FaultPolicyConfig)

    def __post_init__(self) -> None:
        if self.workers is not None and self.workers < 1:
            raise ConfigError(f"workers must be a positive integer or null, got {self.workers!r}")
        if self.isolation not in ISOLATION_LEVELS:
            raise ConfigError(f"isolation must be one of {ISOLATION_LEVELS}, got {self.isolation!r}")
        if self.max_rollout_turns < 1:
            raise ConfigError(f"max_rollout_turns must be a positive integer, got {self.max_rollout_turns!r}")
        if self.max_rollout_turns > 1 and self.tokenizer is None:
            raise ConfigError(
                "max_rollout_turns > 1 needs tokenizer (set it to ${policy.tokenizer}) to write "
                "feedback turns in the policy's chat format"
            )
        if FEEDBACK_PLACEHOLDER not in self.feedback_template:
            raise ConfigError(f"feedback_template must be a string containing {FEEDBACK_PLACEHOLDER}")
        if self.metrics_jsonl == "":
            raise ConfigError("metrics_jsonl must be a file path or null, got ''")

    @property
    def multi_turn(self) -> bool:
        return self.max_rollout_turns > 1

    @classmethod
    def from_dict(cls, data: Any, where: str | None = None) -> Any:
        """Validate an ``env.<name>`` dict: the episode keys and, beside them, the verifier's.

        Any unknown key, at any level, is a ``ConfigError`` naming the key as the user wrote it.
        """
        where = where or cls.WHERE
        if isinstance(data, cls):
            return data
        if data is not None and not isinstance(data, Mapping):
            raise ConfigError(f"{where} must be a mapping, got {type(data).__name__}: {data!r}")
        data = dict(data or {})
        verifier_type = typing.get_type_hints(cls)["verifier"]
        own = [f.name for f in fields(cls) if f.name != "verifier"]
        check_keys(data, [*own, *(f.name for f in fields(verifier_type))], where)
        settings = {key: data.pop(key) for key in own if key in data}
        if "backend" in settings:  # also a kind's name alone (``backend: docker``)
            settings["backend"] = backend_config(settings["backend"], f"{where}.backend")
        return parse_section(cls, {**settings, "verifier": verifier_type.from_dict(data, where)}, where)


@config_section
class CodeEnvConfig(EpisodeConfig):
    """The environment's settings; build it with ``CodeEnvConfig.from_dict`` (see the module doc)."""

    verifier: VerifierConfig = field(default_factory=VerifierConfig)
