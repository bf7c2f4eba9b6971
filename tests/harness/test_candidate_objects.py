"""Tests that build and use the candidate's own objects work, and such objects never make a comparison pass.

The candidate's objects stay in its process; the tests hold handles to them. Each test here
pairs honest answers, which failed on every test before handles existed, with attacks on the
comparison: objects with rigged ``__eq__``, ``__ne__``, ``__hash__``, ``__bool__``, subclasses of
builtin types, spoofed classes, properties that raise or end the process.
"""

import pytest

from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier

from ..verification_data import fenced


def mbpp(tests: list[str], setup: str = "", code: str = "") -> object:
    """A problem in MBPP's row format; ``code`` (the reference) only helps find the entry point."""
    row = {"task_id": "objects", "text": "Write it.", "test_list": tests, "test_setup_code": setup}
    return parse_problem(row | ({"code": code} if code else {}))


def verdicts(verifier: Verifier, problem, codes: list[str]) -> list[list[str]]:
    results = verifier.verify_batch([(problem, fenced(code)) for code in codes])
    assert not any(r.infra_fault for r in results)
    return [[t.verdict for t in r.tests] for r in results]


# MBPP task 927 (its reference solution, setup code and tests, as in the data set).
TREE_SOLUTION = (
    "class Node:\n    def __init__(self, data):\n        self.data = data\n        self.left = None\n"
    "        self.right = None\n\ndef max_height(node):\n    if node is None:\n        return 0\n"
    "    left_height = max_height(node.left)\n    right_height = max_height(node.right)\n"
    "    return max(left_height, right_height) + 1\n"
)
TREE_SETUP = (
    "root = Node(1)\nroot.left = Node(2)\nroot.right = Node(3)\nroot.left.left = Node(4)\n"
    "root.left.right = Node(5)\nroot1 = Node(1);\nroot1.left = Node(2);\nroot1.right = Node(3);\n"
    "root1.left.left = Node(4);\nroot1.right.left = Node(5);\nroot1.right.right = Node(6);\n"
    "root1.right.right.right= Node(7);\nroot1.right.right.right.right = Node(8)\nroot2 = Node(1)\n"
    "root2.left = Node(2)\nroot2.right = Node(3)\nroot2.left.left = Node(4)\nroot2.left.right = Node(5)\n"
    "root2.left.left.left = Node(6)\nroot2.left.left.right = Node(7)\n"
)
TREE_TESTS = [
    "assert (max_height(root)) == 3",
    "assert (max_height(root1)) == 5 ",
    "assert (max_height(root2)) == 4",
]

# MBPP task 601.
PAIR_SOLUTION = (
    "class Pair(object):\n    def __init__(self, a, b):\n        self.a = a\n        self.b = b\n"
    "def max_chain_length(arr, n):\n    max = 0\n    mcl = [1 for i in range(n)]\n    for i in range(1, n):\n"
    "        for j in range(0, i):\n            if (arr[i].a > arr[j].b and mcl[i] < mcl[j] + 1):\n"
    "                mcl[i] = mcl[j] + 1\n    for i in range(n):\n        if (max < mcl[i]):\n"
    "            max = mcl[i]\n    return max\n"
)
PAIR_TESTS = [
    "assert max_chain_length([Pair(5, 24), Pair(15, 25),Pair(27, 40), Pair(50, 60)], 4) == 3",
    "assert max_chain_length([Pair(1, 2), Pair(3, 4),Pair(5, 6), Pair(7, 8)], 4) == 4",
    "assert max_chain_length([Pair(19, 10), Pair(11, 12),Pair(13, 14), Pair(15, 16), Pair(31, 54)], 5) == 5",
]


def test_mbpp_trees_and_pairs_built_from_the_candidates_classes(verifier):
    tree = mbpp(TREE_TESTS, TREE_SETUP, TREE_SOLUTION)
    pairs = mbpp(PAIR_TESTS, code=PAIR_SOLUTION)
    wrong_height = TREE_SOLUTION.replace("+ 1\n", "+ 2\n")
    assert verdicts(verifier, tree, [TREE_SOLUTION, wrong_height]) == [["passed"] * 3, ["wrong_answer"] * 3]
    assert verdicts(verifier, pairs, [PAIR_SOLUTION]) == [["passed"] * 3]


LINKED_LIST = (
    "class ListNode:\n    def __init__(self, val, next=None):\n        self.val = val\n        self.next = next\n"
    "def reverse(head):\n    prev = None\n    while head:\n        head.next, prev, head = prev, head, head.next\n"
    "    return prev\n"
    "def values(head):\n    out = []\n    while head is not None:\n        out.append(head.val)\n"
    "        head = head.next\n    return out\n"
)


