"""The benchmark's C++ rows: compile once and run 10 tests, in the engine against a fresh ``g++``
and a fresh process per test.

Every program is a distinct source (so each is compiled: no row gets the cache for free), read
n numbers and print their sum times the program's own factor. Row ``a_cpp`` runs them on a warm
pool whose cache is empty (compile in the sandbox, then one process per test); ``a_cpp2``
runs the same batch again on that pool (repeated completions: the binaries are cached); ``b_cpp``
compiles each with a fresh ``g++`` subprocess and runs each test as a fresh process, ``workers``
programs at a time. A host without ``g++`` gets no rows, with the reason.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nemo_code_rl.engine.languages import CompileSettings, Language
from nemo_code_rl.engine.limits import Limits
from nemo_code_rl.engine.pool import ExecutionPool
from nemo_code_rl.engine.program import Program

CPP_ROW_KEYS = ("a_cpp", "a_cpp2", "b_cpp")
_SOURCE = """#include <iostream>
int main() {{
    long long n, x, total = 0;
    std::cin >> n;
    for (long long i = 0; i < n; ++i) {{ std::cin >> x; total += x; }}
    std::cout << total * {factor} << "\\n";
}}
"""


@dataclass(frozen=True)
class CppItem:
    source: str
    inputs: list[str]
    expected: list[str]


def cpp_workload(programs: int, tests: int, seed: int) -> list[CppItem]:
    """``programs`` distinct C++ sources with ``tests`` stdin tests each and their answers."""
    rng = random.Random(seed)
    items = []
    for factor in range(1, programs + 1):
        inputs, expected = [], []
        for _ in range(tests):
            numbers = [rng.randint(-1000, 1000) for _ in range(rng.randint(1, 50))]
            inputs.append(f"{len(numbers)}\n{' '.join(map(str, numbers))}\n")
            expected.append(f"{sum(numbers) * factor}\n")
        items.append(CppItem(_SOURCE.format(factor=factor), inputs, expected))
    return items


def _mismatches(items: list[CppItem], outputs: list[list[str]]) -> int:
    return sum(
        got != want
        for item, out in zip(items, outputs, strict=True)
        for got, want in zip(out, item.expected, strict=True)
    )


def _fresh_gxx(item: CppItem, settings: CompileSettings, timeout_s: float) -> list[str]:
    """Row b_cpp for one program: ``g++`` into a temp folder, then one process per test."""
    with tempfile.TemporaryDirectory(prefix="nemo-code-rl-bench-cpp-") as folder:
        binary = Path(folder) / "main"
        command = [*settings.command()[:-1], str(binary)]  # the engine's flags, to a file
        subprocess.run(command, input=item.source.encode(), check=True, capture_output=True)
        return [
            subprocess.run(
                [binary], input=stdin.encode(), capture_output=True, timeout=timeout_s
            ).stdout.decode()
            for stdin in item.inputs
        ]


def measure_cpp(
    programs: int,
    tests: int,
    workers: int,
    timeout_s: float,
    isolation: str,
    seed: int,
    emit: Callable[[str], None],
) -> list[dict[str, Any]]:
    """The C++ rows as ``Row`` fields (less ``cores``), one timed run each (compiles are long)."""
    if shutil.which("g++") is None:
        emit("C++ rows not measured: no g++ on this host")
        return []
    items = cpp_workload(programs, tests, seed)
    settings = CompileSettings()
    batch = [Program(i.source, i.inputs, language=Language.CPP, compile=settings) for i in items]
    rows = []
    start = time.perf_counter()
    with ExecutionPool(workers=workers, limits=Limits(timeout_s=timeout_s), isolation=isolation) as pool:
        startup_s = time.perf_counter() - start
        for key, label in (
            ("a_cpp", "engine, C++: compile + 10 tests"),
            ("a_cpp2", "engine, C++: again, cached"),
        ):
            start = time.perf_counter()
            results = pool.run_batch(batch)
            seconds = time.perf_counter() - start
            outputs = [[r.stdout for r in per] for per in results]
            rows.append(
                _fields(
                    key,
                    f"{label.replace('10', str(tests))}",
                    items,
                    seconds,
                    _mismatches(items, outputs),
                    startup_s,
                )
            )
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as threads:
        outputs = list(threads.map(lambda item: _fresh_gxx(item, settings, timeout_s), items))
    seconds = time.perf_counter() - start
    rows.append(
        _fields("b_cpp", "fresh g++ + process per test", items, seconds, _mismatches(items, outputs), None)
    )
    return rows


def _fields(
    key: str, label: str, items: list[CppItem], seconds: float, mismatches: int, startup_s: float | None
) -> dict[str, Any]:
    return {
        "key": key,
        "label": label,
        "programs": len(items),
        "tests": sum(len(item.inputs) for item in items),
        "seconds": seconds,
        "mismatches": mismatches,
        "error_mismatches": 0,
        "startup_s": startup_s,
        "runs": [seconds],
    }
