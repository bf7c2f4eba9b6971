"""A generated family of easy function-writing problems, for showing that GRPO teaches a small model.

Each problem asks for one short Python function (``add_7(x)``, ``count_a(s)``, ...) and is checked by
five tests, call-based (the function is called, its value compared) or MBPP-style asserts; the
prompt shows the first as an assert, so the model knows the name and signature. A family is a
template with a constant (the 7, the "a"); train and held-out problems are disjoint (template,
constant) pairs, so a held-out problem is never seen in training, though its template is. Easy
enough that a 135M instruct model solves some by sampling, which GRPO needs.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from nemo_code_rl.unit_tests.problems import Problem

TESTS_PER_PROBLEM = 5
INSTRUCTION = "Write a Python function in a ```python code block."


@dataclass(frozen=True)
class _Template:
    """One family: the function's name, what it must do, and the expression of its solution, each
    with ``{c}`` for the constant (and ``{p}`` for the parameter in the solution)."""

    name: str
    text: str
    solution: str
    constants: tuple[Any, ...]
    make_input: Callable[[random.Random], Any]
    parameter: str


def _int(rng: random.Random) -> int:
    return rng.randint(-20, 50)


def _ints(rng: random.Random) -> list[int]:
    return [rng.randint(-9, 20) for _ in range(rng.randint(1, 7))]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("abcdeilmnorst") for _ in range(rng.randint(1, 9)))


_D = tuple(range(2, 13))
_L = tuple("aeiost")
TEMPLATES: tuple[_Template, ...] = (
    _Template("add_{c}", "returns x plus {c}", "{p} + {c}", _D, _int, "x"),
    _Template("subtract_{c}", "returns x minus {c}", "{p} - {c}", _D, _int, "x"),
    _Template("times_{c}", "returns x multiplied by {c}", "{p} * {c}", _D, _int, "x"),
    _Template("mod_{c}", "returns the remainder of x divided by {c}", "{p} % {c}", _D, _int, "x"),
    _Template(
        "is_multiple_of_{c}",
        "returns True if x is divisible by {c}, else False",
        "{p} % {c} == 0",
        _D,
        _int,
        "x",
    ),
    _Template("greater_than_{c}", "returns True if x is greater than {c}", "{p} > {c}", _D, _int, "x"),
    _Template(
        "count_{c}",
        "returns how many times the number {c} appears in the list xs",
        "{p}.count({c})",
        _D,
        _ints,
        "xs",
    ),
    _Template(
        "add_{c}_to_each",
        "returns a new list with {c} added to every element of the list xs",
        "[v + {c} for v in {p}]",
        _D,
        _ints,
        "xs",
    ),
    _Template(
        "sum_times_{c}", "returns the sum of the list xs multiplied by {c}", "sum({p}) * {c}", _D, _ints, "xs"
    ),
    _Template(
        "count_letter_{c}",
        "returns how many times the letter '{c}' appears in the string s",
        "{p}.count('{c}')",
        _L,
        _word,
        "s",
    ),
    _Template(
        "starts_with_{c}",
        "returns True if the string s starts with the letter '{c}', else False",
        "{p}.startswith('{c}')",
        _L,
        _word,
        "s",
    ),
    _Template(
        "append_{c}",
        "returns the string s with the letter '{c}' added at the end",
        "{p} + '{c}'",
        _L,
        _word,
        "s",
    ),
    _Template(
        "repeat_{c}_times", "returns the string s repeated {c} times", "{p} * {c}", (2, 3, 4, 5), _word, "s"
    ),
)


def easy_problems(
    held_out_fraction: float = 0.25, seed: int = 0, kind: Literal["call", "assert"] = "call"
) -> tuple[list[Problem], list[Problem]]:
    """All (template, constant) problems, split into (train, held_out) at random, reproducibly.

    ``kind`` chooses how the tests run: ``call`` (the function is called and its value compared)
    or ``assert`` (MBPP style: each test is an ``assert`` statement run against the candidate).

    >>> train, held_out = easy_problems(seed=1)
    >>> len(train) + len(held_out), len({p.id for p in train} & {p.id for p in held_out})
    (121, 0)
    >>> held_out[0].kind, held_out[0].n_tests
    ('call', 5)
    >>> easy_problems(seed=1, kind="assert")[1][0].test_list[0].startswith("assert ")
    True
    """
    if not 0 < held_out_fraction < 1:
        raise ValueError(f"held_out_fraction must be in (0, 1), got {held_out_fraction}")
    if kind not in ("call", "assert"):
        raise ValueError(f"kind must be 'call' or 'assert', got {kind!r}")
    rng = random.Random(seed)
    problems = [_problem(t, c, rng, kind) for t in TEMPLATES for c in t.constants]
    rng.shuffle(problems)
    n_held_out = max(1, round(len(problems) * held_out_fraction))
    return problems[n_held_out:], problems[:n_held_out]


def _problem(
    template: _Template, constant: Any, rng: random.Random, kind: Literal["call", "assert"]
) -> Problem:
    name = template.name.format(c=constant)
    parameter = template.parameter
    solution = f"def {name}({parameter}):\n    return {template.solution.format(p=parameter, c=constant)}\n"
    namespace: dict[str, Any] = {}
    exec(solution, namespace)  # our own one-line solution, to compute the expected values
    inputs = _distinct_inputs(template, rng)
    outputs = [namespace[name](value) for value in inputs]
    text = f"Write a function {name}({parameter}) that {template.text.format(c=constant)}."
    asserts = [
        f"assert {name}({value!r}) == {output!r}" for value, output in zip(inputs, outputs, strict=True)
    ]
    prompt = f"{text}\n\nYour code should pass this test:\n\n{asserts[0]}"
    tests: dict[str, Any] = (
        {"test_list": asserts}
        if kind == "assert"
        else {
            "inputs": [json.dumps([value]) for value in inputs],
            "outputs": [json.dumps(value) for value in outputs],
            "fn_name": name,
        }
    )
    return Problem(
        id=name,
        prompt=prompt,
        messages=[{"role": "user", "content": prompt}],
        kind=kind,
        source_format="easy_problems",
        entry_point=name,
        reference_solution=solution,
        **tests,
    )


def _distinct_inputs(template: _Template, rng: random.Random) -> list[Any]:
    seen: list[Any] = []
    while len(seen) < TESTS_PER_PROBLEM:
        value = template.make_input(rng)
        if value not in seen:
            seen.append(value)
    return seen
