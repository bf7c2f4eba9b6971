"""Kernel costs per program that the bare-fork floor does not pay, as machine CPU (``/proc/stat``,
run it on an otherwise idle host) and wall time per operation, at 1 and 16 processes at once:

- ``fork``: fork and reap a child of a template-sized interpreter (numpy loaded), the child
  unsharing an IPC namespace of its own (``True``) or not (``False``);
- ``mount``: a worker's fresh tmpfs per program, two mounts and two unmounts (as root, in a
  mount namespace of its own).

    sudo python3 kcost.py
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import time

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWIPC, CLONE_NEWNS = 0x08000000, 0x00020000
MS_NOSUID, MS_NODEV, MS_PRIVATE, MS_REC = 2, 4, 1 << 18, 1 << 14


def busy() -> float:
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def fork_loop(n: int, unshare_ipc: bool) -> None:
    import numpy  # noqa: F401 - a template-sized parent

    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            if unshare_ipc and libc.unshare(CLONE_NEWIPC) != 0:
                os._exit(3)
            os._exit(0)
        os.waitpid(pid, 0)


def mount_loop(n: int, flags: int) -> None:
    assert libc.unshare(CLONE_NEWNS) == 0
    assert libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) == 0
    folders = [f"/tmp/kcost-{os.getpid()}/{sub}".encode() for sub in ("a", "b")]
    for folder in folders:
        os.makedirs(folder, exist_ok=True)
    for _ in range(n):
        for folder in folders:
            options = b"mode=0700,size=1048576"
            assert libc.mount(b"tmpfs", folder, b"tmpfs", MS_NOSUID | MS_NODEV, options) == 0
        for folder in folders:
            assert libc.umount2(folder, flags) == 0


def measure(kind: str, arg: object, procs: int, n: int) -> None:
    target = {"fork": fork_loop, "mount": mount_loop}[kind]
    started_busy, started = busy(), time.perf_counter()
    processes = [mp.Process(target=target, args=(n, arg)) for _ in range(procs)]
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    assert all(p.exitcode == 0 for p in processes), [p.exitcode for p in processes]
    wall, cpu = time.perf_counter() - started, busy() - started_busy
    print(
        f"{kind:5} {arg!s:5} procs={procs:2}: {cpu / (procs * n) * 1e6:7.1f} us machine CPU/op, "
        f"{wall / n * 1e6:7.1f} us wall/op per process",
        flush=True,
    )


if __name__ == "__main__":
    print(os.uname().release)
    for procs in (1, 16):
        for _ in range(2):
            measure("fork", False, procs, 1000)
            measure("fork", True, procs, 1000)
            measure("mount", 0, procs, 1000)
