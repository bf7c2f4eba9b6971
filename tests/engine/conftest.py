import contextlib
import os
import signal
import threading
import time

import pytest

from nemo_code_rl import ExecutionPool, Limits

TEST_LIMITS = Limits(
    timeout_s=3, memory_bytes=768 * 1024**2, output_bytes=64 * 1024, file_bytes=4 * 1024**2, processes=24
)


@pytest.fixture(scope="package")
def pool():
    with ExecutionPool(workers=2, limits=TEST_LIMITS) as engine:
        yield engine


def processes_with_uids(uids: range) -> list[int]:
    """Host processes running as any of ``uids``: leftovers of sandboxed programs."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as handle:
                uid_line = next(line for line in handle if line.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        if int(uid_line.split()[1]) in uids:
            found.append(int(name))
    return found


def leftovers_after_sweep(pool: ExecutionPool) -> list[int]:
    """The processes ``pool``'s programs left, once the template's sweep has had 30 s (a
    generous bound, not a timing) to end them."""
    deadline = time.monotonic() + 30
    while processes_with_uids(pool.sandbox_uids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return processes_with_uids(pool.sandbox_uids)


def kill_workers_later(pool: ExecutionPool, rounds: int, delay: float = 0.6) -> threading.Thread:
    """Kill every worker of ``pool`` ``rounds`` times, ``delay`` seconds apart, from a thread:
    a worker lost mid-batch, as an OOM kill would leave it."""

    def killer() -> None:
        for _ in range(rounds):
            time.sleep(delay)
            for pid in pool.worker_pids:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)

    thread = threading.Thread(target=killer)
    thread.start()
    return thread
