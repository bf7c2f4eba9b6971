"""Problems and completions shared by the environment tests."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from nemo_code_rl.unit_tests.problems import Problem, parse_problem


def sum_row(problem_id: str = "sum") -> dict[str, str]:
    """An APPS-format row with two stdin/stdout tests: print the sum of two integers."""
    tests = {"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}
    return {"id": problem_id, "question": "Print a + b.", "input_output": json.dumps(tests)}


def sum_problem(problem_id: str = "sum") -> Problem:
    return parse_problem(sum_row(problem_id))


def answer(code: str) -> str:
    """A completion that holds ``code`` in a python fence, as a model would write it."""
    return f"Here is my solution.\n```python\n{code}\n```\n"


def conversation(completion: str) -> list[dict[str, str]]:
    """A message log as NeMo RL sends it to ``step``: role and content only."""
    return [{"role": "user", "content": "<prompt>"}, {"role": "assistant", "content": completion}]


CORRECT_SUM = "a, b = map(int, input().split())\nprint(a + b)"


class CallCount:
    """How many times one real function ran, in any thread, while counting (a profile hook, so
    the function itself runs unchanged)."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.calls = 0
        self._code = function.__code__
        self._lock = threading.Lock()

    def hook(self, frame: Any, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code is self._code:
            with self._lock:
                self.calls += 1


@contextmanager
def counting_calls(function: Callable[..., Any]) -> Iterator[CallCount]:
    """Count the calls of ``function`` in every thread inside the ``with`` block."""
    count = CallCount(function)
    sys.setprofile(count.hook)
    threading.setprofile(count.hook)
    try:
        yield count
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
