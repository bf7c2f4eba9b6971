"""NeMo Gym's resources-server HTTP contract as pydantic models, and this server's options.

Field names are Gym's: a verify request is ``BaseVerifyRequest`` (``responses_create_params`` and
``response``, an OpenAI Responses object) plus the row's ``verifier_metadata``; a verify response is
the request plus ``reward`` and the fields ``code_gen`` adds (``extracted_model_output``,
``extracted_model_code``, ``result``, ``metadata``, ...), so a Gym client that reads ``code_gen``'s
answers reads ours. Our own details (per-test verdicts, ``passed``, ``infra_fault``) come on top.

The request models only demand what verification reads and keep every other field (``extra``), so
the answer echoes the request as sent; a malformed request fails here, as a 422 naming the field,
before it can reach a sandbox worker.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from nemo_code_rl.arc.verifier import ArcVerifierConfig
from nemo_code_rl.config_keys import ConfigError, check_keys
from nemo_code_rl.engine.backend import BackendConfig, backend_config
from nemo_code_rl.engine.limits import DEFAULT_TIMEOUT_S, check_seconds
from nemo_code_rl.families import ARC, FAMILIES, UNIT_TESTS
from nemo_code_rl.fault_policy import FaultPolicyConfig
from nemo_code_rl.unit_tests.checkers import read_checkers
from nemo_code_rl.unit_tests.verification import VerifierConfig

# Keys Gym itself puts in a resources server's config node (run-time and catalogue metadata).
GYM_SERVER_KEYS = frozenset(
    {
        "entrypoint",
        "domain",
        "verified",
        "verified_url",
        "description",
        "value",
        "host",
        "port",
        "name",
        "num_workers",
        "expose_tools_over_mcp",
    }
)
# Set by this server's options, not inside ``verifier``.
_RESERVED_VERIFIER_KEYS = {
    "timeout_s": "unit_test_timeout_secs",
    "checkers": "checkers_dir",
}
# Server options that configure the unit-test family's verifier only.
_UNIT_TEST_OPTIONS = frozenset(_RESERVED_VERIFIER_KEYS.values())


class UnitTests(BaseModel):
    """LiveCodeBench-style tests, as in Gym's ``code_gen`` rows: stdin/stdout pairs, or, with
    ``fn_name``, one JSON value per line of each input and JSON text for each output."""

    inputs: list[str] = Field(min_length=1)
    outputs: list[str]
    fn_name: str | None = None

    @model_validator(mode="after")
    def _paired(self) -> UnitTests:
        if len(self.inputs) != len(self.outputs):
            raise ValueError(f"{len(self.inputs)} inputs but {len(self.outputs)} outputs")
        return self


class VerifierMetadata(BaseModel):
    """The row's ``verifier_metadata``: its tests, and anything else the data carries."""

    model_config = ConfigDict(extra="allow")

    unit_tests: UnitTests
    difficulty: str | None = None


class ContentPart(BaseModel):
    """A part of an output message (``output_text``, ``refusal``, ...)."""

    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None

    @model_validator(mode="after")
    def _text_present(self) -> ContentPart:
        if self.type == "output_text" and self.text is None:
            raise ValueError("an output_text part needs a text string")
        return self


class OutputItem(BaseModel):
    """An item of ``response.output``: a message, a reasoning item, a tool call, ..."""

    model_config = ConfigDict(extra="allow")

    type: str
    content: list[ContentPart] | None = None


class ResponseObject(BaseModel):
    """The model's answer in the OpenAI Responses format; only ``output`` is read."""

    model_config = ConfigDict(extra="allow")

    output: list[OutputItem]


class ResponsesCreateParams(BaseModel):
    """The request the model was sent; its ``input`` holds the problem statement."""

    model_config = ConfigDict(extra="allow")

    input: str | list[dict[str, Any]]


class VerifyRequest(BaseModel):
    """``POST /verify``: one rollout of one row. Other row fields (``hash_id``, Gym's task and
    rollout indexes, ...) are kept and echoed; an id field names the problem for checkers."""

    model_config = ConfigDict(extra="allow")

    responses_create_params: ResponsesCreateParams
    response: ResponseObject
    verifier_metadata: VerifierMetadata


