"""The supervisor's side of compiled languages: which binary a source gets, and the cache of them.

A worker's supervisor compiles each distinct (source, flags, compiler) once, in a sandboxed child
(see ``supervisor._compile``), and keeps the binary in a sealed memfd: it lives in the
supervisor's memory only, never in a file system, so no program can find, read or replace it;
a program receives a descriptor of its own binary only, closed when it execs. Failed compiles
are cached too, so the same wrong completion is not compiled again.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shutil
from collections import OrderedDict

from nemo_code_rl.engine.languages import CompileSettings
from nemo_code_rl.outcomes import Verdict

# Binaries kept per worker (tens of KiB each for typical solutions); the least recently used go.
CACHE_ENTRIES = 512
# Of a failed compile, the compiler's first lines are kept: the first error is what feedback needs.
ERROR_LINES = 12
ERROR_CHARS = 2000
_SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL


@functools.lru_cache(maxsize=8)
def compiler_identity(compiler: str) -> str:
    """What names the compiler in a cache key: its real path, size and modification time."""
    found = shutil.which(compiler)
    if found is None:
        return f"{compiler} (not found)"
    real = os.path.realpath(found)
    info = os.stat(real)
    return f"{real}:{info.st_size}:{info.st_mtime_ns}"


def cache_key(source: str, settings: CompileSettings) -> str:
    """The hash a binary is cached under: the source, the whole command line and the compiler."""
    digest = hashlib.sha256()
    for part in (compiler_identity(settings.compiler), *settings.command(), source):
        digest.update(part.encode("utf-8", errors="surrogateescape") + b"\0")
    return digest.hexdigest()


def seal(fd: int) -> None:
    """Make a memfd immutable for good: nobody, the program it holds included, can change it."""
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)


def compile_error(result: dict, settings: CompileSettings) -> dict:
    """The result every input of a program that did not compile gets, from the compiler's run."""
    messages = result.get("stderr", "").strip().splitlines()
    first = "\n".join(messages[:ERROR_LINES])[:ERROR_CHARS]
    verdict = result["verdict"]
    if verdict == Verdict.TIMEOUT.value:
        error = f"compilation exceeded its time limit of {settings.timeout_s:g} s"
    elif verdict == Verdict.MEMORY_LIMIT.value:
        error = f"compilation exceeded its memory limit of {settings.memory_bytes / (1 << 20):g} MiB"
    elif result.get("error", "").startswith("sandbox set-up failed"):
        error = f"the compiler could not start: {result['error']}"
    else:
        error = next((line for line in messages if "error" in line), messages[0] if messages else "")
        error = error[:500] or f"the compiler failed ({result.get('error') or verdict})"
    return {"verdict": Verdict.COMPILE_ERROR.value, "exit_code": 1, "error": error, "stderr": first}


class BinaryCache:
    """Compiled binaries (sealed memfds) or compile errors by ``cache_key``, least recently used out."""

    def __init__(self, capacity: int = CACHE_ENTRIES) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, int | dict] = OrderedDict()

    def get(self, key: str) -> int | dict | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: str, entry: int | dict) -> None:
        self._entries[key] = entry
        while len(self._entries) > self.capacity:
            _, old = self._entries.popitem(last=False)
            if isinstance(old, int):
                os.close(old)