def test_objects_travel_both_ways_keep_identity_and_answer_attribute_reads(verifier):
    problem = mbpp(
        [
            "assert values(reverse(head)) == [3, 2, 1]",
            "assert reverse(head).val == 3 and reverse(reverse(head)) is head",
            "node = reverse(head)\nwhile node.next is not None:\n    node = node.next\nassert node.val == 1",
            "assert hasattr(head, 'val') and not hasattr(head, 'missing')",
            "assert [n.val for n in [head, head.next]] == [1, 2] and head.next.next.next is None",
            "assert isinstance(head, ListNode) and not isinstance(head.val, ListNode)",
        ],
        setup="head = ListNode(1, ListNode(2, ListNode(3)))",
        code=LINKED_LIST,
    )
    assert verdicts(verifier, problem, [LINKED_LIST]) == [["passed"] * 6]


def test_generators_iterators_and_methods_of_returned_objects(verifier):
    problem = mbpp(
        [
            "assert list(squares(4)) == [0, 1, 4, 9]",
            "it = squares(3)\nassert next(it) == 0 and next(it) == 1",
            "assert sum(squares(4)) == 14 and 9 in squares(4) and 5 not in squares(4)",
            "assert sorted(squares(3), reverse=True) == [4, 1, 0]",
            "s = Stack()\ns.push(1)\ns.push(2)\nassert s.pop() == 2 and len(s) == 1 and s",
            "assert str(Stack()) == 'Stack([])' and repr(Stack()) == 'Stack([])'",
        ]
    )
    code = (
        "def squares(n):\n    for i in range(n):\n        yield i * i\n"
        "class Stack:\n    def __init__(self):\n        self.items = []\n    def push(self, x):\n"
        "        self.items.append(x)\n    def pop(self):\n        return self.items.pop()\n"
        "    def __len__(self):\n        return len(self.items)\n"
        "    def __repr__(self):\n        return f'Stack({self.items})'\n"
    )
    assert verdicts(verifier, problem, [code]) == [["passed"] * 6]


def test_the_candidates_exceptions_keep_their_kind(verifier):
    problem = mbpp(
        [
            "try:\n    f(-1)\nexcept ValueError:\n    pass\nelse:\n    raise AssertionError('no error')",
            "assert f(4) == 2",
        ]
    )
    honest = "def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x ** 0.5\n"
    silent = "def f(x):\n    return abs(x) ** 0.5\n"
    wrong_kind = "def f(x):\n    if x < 0:\n        raise KeyError(x)\n    return x ** 0.5\n"
    assert verdicts(verifier, problem, [honest, silent, wrong_kind]) == [
        ["passed", "passed"],
        ["wrong_answer", "passed"],
        ["runtime_error", "passed"],
    ]


RIGGED = "class Rigged:\n    def __eq__(self, other):\n        return True\n    def __ne__(self, other):\n        return False\n"

