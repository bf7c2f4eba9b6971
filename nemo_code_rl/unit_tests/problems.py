"""Read coding problems from the formats public data ships in, into one canonical ``Problem``.

Everything downstream (prompting, execution, rewards) sees only ``Problem``, so a new data format
costs one parser here. The format is detected per row from its keys:

- ``nemo_gym``: ``responses_create_params.input`` (chat messages) and
  ``verifier_metadata.unit_tests.{inputs, outputs, fn_name?}`` (Nemotron-RL data).
- ``code_contests_sandboxfusion``: ``content``, ``labels`` and ``test``, a JSON list of
  ``{input: {stdin}, output: {stdout}}``.
- ``code_contests``: ``description`` with ``public_tests`` / ``private_tests`` /
  ``generated_tests`` (Hugging Face ``deepmind/code_contests``), all of them used as tests.
- ``apps`` / ``taco``: ``question``, ``input_output`` (JSON) and ``solutions`` (a JSON list).
- ``humaneval``: ``prompt``, ``test``, ``entry_point``, ``canonical_solution``.
- ``mbpp`` (``text``, ``code``) / ``mbpp_sandboxfusion`` (``content``, ``canonical_solution``),
  both with ``test_list``.
- ``canonical``: a row written by ``Problem.to_dict()``.

The id is the first present of ``id``, ``task_id``, ``problem_id``, ``hash_id`` (as a string);
formats without one (``deepmind/code_contests``, TACO) need ``id_field=`` (e.g. ``"name"``).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import gzip
import json
import os
import re
from collections.abc import Iterable, Mapping, Set
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from nemo_code_rl import fast_json
from nemo_code_rl.rows import ID_FIELDS, ProblemFormatError, RowError, decoded_json, not_text

ProblemKind = Literal["stdio", "call", "assert"]

_PYTHON3 = 3  # deepmind/code_contests solution language code for Python 3
_TIME_LIMIT = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|milliseconds?|s|secs?|seconds?)?\s*", re.IGNORECASE)
_CODE_CONTESTS_SPLITS = ("public_tests", "private_tests", "generated_tests")
_MBPP_FIELDS = frozenset(
    {"content", "text", "test_list", "labels", "code", "canonical_solution", "test_setup_code"}
)
_TACO_ONLY_KEYS = frozenset({"raw_tags", "skill_types", "tags", "time_limit", "memory_limit", "picture_num"})


@dataclass(frozen=True)
class Problem:
    """One coding problem with its tests, whatever format it came from.

    Attributes:
        id: unique within a data set.
        prompt: the problem text shown to the model (for MBPP it includes the first assert, so the
            function name is known; for call-based APPS / TACO, the starter code).
        messages: the chat messages of the source, or one user message holding ``prompt``.
        kind: ``stdio`` (stdin to stdout), ``call`` (call ``fn_name``), ``assert`` (run test code).
        source_format: the detected format (see the module doc).
        inputs / outputs: ``stdio``: stdin texts and expected stdout texts. ``call``: JSON arrays of
            the arguments and JSON values of the expected results.
        fn_name: the function ``call`` tests call (a method of ``class Solution`` on LeetCode data).
        test_code: ``assert``: a test program run after the solution, counted as one test
            (HumanEval: its ``check`` function followed by ``check(entry_point)``); set exactly
            when ``test_list`` is empty.
        entry_point: the function under test, where known.
        setup_code: ``assert``: code run after the solution and before the tests (MBPP).
        test_list: ``assert``: independent assert statements, one test each (MBPP).
        time_limit_s: the per-test time limit the data states, if any.
        reference_solution: a complete program known to pass, if the data has one.
        singleton_outputs: ``call`` tests of APPS / TACO, where an expected ``[x]`` also means ``x``.
        completion_prefix: code a completion may continue rather than repeat (HumanEval: its
            prompt, a signature and docstring): a completion without a code block is taken as code,
            and code that does not define ``entry_point`` runs after this prefix.
        trusted_helpers: ``assert``: code the tests may rely on that must come from the data, not
            the candidate (HumanEval: its prompt's helper functions), run before the tests.
        metadata: every other field of the row, kept for reporting.
    """

    id: str
    prompt: str
    messages: list[dict[str, Any]]
    kind: ProblemKind
    source_format: str
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    fn_name: str | None = None
    test_code: str | None = None
    entry_point: str | None = None
    setup_code: str = ""
    test_list: list[str] = field(default_factory=list)
    time_limit_s: float | None = None
    reference_solution: str | None = None
    singleton_outputs: bool = False
    completion_prefix: str | None = None
    trusted_helpers: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ProblemFormatError(f"id must be a non-empty string, got {self.id!r}", field="id")
        if self.kind not in ("stdio", "call", "assert"):
            raise ProblemFormatError(f"unknown kind {self.kind!r}", field="kind")
        if self.kind == "assert":
            _check_strings(self.test_list, "test_list")
            if bool(self.test_list) == bool(self.test_code):
                detail = "an assert problem needs test_list or test_code (exactly one)"
                raise ProblemFormatError(detail, field="test_list")
        else:
            _check_strings(self.inputs, "inputs")
            _check_strings(self.outputs, "outputs")
            if not self.inputs:
                raise ProblemFormatError("no tests", field="inputs")
            if len(self.inputs) != len(self.outputs):
                raise ProblemFormatError(
                    f"{len(self.inputs)} inputs but {len(self.outputs)} outputs", field="outputs"
                )
        if self.kind == "call" and not self.fn_name:
            raise ProblemFormatError("a call problem needs fn_name", field="fn_name")
        if self.time_limit_s is not None and not self.time_limit_s > 0:
            raise ProblemFormatError(f"must be positive, got {self.time_limit_s!r}", field="time_limit_s")

    @property
    def n_tests(self) -> int:
        """How many tests a solution is scored on (``test_code`` alone counts as one)."""
        if self.kind == "assert":
            return len(self.test_list) or 1
        return len(self.inputs)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict that ``parse_problem`` reads back into an equal ``Problem``."""
        return asdict(self)


def load_problems(
    source: str | os.PathLike[str] | Iterable[Mapping[str, Any]], *, id_field: str | None = None
) -> list[Problem]:
    """Load problems from a ``.jsonl`` / ``.json`` (a list) / ``.parquet`` file, or from rows.

    Files may be gzip-compressed (``.jsonl.gz``). Parquet needs ``pyarrow``. Errors are
    ``ProblemFormatError`` naming the row (JSONL: ``line N``, 1-based; otherwise ``index N``,
    0-based) and the field; duplicate ids name both rows. ``read_problems`` keeps going past bad rows.

    >>> [p.kind for p in load_problems([{"task_id": 1, "text": "Add.", "test_list": ["assert add(1) == 2"]}])]
    ['assert']
    """
    problems, errors = read_problems(source, id_field=id_field)
    if errors:
        raise errors[0].error
    return problems


def read_problems(
    source: str | os.PathLike[str] | Iterable[Mapping[str, Any]], *, id_field: str | None = None
) -> tuple[list[Problem], list[RowError]]:
    """Every valid problem of ``source``, and a ``RowError`` for each row that is not one.

    A bad row never stops the others: a scoring run on a large file keeps what it can judge and
    reports the rest. Rows sharing an id are all errors (which one was meant cannot be known).
    Whole-file defects (an unknown file type, a ``.json`` that is not a list) still raise.

    >>> problems, errors = read_problems([{"id": "a", "question": "q", "input_output": "{"}])
    >>> problems, [(e.where, e.problem_id, e.error.field) for e in errors]
    ([], [('index 0', 'a', 'input_output')])
    """
    problems: dict[str, Problem] = {}
    seen: dict[str, str] = {}
    errors: list[RowError] = []
    prefix = f"{source}: " if isinstance(source, (str, os.PathLike)) else ""
    for location, row in _rows(source):
        where = location.removeprefix(prefix)
        problem_id = _row_id(row, id_field)
        try:
            if isinstance(row, ProblemFormatError):
                raise row
            problem = parse_problem(row, id_field=id_field)
        except ProblemFormatError as error:
            errors.append(RowError(where, problem_id, error.at(location)))
            continue
        if problem.id in seen:
            detail = f"duplicate id {problem.id!r}, first seen at {seen[problem.id]}"
            errors.append(
                RowError(where, problem.id, ProblemFormatError(detail, field="id", location=location))
            )
            first = problems.pop(problem.id, None)
            if first is not None:
                detail = f"duplicate id {problem.id!r}, also at {location}"
                first_where = seen[problem.id].removeprefix(prefix)
                duplicate = ProblemFormatError(detail, field="id", location=seen[problem.id])
                errors.append(RowError(first_where, problem.id, duplicate))
            continue
        seen[problem.id] = location
        problems[problem.id] = problem
    return list(problems.values()), errors


def _row_id(row: Any, id_field: str | None) -> str | None:
    """The id a row names, even when the rest of it is unusable."""
    if not isinstance(row, Mapping):
        return None
    try:
        return _problem_id(row, id_field)
    except ProblemFormatError:
        return None


def parse_problem(row: Mapping[str, Any], *, id_field: str | None = None) -> Problem:
    """Turn one row of any supported format into a ``Problem``.

    >>> tests = '{"inputs": ["a"], "outputs": ["a"]}'
    >>> problem = parse_problem({"id": 7, "question": "Echo.", "input_output": tests})
    >>> (problem.id, problem.kind, problem.source_format)
    ('7', 'stdio', 'apps')
    """
    if not isinstance(row, Mapping):
        raise ProblemFormatError(f"a row must be a JSON object, got {type(row).__name__}")
    source_format = detect_format(row)
    if source_format == "canonical":
        return _from_canonical(row)
    return _PARSERS[source_format](row, _problem_id(row, id_field), source_format)


def detect_format(row: Mapping[str, Any]) -> str:
    """The name of the format ``row`` is in, from its keys.

    >>> detect_format({"task_id": "HumanEval/0", "prompt": "def f():", "test": "", "entry_point": "f"})
    'humaneval'
    """
    keys = set(row)
    if "responses_create_params" in keys:
        return "nemo_gym"
    if {"kind", "source_format"} <= keys:
        return "canonical"
    if "description" in keys and keys & set(_CODE_CONTESTS_SPLITS):
        return "code_contests"
    if {"content", "test"} <= keys:
        return "code_contests_sandboxfusion"
    if "test_list" in keys and "content" in keys:
        return "mbpp_sandboxfusion"
    if "test_list" in keys and "text" in keys:
        return "mbpp"
    if {"prompt", "test", "entry_point"} <= keys:
        return "humaneval"
    if {"question", "input_output"} <= keys:
        return "taco" if keys & _TACO_ONLY_KEYS else "apps"
    raise ProblemFormatError(f"unknown problem format; keys seen: {sorted(map(str, keys))}")


def _rows(source: str | os.PathLike[str] | Iterable[Mapping[str, Any]]) -> Iterable[tuple[str, Any]]:
    if not isinstance(source, (str, os.PathLike)):
        return ((f"index {index}", row) for index, row in enumerate(source))
    path = Path(source)
    suffixes = [suffix.lower() for suffix in path.suffixes]
    compressed = suffixes[-1:] == [".gz"]
    kind = suffixes[-2] if compressed and len(suffixes) > 1 else (suffixes[-1] if suffixes else "")
    if kind == ".parquet":
        return _parquet_rows(path)
    if kind not in (".jsonl", ".json"):
        raise ValueError(f"{path}: cannot tell the file type; use .jsonl, .json or .parquet (optionally .gz)")
    opener = gzip.open if compressed else open
    with opener(path, "rb") as handle:
        raw = handle.read()
    if kind == ".jsonl":
        return _jsonl_rows(path, raw)
    try:
        data = fast_json.loads(raw)
    except UnicodeDecodeError as error:
        raise ProblemFormatError(not_text(error), location=str(path)) from error
    except ValueError as error:
        raise ProblemFormatError(f"not valid JSON ({error})", location=str(path)) from error
    if not isinstance(data, list):
        detail = f"a .json file must hold a list of rows, not {type(data).__name__}"
        raise ProblemFormatError(detail, location=str(path))
    return ((f"{path}: index {index}", row) for index, row in enumerate(data))


def _jsonl_rows(path: Path, raw: bytes) -> list[tuple[str, Any]]:
    """``(location, row)`` per non-empty line; a line that is not a JSON value gets a
    ``ProblemFormatError`` in place of its row, so the other lines still count."""
    rows: list[tuple[str, Any]] = []
    for number, data in enumerate(raw.split(b"\n"), start=1):
        if not data.strip():
            continue
        location = f"{path}: line {number}"
        try:
            rows.append((location, fast_json.loads(data)))
        except UnicodeDecodeError as error:
            rows.append((location, ProblemFormatError(not_text(error), location=location)))
        except ValueError as error:
            rows.append((location, ProblemFormatError(f"not valid JSON ({error})", location=location)))
    return rows


def _parquet_rows(path: Path) -> list[tuple[str, Any]]:
    try:
        import pyarrow.parquet as parquet
    except ImportError as error:
        raise ImportError(
            f"{path}: reading parquet needs pyarrow (pip install 'nemo-code-rl[data]')"
        ) from error
    rows = parquet.read_table(path).to_pylist()
    return [(f"{path}: index {index}", row) for index, row in enumerate(rows)]


def _problem_id(row: Mapping[str, Any], id_field: str | None) -> str:
    candidates = (id_field,) if id_field else ID_FIELDS
    for name in candidates:
        value = row.get(name)
        if value is not None and str(value) != "":
            return str(value)
    if id_field:
        raise ProblemFormatError("the id field is missing or empty", field=id_field)
    raise ProblemFormatError(
        f"no id: the row has none of {', '.join(ID_FIELDS)} (pass id_field= to use another field)"
    )


def _from_nemo_gym(row: Mapping[str, Any], problem_id: str, source_format: str) -> Problem:
    params = row["responses_create_params"]
    if not isinstance(params, Mapping) or "input" not in params:
        raise ProblemFormatError("missing", field="responses_create_params.input")
    messages = _messages(params["input"], "responses_create_params.input")
    user_texts = [message["content"] for message in messages if message["role"] == "user"]
    if not user_texts:
        raise ProblemFormatError("no user message", field="responses_create_params.input")
    verifier = row.get("verifier_metadata")
    if not isinstance(verifier, Mapping) or not isinstance(verifier.get("unit_tests"), Mapping):
        raise ProblemFormatError("missing or not an object", field="verifier_metadata.unit_tests")
    tests = verifier["unit_tests"]
    metadata = _rest(row, {"responses_create_params", "verifier_metadata"})
    other_params = {key: value for key, value in params.items() if key != "input" and value is not None}
    if other_params:
        metadata["responses_create_params"] = other_params
    other_verifier = {key: value for key, value in verifier.items() if key != "unit_tests"}
    if other_verifier:
        metadata["verifier_metadata"] = other_verifier
    return _unit_test_problem(
        tests,
        "verifier_metadata.unit_tests",
        "lcb",
        id=problem_id,
        prompt=user_texts[-1],
        messages=messages,
        source_format=source_format,
        metadata=metadata,
    )


def _from_code_contests_sandboxfusion(row: Mapping[str, Any], problem_id: str, source_format: str) -> Problem:
    tests = decoded_json(row.get("test"), "test")
    if not isinstance(tests, list):
        raise ProblemFormatError("must be a list of tests", field="test")
    if not tests:
        raise ProblemFormatError("no tests", field="test")
    inputs, outputs = [], []
    for index, test in enumerate(tests):
        try:
            inputs.append(test["input"]["stdin"])
            outputs.append(test["output"]["stdout"])
        except (KeyError, TypeError) as error:
            raise ProblemFormatError(
                "each test must be {input: {stdin}, output: {stdout}}", field=f"test[{index}]"
            ) from error
    labels = _labels(row)
    prompt = _text(row, "content")
    return Problem(
        id=problem_id,
        prompt=prompt,
        messages=[_user(prompt)],
        kind="stdio",
        source_format=source_format,
        inputs=_strings(inputs, "test[].input.stdin"),
        outputs=_strings(outputs, "test[].output.stdout"),
        time_limit_s=_time_limit(labels.get("time_limit")),
        metadata={**_rest(row, {"content", "test", "labels"}), "labels": labels},
    )


def _from_code_contests(row: Mapping[str, Any], problem_id: str, source_format: str) -> Problem:
    inputs: list[str] = []
    outputs: list[str] = []
    split_sizes = {}
    for split in _CODE_CONTESTS_SPLITS:
        tests = row.get(split) or {"input": [], "output": []}
        if not isinstance(tests, Mapping) or not isinstance(tests.get("input"), list):
            raise ProblemFormatError("must be {input: [...], output: [...]}", field=split)
        split_inputs = _strings(tests["input"], f"{split}.input")
        split_outputs = _strings(tests.get("output"), f"{split}.output")
        if len(split_inputs) != len(split_outputs):
            raise ProblemFormatError(
                f"{len(split_inputs)} inputs but {len(split_outputs)} outputs", field=f"{split}.output"
            )
        inputs += split_inputs
        outputs += split_outputs
        split_sizes[split] = len(split_inputs)
    if not inputs:
        raise ProblemFormatError("no tests in any split", field="public_tests")
    solutions = row.get("solutions")
    python3 = []
    if isinstance(solutions, Mapping):
        pairs = zip(solutions.get("language") or [], solutions.get("solution") or [], strict=False)
        python3 = [code for language, code in pairs if language == _PYTHON3 and isinstance(code, str)]
    prompt = _text(row, "description")
    consumed = {"description", "solutions", "incorrect_solutions", *_CODE_CONTESTS_SPLITS}
    return Problem(
        id=problem_id,
        prompt=prompt,
        messages=[_user(prompt)],
        kind="stdio",
        source_format=source_format,
        inputs=inputs,
        outputs=outputs,
        time_limit_s=_time_limit(row.get("time_limit")),
        reference_solution=python3[0] if python3 else None,
        metadata={**_rest(row, consumed), "test_split_sizes": split_sizes},
    )


def _from_apps(row: Mapping[str, Any], problem_id: str, source_format: str) -> Problem:
    tests = decoded_json(row.get("input_output"), "input_output")
    if not isinstance(tests, Mapping):
        raise ProblemFormatError("must be a JSON object with inputs and outputs", field="input_output")
    question = _text(row, "question")
    starter_code = row.get("starter_code") or ""
    if not isinstance(starter_code, str):
        raise ProblemFormatError(f"must be a string, got {type(starter_code).__name__}", field="starter_code")
    fn_name = tests.get("fn_name")
    prompt = question
    if starter_code.strip():
        prompt += f"\n\nUse this starter code:\n```python\n{starter_code.rstrip()}\n```"
    elif fn_name:
        prompt += f"\n\nYour solution must define a function named `{fn_name}`."
    solutions = decoded_json(row["solutions"], "solutions") if row.get("solutions") else []
    if not isinstance(solutions, list):
        raise ProblemFormatError("must be a JSON list of programs", field="solutions")
    return _unit_test_problem(
        tests,
        "input_output",
        "apps",
        id=problem_id,
        prompt=prompt,
        messages=[_user(prompt)],
        source_format=source_format,
        time_limit_s=_time_limit(row.get("time_limit")),
        reference_solution=solutions[0] if solutions and isinstance(solutions[0], str) else None,
        metadata=_rest(row, {"question", "input_output", "solutions"}),
    )


def _from_humaneval(row: Mapping[str, Any], problem_id: str, source_format: str) -> Problem:
    prompt = _text(row, "prompt")
    entry_point = _text(row, "entry_point")
    test = _text(row, "test")
    solution = row.get("canonical_solution")
    return Problem(
        id=problem_id,
        prompt=prompt,
        messages=[_user(prompt)],
        kind="assert",
        source_format=source_format,
        test_code=f"{test.rstrip()}\n\n\ncheck({entry_point})\n",
        entry_point=entry_point,
        reference_solution=prompt + solution if isinstance(solution, str) else None,
        completion_prefix=prompt,
        trusted_helpers=prompt,
        metadata=_rest(row, {"prompt", "test", "entry_point", "canonical_solution"}),
    )


def _from_mbpp(row: Mapping[str, Any], problem_id: str, source_format: str) -> Problem:
    sandboxfusion = source_format == "mbpp_sandboxfusion"
    text = _text(row, "content" if sandboxfusion else "text")
    test_list = _strings(row.get("test_list"), "test_list")
    if not test_list:
        raise ProblemFormatError("no tests", field="test_list")
    labels = _labels(row) if sandboxfusion else {}
    setup_code = (labels if sandboxfusion else row).get("test_setup_code") or ""
    if not isinstance(setup_code, str):
        raise ProblemFormatError("must be a string", field="test_setup_code")
    solution = row.get("canonical_solution" if sandboxfusion else "code")
    solution = solution if isinstance(solution, str) else None
    prompt = f"{text.strip()}\n\nYour code should pass this test:\n\n{test_list[0]}"
    metadata = _rest(row, _MBPP_FIELDS)
    if sandboxfusion:
        metadata["labels"] = labels
    return Problem(
        id=problem_id,
        prompt=prompt,
        messages=[_user(prompt)],
        kind="assert",
        source_format=source_format,
        test_list=test_list,
        setup_code=setup_code,
        entry_point=_called_function(test_list[0], solution or ""),
        reference_solution=solution,
        metadata=metadata,
    )


def _from_canonical(row: Mapping[str, Any]) -> Problem:
    known = {item.name for item in fields(Problem)}
    unknown = sorted(set(row) - known)
    if unknown:
        raise ProblemFormatError(f"unknown fields {unknown} in a canonical problem row")
    values = dict(row)
    if "id" in values and values["id"] is not None:
        values["id"] = str(values["id"])
    if values.get("source_format") == "humaneval" and "completion_prefix" not in values:
        # written before HumanEval's rules became fields of the problem: they come from its prompt
        values["completion_prefix"] = values["trusted_helpers"] = values.get("prompt")
    try:
        return Problem(**values)
    except TypeError as error:
        raise ProblemFormatError(f"incomplete canonical problem row ({error})") from error


_PARSERS = {
    "nemo_gym": _from_nemo_gym,
    "code_contests_sandboxfusion": _from_code_contests_sandboxfusion,
    "code_contests": _from_code_contests,
    "apps": _from_apps,
    "taco": _from_apps,
    "humaneval": _from_humaneval,
    "mbpp": _from_mbpp,
    "mbpp_sandboxfusion": _from_mbpp,
}


def _unit_test_problem(
    tests: Mapping[str, Any], field_prefix: str, call_style: Literal["lcb", "apps"], **common: Any
) -> Problem:
    """A stdio or call problem from ``{inputs, outputs, fn_name?}`` tests.

    Call-based tests come in two styles: LiveCodeBench (and NeMo Gym) store each input as one JSON
    value per line and each output as JSON text; APPS / TACO store the argument list and the value.
    """
    raw_inputs, raw_outputs = tests.get("inputs"), tests.get("outputs")
    if not isinstance(raw_inputs, list):
        raise ProblemFormatError("must be a list", field=f"{field_prefix}.inputs")
    if not isinstance(raw_outputs, list):
        raise ProblemFormatError("must be a list", field=f"{field_prefix}.outputs")
    if not raw_inputs:
        raise ProblemFormatError("no tests", field=f"{field_prefix}.inputs")
    if len(raw_inputs) != len(raw_outputs):
        raise ProblemFormatError(
            f"{len(raw_inputs)} inputs but {len(raw_outputs)} outputs", field=f"{field_prefix}.outputs"
        )
    fn_name = tests.get("fn_name")
    if fn_name is not None and not isinstance(fn_name, str):
        raise ProblemFormatError("must be a string", field=f"{field_prefix}.fn_name")
    if not fn_name:
        inputs = _stdio_texts(raw_inputs, f"{field_prefix}.inputs")
        outputs = _stdio_texts(raw_outputs, f"{field_prefix}.outputs")
        return Problem(kind="stdio", inputs=inputs, outputs=outputs, **common)
    inputs, outputs = [], []
    for index, (raw_input, raw_output) in enumerate(zip(raw_inputs, raw_outputs, strict=True)):
        input_name, output_name = f"{field_prefix}.inputs[{index}]", f"{field_prefix}.outputs[{index}]"
        if call_style == "lcb":
            inputs.append(_lcb_arguments(raw_input, input_name))
            outputs.append(_lcb_result(raw_output, output_name))
        else:
            inputs.append(_apps_arguments(raw_input, input_name))
            outputs.append(_json_text(raw_output, output_name))
    singleton_outputs = call_style == "apps"
    return Problem(
        kind="call",
        inputs=inputs,
        outputs=outputs,
        fn_name=fn_name,
        singleton_outputs=singleton_outputs,
        **common,
    )


def _lcb_arguments(value: Any, field_name: str) -> str:
    if not isinstance(value, str):
        detail = f"must be JSON values, one per line; got {type(value).__name__}"
        raise ProblemFormatError(detail, field=field_name)
    try:
        return json.dumps([json.loads(line) for line in value.split("\n")])
    except ValueError as error:
        raise ProblemFormatError(f"each line must be a JSON value ({error})", field=field_name) from error


def _lcb_result(value: Any, field_name: str) -> str:
    if not isinstance(value, str):
        raise ProblemFormatError(f"must be JSON text, got {type(value).__name__}", field=field_name)
    try:
        json.loads(value)
    except ValueError as error:
        raise ProblemFormatError(f"not valid JSON ({error})", field=field_name) from error
    return value


def _apps_arguments(value: Any, field_name: str) -> str:
    if not isinstance(value, list):
        raise ProblemFormatError(f"must be a list of arguments, got {type(value).__name__}", field=field_name)
    return _json_text(value, field_name)


def _json_text(value: Any, field_name: str) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError) as error:
        raise ProblemFormatError(f"not JSON-encodable ({error})", field=field_name) from error


