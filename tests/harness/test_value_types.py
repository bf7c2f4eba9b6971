"""Exact NumPy scalars and collections types compare as LiveCodeBench's and MBPP's ``==`` would.

``numpy.int64``, ``numpy.float64``, ``numpy.bool_``, ``defaultdict``, ``Counter`` and
``OrderedDict`` answers were refused as "not plain data" before; now they pass where ``==``
accepts them, and a ``deque`` fails where ``==`` rejects it (``deque([1]) == [1]`` is false).
Each honest answer is paired with a cheat of the same shape: a subclass, or a look-alike type,
with a rigged ``__eq__``, which must still be refused. Call-based and assert-based tests alike.
"""

import json

import pytest

from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier

from ..verification_data import fenced


def call_problem(inputs: list, outputs: list) -> object:
    """A call-based problem in the APPS / TACO format (``input_output`` with ``fn_name``)."""
    tests = {"fn_name": "f", "inputs": [[x] for x in inputs], "outputs": [[y] for y in outputs]}
    return parse_problem({"id": "values", "question": "Write f.", "input_output": json.dumps(tests)})


def verdicts(verifier: Verifier, problem, codes: list[str]) -> list[list[str]]:
    results = verifier.verify_batch([(problem, fenced(code)) for code in codes])
    assert not any(r.infra_fault for r in results)
    return [[t.verdict for t in r.tests] for r in results]


RIGGED_EQ = "    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\n"

# case -> (input, expected output, honest answer, cheat of the same shape)
CALL_CASES = {
    "numpy.int64": (
        3,
        6,
        "import numpy as np\ndef f(x):\n    return np.int64(x) * 2",
        "import numpy as np\nclass N(np.int64):\n" + RIGGED_EQ + "def f(x):\n    return N(0)",
    ),
    "numpy.float64": (
        3,
        1.5,
        "import numpy as np\ndef f(x):\n    return np.float64(x) / 2",
        "import numpy as np\nclass N(np.float64):\n" + RIGGED_EQ + "def f(x):\n    return N(0.0)",
    ),
    "numpy.bool_": (
        3,
        True,
        "import numpy as np\ndef f(x):\n    return np.int64(x) > 2",
        "import numpy as np\nclass bool_:\n    __module__ = 'numpy'\n"
        + RIGGED_EQ
        + "def f(x):\n    return bool_()",
    ),
    "numpy scalars in a list": (
        3,
        [1, 2.5, False],
        "import numpy as np\ndef f(x):\n    return [np.int32(1), np.float32(2.5), np.bool_(x < 0)]",
        "import numpy as np\nclass int32:\n    __module__ = 'numpy'\n"
        + RIGGED_EQ
        + "def f(x):\n    return [int32()] * 3",
    ),
    "defaultdict": (
        "aab",
        {"a": 2, "b": 1},
        "from collections import defaultdict\ndef f(s):\n    d = defaultdict(int)\n    for c in s:\n"
        "        d[c] += 1\n    return d",
        "from collections import defaultdict\nclass D(defaultdict):\n"
        + RIGGED_EQ
        + "def f(s):\n    return D(int)",
    ),
    "Counter": (
        "aab",
        {"a": 2, "b": 1},
        "from collections import Counter\ndef f(s):\n    return Counter(s)",
        "from collections import Counter\nclass C(Counter):\n" + RIGGED_EQ + "def f(s):\n    return C()",
    ),
    "OrderedDict": (
        "ab",
        {"a": 0, "b": 1},
        "from collections import OrderedDict\ndef f(s):\n    return OrderedDict((c, i) for i, c in enumerate(s))",
        "from collections import OrderedDict\nclass O(OrderedDict):\n"
        + RIGGED_EQ
        + "def f(s):\n    return O()",
    ),
    "Counter inside a dict": (
        "ab",
        {"counts": {"a": 1, "b": 1}, "n": 2},
        "import collections\nimport numpy as np\ndef f(s):\n"
        "    return {'counts': collections.Counter(s), 'n': np.int64(len(s))}",
        "class I(int):\n" + RIGGED_EQ + "def f(s):\n    return {'counts': {}, 'n': I(0)}",
    ),
    "a type whose metaclass equals Counter": (
        "ab",
        {"a": 1, "b": 1},
        "from collections import Counter\ndef f(s):\n    return Counter(s)",
        "from collections import Counter\nclass Meta(type):\n    def __eq__(cls, other):\n        return True\n"
        "    def __hash__(cls):\n        return hash(Counter)\n"
        "class Fake(dict, metaclass=Meta):\n" + RIGGED_EQ + "def f(s):\n    return Fake()",
    ),
}


@pytest.mark.parametrize("case", sorted(CALL_CASES))
def test_call_based_exact_value_types_pass_and_look_alikes_do_not(verifier, case):
    argument, expected, honest, cheat = CALL_CASES[case]
    problem = call_problem([argument], [expected])
    passed, refused = verdicts(verifier, problem, [honest, cheat])
    assert passed == ["passed"]
    assert refused[0] in ("wrong_answer", "runtime_error"), refused


