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
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import pydantic

from nemo_code_rl.arc import driver
from nemo_code_rl.arc.grid_check import InvalidGrid, as_grid
from nemo_code_rl.arc.grids import Grid
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.config_keys import ConfigError, ConfigSection, config_section
from nemo_code_rl.engine import DEFAULT_PRELOAD, ExecutionResult, Limits, Program, Verdict
from nemo_code_rl.engine.limits import no_timeout_in_limits

InputType = Literal["auto", "list", "numpy", "barc"]
INPUT_TYPES = ("auto", "list", "numpy", "barc")
# What ARC sandbox workers import once, so programs get them for free: BARC's helpers need scipy.
ARC_PRELOAD = (*DEFAULT_PRELOAD, "scipy.ndimage")
# The helper library every ARC program can import as ``common`` unless another one is configured.
DEFAULT_HELPER_MODULE = "common"
# Verdicts the driver may report for a grid without output, or for a program that failed to load.
_DRIVER_VERDICTS = frozenset(
    {Verdict.TIMEOUT, Verdict.MISSING_MODULE, Verdict.RUNTIME_ERROR, Verdict.INVALID_OUTPUT}
)
# Seconds a run gets beyond its grids' time limits: interpreter work, imports, the helper library.
STARTUP_ALLOWANCE_S = 2.0
_HERE = Path(__file__).parent

# ``{module name: [source, is_package]}``, the shape the driver's importer takes.
HelperSources = dict[str, list[Any]]


@config_section
class ArcExecutionConfig(ConfigSection):
    """How candidate programs are run.

    Args:
        function_name: the function applied to each grid (``transform``; BARC's seeds use ``main``).
        input_type: what the function receives: ``list`` (a list of rows of ints), ``numpy`` (an
            int array of rows), ``barc`` (BARC's convention: an int array indexed ``[x, y]``, the
            transpose, its result transposed back), or ``auto`` (``barc`` for programs that
            import ``common``, ``list`` for the others).
        preamble: code run in the program's namespace before it, e.g. BARC's
            ``"import numpy as np\\nfrom common import *"``.
        helper: a helper library importable in the sandbox (``load_helper``): a ``.py`` file, a
            package folder, or a folder of modules; ``None`` for ours, the BARC-compatible
            ``common`` (``nemo_code_rl.arc.barc_common``).
        timeout_s: wall-clock seconds per grid (the run as a whole gets this times the number of
            grids, plus a start-up allowance).
        limits: the other per-run limits (memory, output, files, processes).
    """

    WHERE = "execution"

    function_name: str = "transform"
    input_type: InputType = "auto"
    preamble: str = ""
    helper: str | None = None
    timeout_s: float = 2.0
    limits: Limits = field(default_factory=Limits)

    @pydantic.model_validator(mode="before")
    @classmethod
    def _no_timeout_in_limits(cls, data: Any) -> Any:
        return no_timeout_in_limits(data, "per-grid")

    def __post_init__(self) -> None:
        if not isinstance(self.function_name, str) or not self.function_name.isidentifier():
            raise ConfigError(f"function_name must be a Python identifier, got {self.function_name!r}")
        if self.input_type not in INPUT_TYPES:
            raise ConfigError(f"input_type must be one of {', '.join(INPUT_TYPES)}; got {self.input_type!r}")
        if not isinstance(self.preamble, str):
            raise ConfigError("preamble must be a string of Python code")
        if self.helper is not None and not (isinstance(self.helper, str) and Path(self.helper).exists()):
            raise ConfigError(
                f"helper library {self.helper!r} does not exist (a relative path is read from the working "
                f"directory, {Path.cwd()}); leave helper unset for our BARC-compatible `common`"
            )
        if (
            isinstance(self.timeout_s, bool)
            or not isinstance(self.timeout_s, (int, float))
            or self.timeout_s <= 0
        ):
            raise ConfigError(f"timeout_s must be a positive number of seconds, got {self.timeout_s!r}")


def load_helper(path: str | os.PathLike[str] | None) -> HelperSources:
    """The modules of a helper library, as source text for the sandbox's importer.

    A file ``common.py`` becomes module ``common``. A folder with an ``__init__.py``, ``dsl/``,
    becomes package ``dsl`` with every ``.py`` below it as a submodule and every subfolder as a
    subpackage. A folder without one is a folder of modules: each ``.py`` in it is a top-level
    module (so arc-dsl's ``dsl.py``, ``arc_types.py`` and ``constants.py``, which import each other
    by those names, work as they are), each subfolder a package. ``None`` gives the default:
    our BARC-compatible library as ``common``. A missing path is a ``FileNotFoundError``.
    """
    if path is None:
        source = (_HERE / "barc_common.py").read_text(encoding="utf-8")
        return {DEFAULT_HELPER_MODULE: [source, False]}
    root = Path(path)
    if root.is_file() and root.suffix == ".py":
        return {root.stem: [root.read_text(encoding="utf-8"), False]}
    if not root.is_dir():
        raise FileNotFoundError(f"helper library {root} is neither a .py file nor a folder")
    if not (root / "__init__.py").is_file():
        modules = {file.stem: [file.read_text(encoding="utf-8"), False] for file in sorted(root.glob("*.py"))}
        for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "__pycache__"):
            if folder.name.isidentifier():
                modules.update(_package(folder))
        if not modules:
            raise FileNotFoundError(f"helper folder {root} holds no .py module")
        return modules
    return _package(root)


