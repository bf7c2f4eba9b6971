"""Reward functions for TRL's ``GRPOTrainer``, backed by the sandboxed engine.

TRL calls a reward function once per generation batch with ``prompts``, ``completions`` and every
dataset column (except ``prompt``) as keyword lists, plus ``trainer_state``, ``log_extra`` and
``log_metric``. ``FamilyReward`` is such a callable, generic over the task family, and
``UnitTestReward`` and ``ArcProgramReward`` are it with their family: they rebuild each
sample's dataset row from the columns, judge the whole batch in one engine call, and report the
verdicts through ``log_metric`` (averaged into TRL's logs under ``<name>/...``) and ``log_extra``
(a ``<name>_verdict`` column in TRL's completions table).

Rows: ``trl_rows`` / ``arc_trl_rows`` write TRL-ready rows (a chat ``prompt`` plus the problem as
JSON text); any row the NeMo RL processors accept works too, as long as it does not need its
``prompt`` column (TRL keeps that one to itself).

A sample that cannot be judged never gets a made-up score. An infrastructure fault (a lost
sandbox worker, or the whole engine call failing twice) is settled by the package's fault policy
(``nemo_code_rl.fault_policy``, the ``faults`` argument): a neutral reward from the same problem's
recent judged samples, this batch's and earlier ones', so its GRPO advantage is about 0; a call
after which too many recent samples faulted raises ``InfrastructureFaultError``. A malformed row
gets 0 for all of its samples (a uniform group teaches nothing) and is logged once with the
reason. Both are counted in the metrics.

Example::

    from trl import GRPOConfig, GRPOTrainer
    from nemo_code_rl.integrations.trl import UnitTestReward, trl_rows

    reward = UnitTestReward({"timeout_s": 2.0, "early_exit": True})
    trainer = GRPOTrainer(model=..., reward_funcs=reward, train_dataset=Dataset.from_list(trl_rows(problems)))
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from nemo_code_rl.arc.dataset import TASK_HEADER_COLUMN, ArcDatum, dataset_rows
from nemo_code_rl.arc.family import PIECES as ARC_PIECES
from nemo_code_rl.arc.prompts import build_messages
from nemo_code_rl.arc.verifier import ArcVerifierConfig
from nemo_code_rl.engine.backend import BackendConfig, ExecutionBackend
from nemo_code_rl.families import ARC
from nemo_code_rl.family_pieces import FamilyPieces
from nemo_code_rl.fault_policy import Attempt, FaultPolicy, FaultPolicyConfig
from nemo_code_rl.outcomes import AttemptStatus
from nemo_code_rl.rows import ProblemFormatError
from nemo_code_rl.training_metrics import SampleOutcome, response_metrics, verification_metrics
from nemo_code_rl.unit_tests.family import PIECES as UNIT_TEST_PIECES
from nemo_code_rl.unit_tests.problem_rows import ENCODED_PROBLEM_COLUMN, prompt_messages, to_dataset_rows
from nemo_code_rl.unit_tests.problems import Problem
from nemo_code_rl.unit_tests.verification import VerifierConfig

logger = logging.getLogger(__name__)

# Keyword arguments TRL adds beside the dataset columns; never part of a row.
TRL_KEYWORDS = frozenset(
    {"prompts", "completion_ids", "trainer_state", "log_extra", "log_metric", "environments"}
)
BAD_ROW = "bad_row"


def trl_rows(problems: Iterable[Problem], system_prompt: str | None = None) -> list[dict[str, Any]]:
    """Rows for ``datasets.Dataset.from_list``: a conversational ``prompt`` and the problem as JSON.

    >>> from nemo_code_rl.unit_tests.problems import parse_problem
    >>> problem = parse_problem({"task_id": 1, "text": "Add.", "test_list": ["assert add(1) == 2"]})
    >>> row = trl_rows([problem], system_prompt="Answer in Python.")[0]
    >>> sorted(row), [m["role"] for m in row["prompt"]]
    (['code_problem_json', 'prompt'], ['system', 'user'])
    """
    problems = list(problems)
    spec = _PromptSpec(system_prompt)
    encoded = to_dataset_rows(problems, task_name="")
    return [
        {"prompt": prompt_messages(problem, spec), ENCODED_PROBLEM_COLUMN: row[ENCODED_PROBLEM_COLUMN]}
        for problem, row in zip(problems, encoded, strict=True)
    ]


def arc_trl_rows(data: Sequence[ArcDatum]) -> list[dict[str, Any]]:
    """Rows for ``datasets.Dataset.from_list``: each task's chat ``prompt`` and the task as JSON."""
    encoded = dataset_rows(data)
    return [
        {
            "prompt": build_messages(datum.task, datum.prompt),
            **{k: v for k, v in row.items() if k not in ("task_name", TASK_HEADER_COLUMN)},
        }
        for datum, row in zip(data, encoded, strict=True)
    ]