def _stdio_texts(values: list[Any], field_name: str) -> list[str]:
    """stdin / stdout texts; APPS sometimes stores one as a list of lines. Texts alone (nearly
    every row) are taken as they are, the field's name spelled only for an error: reading 20,000
    problems is on ``score``'s way to its first program."""
    if all(isinstance(value, str) for value in values):
        return list(values)
    return [_stdio_text(value, f"{field_name}[{index}]") for index, value in enumerate(values)]


def _stdio_text(value: Any, field_name: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "\n".join(value)
    raise ProblemFormatError(f"must be a string, got {type(value).__name__}", field=field_name)


def _messages(value: Any, field_name: str) -> list[dict[str, Any]]:
    """Chat messages as ``{role, content}`` with text content (Responses API parts are joined)."""
    if isinstance(value, str):
        return [_user(value)]
    if not isinstance(value, list):
        raise ProblemFormatError("must be a list of messages or a string", field=field_name)
    messages = []
    for index, item in enumerate(value):
        if not isinstance(item, Mapping) or "role" not in item:
            continue
        content = item.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, Mapping))
        if not isinstance(content, str):
            raise ProblemFormatError("message content must be text", field=f"{field_name}[{index}].content")
        messages.append({"role": str(item["role"]), "content": content})
    return messages