def _package(root: Path) -> HelperSources:
    """Package ``root.name``: every ``.py`` below ``root`` a submodule, every subfolder a subpackage."""
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
        verdict: ``ok`` with an output; otherwise why there is none: ``timeout``,
            ``runtime_error``, ``missing_module``, ``invalid_output`` (not a valid grid), or
            ``not_run`` (the program died or failed to load first).
        error: the details, for feedback: the exception's last line, or why the grid is invalid.
    """

    output: Grid | None
    verdict: Verdict = Verdict.OK
    error: str = ""


@dataclass(frozen=True)
class ProgramRun:
    """One program's run over a task's grids.

    Attributes:
        compiled: the candidate is valid Python.
        error: why the function could not be applied (syntax error, failure while loading, no such
            function, or how the process ended early); ``""`` otherwise.
        failure: the verdict of that failure (``syntax_error``, ``missing_module``,
            ``runtime_error``, ``timeout``, or how the engine saw the process end); ``None`` when
            the function was applied.
        grids: one ``GridRun`` per input grid, train inputs first.
        infra_fault: the sandbox lost the run (``worker_lost``); nothing here judges the program.
        wall_s: wall-clock seconds of the run.
    """

    compiled: bool
    error: str
    grids: tuple[GridRun, ...]
    infra_fault: bool = False
    wall_s: float = 0.0
    failure: Verdict | None = None


def parse_run(result: ExecutionResult, n_grids: int) -> ProgramRun:
    """Read the driver's records from one engine result; never raises."""
    if result.verdict is Verdict.WORKER_LOST:
        lost = GridRun(None, Verdict.NOT_RUN, "the sandbox lost the run")
        return ProgramRun(
            True,
            f"infrastructure fault: {result.error}",
            (lost,) * n_grids,
            True,
            result.wall_s,
            Verdict.WORKER_LOST,
        )
    if result.verdict is Verdict.NOT_RUN:  # its caller cancelled it (``run_batch(cancelled=...)``)
        missing = GridRun(None, Verdict.NOT_RUN, result.error)
        return ProgramRun(True, result.error, (missing,) * n_grids, False, result.wall_s, Verdict.NOT_RUN)
    head: Mapping[str, Any] | None = None
    grids: dict[int, GridRun] = {}
    for record in _records(result.stdout):
        if head is None and any(key in record for key in ("syntax_error", "load_error", "loaded")):
            head = record
        elif head is not None and type(record.get("index")) is int and 0 <= record["index"] < n_grids:
            grids.setdefault(record["index"], _grid_run(record))
    ended = _how_it_ended(result)
    if head is not None and "syntax_error" in head:
        missing = GridRun(None, Verdict.NOT_RUN, "the program does not compile")
        return ProgramRun(
            False, str(head["syntax_error"]), (missing,) * n_grids, False, result.wall_s, Verdict.SYNTAX_ERROR
        )
    failure: Verdict | None = None
    error = ""
    if head is None:
        error = f"the program ended before its function was called ({ended})"
        failure = result.verdict if result.verdict is not Verdict.OK else Verdict.RUNTIME_ERROR
    elif "load_error" in head:
        error = str(head["load_error"])
        failure = _driver_verdict(head.get("verdict"))
    missing = GridRun(None, Verdict.NOT_RUN, error or f"not run: the program ended early ({ended})")
    runs = tuple(grids.get(index, missing) for index in range(n_grids))
    return ProgramRun(True, error, runs, False, result.wall_s, failure)


def _driver_verdict(value: Any) -> Verdict:
    """A verdict the driver reported; anything else (a forged or garbled record) is a runtime error."""
    return Verdict(value) if value in _DRIVER_VERDICTS else Verdict.RUNTIME_ERROR


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
        error = str(record.get("error", ""))[: driver.ERROR_CHARS]
        return GridRun(None, _driver_verdict(record.get("verdict")), error)
    try:
        return GridRun(as_grid(record["output"]))
    except InvalidGrid as error:
        return GridRun(None, Verdict.INVALID_OUTPUT, f"invalid output grid: {error}")


def _how_it_ended(result: ExecutionResult) -> str:
    if result.verdict is Verdict.OK:
        return f"exit code {result.exit_code}"
    return f"{result.verdict.value}: {result.error}" if result.error else result.verdict.value