def completion_text(completion: Any) -> str:
    """The text of one TRL completion: a string, or (conversational) its assistant messages joined.

    >>> completion_text("print(1)"), completion_text([{"role": "assistant", "content": "x"}])
    ('print(1)', 'x')
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence):
        return "\n".join(
            str(message.get("content") or "")
            for message in completion
            if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant"
        )
    raise TypeError(f"a completion must be a string or a list of messages, got {type(completion).__name__}")


def sample_rows(n_samples: int, columns: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each sample's dataset row, rebuilt from TRL's per-column keyword lists."""
    data = {key: value for key, value in columns.items() if key not in TRL_KEYWORDS}
    for key, values in data.items():
        if not isinstance(values, Sequence) or isinstance(values, str) or len(values) != n_samples:
            raise ValueError(f"column {key!r} must hold one value per completion ({n_samples})")
    return [{key: values[index] for key, values in data.items()} for index in range(n_samples)]


class FamilyReward:
    """A TRL reward function for one task family: each completion judged against its row's subject.

    The one TRL adapter, generic over the family (``nemo_code_rl.family_pieces``): the family reads
    each row, builds the verifier and its jobs, says what a verification means and names its
    verdict; this calls the engine once per batch, settles faults, and reports to TRL.

    Args:
        pieces: the family.
        config: the family's verifier config or its plain-dict form (strict keys).
        name: the name TRL logs the reward and its metrics under.
        pool: an execution backend to use (borrowed: never closed by this reward).
        workers / isolation / backend: how to start one when ``pool`` is ``None`` (``make_backend``:
            ``backend`` is a ``BackendConfig``, its dict form or a kind's name, ``process``,
            ``docker`` or ``ray``); this reward owns it.
        faults: the infrastructure-fault policy's bounds (``FaultPolicyConfig`` or its dict form).
    """

    def __init__(
        self,
        pieces: FamilyPieces[Any, Any, Any],
        config: Any = None,
        *,
        name: str,
        pool: ExecutionBackend | None = None,
        workers: int | None = None,
        isolation: str = "full",
        backend: BackendConfig | Mapping[str, Any] | str | None = None,
        faults: FaultPolicyConfig | Mapping[str, Any] | None = None,
    ) -> None:
        self.__name__ = name
        self.pieces = pieces
        self.faults = FaultPolicy(faults)
        self.verifier = pieces.make_verifier(
            config, pool=pool, workers=workers, isolation=isolation, backend=backend
        )
        self.pool = self.verifier.pool
        self.last_metrics: dict[str, float] = {}
        self._reported_rows: set[str] = set()

    def __call__(self, completions: Sequence[Any], **columns: Any) -> list[float]:
        started = time.perf_counter()
        pieces = self.pieces
        texts = [completion_text(c) for c in completions]
        subjects = self._subjects(sample_rows(len(texts), columns))
        judged = [i for i, subject in enumerate(subjects) if subject is not None]
        checked, cause = self.faults.verify(
            self.verifier.verify_batch, [pieces.job(subjects[i], texts[i]) for i in judged]
        )
        verifications: list[Any] = [None] * len(texts)
        for index, verification in zip(judged, checked, strict=True) if checked is not None else ():
            verifications[index] = verification
        ids = [pieces.subject_id(s) if s is not None else None for s in subjects]
        settlement = self.faults.settle([_attempt(ids[i], verifications[i], cause) for i in judged])
        rewards = [0.0] * len(texts)
        for index, reward in zip(judged, settlement.rewards, strict=True):
            rewards[index] = reward
        outcomes: list[SampleOutcome] = []
        records: list[Any] = []
        verdicts: list[str] = []
        for index, (subject, verification) in enumerate(zip(subjects, verifications, strict=True)):
            if verification is None:
                lost = subject is not None
                outcomes.append(
                    SampleOutcome(
                        ids[index],
                        passed=None,
                        infra_fault=lost,
                        bad_metadata=not lost,
                        reward=rewards[index],
                    )
                )
                verdicts.append(AttemptStatus.INFRA_FAULT.value if lost else BAD_ROW)
                continue
            judgement = pieces.judge(
                subject, verification, turn=1, reward=rewards[index], max_turns=1, config=self.verifier.config
            )
            outcomes.append(judgement.outcome)
            if judgement.record is not None:
                records.append(judgement.record)
            verdicts.append(pieces.verdict(verification))
        metrics = {**verification_metrics(outcomes), **pieces.metrics(records), **response_metrics(texts)}
        metrics.update(self.faults.metrics())
        metrics["bad_rows"] = float(len(texts) - len(judged))
        metrics["reward_wall_s"] = time.perf_counter() - started
        metrics["reward_wall_s_excluding_timeouts"] = metrics["reward_wall_s"] * (
            1.0 - metrics["timeout_lost_fraction"]
        )
        self._report(metrics, verdicts, columns.get("log_metric"), columns.get("log_extra"))
        settlement.raise_if_failed()
        return rewards

    def _subjects(self, rows: Sequence[Mapping[str, Any]]) -> list[Any]:
        """Each row's subject (``None``: unusable, reported once); the samples of one prompt share
        one subject, read once, so the verifier runs a completion repeated within the group once."""
        read: dict[tuple[tuple[str, str], ...], Any] = {}
        subjects: list[Any] = []
        for index, row in enumerate(rows):
            key = tuple(
                (str(k), v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str))
                for k, v in sorted(row.items(), key=lambda item: str(item[0]))
            )
            if key not in read:
                try:
                    read[key] = self.pieces.subject_from_row(row, index)
                except ProblemFormatError as error:
                    self._warn_bad_row(index, error)
                    read[key] = None
            subjects.append(read[key])
        return subjects

    def _report(
        self,
        metrics: dict[str, float],
        verdicts: Sequence[str],
        log_metric: Callable[[str, float], None] | None,
        log_extra: Callable[[str, list], None] | None,
    ) -> None:
        self.last_metrics = metrics
        if log_metric is not None:
            for key, value in metrics.items():
                log_metric(f"{self.__name__}/{key}", value)
        if log_extra is not None:
            log_extra(f"{self.__name__}_verdict", list(verdicts))

    def _warn_bad_row(self, index: int, error: Exception) -> None:
        reason = str(error)
        if reason not in self._reported_rows:
            self._reported_rows.add(reason)
            logger.warning("%s: sample %d has an unusable row, reward 0: %s", self.__name__, index, reason)

    def close(self) -> None:
        """Stop the engine's workers (only a pool this reward started)."""
        self.verifier.close()

    def __enter__(self) -> FamilyReward:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class UnitTestReward(FamilyReward):
    """The TRL reward of the unit-test family: each completion's code run against its problem's tests.

    Args:
        config: a ``VerifierConfig`` or its plain-dict form (strict keys): timeouts, early exit,
            test cap, reward mode (``binary``, ``fraction``, ``shaped``).
        name / pool / workers / isolation / backend / faults: as for ``FamilyReward``.
    """

    def __init__(
        self,
        config: VerifierConfig | Mapping[str, Any] | None = None,
        *,
        name: str = "unit_tests",
        pool: ExecutionBackend | None = None,
        workers: int | None = None,
        isolation: str = "full",
        backend: BackendConfig | Mapping[str, Any] | str | None = None,
        faults: FaultPolicyConfig | Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(
            UNIT_TEST_PIECES,
            config,
            name=name,
            pool=pool,
            workers=workers,
            isolation=isolation,
            backend=backend,
            faults=faults,
        )


class ArcProgramReward(FamilyReward):
    """The TRL reward of the ARC family: each completion's ``transform`` run on its task's grids.

    Args:
        config: an ``ArcVerifierConfig`` or its plain-dict form (strict keys): extraction,
            execution (limits, ``input_type``, and ``helper``: a .py file, package folder or
            folder of modules, default our BARC-compatible ``common``), reward mode.
        name / pool / workers / isolation / backend / faults: as for ``FamilyReward``.
    """

    def __init__(
        self,
        config: ArcVerifierConfig | Mapping[str, Any] | None = None,
        *,
        name: str = ARC.name,
        pool: ExecutionBackend | None = None,
        workers: int | None = None,
        isolation: str = "full",
        backend: BackendConfig | Mapping[str, Any] | str | None = None,
        faults: FaultPolicyConfig | Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(
            ARC_PIECES,
            config,
            name=name,
            pool=pool,
            workers=workers,
            isolation=isolation,
            backend=backend,
            faults=faults,
        )


class _PromptSpec:
    """The two prompt settings ``prompt_messages`` reads from NeMo RL's ``TaskDataSpec``."""

    def __init__(self, system_prompt: str | None) -> None:
        self.system_prompt = system_prompt
        self.prompt = None


def _attempt(problem_id: str | None, verification: Any, cause: str) -> Attempt:
    """A judged row's attempt for the fault policy; ``verification`` is ``None`` when the call was lost."""
    reward = verification.reward if verification is not None else None
    return Attempt(problem_id, reward, cause=cause or f"{problem_id}: the sandbox lost the program twice")
