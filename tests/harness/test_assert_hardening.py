"""Assert-based tests resolve builtins and trusted helpers to the real ones, whatever the candidate defines.

Every attack here is a wrong answer that defines a name the tests use (a builtin, a module, a
prompt helper's dependency) and passed the tests before the test namespace was hardened; each
honest answer next to it defines helpers with builtin names and failed before. All go through the
public ``Verifier`` and the real sandbox.
"""

import pytest

from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier

from ..verification_data import fenced, humaneval


def mbpp(tests: list[str], setup: str = "", task_id: str = "hand-written") -> object:
    """A problem in MBPP's own row format (``text``, ``test_list``, ``test_setup_code``)."""
    return parse_problem(
        {"task_id": task_id, "text": "Write f.", "test_list": tests, "test_setup_code": setup}
    )


def verdicts(verifier: Verifier, problem, codes: list[str]) -> list[list[str]]:
    results = verifier.verify_batch([(problem, fenced(code)) for code in codes])
    assert not any(r.infra_fault for r in results)
    return [[t.verdict for t in r.tests] for r in results]


# builtin -> (the test, an honest answer, a wrong answer that shadows the builtin)
SHADOWED_BUILTINS = {
    "abs": (
        "assert abs(f(2.0) - 1.4142135623730951) < 1e-9",
        "def f(x):\n    return x ** 0.5",
        "def abs(x):\n    return 0\ndef f(x):\n    return 0.0",
    ),
    "range": (
        "for i in range(5):\n    assert f(i) == i * i",
        "def f(x):\n    return x * x",
        "def range(*args):\n    return []\ndef f(x):\n    return 0",
    ),
    "set": (
        "assert set(f((3, 4, 5, 6), (5, 7, 4, 10))) == set((4, 5))",
        "def f(a, b):\n    return tuple(set(a) & set(b))",
        "def set(*args):\n    return 0\ndef f(a, b):\n    return ()",
    ),
    "len": (
        "assert len(f([3, 1, 3])) == len([1, 3])",
        "def f(xs):\n    return sorted(set(xs))",
        "def len(x):\n    return 0\ndef f(xs):\n    return []",
    ),
    "sorted": (
        "assert sorted(f([3, 1, 3])) == sorted([3, 1])",
        "def f(xs):\n    return list(set(xs))",
        "def sorted(*args, **kwargs):\n    return 0\ndef f(xs):\n    return []",
    ),
    "all": (
        "assert all([f(1) == 1, f(2) == 4, f(3) == 9])",
        "def f(x):\n    return x * x",
        "def all(x):\n    return True\ndef f(x):\n    return 0",
    ),
    "any": (
        "assert not any([f(1) != 1, f(2) != 4])",
        "def f(x):\n    return x * x",
        "def any(x):\n    return False\ndef f(x):\n    return 0",
    ),
    "int": (
        "assert int(f('7')) == int('7')",
        "def f(s):\n    return s",
        "def int(*args):\n    return 0\ndef f(s):\n    return 'x'",
    ),
    "str": (
        "assert str(f(12)) == str(21)",
        "def f(n):\n    return int(str(n)[::-1])",
        "def str(*args):\n    return ''\ndef f(n):\n    return 0",
    ),
    "float": (
        "assert float(f('2.5')) == float('2.5')",
        "def f(s):\n    return s",
        "def float(*args):\n    return 0.0\ndef f(s):\n    return 'x'",
    ),
    "list": (
        "assert list(f((1, 2))) == list((2, 1))",
        "def f(t):\n    return t[::-1]",
        "def list(*args):\n    return []\ndef f(t):\n    return ()",
    ),
    "tuple": (
        "assert tuple(f([1, 2])) == tuple([2, 1])",
        "def f(t):\n    return t[::-1]",
        "def tuple(*args):\n    return ()\ndef f(t):\n    return []",
    ),
    "dict": (
        "assert dict(f([('a', 1)])) == dict(a=1)",
        "def f(pairs):\n    return {k: v for k, v in pairs}",
        "def dict(*args, **kwargs):\n    return {}\ndef f(pairs):\n    return []",
    ),
    "zip": (
        "assert len(f(3)) == 3\nfor got, want in zip(f(3), [0, 1, 4]):\n    assert got == want",
        "def f(n):\n    return [i * i for i in range(n)]",
        "def zip(*args):\n    return []\ndef f(n):\n    return [7] * n",
    ),
    "sum": (
        "assert sum(f([1, 2, 3])) == sum([2, 4, 6])",
        "def f(xs):\n    return [2 * x for x in xs]",
        "def sum(*args):\n    return 0\ndef f(xs):\n    return []",
    ),
    "max": (
        "assert max(f([1, 5, 2])) == max([2, 10, 4])",
        "def f(xs):\n    return [2 * x for x in xs]",
        "def max(*args, **kwargs):\n    return 0\ndef f(xs):\n    return []",
    ),
    "min": (
        "assert min(f([1, 5, 2])) == min([2, 10, 4])",
        "def f(xs):\n    return [2 * x for x in xs]",
        "def min(*args, **kwargs):\n    return 0\ndef f(xs):\n    return []",
    ),
    "round": (
        "assert round(f(2.0), 4) == round(1.41421356, 4)",
        "def f(x):\n    return x ** 0.5",
        "def round(*args):\n    return 0\ndef f(x):\n    return 0.0",
    ),
    "type": (
        "assert type(f(1)) == type(())",
        "def f(x):\n    return (x,)",
        "def type(*args):\n    return 0\ndef f(x):\n    return None",
    ),
    "bool": (
        "assert bool(f(4)) == bool(1)",
        "def f(n):\n    return n % 2 == 0",
        "def bool(*args):\n    return 0\ndef f(n):\n    return False",
    ),
    "frozenset": (
        "assert frozenset(f([1, 1, 2])) == frozenset([2, 1])",
        "def f(xs):\n    return list(dict.fromkeys(xs))",
        "def frozenset(*args):\n    return 0\ndef f(xs):\n    return []",
    ),
    "repr": (
        "assert repr(f('a')) == repr('aa')",
        "def f(s):\n    return s * 2",
        "def repr(x):\n    return ''\ndef f(s):\n    return ''",
    ),
    "pow": (
        "assert pow(f(3), 2) == pow(9, 2)",
        "def f(x):\n    return x * x",
        "def pow(*args):\n    return 0\ndef f(x):\n    return 0",
    ),
    "divmod": (
        "assert divmod(f(7), 5) == divmod(14, 5)",
        "def f(x):\n    return 2 * x",
        "def divmod(*args):\n    return 0\ndef f(x):\n    return 0",
    ),
    "enumerate": (
        "for i, x in enumerate(f(3)):\n    assert x == i * i\nassert len(f(3)) == 3",
        "def f(n):\n    return [i * i for i in range(n)]",
        "def enumerate(*args):\n    return []\ndef f(n):\n    return [5, 5, 5]",
    ),
}


