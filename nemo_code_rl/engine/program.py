"""The unit of work the engine accepts: one program and the inputs to run it on."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nemo_code_rl.engine.languages import CompileSettings, Language
from nemo_code_rl.engine.limits import Limits
from nemo_code_rl.engine.results import judge_module

_LANGUAGES = frozenset(Language)  # built once: a batch makes a Program per answer


@dataclass(frozen=True)
class Program:
    """A program to run once per input, each input fed on stdin.

    Args:
        source: the program's source text. Python is compiled once per forked child and executed
            with fresh globals and ``__name__ == "__main__"`` for each input; C++ is compiled once
            (in the sandbox, cached by the worker) and its binary runs in a fresh process per input.
        inputs: what each execution reads on stdin (``str`` is encoded as UTF-8).
        limits: per-input limits; ``None`` takes the pool's.
        strict: fork a fresh child for every input (full isolation between inputs) instead of
            one child per program; ``None`` takes the pool's setting.
        private: the inputs hold what the program must not see before it reads them (test code
            with expected values): each input reaches the child as an in-memory file on stdin
            only when its turn comes, and never sits in the child's memory as Python objects
            before then. Combine with ``strict`` for a child per input.
        judge: how the worker judges each input's output, as plain data: ``module``, the
            family's judge (``results.WorkerJudge``; the unit-test family's
            ``unit_tests.harness.judging`` builds this spec: the test kind, the expected outputs,
            the comparison settings). The
            worker's supervisor, which no program is forked from, judges each result as it comes
            and returns its ``judgement`` instead of the output: the program's answer and error
            output are kept only for the first input that failed (the one feedback reports), so
            what travels back stays small whatever the programs print. ``None``: results carry
            the output and no judgement.
        language: what ``source`` is written in (a ``Language`` or its name); Python by default.
        compile: how a compiled language is compiled; ``None`` takes ``CompileSettings()``.

    Example:
        >>> Program("print(int(input()) * 2)", ["2", "5"]).input_count
        2
    """

    source: str
    inputs: Sequence[str | bytes] = field(default_factory=lambda: [""])
    limits: Limits | None = None
    strict: bool | None = None
    private: bool = False
    judge: Mapping[str, Any] | None = None
    language: Language = Language.PYTHON
    compile: CompileSettings | None = None

    def __post_init__(self) -> None:
        if self.language not in _LANGUAGES:
            raise ValueError(
                f"Program.language must be one of {[m.value for m in Language]}, got {self.language!r}"
            )
        object.__setattr__(self, "language", Language(self.language))
        if self.compile is not None and not isinstance(self.compile, CompileSettings):
            raise TypeError(f"Program.compile must be CompileSettings, got {type(self.compile).__name__}")
        if not isinstance(self.source, str):
            raise TypeError(f"Program.source must be str, got {type(self.source).__name__}")
        if isinstance(self.inputs, (str, bytes)):
            raise TypeError("Program.inputs must be a sequence of inputs, not a single str/bytes")
        for index, item in enumerate(self.inputs):
            if not isinstance(item, (str, bytes)):
                raise TypeError(f"Program.inputs[{index}] must be str or bytes, got {type(item).__name__}")
        if self.judge is not None:
            judge_module(self.judge)

    @property
    def input_count(self) -> int:
        return len(self.inputs)

    @property
    def compile_settings(self) -> CompileSettings | None:
        """How this program is compiled (``None`` for Python)."""
        if self.language is Language.PYTHON:
            return None
        return self.compile if self.compile is not None else CompileSettings()

    def encoded_inputs(self) -> list[bytes]:
        return [item.encode("utf-8") if isinstance(item, str) else bytes(item) for item in self.inputs]


@dataclass(frozen=True)
class PlannedProgram:
    """A program its caller builds only when a worker is about to need it.

    A verifier builds a program per answer (its tests' inputs, limits and judge); built before
    the batch, they were about half of the 57-97 ms per 2,000 answers that every worker of a
    16-core host waited for (session 20). Planned, they are built in hand-out order, as workers
    need them and while the routing process would otherwise wait for the first ones to finish.
    ``input_count`` is what the program will have: programs are handed out longest first before
    they are built.

    Args:
        input_count: the inputs of the program ``build`` returns.
        build: makes the program, once, in the process that routes the batch; an error it raises
            ends the batch, as one raised by ``on_done`` does.
    """

    input_count: int
    build: Callable[[], Program]


def built(program: Program | PlannedProgram) -> Program:
    """``program`` itself, or the program a plan builds (which must have the inputs it planned)."""
    if isinstance(program, Program):
        return program
    made = program.build()
    if not isinstance(made, Program) or made.input_count != program.input_count:
        got = f"{made.input_count} input(s)" if isinstance(made, Program) else type(made).__name__
        raise ValueError(f"a PlannedProgram of {program.input_count} input(s) built {got}")
    return made
