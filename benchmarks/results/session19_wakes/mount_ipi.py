"""Does a fresh tmpfs per program (umount + mount) slow the programs on the other CPUs?

All CPUs but one run spinners that count loop turns for a few seconds, while the last process
either replaces two tmpfs mounts in a mount namespace of its own, in a loop (unmount then
mount, as the template does per program), or sleeps. Function-call interrupts (``CAL`` in
/proc/interrupts) are counted too. Run as root (session 19 ran it with ``python3 mount_ipi.py 4``
on the device and with 2 on the development VM; it is the same code as run, formatted).
"""

import ctypes
import multiprocessing as mp
import os
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS = 0x00020000
MS_REC_PRIVATE = 0x40000 | 0x4000
FOLDERS = (b"/tmp/ipi_a", b"/tmp/ipi_b")


def spin(seconds: float, out: mp.Queue) -> None:
    end = time.perf_counter() + seconds
    turns = 0
    while time.perf_counter() < end:
        for _ in range(1000):
            turns += 1
    out.put(turns)


def mounter(seconds: float, out: mp.Queue, on: bool) -> None:
    if not on:
        time.sleep(seconds)
        out.put(0)
        return
    assert libc.unshare(CLONE_NEWNS) == 0, ctypes.get_errno()
    libc.mount(b"none", b"/", None, MS_REC_PRIVATE, None)
    for folder in FOLDERS:
        os.makedirs(folder, exist_ok=True)
        libc.mount(b"tmpfs", folder, b"tmpfs", 0, b"size=1m")
    end = time.perf_counter() + seconds
    pairs = 0
    while time.perf_counter() < end:
        for folder in FOLDERS:
            if libc.umount2(folder, 0) != 0 or libc.mount(b"tmpfs", folder, b"tmpfs", 0, b"size=1m") != 0:
                out.put(-ctypes.get_errno())
                return
        pairs += 1
    out.put(pairs)


def function_call_interrupts() -> int:
    with open("/proc/interrupts") as table:
        for line in table:
            if line.strip().startswith("CAL:"):
                return sum(int(x) for x in line.split()[1:] if x.isdigit())
    return 0


def setting(path: str) -> str:
    if not os.path.exists(path):
        return "absent"
    with open(path) as value:
        return value.read().strip()


def phase(on: bool, seconds: float, cpus: int) -> tuple[int, int, int]:
    turns, pairs = mp.Queue(), mp.Queue()
    before = function_call_interrupts()
    spinners = [mp.Process(target=spin, args=(seconds, turns)) for _ in range(cpus - 1)]
    remounter = mp.Process(target=mounter, args=(seconds, pairs, on))
    for process in [*spinners, remounter]:
        process.start()
    total = sum(turns.get() for _ in spinners)
    replaced = pairs.get()
    for process in [*spinners, remounter]:
        process.join()
    return total, replaced, function_call_interrupts() - before


if __name__ == "__main__":
    cpus = len(os.sched_getaffinity(0))
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 4
    for path in ("/sys/kernel/rcu_expedited", "/sys/kernel/rcu_normal"):
        print(path, setting(path))
    for on in (False, True, False, True):
        total, replaced, calls = phase(on, seconds, cpus)
        print(
            f"remounting={on}: spinner turns {total / 1e6:.1f} M, tmpfs pairs replaced {replaced} "
            f"({replaced / seconds:.0f}/s), CAL interrupts {calls}",
            flush=True,
        )
