"""Run a candidate ARC program on a task's grids in the sandbox, and read back what it returned.

One engine program per (task, candidate): the driver (``driver.py``, after ``grid_check.py``)
loads the candidate once and applies its function to every train and test input in one run.
Only input grids enter the sandbox; outputs are compared outside. Everything the driver reports
is re-validated here with the same ``as_grid``, so nothing the candidate controls is trusted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any, Literal

from nemo_code_rl.arc import driver
from nemo_code_rl.arc.grid_check import InvalidGrid, as_grid
from nemo_code_rl.arc.grids import Grid
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.config_keys import ConfigError, check_keys
from nemo_code_rl.engine import ExecutionResult, Limits, Program, Verdict

InputType = Literal["list", "numpy"]
# Seconds a run gets beyond its grids' time limits: interpreter work, imports, the helper library.
STARTUP_ALLOWANCE_S = 2.0
_HERE = Path(__file__).parent

# ``{module name: [source, is_package]}``, the shape the driver's importer takes.
HelperSources = dict[str, list[Any]]


@dataclass(frozen=True)
class ArcExecutionConfig:
    """How candidate programs are run.

    Args:
        function_name: the function applied to each grid (``transform``; BARC's seeds use ``main``).
        input_type: what the function receives: ``list`` (a list of rows of ints) or ``numpy`` (an
            int array, as BARC's own evaluation passes).
        preamble: code run in the program's namespace before it, e.g. BARC's
            ``"import numpy as np\\nfrom common import *"``.
        helper: a helper library importable in the sandbox: a ``.py`` file (module named after
            its stem) or a package folder (every ``.py`` under it); ``None`` for none.
        timeout_s: wall-clock seconds per grid (the run as a whole gets this times the number of
            grids, plus a start-up allowance).
        limits: the other per-run limits (memory, output, files, processes).
    """

    function_name: str = "transform"
    input_type: InputType = "list"
    preamble: str = ""
    helper: str | None = None
    timeout_s: float = 2.0
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        if not isinstance(self.function_name, str) or not self.function_name.isidentifier():
            raise ConfigError(f"function_name must be a Python identifier, got {self.function_name!r}")
        if self.input_type not in ("list", "numpy"):
            raise ConfigError(f"input_type must be 'list' or 'numpy', got {self.input_type!r}")
        if not isinstance(self.preamble, str):
            raise ConfigError("preamble must be a string of Python code")
        if (
            isinstance(self.timeout_s, bool)
            or not isinstance(self.timeout_s, (int, float))
            or self.timeout_s <= 0
        ):
            raise ConfigError(f"timeout_s must be a positive number of seconds, got {self.timeout_s!r}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, where: str = "execution") -> ArcExecutionConfig:
        data = dict(data or {})
        check_keys(data, [f.name for f in fields(cls)], where)
        if "limits" in data and not isinstance(data["limits"], Limits):
            limits = dict(data["limits"])
            if "timeout_s" in limits:
                raise ConfigError(
                    f"{where}.limits.timeout_s is not used: set the per-grid limit with {where}.timeout_s"
                )
            check_keys(limits, [f.name for f in fields(Limits)], f"{where}.limits")
            data["limits"] = Limits(**limits)
        return cls(**data)


def load_helper(path: str | os.PathLike[str]) -> HelperSources:
    """The modules of a helper library, as source text for the sandbox's importer.

    A file ``common.py`` becomes module ``common``; a folder ``dsl/`` becomes package ``dsl``
    (its ``__init__.py``, or an empty one) with every ``.py`` below it as a submodule and every
    subfolder as a subpackage.
    """
    root = Path(path)
    if root.is_file() and root.suffix == ".py":
        return {root.stem: [root.read_text(encoding="utf-8"), False]}
    if not root.is_dir():
        raise FileNotFoundError(f"helper library {root} is neither a .py file nor a folder")
    if not root.name.isidentifier():
        raise ConfigError(f"helper folder name {root.name!r} is not a valid package name")
    modules: HelperSources = {}
    for folder in sorted([root, *(p for p in root.rglob("*") if p.is_dir() and p.name != "__pycache__")]):
        package = ".".join((root.name, *folder.relative_to(root).parts))
        init = folder / "__init__.py"
        modules[package] = [init.read_text(encoding="utf-8") if init.is_file() else "", True]
        for file in sorted(folder.glob("*.py")):
            if file.name != "__init__.py":
                modules[f"{package}.{file.stem}"] = [file.read_text(encoding="utf-8"), False]
    return modules


@cache
def _driver_source() -> str:
    return "\n\n".join((_HERE / name).read_text(encoding="utf-8") for name in ("grid_check.py", "driver.py"))


def build_program(
    task: ArcTask, code: str, config: ArcExecutionConfig, helpers: HelperSources | None = None
) -> Program:
    """The engine program that runs ``code`` on every input grid of ``task`` in one execution."""
    inputs = task.inputs()
    call = (
        f"\nrun_arc({code!r}, {config.function_name!r}, {config.input_type!r}, {config.preamble!r}, "
        f"{helpers or {}!r}, {float(config.timeout_s)!r})\n"
    )
    limits = config.limits.with_overrides(timeout_s=config.timeout_s * len(inputs) + STARTUP_ALLOWANCE_S)
    return Program(_driver_source() + call, [json.dumps(inputs)], limits=limits)


@dataclass(frozen=True)
class GridRun:
    """What the program returned for one input grid.

    Attributes:
        output: the valid grid it returned, or ``None``.
        kind: why there is no output: ``timeout``, ``exception``, ``invalid`` (not a valid grid),
            ``not_run`` (the program died or failed to load first); ``""`` with an output.
        error: the details, for feedback.
    """

    output: Grid | None
    kind: str = ""
    error: str = ""


@dataclass(frozen=True)
class ProgramRun:
    """One program's run over a task's grids.

    Attributes:
        compiled: the candidate is valid Python.
        error: why the function could not be applied (syntax error, failure while loading, no such
            function, or how the process ended early); ``""`` otherwise.
        grids: one ``GridRun`` per input grid, train inputs first.
        infra_fault: the sandbox lost the run (``worker_lost``); nothing here judges the program.
        wall_s: wall-clock seconds of the run.
    """

    compiled: bool
    error: str
    grids: tuple[GridRun, ...]
    infra_fault: bool = False
    wall_s: float = 0.0


def parse_run(result: ExecutionResult, n_grids: int) -> ProgramRun:
    """Read the driver's records from one engine result; never raises."""
    if result.verdict is Verdict.WORKER_LOST:
        lost = GridRun(None, "not_run", "the sandbox lost the run")
        return ProgramRun(
            True, f"infrastructure fault: {result.error}", (lost,) * n_grids, True, result.wall_s
        )
    head: Mapping[str, Any] | None = None
    grids: dict[int, GridRun] = {}
    for record in _records(result.stdout):
        if head is None and any(key in record for key in ("syntax_error", "load_error", "loaded")):
            head = record
        elif head is not None and type(record.get("index")) is int and 0 <= record["index"] < n_grids:
            grids.setdefault(record["index"], _grid_run(record))
    ended = _how_it_ended(result)
    if head is not None and "syntax_error" in head:
        missing = GridRun(None, "not_run", "the program does not compile")
        return ProgramRun(False, str(head["syntax_error"]), (missing,) * n_grids, False, result.wall_s)
    error = str(head["load_error"]) if head is not None and "load_error" in head else ""
    if head is None:
        error = f"the program ended before its function was called ({ended})"
    missing = GridRun(None, "not_run", error or f"not run: the program ended early ({ended})")
    runs = tuple(grids.get(index, missing) for index in range(n_grids))
    return ProgramRun(True, error, runs, False, result.wall_s)


def _records(stdout: str) -> list[dict[str, Any]]:
    records = []
    for line in stdout.splitlines():
        if line.startswith(driver.RESULT_MARKER):
            try:
                record = json.loads(line[len(driver.RESULT_MARKER) :])
            except (ValueError, RecursionError):  # a line the candidate forged; it counts for nothing
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


def _grid_run(record: Mapping[str, Any]) -> GridRun:
    if "output" not in record:
        kind = record.get("kind")
        return GridRun(
            None,
            kind if kind in ("timeout", "exception", "invalid") else "exception",
            str(record.get("error", ""))[: driver.ERROR_CHARS],
        )
    try:
        return GridRun(as_grid(record["output"]))
    except InvalidGrid as error:
        return GridRun(None, "invalid", f"invalid output grid: {error}")


def _how_it_ended(result: ExecutionResult) -> str:
    if result.verdict is Verdict.OK:
        return f"exit code {result.exit_code}"
    return f"{result.verdict.value}: {result.error}" if result.error else result.verdict.value