def _called_function(assertion: str, solution: str) -> str | None:
    """The function an MBPP assert tests: a called name the solution defines, else the first non-builtin."""
    try:
        tree = ast.parse(assertion)
    except SyntaxError:
        return None
    calls = [
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    ]
    called = [name for name in calls if not hasattr(builtins, name)]
    defined = set()
    with contextlib.suppress(SyntaxError):
        defined = {
            node.name
            for node in ast.parse(solution).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        }
    return next((name for name in called if name in defined), called[0] if called else None)


def _time_limit(value: Any) -> float | None:
    """Seconds from a number, ``{seconds, nanos}`` (code_contests) or text such as ``2 seconds``."""
    seconds: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, Mapping) and ("seconds" in value or "nanos" in value):
        seconds = float(value.get("seconds") or 0) + float(value.get("nanos") or 0) / 1e9
    elif isinstance(value, str):
        match = _TIME_LIMIT.fullmatch(value)
        if match:
            seconds = float(match.group(1))
            if (match.group(2) or "").lower().startswith("m"):
                seconds /= 1000
    return seconds if seconds and seconds > 0 else None


def _text(row: Mapping[str, Any], name: str) -> str:
    value = row.get(name)
    if not isinstance(value, str):
        raise ProblemFormatError(f"must be a string, got {type(value).__name__}", field=name)
    return value


def _strings(value: Any, field_name: str) -> list[str]:
    if value is None:
        return []
    _check_strings(value, field_name)
    return list(value)


def _labels(row: Mapping[str, Any]) -> Mapping[str, Any]:
    """SandboxFusion's ``labels``: an object, or JSON text of one."""
    labels = decoded_json(row["labels"], "labels") if "labels" in row else {}
    if not isinstance(labels, Mapping):
        raise ProblemFormatError("must be an object (or JSON text of one)", field="labels")
    return labels


def _check_strings(value: Any, field_name: str) -> None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ProblemFormatError("must be a list of strings", field=field_name)


def _rest(row: Mapping[str, Any], consumed: Set[str]) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key not in consumed}


def _user(content: str) -> dict[str, Any]:
    return {"role": "user", "content": content}
