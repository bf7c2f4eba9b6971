"""A generated, deterministic workload of short stdin/stdout programs.

Real RL rollouts are dominated by many small programs, each run on a handful of tests that take
milliseconds; that is where per-process overhead decides throughput, so the workload mimics it.
It is generated rather than shipped so the benchmark needs no data set and every run (on every
machine) measures exactly the same programs for a given seed. The stdin styles cover the ways
competitive-programming solutions read input, because each style stresses a different part of
stdin redirection (``input()``, ``sys.stdin`` text and buffer layers, and fd 0 via ``open(0)``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

LABELS = ("correct", "wrong", "raising")
STYLES = ("input", "readline", "for_line", "buffer", "open0")
TESTS_PER_PROGRAM = 10

# Six in ten programs are correct, two wrong, two raising: roughly what a policy early in RL
# training emits, and enough of each kind that every code path is timed.
_LABEL_CYCLE = ("correct",) * 6 + ("wrong",) * 2 + ("raising",) * 2

# On raising programs these test positions trigger the exception and the others run cleanly, so
# any prefix of three or more tests contains both outcomes.
RAISING_POSITIONS = frozenset({1, 4, 7})

_READERS = {
    "input": "n = int(input())\na = list(map(int, input().split()))\n",
    "readline": (
        "import sys\nn = int(sys.stdin.readline())\na = [int(x) for x in sys.stdin.readline().split()]\n"
    ),
    "for_line": (
        "import sys\n"
        "rows = []\n"
        "for line in sys.stdin:\n"
        "    rows.append(line.strip())\n"
        "n = int(rows[0])\n"
        "a = list(map(int, rows[1].split()))\n"
    ),
    "buffer": (
        "import sys\n"
        "data = sys.stdin.buffer.read().split()\n"
        "n = int(data[0])\n"
        "a = [int(x) for x in data[1:n + 1]]\n"
    ),
    "open0": "data = open(0).read().split()\nn = int(data[0])\na = list(map(int, data[1:n + 1]))\n",
}

_WRITERS = (
    "print(answer)\n",
    "import sys\nsys.stdout.write(str(answer) + '\\n')\n",
)


@dataclass(frozen=True)
class _Task:
    name: str
    body: str
    wrong_body: str
    reference: Callable[[list[int]], str]


def _kadane(a: list[int]) -> str:
    best = cur = 0
    for x in a:
        cur = max(0, cur + x)
        best = max(best, cur)
    return str(best)


def _inversions(a: list[int]) -> str:
    return str(sum(1 for i in range(len(a)) for j in range(i + 1, len(a)) if a[i] > a[j]))


def _cumsum_max(a: list[int]) -> str:
    running, best = 0, None
    for x in a:
        running += x
        best = running if best is None else max(best, running)
    return str(best)


_KADANE_BODY = "best = cur = 0\nfor x in a:\n    cur = max(0, cur + x)\n    best = max(best, cur)\n"
_INVERSIONS_EXPR = "sum(1 for i in range(n) for j in range(i + 1, n) if a[i] > a[j])"
_NUMPY_BODY = "import numpy as np\narr = np.array(a, dtype=np.int64)\n"

# Seven tasks: coprime with the ten-long label cycle, so every task meets every label.
_TASKS = (
    _Task("sum", "answer = sum(a)\n", "answer = sum(a) + 1\n", lambda a: str(sum(a))),
    _Task(
        "sort",
        "answer = ' '.join(map(str, sorted(a)))\n",
        "answer = ' '.join(map(str, sorted(a)[1:]))\n",
        lambda a: " ".join(map(str, sorted(a))),
    ),
    _Task(
        "range",
        "answer = max(a) - min(a)\n",
        "answer = max(a) - min(a) + 1\n",
        lambda a: str(max(a) - min(a)),
    ),
    _Task("distinct", "answer = len(set(a))\n", "answer = len(set(a)) - 1\n", lambda a: str(len(set(a)))),
    _Task("kadane", _KADANE_BODY + "answer = best\n", _KADANE_BODY + "answer = best + 1\n", _kadane),
    _Task("inversions", f"answer = {_INVERSIONS_EXPR}\n", f"answer = {_INVERSIONS_EXPR} - 1\n", _inversions),
    _Task(
        "numpy_cumsum",
        _NUMPY_BODY + "answer = int(np.cumsum(arr).max())\n",
        _NUMPY_BODY + "answer = int(np.cumsum(arr).max()) + 1\n",
        _cumsum_max,
    ),
)


@dataclass(frozen=True)
class _Guard:
    """A data-dependent statement that raises on chosen inputs, like a real off-by-one crash."""

    code: str
    error: str
    make_raise: Callable[[random.Random, list[int]], None]
    make_safe: Callable[[random.Random, list[int]], None]


def _zero_raise(rng: random.Random, a: list[int]) -> None:
    a[0] = 5 * rng.randint(-100, 100)


def _zero_safe(rng: random.Random, a: list[int]) -> None:
    a[0] = 5 * rng.randint(-100, 100) + rng.randint(1, 4)


def _index_raise(rng: random.Random, a: list[int]) -> None:
    a[0] = 50 * rng.randint(-10, 10) + 49  # 49 >= len(a): the workload never has more than 30 items


def _index_safe(rng: random.Random, a: list[int]) -> None:
    a[0] = 50 * rng.randint(-10, 10) + rng.randrange(len(a))


def _key_raise(rng: random.Random, a: list[int]) -> None:
    a[0] = 5000 + rng.randint(0, 100)  # outside the range the other items are drawn from


def _key_safe(rng: random.Random, a: list[int]) -> None:
    a[0] = a[rng.randrange(1, len(a))]


_GUARDS = (
    _Guard("scale = 100 // (a[0] % 5)\n", "ZeroDivisionError", _zero_raise, _zero_safe),
    _Guard("pivot = a[a[0] % 50]\n", "IndexError", _index_raise, _index_safe),
    _Guard(
        "seen = {x: i for i, x in enumerate(a[1:])}\nfirst = seen[a[0]]\n", "KeyError", _key_raise, _key_safe
    ),
)


@dataclass(frozen=True)
class WorkItem:
    """One program with its tests.

    ``expected`` is always the reference answer, also for wrong and raising programs, so any
    runner's output can be scored the same way; ``raises`` names the exception class the program
    is built to raise on each test (``None`` where it should finish).
    """

    name: str
    label: str
    style: str
    source: str
    inputs: tuple[str, ...]
    expected: tuple[str, ...]
    raises: tuple[str | None, ...]

    @property
    def test_count(self) -> int:
        return len(self.inputs)

    @property
    def completion(self) -> str:
        """The program as a model's answer: one fenced Python block."""
        return f"```python\n{self.source}```"

    def problem_row(self) -> dict[str, str]:
        """The item as a data set's problem row (``input_output``), which the verifier and ``score``
        read; its expected outputs are the reference answers."""
        io = {"inputs": list(self.inputs), "outputs": list(self.expected)}
        return {"id": self.name, "question": "", "input_output": json.dumps(io)}


