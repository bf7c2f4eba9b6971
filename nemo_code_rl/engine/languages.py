"""The languages the engine runs, and how a compiled one is compiled.

``Language`` is the one vocabulary of language names (configs, problems and fenced blocks name a
language with these values). Python runs in the worker's warm interpreter; C++ is compiled once
per distinct source inside the sandbox (``CompileSettings``), and its binary runs once per input.
Plain data only: the engine, and every sandbox worker, stays free of pydantic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from nemo_code_rl.engine.limits import KiB, Limits, MiB, check_seconds


class Language(StrEnum):
    """A language a ``Program`` may be written in."""

    PYTHON = "python"
    CPP = "cpp"


# The names a fenced code block may carry for each language (```cpp, ```c++, ```py ...).
FENCE_NAMES: dict[str, Language] = {
    "python": Language.PYTHON,
    "python3": Language.PYTHON,
    "py": Language.PYTHON,
    "py3": Language.PYTHON,
    "cpp": Language.CPP,
    "c++": Language.CPP,
    "cc": Language.CPP,
    "cxx": Language.CPP,
}

_STANDARD = re.compile(r"(c|gnu)\+\+[0-9][0-9a-z]")
# Where the compiler writes the binary: descriptor 3 of the compiling process, an in-memory file
# the worker's supervisor made (the binary never touches a file system a program could reach).
BINARY_FD = 3


@dataclass(frozen=True)
class CompileSettings:
    """How C++ sources are compiled, and the limits of the compiler's run (in the sandbox).

    Args:
        compiler: the C++ compiler driver, looked up on the sandbox's ``PATH``.
        standard: the ``-std=`` value (``c++17``, ``gnu++20`` ...).
        flags: further compiler flags (optimisation, warnings, defines).
        timeout_s: wall-clock seconds one compilation may take.
        memory_bytes: address-space limit of each compiler process (and of their sum, in a cgroup).
        stderr_bytes: compiler messages kept for the ``compile_error`` feedback.

    Example:
        >>> CompileSettings().command()[:3]
        ['g++', '-std=c++17', '-O2']
    """

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    compiler: str = "g++"
    standard: str = "c++17"
    flags: tuple[str, ...] = ("-O2",)
    timeout_s: float = 20.0
    memory_bytes: int = 2048 * MiB
    stderr_bytes: int = 16 * KiB

    def __post_init__(self) -> None:
        if not isinstance(self.compiler, str) or not self.compiler.strip():
            raise ValueError(f"compiler must name a program, got {self.compiler!r}")
        if not isinstance(self.standard, str) or not _STANDARD.fullmatch(self.standard):
            raise ValueError(f"standard must be like 'c++17' or 'gnu++20', got {self.standard!r}")
        if isinstance(self.flags, str) or not all(
            isinstance(f, str) and f.startswith("-") for f in self.flags
        ):
            raise ValueError(f"flags must be a sequence of options starting with '-', got {self.flags!r}")
        if any(f.startswith("-o") for f in self.flags):
            raise ValueError(f"flags cannot set the output file (-o), got {self.flags!r}")
        object.__setattr__(self, "flags", tuple(self.flags))
        check_seconds("timeout_s", self.timeout_s)
        Limits(memory_bytes=self.memory_bytes, stderr_bytes=self.stderr_bytes)  # same checks as a program's

    def command(self) -> list[str]:
        """The compiler's command line: source on stdin, binary to ``BINARY_FD``."""
        return [
            self.compiler,
            f"-std={self.standard}",
            *self.flags,
            "-x",
            "c++",
            "-",
            "-o",
            f"/proc/self/fd/{BINARY_FD}",
        ]

    def limits(self) -> Limits:
        """The compiler's limits: the driver, cc1plus, the assembler and the linker together."""
        return Limits(
            timeout_s=self.timeout_s,
            memory_bytes=self.memory_bytes,
            output_bytes=64 * KiB,
            stderr_bytes=self.stderr_bytes,
            file_bytes=256 * MiB,
            processes=16,
        )
