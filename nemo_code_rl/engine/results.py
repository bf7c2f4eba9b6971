"""What one execution of a program on one input produced.

A verdict describes the program, never the infrastructure, except ``worker_lost``: callers must
count that one as an infrastructure fault and not score it as a model failure. ``not_run`` marks
inputs skipped because the caller stopped the program early (``run_batch(stop_when=...)``, or
``cancelled=...``: then with ``CANCELLED_ERROR``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, Protocol

from nemo_code_rl.outcomes import Verdict

# The error of the inputs a program's caller had it stopped before they ran (``not_run``).
CANCELLED_ERROR = "not run: the caller stopped the program early"


@dataclass(frozen=True)
class Judgement:
    """How one test went, judged against its expected output: a test verdict and, for humans, why.

    ``got`` is what the program answered (its stdout, or the value it returned), as feedback shows it.
    """

    verdict: Verdict
    detail: str = ""
    got: str = ""


@dataclass(frozen=True)
class ExecutionResult:
    """The outcome of running a program on one input.

    Attributes:
        verdict: how the execution ended.
        exit_code: the program's exit status (``SystemExit`` code or ``os._exit`` status); ``None``
            when it was killed by a signal or never ran.
        stdout / stderr: captured text (UTF-8, undecodable bytes replaced), at most
            ``Limits.output_bytes`` and ``Limits.stderr_bytes``.
        stdout_dropped / stderr_dropped: bytes written beyond the cap and discarded.
        error: one line for humans: the exception's last traceback line, the signal name, the
            syntax error, or why the worker was lost.
        signal: the name of the signal that ended the program (``SIGSEGV``), if any.
        wall_s / cpu_s: wall-clock and CPU seconds spent on this input.
        peak_memory_bytes: the process's resident-memory high-water mark when this input ended (a
            running maximum when one child serves several inputs).
        judgement: the verdict of the program's test on this input, where the program came with a
            judge (``Program.judge``): the worker judged it, and then returned, of the output,
            only what feedback can show (see ``Program.judge``).
    """

    verdict: Verdict
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    stdout_dropped: int = 0
    stderr_dropped: int = 0
    error: str = ""
    signal: str | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_memory_bytes: int = 0
    judgement: Judgement | None = None

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.OK

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["verdict"] = self.verdict.value
        return data


_VERDICTS = {verdict.value: verdict for verdict in Verdict}
_DEFAULTS = {f.name: f.default for f in fields(ExecutionResult) if f.name != "verdict"}


def result_from_fields(values: Mapping[str, Any]) -> ExecutionResult:
    """A worker's result dict (its verdict as a value) as the ``ExecutionResult`` a pool returns.

    The worker builds these before it sends them: the pool's one process, which routes every
    program of every worker, then unpickles finished objects instead of converting each input's
    dict, which was a third of its CPU per program. Only the fields that differ from their
    defaults are set on the object; the others read the class's defaults, as every dataclass
    field with a default does. Each is then one entry fewer to build, pickle and rebuild: on the
    development VM a program's ten results cost the supervisor 56 us instead of 87, and the
    routing process 23.5 us instead of 28.7.
    """
    unknown = values.keys() - _DEFAULTS.keys() - {"verdict"}
    if unknown:
        raise TypeError(f"ExecutionResult has no fields {sorted(unknown)}")
    result = object.__new__(ExecutionResult)
    state = result.__dict__  # a frozen dataclass's fields, set as its own __init__ sets them
    state["verdict"] = _VERDICTS[values["verdict"]]
    for name, value in values.items():
        default = _DEFAULTS.get(name)
        if name != "verdict" and (value != default or type(value) is not type(default)):
            state[name] = value
    return result


class WorkerJudge(Protocol):
    """A family's judge, run by each worker's supervisor (``Program.judge`` names its module).

    It judges a program's results in input order, as each input ends, and returns each result
    with its ``judgement`` (a ``Judgement``), keeping only the output feedback needs.
    """

    def judged(self, position: int, result: dict[str, Any]) -> dict[str, Any]:
        """Input ``position``'s result dict, judged."""
        ...


def judge_module(spec: Mapping[str, Any]) -> str:
    """The module a judge spec names (``Program.judge["module"]``), checked where the program is
    made, so a bad spec is the caller's error and never a worker's crash. Jobs come from the
    trainer, never from a program; still, only this package's modules are ever imported as judges.
    """
    module = spec.get("module") if isinstance(spec, Mapping) else None
    if not isinstance(module, str) or not module.startswith("nemo_code_rl."):
        raise ValueError(f"Program.judge names module {module!r}: a judge must be a module of nemo_code_rl")
    return module