def write_score_files(items: Sequence[WorkItem], folder: Path) -> tuple[Path, Path]:
    """``items`` as ``score``'s two input files in ``folder``: ``problems.jsonl`` (each item's
    ``problem_row``) and ``completions.jsonl`` (its ``completion``, by its name); their paths."""
    problems, completions = folder / "problems.jsonl", folder / "completions.jsonl"
    problems.write_text("".join(json.dumps(item.problem_row()) + "\n" for item in items))
    completions.write_text(
        "".join(json.dumps({"id": item.name, "completion": item.completion}) + "\n" for item in items)
    )
    return problems, completions


def outputs_match(stdout: str, expected: str) -> bool:
    """Compare like competitive-programming judges: trailing whitespace on lines and at the end is noise."""
    return [line.rstrip() for line in stdout.rstrip().splitlines()] == [
        line.rstrip() for line in expected.rstrip().splitlines()
    ]


def _build_item(index: int, seed: int, tests: int) -> WorkItem:
    rng = random.Random(f"engine-bench/{seed}/{index}")
    label = _LABEL_CYCLE[index % len(_LABEL_CYCLE)]
    task = _TASKS[index % len(_TASKS)]
    style = STYLES[(index // len(_LABEL_CYCLE)) % len(STYLES)]
    guard = rng.choice(_GUARDS) if label == "raising" else None
    body = task.wrong_body if label == "wrong" else task.body
    source = _READERS[style] + (guard.code if guard else "") + body + rng.choice(_WRITERS)

    inputs, expected, raises = [], [], []
    for position in range(tests):
        n = rng.randint(5, 30)
        a = [rng.randint(-1000, 1000) for _ in range(n)]
        error = None
        if guard is not None:
            if position in RAISING_POSITIONS:
                guard.make_raise(rng, a)
                error = guard.error
            else:
                guard.make_safe(rng, a)
        inputs.append(f"{n}\n{' '.join(map(str, a))}\n")
        expected.append(task.reference(a) + "\n")
        raises.append(error)
    return WorkItem(
        name=f"{index:04d}-{task.name}-{label}-{style}",
        label=label,
        style=style,
        source=source,
        inputs=tuple(inputs),
        expected=tuple(expected),
        raises=tuple(raises),
    )


def build_workload(programs: int = 200, tests: int = TESTS_PER_PROGRAM, seed: int = 0) -> list[WorkItem]:
    """The same programs, inputs and answers for the same arguments, on any machine and Python 3.11+."""
    if programs < 1 or tests < 1:
        raise ValueError(f"need at least one program and one test, got programs={programs} tests={tests}")
    return [_build_item(index, seed, tests) for index in range(programs)]


def spread_subset(items: Sequence[WorkItem], count: int) -> list[WorkItem]:
    """Every k-th item, so a subset keeps the workload's mix of labels, tasks and styles."""
    if count >= len(items):
        return list(items)
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]
