"""The worker's view of the host's /proc, kept from before the sandbox replaced it: where the
supervisor reads the CPU time of each program's process (CPU-time limits).

A module of its own so that the worker can open it before isolating itself without importing
the supervisor, which it imports only after forking its template (see ``worker``).
"""

from __future__ import annotations

import os

CPU_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")
_HOST_PROC: list[int] = []


def open_host_proc() -> None:
    """Keep a descriptor of this process's /proc before the sandbox replaces the view of it: the
    PID-namespace init mounts a proc of its own, where this process (outside that namespace)
    cannot read its own ``fdinfo``. Without it, time limits stay wall-clock ones."""
    try:
        _HOST_PROC[:] = [os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
    except OSError:
        _HOST_PROC.clear()


def cpu_seconds(pidfd: int) -> float | None:
    """CPU seconds the process behind ``pidfd`` and its reaped children have used, from /proc;
    ``None`` where /proc does not show it (the limit then stays a wall-clock one)."""
    if not _HOST_PROC:
        return None
    try:
        with open(f"self/fdinfo/{pidfd}", opener=_at_proc) as info:
            pid = next(int(line.split()[1]) for line in info if line.startswith("Pid:"))
        if pid <= 0:
            return None
        with open(f"{pid}/stat", opener=_at_proc) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    return sum(int(value) for value in fields[11:15]) * CPU_TICK_S


def _at_proc(path: str, flags: int) -> int:
    return os.open(path, flags, dir_fd=_HOST_PROC[0])
