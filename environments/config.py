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

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from nemo_code_rl.config_keys import ConfigError, check_keys
from nemo_code_rl.engine.backend import BackendConfig, backend_config
from nemo_code_rl.engine.sandbox import USER_LEVELS as ISOLATION_LEVELS
from nemo_code_rl.fault_policy import FaultPolicyConfig
from nemo_code_rl.verification import VerifierConfig

FEEDBACK_PLACEHOLDER = "{feedback}"
DEFAULT_FEEDBACK_TEMPLATE = (
    "Your program did not pass the tests.\n\n{feedback}\n\n"
    "Fix it and reply with the complete corrected program in a single ```python code block."
)
# Keys of NeMo RL's policy tokenizer config that only matter to the policy; accepted so that
# ``tokenizer: ${policy.tokenizer}`` works, and otherwise ignored.
_POLICY_ONLY_TOKENIZER_KEYS = ("audio", "video", "use_processor", "use_fastokens")
_UNSET = object()


@dataclass(frozen=True)
class TokenizerSettings:
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

    name: str
    chat_template: str | None = None
    passthrough: bool = False
    chat_template_kwargs: Mapping[str, Any] = field(default_factory=dict)
    gguf_file: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> TokenizerSettings:
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where} must be a mapping like policy.tokenizer, got {type(data).__name__}")
        known = ("name", "chat_template", "chat_template_kwargs", "gguf_file", *_POLICY_ONLY_TOKENIZER_KEYS)
        check_keys(data, known, where)
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{where}.name must be a model id or directory, got {name!r}")
        template = data.get("chat_template", _UNSET)
        if template is not _UNSET and template is not None and not isinstance(template, str):
            raise ConfigError(
                f"{where}.chat_template must be a string or null, got {type(template).__name__}"
            )
        kwargs = data.get("chat_template_kwargs") or {}
        if not isinstance(kwargs, Mapping):
            raise ConfigError(f"{where}.chat_template_kwargs must be a mapping, got {type(kwargs).__name__}")
        gguf_file = data.get("gguf_file")
        if gguf_file is not None and not isinstance(gguf_file, str):
            raise ConfigError(f"{where}.gguf_file must be a string, got {type(gguf_file).__name__}")
        return cls(
            name=name,
            chat_template=None if template is _UNSET else template,
            passthrough=template is None,
            chat_template_kwargs=dict(kwargs),
            gguf_file=gguf_file,
        )


@dataclass(frozen=True)
class EpisodeConfig:
    """The settings every verifying environment has beside its verifier (see the module doc)."""

    workers: int | None = None
    isolation: str = "full"
    backend: BackendConfig = field(default_factory=BackendConfig)
    max_rollout_turns: int = 1
    tokenizer: TokenizerSettings | None = None
    feedback_template: str = DEFAULT_FEEDBACK_TEMPLATE
    metrics_jsonl: str | None = None
    faults: FaultPolicyConfig = field(default_factory=FaultPolicyConfig)

    def __post_init__(self) -> None:
        if self.workers is not None and (
            isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1
        ):
            raise ConfigError(f"workers must be a positive integer or null, got {self.workers!r}")
        if self.isolation not in ISOLATION_LEVELS:
            raise ConfigError(f"isolation must be one of {ISOLATION_LEVELS}, got {self.isolation!r}")
        turns = self.max_rollout_turns
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
            raise ConfigError(f"max_rollout_turns must be a positive integer, got {turns!r}")
        if turns > 1 and self.tokenizer is None:
            raise ConfigError(
                "max_rollout_turns > 1 needs tokenizer (set it to ${policy.tokenizer}) to write "
                "feedback turns in the policy's chat format"
            )
        if not isinstance(self.feedback_template, str) or FEEDBACK_PLACEHOLDER not in self.feedback_template:
            raise ConfigError(f"feedback_template must be a string containing {FEEDBACK_PLACEHOLDER}")
        if self.metrics_jsonl is not None and (
            not isinstance(self.metrics_jsonl, str) or not self.metrics_jsonl
        ):
            raise ConfigError(f"metrics_jsonl must be a file path or null, got {self.metrics_jsonl!r}")

    @property
    def multi_turn(self) -> bool:
        return self.max_rollout_turns > 1

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any] | None, where: str, verifier_type: Any) -> Any:
        """Split ``data`` into the episode settings and the verifier's keys, checking both strictly."""
        data = dict(data or {})
        own = [f.name for f in fields(cls) if f.name != "verifier"]
        check_keys(data, [*own, *(f.name for f in fields(verifier_type))], where)
        settings = {key: data.pop(key) for key in own if key in data}
        if settings.get("tokenizer") is not None:
            settings["tokenizer"] = TokenizerSettings.from_dict(settings["tokenizer"], f"{where}.tokenizer")
        if "faults" in settings:
            settings["faults"] = FaultPolicyConfig.from_dict(settings["faults"], f"{where}.faults")
        if "backend" in settings:
            settings["backend"] = backend_config(settings["backend"], f"{where}.backend")
        try:
            return cls(verifier=verifier_type.from_dict(data, where), **settings)
        except ConfigError:
            raise
        except (TypeError, ValueError) as error:
            raise ConfigError(f"invalid {where}: {error}") from error


@dataclass(frozen=True)
class CodeEnvConfig(EpisodeConfig):
    """The environment's settings; build it with ``CodeEnvConfig.from_dict`` (see the module doc)."""

    verifier: VerifierConfig = field(default_factory=VerifierConfig)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, where: str = "env") -> CodeEnvConfig:
        """Validate the ``env.<name>`` dict; any unknown key, at any level, is a ``ConfigError``.

        >>> CodeEnvConfig.from_dict({"workers": 2, "reward": {"mode": "fraction"}}).verifier.reward.mode
        'fraction'
        >>> CodeEnvConfig.from_dict({"max_turns": 2})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        nemo_code_rl.config_keys.ConfigError: unknown key 'max_turns' in env; did you mean 'max_rollout_t...
        """
        return cls._from_dict(data, where, VerifierConfig)