def test_call_based_deque_and_arrays_fail_as_their_equality_does(verifier):
    problem = call_problem([2], [[0, 1]])
    deque = "from collections import deque\ndef f(n):\n    return deque(range(n))"
    array = "import numpy as np\ndef f(n):\n    return np.arange(n)"
    listed = "import numpy as np\ndef f(n):\n    return np.arange(n).tolist()"
    results = verifier.verify_batch([(problem, fenced(code)) for code in (deque, array, listed)])
    assert [r.tests[0].verdict for r in results] == ["wrong_answer", "runtime_error", "passed"]
    assert "deque" in results[0].tests[0].detail and "not plain data" in results[1].tests[0].detail


FORGED_RESULTS = {
    "nested 3,000 deep": "[" * 3_000 + "]" * 3_000,
    "an unhashable dict key": json.dumps({"t": "dict", "v": [[[1], 2]]}),
    "an unhashable set member": json.dumps({"t": "set", "v": [[1]]}),
    "a complex made of lists": json.dumps({"t": "complex", "v": [[1], 2]}),
}


@pytest.mark.parametrize("forgery", sorted(FORGED_RESULTS))
def test_a_forged_result_line_is_a_wrong_answer_not_a_crash(verifier, forgery):
    line = "@@nemo-code-rl:result@@" + FORGED_RESULTS[forgery] + "\n"
    code = (  # the driver's own stdout is the pipe that is not stderr's
        f"import os\nLINE = {line!r}.encode()\n"
        "def f(x):\n    stderr = os.readlink('/proc/self/fd/2')\n    for fd in range(3, 64):\n"
        "        try:\n            target = os.readlink(f'/proc/self/fd/{fd}')\n        except OSError:\n"
        "            continue\n        if target.startswith('pipe:') and target != stderr:\n"
        "            os.write(fd, LINE)\n    os._exit(0)\n"
    )
    problem = call_problem([1], [1])
    result = verifier.verify_batch([(problem, fenced(code))])[0]
    assert result.passed is False and not result.infra_fault
    assert result.tests[0].verdict in ("wrong_answer", "runtime_error", "output_limit")


@pytest.mark.parametrize("value", ["10**5000", "[1, -(10**5000)]", "{'k': (10**5000,)}", "{10**5000: 1}"])
def test_ints_too_long_to_print_are_a_wrong_answer_not_a_crash(verifier, value):
    problem = call_problem([1], [1])
    result = verifier.verify_batch([(problem, fenced(f"def f(x):\n    return {value}"))])[0]
    assert result.tests[0].verdict == "wrong_answer" and not result.infra_fault


ASSERT_CASES = {
    "numpy.int64": (
        ["assert f(3) == 6", "assert f(3) in [6]", "assert {f(3): 1} == {6: 1}"],
        "import numpy as np\ndef f(x):\n    return np.int64(x) * 2",
        "import numpy as np\nclass N(np.int64):\n" + RIGGED_EQ + "def f(x):\n    return N(0)",
    ),
    "numpy.float64 with math": (
        ["assert math.isclose(f(2.0), 1.4142135623730951)", "assert abs(f(2.0) - 1.41421356) < 1e-6"],
        "import numpy as np\ndef f(x):\n    return np.sqrt(np.float64(x))",
        "import numpy as np\nclass N(np.float64):\n" + RIGGED_EQ + "    def __sub__(self, other):\n"
        "        return 0.0\n    def __float__(self):\n        return 1.4142135623730951\ndef f(x):\n    return N(0.0)",
    ),
    "Counter and defaultdict": (
        [
            "assert f('aab') == {'a': 2, 'b': 1}",
            "from collections import Counter\nassert f('ab') == Counter('ba')",
        ],
        "from collections import Counter\ndef f(s):\n    return Counter(s)",
        "from collections import Counter\nclass C(Counter):\n" + RIGGED_EQ + "def f(s):\n    return C()",
    ),
    "deque against a deque": (
        ["from collections import deque\nassert f(2) == deque([0, 1])", "assert list(f(3)) == [0, 1, 2]"],
        "from collections import deque\ndef f(n):\n    return deque(range(n))",
        "from collections import deque\nclass Q(deque):\n" + RIGGED_EQ + "def f(n):\n    return Q()",
    ),
    "OrderedDict keeps its order-sensitive equality": (
        ["from collections import OrderedDict\nassert f('ab') == OrderedDict([('a', 0), ('b', 1)])"],
        "from collections import OrderedDict\ndef f(s):\n    return OrderedDict((c, i) for i, c in enumerate(s))",
        "from collections import OrderedDict\ndef f(s):\n    return OrderedDict([('b', 1), ('a', 0)])",
    ),
}


@pytest.mark.parametrize("case", sorted(ASSERT_CASES))
def test_assert_based_exact_value_types_pass_and_look_alikes_do_not(verifier, case):
    tests, honest, cheat = ASSERT_CASES[case]
    problem = parse_problem({"task_id": "values", "text": "Write f.", "test_list": tests})
    passed, refused = verdicts(verifier, problem, [honest, cheat])
    assert passed == ["passed"] * len(tests)
    assert refused[0] in ("wrong_answer", "runtime_error"), refused


def test_assert_based_deque_against_a_list_fails_as_mbpp_does(verifier):
    problem = parse_problem({"task_id": "values", "text": "Write f.", "test_list": ["assert f(2) == [0, 1]"]})
    deque = "from collections import deque\ndef f(n):\n    return deque(range(n))"
    listed = "import numpy as np\ndef f(n):\n    return [np.int64(i) for i in range(n)]"
    assert verdicts(verifier, problem, [deque, listed]) == [["wrong_answer"], ["passed"]]