# attack -> (a test that the honest answer ``def f(x): return x + 1`` passes, a wrong answer)
COMPARISON_ATTACKS = {
    "__eq__ always true": ("assert f(1) == 2", RIGGED + "def f(x):\n    return Rigged()\n"),
    "__eq__, reflected": ("assert 2 == f(1)", RIGGED + "def f(x):\n    return Rigged()\n"),
    "__eq__ inside a list": ("assert [f(1)] == [2]", RIGGED + "def f(x):\n    return Rigged()\n"),
    "__eq__ against a list": (
        "assert [f(1), f(2)] == [2, 3]",
        RIGGED + "def f(x):\n    return [Rigged(), 3]\n",
    ),
    "__ne__ always false": ("assert not (f(1) != 2)", RIGGED + "def f(x):\n    return Rigged()\n"),
    "in a list": ("assert f(1) in [2]", RIGGED + "def f(x):\n    return Rigged()\n"),
    "in a set, with the expected hash": (
        "assert f(1) in {2}",
        RIGGED + "    def __hash__(self):\n        return hash(2)\ndef f(x):\n    return Rigged()\n",
    ),
    "as a dict key": (
        "assert {f(1): 'x'} == {2: 'x'}",
        RIGGED + "    def __hash__(self):\n        return hash(2)\ndef f(x):\n    return Rigged()\n",
    ),
    "__bool__ against True": (
        "assert (f(1) == 2) == True",
        "class T:\n    def __bool__(self):\n        return True\n    def __eq__(self, other):\n        return T()\n"
        "def f(x):\n    return T()\n",
    ),
    "__eq__ returning a truthy object": (
        "assert f(1) == 2",
        "class T:\n    def __eq__(self, other):\n        return [1]\ndef f(x):\n    return T()\n",
    ),
    "int subclass": (
        "assert f(1) == 2",
        "class I(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n"
        "def f(x):\n    return I(0)\n",
    ),
    "float subclass": (
        "assert f(1) == 2",
        "class F(float):\n    def __eq__(self, other):\n        return True\ndef f(x):\n    return F(0.5)\n",
    ),
    "str subclass": (
        "assert str(f(1)) == '2'",
        "class S(str):\n    def __eq__(self, other):\n        return True\n    def __str__(self):\n        return self\n"
        "def f(x):\n    return S('x')\n",
    ),
    "list subclass": (
        "assert [f(1)] == [2] and list(range(f(1))) == [0, 1]",
        "class L(list):\n    def __eq__(self, other):\n        return True\ndef f(x):\n    return L()\n",
    ),
    "dict subclass": (
        "assert {'k': f(1)} == {'k': 2}",
        "class D(dict):\n    def __eq__(self, other):\n        return True\ndef f(x):\n    return D()\n",
    ),
    "a class that claims to be int": (
        "assert isinstance(f(1), int) and f(1) == 2",
        RIGGED + "    __class__ = int\ndef f(x):\n    return Rigged()\n",
    ),
    "a metaclass that equals every type": (
        "assert type(f(1)) == int and f(1) == 2",
        "class Meta(type):\n    def __eq__(cls, other):\n        return True\n    __hash__ = type.__hash__\n"
        "class Any(metaclass=Meta):\n    def __eq__(self, other):\n        return True\n"
        "def f(x):\n    return Any()\n",
    ),
    "a property that raises": (
        "assert getattr(f(1), 'value', 2) == 2",
        "class P:\n    @property\n    def value(self):\n        raise SystemExit(0)\ndef f(x):\n    return P()\n",
    ),
    "a property that ends the process": (
        "assert getattr(f(1), 'value', 2) == 2",
        "class P:\n    @property\n    def value(self):\n        import os\n        os._exit(0)\ndef f(x):\n    return P()\n",
    ),
    "__getattr__ that answers everything": (
        "assert f(1).__eq__(2) and f(1) == 2",
        "class G:\n    def __getattr__(self, name):\n        return lambda *a: True\ndef f(x):\n    return G()\n",
    ),
    "numpy's array interface aimed at the driver": (
        "import numpy as np\nassert np.array_equal(np.asarray(f(1)), np.asarray(2))",
        "class A:\n    __array_interface__ = {'shape': (), 'typestr': '<i8', 'data': (0, True), 'version': 3}\n"
        "    def __eq__(self, other):\n        return True\ndef f(x):\n    return A()\n",
    ),
    "a deep copy in the tests": (
        "import copy\nassert copy.deepcopy(f(1)) == 2",
        RIGGED + "    def __deepcopy__(self, memo):\n        return 2\ndef f(x):\n    return Rigged()\n",
    ),
    "an endless __str__ chain": (
        "assert str(f(1)) == '2'",
        "class S:\n    def __str__(self):\n        return S()\ndef f(x):\n    return S()\n",
    ),
}


@pytest.mark.parametrize("attack", sorted(COMPARISON_ATTACKS))
def test_a_candidate_object_never_passes_a_comparison_with_plain_data(verifier, attack):
    test, cheat = COMPARISON_ATTACKS[attack]
    problem = mbpp([test, "assert Box(2).get() == 2"])
    box = "class Box:\n    def __init__(self, v):\n        self.v = v\n    def get(self):\n        return self.v\n"
    honest, cheating = verdicts(verifier, problem, [box + "def f(x):\n    return x + 1\n", box + cheat])
    assert honest == ["passed", "passed"]
    assert cheating[0] in ("wrong_answer", "runtime_error") and cheating[1] == "passed", cheating


def test_objects_compared_with_each_other_use_the_candidates_own_comparison(verifier):
    problem = mbpp(
        ["assert make(1, 2) == Point(1, 2) and make(1, 2) != Point(2, 1)", "assert make(0, 0) == (0, 0)"]
    )
    code = (
        "class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n"
        "    def __eq__(self, other):\n        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)\n"
        "def make(x, y):\n    return Point(x, y)\n"
    )
    # A Point is not a tuple: the second test fails whatever the candidate's __eq__ says of tuples.
    tuple_friendly = code.replace("isinstance(other, Point) and ", "")
    assert verdicts(verifier, problem, [code, tuple_friendly]) == [
        ["passed", "wrong_answer"],
        ["passed", "wrong_answer"],
    ]