class ArcVerifyRequest(BaseModel):
    """``POST /verify`` of the ARC family: one rollout of a NeMo Gym ``arc_agi`` row (its train
    pairs, ``test_input``, ``expected_output`` when known, ``task_id``); the grids are read by
    ``arc.task.task_from_row``, whose errors name the field. Other row fields are echoed."""

    model_config = ConfigDict(extra="allow")

    responses_create_params: ResponsesCreateParams
    response: ResponseObject
    train: list[dict[str, Any]] = Field(min_length=1)
    test_input: list[list[int]]
    expected_output: list[list[int]] | None = None


class TestReport(BaseModel):
    """One test's verdict: ``passed``, ``wrong_answer``, ``not_run`` or an engine verdict."""

    verdict: str
    wall_s: float
    detail: str


class VerifyDetails(BaseModel):
    """What ``/verify`` adds to the request.

    ``code_gen``'s fields keep their meaning: ``result`` has LiveCodeBench's codes for the tests
    that ran (``true`` passed, -1 compile error or lost, -2 wrong answer, -3 time limit, -4 runtime
    error) and ``metadata`` the first failure's ``error_code`` and ``error_message``. An
    infrastructure fault is never a made-up zero: ``infra_fault`` is set, ``passed`` is null, and
    the row carries ``_ng_failure_class`` so Gym's rollout collection sets it aside for a retry;
    ``reward`` holds 0.0 only because Gym's schema demands a number.
    """

    reward: float
    extracted_model_output: str | None = None
    extracted_model_code: str | None = None
    result: list[bool | int] | None = None
    metadata: dict[str, Any] | None = None
    unit_tests_time_taken: float | None = None
    reasoning_format_violation_rate: float = 0.0
    difficulty: str | None = None
    problem_id: str
    passed: bool | None
    format_ok: bool
    n_passed: int
    n_total: int
    infra_fault: bool
    tests: list[TestReport]
    feedback: str
    reward_version: str


class VerifyResponse(VerifyDetails, VerifyRequest):
    """``POST /verify``'s answer: the request, ``reward`` and the details."""


class ArcVerifyDetails(BaseModel):
    """What ``/verify`` adds to an ARC request: the reward, the program (``extracted_model_code``,
    as ``code_gen``'s field, so the task metrics' majority vote reads it), and ARC's result fields
    (``arc.scoring.result_fields``: the outcome, ``verdict``, ``message``, ``predictions``, ...).
    An infrastructure fault is flagged as for code (``infra_fault``, ``_ng_failure_class``)."""

    model_config = ConfigDict(extra="allow")

    reward: float
    extracted_model_output: str | None = None
    extracted_model_code: str | None = None
    reasoning_format_violation_rate: float = 0.0
    task_id: str
    verdict: str
    message: str
    format_ok: bool
    infra_fault: bool
    passed: bool | None
    predictions: list[list[list[int]] | None]
    reward_version: str


class ArcVerifyResponse(ArcVerifyDetails, ArcVerifyRequest):
    """``POST /verify``'s answer for ARC: the request, ``reward`` and the details."""


class SeedSessionRequest(BaseModel):
    """``POST /seed_session``: verification keeps no per-rollout state, so nothing is read."""


class SeedSessionResponse(BaseModel):
    """An empty object, as Gym's ``BaseSeedSessionResponse``."""


class AggregateMetricsRequest(BaseModel):
    """``POST /aggregate_metrics``: verify responses, each with Gym's ``_ng_task_index`` (and
    ``_ng_rollout_index``) to group the rollouts of one task."""

    verify_responses: list[dict[str, Any]]


class AggregateMetrics(BaseModel):
    """Flat metric names, ready for W&B: per task, over all rollouts, and the headline ones."""

    group_level_metrics: list[dict[str, Any]] = Field(default_factory=list)
    agent_metrics: dict[str, Any] = Field(default_factory=dict)
    key_metrics: dict[str, Any] = Field(default_factory=dict)