@pytest.mark.parametrize("builtin", sorted(SHADOWED_BUILTINS))
def test_a_candidate_cannot_shadow_a_builtin_the_tests_use(verifier, builtin):
    test, honest, shadowing = SHADOWED_BUILTINS[builtin]
    problem = mbpp([test])
    passed, failed = verdicts(verifier, problem, [honest, shadowing])
    assert passed == ["passed"] and failed[0] in ("wrong_answer", "runtime_error"), failed


# Real HumanEval problems; each wrong answer passed all of check() before.
HUMANEVAL_ATTACKS = {
    "abs in the tests (HumanEval/4)": (
        "HumanEval/4",
        "def abs(x):\n    return 0\ndef mean_absolute_deviation(numbers):\n    return 0.0\n",
    ),
    "range in the tests (HumanEval/32)": (
        "HumanEval/32",
        "def range(*args):\n    return []\ndef find_zero(xs):\n    return 0.0\n",
    ),
    "sum in the prompt's helper poly (HumanEval/32)": (
        "HumanEval/32",
        "def sum(*args):\n    return 0\ndef find_zero(xs):\n    return 0.0\n",
    ),
    "range in the tests (HumanEval/38)": (
        "HumanEval/38",
        "def range(*args):\n    return []\ndef decode_cyclic(s):\n    return s\n",
    ),
}


@pytest.mark.parametrize("attack", sorted(HUMANEVAL_ATTACKS))
def test_shadowing_attacks_on_real_humaneval_fail(verifier, attack):
    problems, canonical = humaneval()
    task, code = HUMANEVAL_ATTACKS[attack]
    problem = next(p for p in problems if p.id == task)
    honest, shadowing = verifier.verify_batch([(problem, canonical[task]), (problem, fenced(code))])
    assert honest.passed is True
    assert shadowing.passed is False and not shadowing.infra_fault


