"""``fast_json.loads`` reads what ``json.loads`` reads, value for value and error for error, the
problem and completion readers built on it keep every number exact, and ``dumps_line`` writes
the values ``json.dumps`` writes, one row per line."""

from __future__ import annotations

import datetime
import json
import random
from pathlib import Path

import pytest

from nemo_code_rl.fast_json import dumps_line, loads
from nemo_code_rl.results_files import read_completions
from nemo_code_rl.unit_tests.problems import read_problems

# What orjson reads differently from json, or refuses, and what both read alike.
EDGES = [
    b"[123456789012345678901234567890]",
    b"-9223372036854775809",
    b"18446744073709551616",
    b"18446744073709551615",
    b"-9223372036854775808",
    b'{"x": [1, [2, [3.25]]]}',
    b"[0.1, 1e5, -1E-7, -0.0, 5e-324, 1.7976931348623157e308]",
    b"NaN",
    b"[Infinity, -Infinity]",
    b"[1e400]",
    b'"\\ud800"',
    b'{"\\ud83d\\ude00": 1}',
    b'{"a": 1, "b": 2, "a": 3}',
    b'\xef\xbb\xbf{"a": 1}',
    b'"a\x01b"',
    b'"\xff"',
    b"",
    b"1" * 5000,
    b'{"a": 1}x',
    b"[1,]",
    b"{'a': 1}",
    b"[" * 2000 + b"]" * 2000,
    b'  {"a": true, "b": null, "c": false, "d": "\\u00e9\\n\\/"}  ',
]


def _outcome(read, data: bytes | str) -> tuple:
    try:
        value = read(data)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return ("error", type(error).__name__, str(error))
    return ("value", repr(value), list(value) if isinstance(value, dict) else None)


def _standard(data: bytes | str) -> object:
    return json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)


@pytest.mark.parametrize("data", EDGES, ids=range(len(EDGES)))
def test_reads_what_the_standard_library_reads(data: bytes) -> None:
    assert _outcome(loads, data) == _outcome(_standard, data)
    text = data.decode("utf-8", errors="surrogateescape")
    assert _outcome(loads, text) == _outcome(_standard, text)


def _innermost(value: object) -> tuple[int, object]:
    depth = 0
    while isinstance(value, list):
        (value,), depth = value, depth + 1
    return depth, value


def test_nesting_orjson_reads_is_read_whatever_the_recursion_limit() -> None:
    assert _innermost(loads(b"[" * 1020 + b'"text"' + b"]" * 1020)) == (1020, "text")
    with_float = b"[" * 1020 + b"1.5" + b"]" * 1020  # read again by the standard library, as it reads it
    try:
        expected = _standard(with_float)
    except RecursionError:  # Python 3.11's json parses in C within Python's recursion limit
        with pytest.raises(RecursionError):
            loads(with_float)
    else:
        assert _innermost(loads(with_float)) == _innermost(expected) == (1020, 1.5)


def test_random_documents_and_their_corruptions_read_alike() -> None:
    rng = random.Random(0)
    leaves = [2**63, -(2**63) - 1, 2**64, 10**30, -7, 0.5, 1e300, 's\u00e9\n"x', "", True, None]

    def document(depth: int = 0) -> object:
        if depth > 3 or rng.random() < 0.3:
            return rng.choice(leaves)
        if rng.random() < 0.5:
            return [document(depth + 1) for _ in range(rng.randint(0, 4))]
        return {str(rng.randint(0, 5)): document(depth + 1) for _ in range(rng.randint(0, 4))}

    alphabet = b'{}[]",:0123456789.eE-+ntrufalsNI\\u\xc3 '
    for _ in range(5_000):
        data = bytearray(json.dumps(document(), ensure_ascii=rng.random() < 0.5).encode())
        if rng.random() < 0.3:
            data[rng.randrange(len(data))] = rng.choice(alphabet)
        assert _outcome(loads, bytes(data)) == _outcome(_standard, bytes(data))


def test_big_integers_in_call_tests_stay_exact(tmp_path: Path) -> None:
    big = 123456789012345678901234567890
    tests = {"fn_name": "double", "inputs": [[big], [2**64]], "outputs": [2 * big, 2**65]}
    row = {"id": 1, "question": "Double it.", "input_output": json.dumps(tests)}
    path = tmp_path / "problems.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (problem,), errors = read_problems(path)
    assert not errors
    assert [json.loads(value) for value in problem.inputs] == [[big], [2**64]]
    assert [json.loads(value) for value in problem.outputs] == [2 * big, 2**65]


def test_unreadable_completion_lines_are_told_as_before(tmp_path: Path) -> None:
    path = tmp_path / "completions.jsonl"
    path.write_bytes(b'{"id": 1, "completion": "x"}\n{"id": 2, "completion": NaN}\n{"id": 3,\n\xff\n')
    completions = read_completions(path)
    assert [c.error for c in completions] == [
        "",
        '"completion" must be a string',
        "not valid JSON (Expecting property name enclosed in double quotes, column 10)",
        "not UTF-8 text (byte 0xff at offset 0): a binary file?",
    ]


ROWS = [
    {
        "id": "a",
        "index": 0,
        "passed": True,
        "reward": 0.25,
        "tests": [{"verdict": "passed", "wall_s": 1e-05}],
    },
    {"id": "b", "passed": None, "reward": float("nan"), "limit": float("inf")},
    {"id": "c", "big": 2**64, "small": -(2**63) - 1},
    {1: "a key that is not text", "id": "d"},
    {"id": "e", "code": "print('é')\u2028print('\x85')"},
    {"id": "f", "code": "x = '\ud800'"},
    {"id": "g", "stdout": "null\n", "nested": {"k": [1, [2.5, "t"]]}, "tuple": (1, 2)},
]


@pytest.mark.parametrize("row", ROWS, ids=range(len(ROWS)))
def test_rows_are_written_with_the_standard_librarys_values_one_per_line(row: dict) -> None:
    line = dumps_line(row)
    assert line.endswith("\n") and line.count("\n") == 1 and len(line.splitlines()) == 1
    assert repr(json.loads(line)) == repr(json.loads(json.dumps(row)))


def test_rows_json_refuses_are_refused() -> None:
    with pytest.raises(TypeError):
        dumps_line({"when": datetime.date(2026, 11, 28)})
    with pytest.raises(TypeError):
        dumps_line({"path": Path("x")})
