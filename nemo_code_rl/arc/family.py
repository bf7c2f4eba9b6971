"""The ARC family's pieces: ARC tasks answered with a ``transform`` program (``families.ARC``).

Rows become an ``ArcSubject`` (the task as the policy saw it, and its augmentation) through
``arc.dataset``; the prompt is ``arc.prompts``'s, with NeMo RL's prompt settings applied; the task
travels in ``extra_env_info`` as its one encoding's JSON text (``task_codec``, via
``env_info_for_task``), so Arrow and batch collation leave its ragged grids alone and the
environment reads it without the task parser; a dataset row of ours is prompted from its header
column, never parsed again; ``ArcVerifier`` runs the program on every grid; a verification means:
the episode ends when the train pairs pass, the sandbox faulted or the turns ran out; its feedback
names the failed pairs; its metrics are the ARC table (``arc.metrics``). Every framework adapter
reads the family through ``PIECES``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from nemo_code_rl.arc.augment import Augmentation
from nemo_code_rl.arc.dataset import AUGMENTATION_COLUMN, ArcDatum, datum_from_row, encoded_task_from_row
from nemo_code_rl.arc.feedback import feedback_text
from nemo_code_rl.arc.metrics import arc_metrics
from nemo_code_rl.arc.prompts import build_messages
from nemo_code_rl.arc.scoring import result_fields
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.arc.task_codec import EncodedTask, decode_task
from nemo_code_rl.arc.verifier import ArcVerification, ArcVerifier, ArcVerifierConfig
from nemo_code_rl.engine.backend import BackendConfig, ExecutionBackend
from nemo_code_rl.families import ARC, TaskFamily
from nemo_code_rl.family_pieces import Judgement, decoded_env_info
from nemo_code_rl.outcomes import Verdict
from nemo_code_rl.rows import ProblemFormatError, decoded_json
from nemo_code_rl.training_metrics import SampleOutcome

TASK_KEY = "arc_task"
AUGMENTATION_KEY = "arc_augmentation"


class ArcSubject(NamedTuple):
    """What a sample asks to judge: the task as the policy saw it, and how it was augmented."""

    task: ArcTask
    augmentation: Augmentation | None


def env_info_for_task(
    task: ArcTask | EncodedTask, augmentation: Augmentation | str | None = None
) -> dict[str, Any]:
    """The ``extra_env_info`` of a task: the task (in the frame the prompt shows) in its one
    encoding (``task_codec``), the augmentation that frame came from, and a few plain fields for
    logging. An ``EncodedTask`` (a dataset row's) goes in as it is, its text not decoded, and so
    may the augmentation's JSON text.

    >>> from nemo_code_rl.arc.task import task_from_row
    >>> task = task_from_row({"id": "t", "train": [{"input": [[1]], "output": [[2]]}],
    ...                       "test": [{"input": [[3]], "output": [[4]]}]})
    >>> info = env_info_for_task(task)
    >>> task_from_env_info(info)[0] == task, info["n_train"]
    (True, 1)
    """
    encoded = task if isinstance(task, EncodedTask) else EncodedTask.of(task, [])
    if not isinstance(augmentation, str):
        augmentation = json.dumps(augmentation.to_dict() if augmentation else None)
    return {
        TASK_KEY: encoded.text,
        AUGMENTATION_KEY: augmentation,
        "task_id": encoded.task_id,
        "n_train": encoded.n_train,
        "n_test": encoded.n_test,
    }


def task_from_env_info(info: Mapping[str, Any] | str) -> tuple[ArcTask, Augmentation | None]:
    """The task and augmentation ``env_info_for_task`` encoded (the dict, or JSON text of it),
    decoded without the task parser (an ``extra_env_info`` written before the codec is parsed).

    Raises:
        ProblemFormatError: naming the ``extra_env_info`` field that is missing or malformed.
    """
    info = decoded_env_info(info, TASK_KEY, ARC.name)
    try:
        task = decode_task(decoded_json(info[TASK_KEY], f"extra_env_info.{TASK_KEY}"))
    except ProblemFormatError as error:
        raise error.under(f"extra_env_info.{TASK_KEY}") from error
    augmentation = decoded_json(info.get(AUGMENTATION_KEY), f"extra_env_info.{AUGMENTATION_KEY}")
    try:
        return task, Augmentation.from_dict(augmentation) if augmentation else None
    except (TypeError, ValueError) as error:
        raise ProblemFormatError(str(error), field=f"extra_env_info.{AUGMENTATION_KEY}") from error


def datum_at(row: Any, idx: int) -> ArcDatum:
    """The ``ArcDatum`` of a dataset row, its errors placed at ``row idx N``."""
    location = f"row idx {idx}"
    if not isinstance(row, Mapping):
        raise ProblemFormatError(f"a row must be a dict, got {type(row).__name__}", location=location)
    try:
        return datum_from_row(row)
    except ProblemFormatError as error:
        raise error.at(location) from error


def encoded_task_at(row: Any, idx: int) -> EncodedTask | None:
    """The encoded task of a row ``dataset_rows`` wrote (``None`` for any other row), its errors
    placed at ``row idx N``."""
    if not isinstance(row, Mapping):
        return None
    try:
        return encoded_task_from_row(row)
    except ProblemFormatError as error:
        raise error.at(f"row idx {idx}") from error


def with_task_spec(messages: list[dict[str, str]], task_data_spec: Any) -> list[dict[str, str]]:
    """NeMo RL's prompt settings applied: the system prompt replaced, the user message wrapped."""
    system_prompt = getattr(task_data_spec, "system_prompt", None)
    template = getattr(task_data_spec, "prompt", None)
    system = [m for m in messages if m["role"] == "system"]
    user = [m for m in messages if m["role"] != "system"]
    if system_prompt:
        system = [{"role": "system", "content": system_prompt}]
    if template:
        user = [{**m, "content": template.format(m["content"])} for m in user]
    return system + user


class ArcPieces:
    """The ARC family as a plug-in (``nemo_code_rl.family_pieces.FamilyPieces``)."""

    family: TaskFamily = ARC
    metrics_prefix = "arc/"
    check_verb = "judged"

    def make_verifier(
        self,
        config: ArcVerifierConfig | Mapping[str, Any] | None,
        *,
        pool: ExecutionBackend | None = None,
        workers: int | None = None,
        isolation: str = "full",
        backend: BackendConfig | Mapping[str, Any] | str | None = None,
    ) -> ArcVerifier:
        if not isinstance(config, ArcVerifierConfig):
            config = ArcVerifierConfig.from_dict(config)
        return ArcVerifier(config, pool=pool, workers=workers, isolation=isolation, backend=backend)

    def subject_from_row(self, row: Mapping[str, Any], idx: int) -> ArcSubject:
        try:
            datum = datum_at(row, idx)
        except ProblemFormatError:
            raise
        except ValueError as error:  # an augmentation or prompt setting out of range
            raise ProblemFormatError(str(error), location=f"row idx {idx}") from error
        return ArcSubject(datum.task, datum.augmentation)

    def prompt(
        self, row: Mapping[str, Any], task_data_spec: Any, idx: int
    ) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """A row of our dataset classes is not parsed again: its prompt comes from the task's
        header column and its encoded task goes to ``extra_env_info`` as it is."""
        encoded = encoded_task_at(row, idx)
        if encoded is not None:
            augmentation = row.get(AUGMENTATION_COLUMN) or json.dumps(None)
            return with_task_spec(encoded.messages, task_data_spec), env_info_for_task(encoded, augmentation)
        datum = datum_at(row, idx)
        messages = with_task_spec(build_messages(datum.task, datum.prompt), task_data_spec)
        return messages, env_info_for_task(datum.task, datum.augmentation)

    def subject_from_env_info(self, info: Mapping[str, Any] | str) -> ArcSubject:
        return ArcSubject(*task_from_env_info(info))

    def subject_id(self, subject: ArcSubject) -> str:
        return subject.task.id

    def job(self, subject: ArcSubject, completion: str) -> tuple[ArcTask, str]:
        return subject.task, completion

    def judge(
        self,
        subject: ArcSubject,
        verification: ArcVerification,
        *,
        turn: int,
        reward: float,
        max_turns: int,
        config: Any,
    ) -> Judgement:
        execution = config.execution
        terminated = verification.train_passed or verification.infra_fault or turn >= max_turns
        verdicts = Counter(j.verdict.value for j in verification.train)
        outcome = SampleOutcome(
            problem_id=verification.task_id,
            turn=turn,
            terminal=terminated,
            format_ok=verification.format_ok,
            passed=None if verification.infra_fault else verification.train_passed,
            fraction_passed=verification.train_accuracy,
            ran_without_error=verification.valid_outputs,
            verdicts=dict(verdicts),
            infra_fault=verification.infra_fault,
            execution_s=verification.execution_s,
            timeout_lost_s=min(verification.execution_s, verdicts[Verdict.TIMEOUT] * execution.timeout_s),
            reward=reward,
        )
        return Judgement(
            outcome,
            result_fields(verification, subject.augmentation),
            feedback_text(verification, execution.function_name),
            verification.outcome(),
        )

    def summary(self, verification: ArcVerification) -> str:
        if verification.infra_fault:
            return "Environment: the sandbox failed; this answer is not scored."
        if not verification.format_ok:
            return "Environment: no code found."
        if not verification.compiled:
            return "Environment: the program does not compile."
        right = sum(bool(j.correct) for j in verification.train)
        total = len(verification.train)
        return f"Environment: {right}/{total} training examples right; reward {verification.reward:g}."

    def metrics(self, records: Sequence[Any]) -> dict[str, float]:
        """The ARC table (valid code and outputs, pixel scores, pass rates, pass@n)."""
        return arc_metrics(records)

    def verdict(self, verification: ArcVerification) -> str:
        return str(verification.verdict)


PIECES = ArcPieces()
