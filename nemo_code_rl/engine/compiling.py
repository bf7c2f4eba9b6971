"""The supervisor's side of compiled languages: which binary a source gets, and the cache of them.

A worker's supervisor compiles each distinct (source, flags, compiler) once, in a sandboxed child
(see ``supervisor._compile``), and keeps the binary in a sealed memfd: no program can change
it, and a program receives a descriptor of its own binary only, closed when it execs. Failed
compiles are cached too, so the same wrong completion is not compiled again.

The workers of one ``ExecutionPool`` share what they compiled through the pool's binaries
folder, a private host folder (mode 0700) that each worker opens before it enters its minimal
root: programs never see it (it is not in their root, and no program holds its descriptor). A
worker that meets a source another one compiled copies the binary into a sealed memfd of its
own. The folder lives as long as the pool.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
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
    """The hash a binary is cached under: the source, the whole command line and the compiler, and
    the compiler's limits (a compile that failed for lack of time may pass with more)."""
    digest = hashlib.sha256()
    limits = f"{settings.timeout_s!r} {settings.memory_bytes} {settings.stderr_bytes}"
    for part in (compiler_identity(settings.compiler), limits, *settings.command(), source):
        digest.update(part.encode("utf-8", errors="surrogateescape") + b"\0")
    return digest.hexdigest()


def seal(fd: int) -> None:
    """Make a memfd immutable for good: nobody, the program it holds included, can change it."""
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)


def compile_error(result: dict, settings: CompileSettings) -> dict:
    """The result every input of a program that did not compile gets, from the compiler's run:
    ``compile_error``, or ``bad_input`` where the compiler itself could not start."""
    messages = result.get("stderr", "").strip().splitlines()
    first = "\n".join(messages[:ERROR_LINES])[:ERROR_CHARS]
    verdict = result["verdict"]
    if verdict == Verdict.TIMEOUT.value:
        error = f"compilation exceeded its time limit of {settings.timeout_s:g} s"
    elif verdict == Verdict.MEMORY_LIMIT.value:
        error = f"compilation exceeded its memory limit of {settings.memory_bytes / (1 << 20):g} MiB"
    elif result.get("error", "").startswith("sandbox set-up failed"):  # not the program's fault
        reason = result["error"].removeprefix("sandbox set-up failed: ")
        return {"verdict": Verdict.BAD_INPUT.value, "error": f"the compiler could not start: {reason}"}
    else:
        error = next((line for line in messages if "error" in line), messages[0] if messages else "")
        error = error[:500] or f"the compiler failed ({result.get('error') or verdict})"
    return {"verdict": Verdict.COMPILE_ERROR.value, "exit_code": 1, "error": error, "stderr": first}


def sealed_copy(data: bytes) -> int:
    """A sealed memfd holding ``data`` (a binary another worker compiled)."""
    fd = os.memfd_create("binary", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    seal(fd)
    return fd


class BinaryCache:
    """Compiled binaries (sealed memfds) or compile errors by ``cache_key``, least recently used out
    of memory; with ``folder`` (a descriptor of the pool's binaries folder), shared with the pool's
    other workers."""

    def __init__(self, folder: int | None = None, capacity: int = CACHE_ENTRIES) -> None:
        self.folder = folder
        self.capacity = capacity
        self._entries: OrderedDict[str, int | dict] = OrderedDict()

    def get(self, key: str) -> int | dict | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
            return entry
        entry = self._load(key)
        if entry is not None:
            self._remember(key, entry)
        return entry

    def put(self, key: str, entry: int | dict) -> None:
        self._remember(key, entry)
        if self.folder is None:
            return
        data = (
            json.dumps(entry).encode()
            if isinstance(entry, dict)
            else os.pread(entry, os.fstat(entry).st_size, 0)
        )
        name = key + (".error" if isinstance(entry, dict) else "")
        temporary = f".{name}.{os.getpid()}"
        # A folder that cannot take the file (full disk) only costs other workers a compile.
        with contextlib.suppress(OSError):
            fd = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600, dir_fd=self.folder
            )
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            os.rename(temporary, name, src_dir_fd=self.folder, dst_dir_fd=self.folder)

    def _load(self, key: str) -> int | dict | None:
        """What another worker of the pool compiled for ``key``, if anything."""
        if self.folder is None:
            return None
        for name in (key, key + ".error"):
            try:
                fd = os.open(name, os.O_RDONLY | os.O_CLOEXEC, dir_fd=self.folder)
            except FileNotFoundError:
                continue
            try:
                data = os.pread(fd, os.fstat(fd).st_size, 0)
            finally:
                os.close(fd)
            return json.loads(data) if name.endswith(".error") else sealed_copy(data)
        return None

    def _remember(self, key: str, entry: int | dict) -> None:
        self._entries[key] = entry
        while len(self._entries) > self.capacity:
            _, old = self._entries.popitem(last=False)
            if isinstance(old, int):
                os.close(old)