class ServerOptions(BaseModel):
    """This server's keys under ``<name>.resources_servers.<name>`` in a Gym config.

    ``num_processes`` and ``unit_test_timeout_secs`` keep ``code_gen``'s names, so a run's
    overrides carry over; their meaning is ours: ``num_processes`` is the number of sandbox
    workers in the engine pool (``null``: one per CPU core), which every request shares.

    Args:
        family: the task family served (``nemo_code_rl.families``): ``code_unit_tests``
            (default; ``code_gen``'s rows and answers) or ``arc_programs`` (NeMo Gym's ``arc_agi``
            rows, answered with a ``transform`` program; ``verifier`` then holds
            ``ArcVerifierConfig``'s keys, and the two unit-test options below are errors).
        num_processes: sandbox workers.
        unit_test_timeout_secs: wall-clock limit of each test.
        reasoning_format_penalty: ``code_gen``'s rule: the reward of a response whose final text
            holds a think tag, or whose reasoning holds more than one of either tag.
        isolation: ``full`` (kernel namespaces, read-only filesystem, no network, a cgroup per
            program), ``namespaces`` (without the cgroup) or ``none``.
        backend: where programs run (``nemo_code_rl.engine.backend.BackendConfig``): ``kind``
            ``process`` (default), ``docker`` (with ``image``) or ``ray`` (with ``ray``:
            ``address``, ``num_actors``, ``actor_options``); ``num_processes`` and ``isolation``
            apply to each kind as they do to ``make_backend``.
        max_concurrent_requests: requests verified at once, merged into one engine batch; more
            wait their turn.
        checkers_dir: special judges, one ``<problem id>.py`` each defining
            ``check(input, expected, actual) -> bool``; a relative path is taken from the
            server's working directory (Gym starts it in the server's folder).
        verifier: ``VerifierConfig`` keys (comparison tolerance, reward mode, early exit, ...).
            Extraction defaults to ``gym`` mode, ``code_gen``'s.
        faults: ``FaultPolicyConfig`` keys (``nemo_code_rl.fault_policy``): the neutral reward's
            memory and the fault rate above which ``/verify`` answers 503.
    """

    family: str = UNIT_TESTS.name
    num_processes: int | None = Field(default=None, ge=1)
    unit_test_timeout_secs: float = Field(default=DEFAULT_TIMEOUT_S, gt=0)
    reasoning_format_penalty: float = 0.0
    isolation: Literal["full", "namespaces", "none"] = "full"
    backend: BackendConfig = Field(default_factory=BackendConfig)
    max_concurrent_requests: int = Field(default=256, ge=1)
    checkers_dir: str | None = None
    verifier: dict[str, Any] = Field(default_factory=dict)
    faults: dict[str, Any] = Field(default_factory=dict)

    @field_validator("backend", mode="before")
    @classmethod
    def _backend(cls, value: Any) -> BackendConfig:
        return backend_config(value)

    @field_validator("faults")
    @classmethod
    def _fault_keys(cls, value: dict[str, Any]) -> dict[str, Any]:
        FaultPolicyConfig.from_dict(value)
        return value

    @field_validator("family")
    @classmethod
    def _family(cls, value: str) -> str:
        names = [family.name for family in FAMILIES]
        if value not in names:
            close = difflib.get_close_matches(value, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"family {value!r} is not a task family{hint} (families: {', '.join(names)})")
        return value

    @field_validator("verifier")
    @classmethod
    def _verifier_keys(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        if "family" not in info.data:  # the family itself is wrong, and reported
            return value
        if info.data["family"] == UNIT_TESTS.name:
            for key, replacement in _RESERVED_VERIFIER_KEYS.items():
                if key in value:
                    raise ConfigError(f"verifier.{key} is set by the server option {replacement!r}")
        _family_verifier_config(info.data["family"], value, timeout_s=DEFAULT_TIMEOUT_S, checkers={})
        return value

    @model_validator(mode="after")
    def _unit_test_options(self) -> ServerOptions:
        misplaced = sorted(_UNIT_TEST_OPTIONS & self.model_fields_set)
        if self.family != UNIT_TESTS.name and misplaced:
            raise ConfigError(
                f"{', '.join(misplaced)}: options of the {UNIT_TESTS.name} family, not of {self.family}"
                " (set its verifier's keys under 'verifier')"
            )
        return self

    @field_validator("unit_test_timeout_secs")
    @classmethod
    def _timeout(cls, value: float) -> float:
        return check_seconds("unit_test_timeout_secs", value)

    @field_validator("checkers_dir")
    @classmethod
    def _checkers_folder(cls, value: str | None) -> str | None:
        if value is not None and not Path(value).is_dir():
            raise ConfigError(f"checkers_dir {value!r} is not a folder")
        return value

    def verifier_config(self) -> VerifierConfig | ArcVerifierConfig:
        """The family's verifier config these options describe (for unit tests, with the checkers
        read from ``checkers_dir``)."""
        checkers = read_checkers(self.checkers_dir) if self.checkers_dir is not None else {}
        return _family_verifier_config(
            self.family, self.verifier, timeout_s=self.unit_test_timeout_secs, checkers=checkers
        )

    @classmethod
    def from_gym_config(cls, data: Mapping[str, Any], name: str | None = None) -> ServerOptions:
        """The options in a Gym config: the three-level layout (``<name>: resources_servers:
        <type>: {...}``), taking the entry called ``name`` or the only resources server; or the
        server's own node. Gym's own keys are skipped; any other unknown key is an error."""
        node = _server_node(data, name)
        options = {key: value for key, value in node.items() if key not in GYM_SERVER_KEYS}
        check_keys(options, [*cls.model_fields, *GYM_SERVER_KEYS], "the server config")
        return cls.model_validate(options)


def config_error_line(error: Exception) -> str:
    """A config error in one line: each of pydantic's errors as ``field: message``, a YAML error by
    its position, anything else as its message (no traceback, no echo of the input)."""
    if isinstance(error, ValidationError):
        return "; ".join(
            f"{'.'.join(map(str, item['loc'])) or 'config'}: {item['msg'].removeprefix('Value error, ')}"
            for item in error.errors()
        )
    return " ".join(str(error).split())


def _family_verifier_config(
    family: str, data: Mapping[str, Any], timeout_s: float, checkers: Mapping[str, str]
) -> VerifierConfig | ArcVerifierConfig:
    """The verifier config of ``family`` from the ``verifier`` option (for unit tests, with the
    server's timeout and checkers)."""
    if family == ARC.name:
        return ArcVerifierConfig.from_dict(data, where="verifier")
    return _verifier_config(data, timeout_s=timeout_s, checkers=checkers)


def _verifier_config(
    data: Mapping[str, Any], timeout_s: float, checkers: Mapping[str, str]
) -> VerifierConfig:
    merged: dict[str, Any] = {"extraction": {"mode": "gym"}}
    for key, value in data.items():
        if key == "extraction" and isinstance(value, Mapping):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    merged.update(timeout_s=timeout_s, checkers=dict(checkers))
    return VerifierConfig.from_dict(merged, where="verifier")


def _server_node(data: Mapping[str, Any], name: str | None) -> Mapping[str, Any]:
    servers = {
        key: next(iter(value["resources_servers"].values()))
        for key, value in data.items()
        if isinstance(value, Mapping)
        and isinstance(value.get("resources_servers"), Mapping)
        and len(value["resources_servers"]) == 1
        and isinstance(next(iter(value["resources_servers"].values())), Mapping)
    }
    if name is not None:
        if name not in servers:
            raise ConfigError(f"no resources server named {name!r} in the config (found: {sorted(servers)})")
        return servers[name]
    if len(servers) > 1:
        raise ConfigError(f"the config has several resources servers ({sorted(servers)}): name one")
    if servers:
        return next(iter(servers.values()))
    return data
