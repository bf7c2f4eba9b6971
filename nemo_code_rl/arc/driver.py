"""Driver for ARC programs, shipped into the sandbox after ``grid_check`` (whose names it uses).

One run per program: stdin holds the JSON list of every input grid of the task (train inputs,
then test inputs; never an output). The candidate is compiled and executed once as a module,
after the configured preamble and with the helper library importable; its function is then called
on each grid in turn, each call under its own wall-clock alarm, and each return value is turned
into a plain grid by ``as_grid`` before it leaves the sandbox.

Grids reach the function as a list of rows (``list``), a numpy array of rows (``numpy``), or in
BARC's convention (``barc``): a numpy array indexed ``[x, y]``, i.e. the transpose, whose result
is transposed back. ``auto`` is ``barc`` for a program that imported the ``common`` helper
library (BARC's programs all do) and ``list`` otherwise.

Every record is written the moment it is known, as a line ``RESULT_MARKER + JSON`` on a
descriptor the candidate's prints do not reach (they go to stderr), so the grids done before a
crash, an ``os._exit`` or the program's overall time limit still count. Records: first one of
``{"syntax_error": msg}``, ``{"load_error": msg}``, ``{"loaded": true}``; then, per grid,
``{"index": i, "output": grid}`` or ``{"index": i, "verdict": v, "error": msg}``. A load error
and a grid without output carry a verdict of ``nemo_code_rl.outcomes.Verdict`` (spelt here as its
value: this file imports nothing of ours): ``timeout``, ``missing_module``, ``runtime_error``, or
``invalid_output`` for a value that is not a grid.
"""

import importlib.abc
import importlib.util
import json
import os
import signal
import sys

RESULT_MARKER = "@@nemo-code-rl:arc@@"
ERROR_CHARS = 300


class GridTimeout(BaseException):
    """Raised in the candidate by the per-grid alarm; not an ``Exception``, so a candidate's
    ``except Exception`` does not swallow it."""


class HelperModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes modules shipped as source text importable: ``{name: [source, is_package]}``."""

    def __init__(self, modules):
        self.modules = modules

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.modules:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=self.modules[fullname][1])

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        source = self.modules[module.__name__][0]
        exec(compile(source, f"<helper {module.__name__}>", "exec"), module.__dict__)


def run_arc(candidate_source, function_name, input_type, preamble, helpers, grid_timeout_s):
    grids = json.loads(sys.stdin.read())
    results = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def report(record):
        os.write(results, (RESULT_MARKER + json.dumps(record) + "\n").encode())

    def on_alarm(signum, frame):
        raise GridTimeout(f"time limit of {grid_timeout_s} s exceeded")

    def within_time_limit(work):
        signal.setitimer(signal.ITIMER_REAL, grid_timeout_s)
        try:
            return work()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    if helpers:
        sys.meta_path.insert(0, HelperModules(helpers))
    signal.signal(signal.SIGALRM, on_alarm)
    try:
        code = compile(candidate_source, "solution.py", "exec")
    except (SyntaxError, ValueError) as error:
        report({"syntax_error": _describe(error)})
        return
    namespace = {"__name__": "solution", "__builtins__": __builtins__}
    try:
        within_time_limit(lambda: _load(preamble, code, namespace))
    except BaseException as error:  # noqa: BLE001 - whatever the candidate raises is its verdict
        report({"load_error": _describe(error), "verdict": _verdict(error)})
        return
    function = namespace.get(function_name)
    if not callable(function):
        missing = f"the program defines no function {function_name!r}"
        report({"load_error": missing, "verdict": "runtime_error"})
        return
    report({"loaded": True})
    if input_type == "auto":
        input_type = "barc" if "common" in sys.modules else "list"
    for index, grid in enumerate(grids):
        argument = _argument(grid, input_type)
        try:
            output = within_time_limit(lambda: _output(function(argument), input_type))  # noqa: B023
            record = {"index": index, "output": output}
        except InvalidGrid as error:  # noqa: F821
            record = {"index": index, "verdict": "invalid_output", "error": f"invalid output grid: {error}"}
        except BaseException as error:  # noqa: BLE001 - whatever the candidate raises is its verdict
            message = str(error) if isinstance(error, GridTimeout) else _describe(error)
            record = {"index": index, "verdict": _verdict(error), "error": message}
        report(record)


def _load(preamble, code, namespace):
    exec(compile(preamble, "preamble.py", "exec"), namespace)
    exec(code, namespace)


def _argument(grid, input_type):
    """A fresh copy of the grid for each call, so one call cannot change the next one's input."""
    if input_type in ("numpy", "barc"):
        import numpy

        array = numpy.array(grid, dtype=int)
        return numpy.ascontiguousarray(array.T) if input_type == "barc" else array
    return [list(row) for row in grid]


def _output(value, input_type):
    """The function's result as a plain grid of rows (transposed back from BARC's ``[x, y]``)."""
    grid = as_grid(value)  # noqa: F821
    return [list(row) for row in zip(*grid, strict=True)] if input_type == "barc" else grid


def _verdict(error):
    if isinstance(error, GridTimeout):
        return "timeout"
    if isinstance(error, ModuleNotFoundError):
        return "missing_module"
    return "runtime_error"


def _describe(error):
    return f"{type(error).__name__}: {error}"[:ERROR_CHARS]
