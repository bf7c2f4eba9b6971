"""What a task family provides to every framework adapter: the family as a plug-in.

``families.TaskFamily`` names a family and where its pieces live (plain data, nothing imported);
an object of this protocol *is* those pieces: how a dataset row becomes the family's subject (a
coding problem, an ARC task) and its prompt, how the subject travels in NeMo RL's
``extra_env_info``, how a completion becomes a verifier job, the verifier itself, and what a
verification means (episode end, metrics, feedback, a one-word verdict). Each framework adapter
is one generic implementation over these pieces (``VerifyingEnvironment``, ``FamilyProcessor``,
``FamilyReward``), so a third family costs one object of this protocol and a ``TaskFamily``.

The unit-test family's pieces are ``nemo_code_rl.unit_tests.family.PIECES``, ARC's
``nemo_code_rl.arc.family.PIECES``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from nemo_code_rl.rows import ProblemFormatError, decoded_json

if TYPE_CHECKING:
    from nemo_code_rl.engine.backend import BackendConfig, ExecutionBackend
    from nemo_code_rl.families import TaskFamily
    from nemo_code_rl.training_metrics import SampleOutcome


class Verdict(Protocol):
    """What every adapter reads of a verification: its reward (``None``: not judged) and code."""

    @property
    def reward(self) -> float | None: ...
    @property
    def code(self) -> str | None: ...


Subject = TypeVar("Subject")
Job = TypeVar("Job")
Result = TypeVar("Result", bound=Verdict)
JobIn = TypeVar("JobIn", contravariant=True)


class BatchVerifier(Protocol[JobIn, Result]):
    """A sandbox verifier: one result per job, in order; ``close`` stops its workers (only those
    of a backend it started); ``pool`` is the backend it runs on, ``config`` its settings."""

    @property
    def pool(self) -> ExecutionBackend: ...
    @property
    def config(self) -> Any: ...

    def verify_batch(self, jobs: Sequence[JobIn], /) -> list[Result]: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class Judgement:
    """What a family makes of one verified attempt.

    Attributes:
        outcome: the attempt for the metrics; its ``terminal`` says whether the episode ends.
        result: the verification's details, returned in the sample's metadata.
        feedback: the report the next turn shows the policy, when the episode goes on.
        record: anything else the family's metrics need of the attempt (``FamilyPieces.metrics``).
    """

    outcome: SampleOutcome
    result: dict[str, Any]
    feedback: str
    record: Any = None


class FamilyPieces(Protocol[Subject, Job, Result]):
    """A task family's pieces, which every framework adapter is generic over.

    Attributes:
        family: the family's name and import paths (``families``).
        metrics_prefix: the prefix of the family's own metrics (``metrics``) beside the shared ones.
        check_verb: what an answer that could not be checked "could not be" (``verified``).
    """

    family: TaskFamily
    metrics_prefix: str
    check_verb: str

    def make_verifier(
        self,
        config: Any,
        *,
        pool: ExecutionBackend | None = None,
        workers: int | None = None,
        isolation: str = "full",
        backend: BackendConfig | Mapping[str, Any] | str | None = None,
    ) -> BatchVerifier[Job, Result]:
        """The family's verifier with ``config`` (its config object, its dict form or ``None``: the
        defaults); on ``pool`` (borrowed), else on a backend it starts and owns."""
        ...

    def subject_from_row(self, row: Mapping[str, Any], idx: int) -> Subject:
        """The subject of a dataset row of any shape the family accepts (``row idx N`` in errors)."""
        ...

    def prompt(
        self, row: Mapping[str, Any], task_data_spec: Any, idx: int
    ) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """A row's prompt messages (NeMo RL's ``TaskDataSpec`` prompt settings applied) and its
        ``extra_env_info``, before any chat template: the processor's first half."""
        ...

    def subject_from_env_info(self, info: Mapping[str, Any] | str) -> Subject:
        """The subject ``prompt`` put in ``extra_env_info``; ``ProblemFormatError`` when unreadable."""
        ...

    def subject_id(self, subject: Subject) -> str:
        """The subject's id: samples of one subject form a GRPO group."""
        ...

    def job(self, subject: Subject, completion: str) -> Job:
        """The verifier's job for one completion."""
        ...

    def judge(
        self, subject: Subject, verification: Result, *, turn: int, reward: float, max_turns: int, config: Any
    ) -> Judgement:
        """The meaning of a verification that judged an attempt, on turn ``turn`` of ``max_turns``;
        ``reward`` is the episode's reward after it; ``config`` the verifier's config."""
        ...

    def summary(self, verification: Result) -> str:
        """A short closing observation for a finished episode."""
        ...

    def metrics(self, records: Sequence[Any]) -> dict[str, float]:
        """The family's own metrics over the ``Judgement.record`` of finished attempts (unprefixed)."""
        ...

    def verdict(self, verification: Result) -> str:
        """One word for a judged sample (TRL's completions table)."""
        ...


def training_dataset(rows: list[dict[str, Any]]) -> Any:
    """``rows`` as a training run's dataset holds them: a ``datasets.Dataset`` (Arrow), whose
    items are what NeMo RL hands the processor. ``FamilyDataset`` and the dry run's samples both
    come from here, so a column Arrow would change looks the same in both."""
    import datasets

    return datasets.Dataset.from_list(rows)


def decoded_env_info(info: Mapping[str, Any] | str, key: str, processor: str) -> Mapping[str, Any]:
    """An ``extra_env_info`` (the dict, or JSON text of it) that holds ``key``, which ``processor``
    writes; anything else is a ``ProblemFormatError`` naming the field."""
    info = decoded_json(info, "extra_env_info")
    if not isinstance(info, Mapping):
        raise ProblemFormatError(f"must be a dict, got {type(info).__name__}", field="extra_env_info")
    if key not in info:
        raise ProblemFormatError(
            f"missing; keys seen: {sorted(map(str, info))} (rows must go through {processor})",
            field=f"extra_env_info.{key}",
        )
    return info