# Natural answers that define helpers named like builtins: the tests must still use the builtins.
NATURAL_HELPERS = {
    "sum of squares named sum (HumanEval/151)": (
        "HumanEval/151",
        "def sum(values):\n    total = 0\n    for v in values:\n        total += v * v\n    return total\n\n"
        "def double_the_difference(lst):\n"
        "    return sum([i for i in lst if i > 0 and i % 2 != 0 and '.' not in str(i)])\n",
    ),
    "an elementwise abs (HumanEval/4)": (
        "HumanEval/4",
        "def abs(values):\n    return [-x if x < 0 else x for x in values]\n\n"
        "def mean_absolute_deviation(numbers):\n    mean = sum(numbers) / len(numbers)\n"
        "    return sum(abs([x - mean for x in numbers])) / len(numbers)\n",
    ),
}


@pytest.mark.parametrize("helper", sorted(NATURAL_HELPERS))
def test_natural_helpers_with_builtin_names_do_not_fail_real_tests(verifier, helper):
    problems, _ = humaneval()
    task, code = NATURAL_HELPERS[helper]
    problem = next(p for p in problems if p.id == task)
    result = verifier.verify_batch([(problem, fenced(code))])[0]
    assert result.passed is True, result.feedback


HAND_WRITTEN_HELPERS = {
    "sorted, descending": (
        ["assert sorted(f([3, 1, 2])) == [1, 2, 3]", "assert f([1, 2]) == [2, 1]"],
        "def sorted(xs):\n    out = list(xs)\n    out.sort(reverse=True)\n    return out\n\ndef f(xs):\n    return sorted(xs)\n",
    ),
    "map over a grid": (
        ["assert list(map(abs, f([-1, 2]))) == [1, 2]"],
        "def map(fn, grid):\n    return [[fn(c) for c in row] for row in grid]\n\ndef f(xs):\n    return xs\n",
    ),
    "len of a linked list": (
        ["assert len(f(3)) == 3"],
        "def len(node):\n    return 0 if node is None else 1 + len(node[1])\n\ndef f(n):\n    return [0] * n\n",
    ),
    "a quiet print": (
        ["import sys\nprint('checking f', file=sys.stderr)\nassert f(2) == 4"],
        "def print(*args, **kwargs):\n    pass\n\ndef f(x):\n    print(x)\n    return x * x\n",
    ),
    "an isinstance for several kinds": (
        ["assert isinstance(f(3), list)"],
        "def isinstance(value, *kinds):\n    return type(value) in kinds\n\ndef f(n):\n    return [0] * n\n",
    ),
    "min and max of a pair": (
        ["assert max(f([4, 9, 2])) == 9 and min(f([4, 9, 2])) == 2"],
        "def max(a, b):\n    return a if a > b else b\n\ndef min(a, b):\n    return a if a < b else b\n\n"
        "def f(xs):\n    lo = hi = xs[0]\n    for x in xs:\n        lo, hi = min(lo, x), max(hi, x)\n    return [lo, hi]\n",
    ),
}


@pytest.mark.parametrize("helper", sorted(HAND_WRITTEN_HELPERS))
def test_hand_written_helpers_with_builtin_names_pass(verifier, helper):
    tests, code = HAND_WRITTEN_HELPERS[helper]
    assert verdicts(verifier, mbpp(tests), [code]) == [["passed"] * len(tests)]


def test_modules_the_tests_use_without_importing_them_are_the_real_ones(verifier):
    problem = mbpp(["assert math.isclose(f(2.0), 1.4142135623730951)"])
    honest = "import math\ndef f(x):\n    return math.sqrt(x)\n"
    fake_module = (
        "class math:\n    @staticmethod\n    def isclose(*args, **kwargs):\n        return True\n"
        "def f(x):\n    return 0.0\n"
    )
    fake_object = "import types\nmath = types.SimpleNamespace(isclose=lambda *a, **k: True)\ndef f(x):\n    return 0.0\n"
    assert verdicts(verifier, problem, [honest, fake_module, fake_object]) == [
        ["passed"],
        ["wrong_answer"],
        ["wrong_answer"],
    ]


def test_names_the_prompt_binds_by_star_import_stay_trusted(verifier):
    problem = parse_problem(
        {
            "task_id": "star",
            "prompt": (
                "from math import *\n\ndef close(a, b):\n    return isclose(a, b) and abs(a - b) < 1e-9\n\n"
                'def root(x):\n    """The square root of x."""\n'
            ),
            "entry_point": "root",
            "test": "def check(candidate):\n    assert close(candidate(2.0), 1.4142135623730951)\n",
        }
    )
    honest = "def abs(values):\n    return [-x if x < 0 else x for x in values]\n\ndef root(x):\n    return x ** 0.5\n"
    cheat = "def isclose(*args, **kwargs):\n    return True\n\ndef root(x):\n    return 0.0\n"
    assert verdicts(verifier, problem, [honest, cheat]) == [["passed"], ["wrong_answer"]]
