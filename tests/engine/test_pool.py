"""Batch behaviour: order, spreading, worker loss and recovery, start-up checks."""

import dataclasses
import gc
import itertools
import os
import pickle
import platform
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref

import pytest

from nemo_code_rl import ExecutionPool, IsolationUnavailable, Limits, Program, Verdict
from nemo_code_rl.engine import PlannedProgram, collector_pause
from nemo_code_rl.engine import pool as pool_module
from nemo_code_rl.engine.pool import WorkerPool, quiet_chains
from nemo_code_rl.engine.results import ExecutionResult, result_from_fields
from tests.cancellation import check_cancelled_programs

from .conftest import TEST_LIMITS, kill_workers_later, leftovers_after_sweep
from .seccomp import UNSHARE_SYSCALL

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_batch_results_follow_input_order(pool):
    programs = [Program(f"print({i} * int(input()))", [str(j) for j in range(i % 4)]) for i in range(30)]
    results = pool.run_batch(programs)
    assert [len(r) for r in results] == [i % 4 for i in range(30)]
    for i, per_program in enumerate(results):
        assert [r.stdout for r in per_program] == [f"{i * j}\n" for j in range(i % 4)]


def test_results_carry_every_field_as_if_built_whole(pool):
    """Workers set only the fields that differ from their defaults: the results still compare,
    hash, pickle and serialise as objects built with every field."""
    ((ok, failed),) = pool.run_batch(
        [Program("import sys\nprint(input())\nsys.exit(int(input()))", ["a\n0", "b\n3"])]
    )
    for result in (ok, failed):
        whole = ExecutionResult(
            **{f.name: getattr(result, f.name) for f in dataclasses.fields(ExecutionResult)}
        )
        assert result == whole and hash(result) == hash(whole)
        assert pickle.loads(pickle.dumps(result)) == whole
        assert result.to_dict() == whole.to_dict()
    assert (ok.verdict, ok.exit_code, ok.stdout, ok.stderr, ok.error) == (Verdict.OK, 0, "a\n", "", "")
    assert (failed.verdict, failed.exit_code, failed.error) == (Verdict.RUNTIME_ERROR, 3, "exit status 3")
    with pytest.raises(TypeError, match="no fields"):
        result_from_fields({"verdict": "ok", "stdot": "typo"})


def test_progress_is_reported(pool):
    seen = []
    pool.run_batch(
        [Program("print(1)", [""]) for _ in range(5)], progress=lambda done, total: seen.append((done, total))
    )
    assert seen == [(i, 5) for i in range(1, 6)]


def test_each_program_is_handed_to_on_done_once_as_it_finishes(pool):
    programs = [Program(f"print({i} + int(input()))", [str(j) for j in range(i % 3)]) for i in range(12)]
    done = []
    progress = []

    def on_done(index, results):
        done.append((index, [r.stdout for r in results]))
        progress.append(len(done))

    results = pool.run_batch(programs, progress=lambda count, total: progress.append(-count), on_done=on_done)
    assert sorted(done) == [(i, [r.stdout for r in per_program]) for i, per_program in enumerate(results)]
    # each program reaches on_done before progress counts it
    assert progress == [x for n in range(1, 13) for x in (n, -n)]


@pytest.mark.parametrize("cpus_to_spare", [False, True], ids=["a worker per cpu", "cpus to spare"])
def test_reports_are_read_whether_or_not_the_pool_leaves_cpus_to_spare(cpus_to_spare):
    """With a worker per CPU, a supervisor reads a fast program's reports once, at its end; with
    CPUs to spare, as they come. Either way each input gets its own output, even past what a pipe
    holds before anything is read, and an endless input its own timeout."""
    cpus = len(os.sched_getaffinity(0))
    if cpus_to_spare and cpus < 2:
        pytest.skip("leaving a CPU to spare needs two")
    workers = cpus - 1 if cpus_to_spare else cpus
    assert quiet_chains(workers) is not cpus_to_spare
    source = "n = int(input())\nwhile n == 1:\n    pass\nprint('x' * n)\n"
    with ExecutionPool(workers=workers, limits=Limits(timeout_s=1)) as pool:
        results = pool.run(Program(source, ["300000", "2", "1", "5"]))
    assert [r.verdict for r in results] == [Verdict.OK, Verdict.OK, Verdict.TIMEOUT, Verdict.OK]
    assert [len(r.stdout) for r in results] == [300001, 3, 0, 6]


def test_a_worker_starts_its_next_program_while_on_done_runs():
    """The caller's callbacks cost no worker time: a worker that finished a program has its next
    one before ``on_done`` runs for the finished one (``score`` writes and flushes a row there)."""
    called = []

    def slow_on_done(index, results):
        if index == 0:
            called.append(time.time())
            time.sleep(2)

    clock = Program("import time; print(repr(time.time()))", [""])
    with ExecutionPool(workers=1, isolation="none") as one_worker:
        results = one_worker.run_batch([clock, clock], on_done=slow_on_done)
    started = float(results[1][0].stdout)
    assert called[0] <= started < called[0] + 2


def test_the_collector_is_paused_while_a_batch_routes():
    """No collection stops the routing process while workers wait for their next program; the
    garbage the batch made is collected once it is over."""
    assert gc.isenabled()
    seen = []

    def on_done(index, results):
        cycle = []
        cycle.append(cycle)
        seen.append((gc.isenabled(), weakref.ref(_Kept(cycle))))

    with ExecutionPool(workers=1, limits=TEST_LIMITS) as pool:
        pool.run_batch([Program("print(1)", [""]) for _ in range(3)], on_done=on_done)
    assert [enabled for enabled, _ in seen] == [False] * 3
    assert gc.isenabled()
    gc.collect()
    assert all(kept() is None for _, kept in seen)


class _Kept:
    """A cycle only the collector can free: it holds a list that holds itself, and the list it."""

    def __init__(self, cycle: list) -> None:
        self.cycle = cycle
        cycle.append(self)


def test_a_long_batch_still_collects_every_pause_max(monkeypatch, pool):
    """A server routing one batch after another still collects: every ``PAUSE_MAX_S`` a full
    collection runs between hand-outs."""
    monkeypatch.setattr(collector_pause, "PAUSE_MAX_S", 0.5)
    full = []

    def on_collection(phase, info):
        if phase == "stop" and info["generation"] == 2:
            full.append(time.monotonic())

    gc.callbacks.append(on_collection)
    try:
        started = time.monotonic()
        pool.run_batch([Program("import time; time.sleep(0.4)", [""]) for _ in range(8)])
        ended = time.monotonic()
    finally:
        gc.callbacks.remove(on_collection)
    assert [t for t in full if started < t < ended]


def test_a_slow_periodic_collection_waits_longer_before_the_next(monkeypatch, pool):
    """Periodic collections take at most ``PERIODIC_SHARE`` of the routing time, whatever the heap:
    after one that took ``t``, the next waits ``t / PERIODIC_SHARE`` (``PAUSE_MAX_S`` is 0 here, so
    only that wait spaces them; it would collect at every turn)."""
    monkeypatch.setattr(collector_pause, "PAUSE_MAX_S", 0.0)
    monkeypatch.setattr(collector_pause, "PERIODIC_SHARE", 0.2)
    heap = [[index] for index in range(200_000)]  # for a full collection to walk
    spans: list[list[float]] = []

    def on_collection(phase, info):
        if info["generation"] == 2 and not gc.isenabled():
            if phase == "start":
                spans.append([time.monotonic(), 0.0])
            else:
                spans[-1][1] = time.monotonic()

    def two_ended(_program: int) -> bool:  # how long that takes depends on this process's heap
        return len(spans) >= 2 and spans[1][1] > 0

    gc.callbacks.append(on_collection)
    try:
        pool.run_batch(
            [Program("import time; time.sleep(0.05)", [""]) for _ in range(400)], cancelled=two_ended
        )
    finally:
        gc.callbacks.remove(on_collection)
    assert len(heap) == 200_000 and len(spans) >= 2
    for (start, stop), (next_start, _) in itertools.pairwise(spans):
        assert next_start - stop >= 0.9 * (stop - start) / 0.2


def test_overlapping_batches_keep_the_collector_paused_until_the_last_ends(pool):
    """Two pools routing at once in two threads: the first to end leaves the collector paused for
    the other, and the last resumes it."""
    other_ended = threading.Event()
    paused_after_other = []

    def on_done(index, results):
        assert other_ended.wait(60)
        paused_after_other.append(not gc.isenabled())

    waiting = threading.Thread(
        target=pool.run_batch, args=([Program("print(1)", [""])],), kwargs={"on_done": on_done}
    )
    waiting.start()
    with ExecutionPool(workers=1, limits=TEST_LIMITS) as second:
        assert second.run(Program("print(2)", [""]))[0].stdout == "2\n"
    other_ended.set()
    waiting.join()
    assert paused_after_other == [True]
    assert gc.isenabled()


def test_a_collector_turned_off_before_the_batch_stays_off(pool):
    gc.disable()
    try:
        assert pool.run(Program("print(1)", [""]))[0].stdout == "1\n"
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_planned_programs_are_built_in_hand_out_order_while_the_first_ones_run(pool):
    """A ``PlannedProgram`` is built only as its turn comes: the longest first, and ahead of that
    while the workers run the first programs, not when a worker asks for its next one."""
    built_at = {}

    def plan(index, inputs):
        def build():
            built_at[index] = time.time()
            return Program(f"print({index}, input())", [str(i) for i in range(inputs)])

        return PlannedProgram(inputs, build)

    slow = Program("import time; time.sleep(1); print(repr(time.time()))", [""])
    programs = [slow, plan(1, 1), plan(2, 1), plan(3, 2), slow, plan(5, 1)]
    results = pool.run_batch(programs)
    first_ended = min(float(results[i][0].stdout) for i in (0, 4))
    assert list(built_at) == [3, 1, 2, 5]  # hand-out order: the two-input program first
    assert max(built_at.values()) < first_ended
    assert [[r.stdout for r in per_program] for per_program in results[1:4]] == [
        ["1 0\n"],
        ["2 0\n"],
        ["3 0\n", "3 1\n"],
    ]


def test_a_plan_that_builds_another_number_of_inputs_stops_the_batch(pool):
    planned = PlannedProgram(2, lambda: Program("print(input())", ["only one"]))
    with pytest.raises(ValueError, match=r"a PlannedProgram of 2 input\(s\) built 1 input\(s\)"):
        pool.run_batch([Program("print(1)", [""]), planned])
    assert pool.run(Program("print(input())", ["after"]))[0].stdout == "after\n"


def test_a_batch_stopped_by_its_callers_error_leaves_no_result_for_the_next(pool):
    """An exception from ``on_done`` ends the batch; the worker still running one of its programs
    is replaced (that program's result must never be taken for one of the next batch), and the
    program leaves no process behind."""
    workers = pool.worker_pids

    def on_done(index, results):
        raise RuntimeError("the caller's bug")

    slow = Program("import time; time.sleep(2); print('from the failed batch')", [""])
    with pytest.raises(RuntimeError, match="the caller's bug"):
        pool.run_batch([slow, Program("print('quick')", [""])], on_done=on_done)
    assert len(set(pool.worker_pids) - set(workers)) == 1
    after = pool.run_batch([Program(f"print({i})", [""]) for i in range(2)])
    assert [r[0].stdout for r in after] == ["0\n", "1\n"]
    assert leftovers_after_sweep(pool) == []


def test_cancelled_programs_stop_mid_input_or_never_start(pool):
    """The caller's ``cancelled`` check stops a program while it runs (not at the end of an input):
    its worker is kept (never replaced) and no process of the program is left."""
    workers = pool.worker_pids
    check_cancelled_programs(pool)
    assert pool.worker_pids == workers
    assert leftovers_after_sweep(pool) == []
    assert pool.run(Program("print(input())", ["after"]))[0].stdout == "after\n"


def _pool_with_a_stalled_start(workers: int = 2) -> tuple[WorkerPool, list]:
    """A worker-process pool whose worker 1 is stopped before its start-up report (at its first
    start only): a worker that takes as long as one likes to start."""
    spawner = pool_module._ProcessSpawner("none", (), (), pool_module.sandbox_uid_base(None), None, False)
    stalled = []

    def spawn(index: int):
        worker = spawner(index)
        if index == 1 and not stalled:
            os.kill(worker.pid, signal.SIGSTOP)
            stalled.append(worker)
        return worker

    return WorkerPool(spawn, workers, TEST_LIMITS, False, "none", spawner.uid_base), stalled


def test_the_pool_is_ready_with_its_first_worker_and_the_others_join_as_they_start():
    pool, [stalled] = _pool_with_a_stalled_start()
    with pool:
        assert stalled.report is None and pool.isolation == "none"
        results = pool.run_batch([Program("print(input())", [str(i)]) for i in range(4)])
        assert [r[0].stdout for r in results] == ["0\n", "1\n", "2\n", "3\n"]
        assert stalled.report is None and stalled in pool.handles
        os.kill(stalled.pid, signal.SIGCONT)
        deadline = time.monotonic() + 30
        while stalled.report is None and time.monotonic() < deadline:
            pool.run_batch([Program("import time\ntime.sleep(0.05)", [""]) for _ in range(4)])
        assert stalled.report is not None and stalled.report["ok"]
        assert [r[0].stdout for r in pool.run_batch([Program("print(7)", [""])] * 4)] == ["7\n"] * 4


def test_a_pool_closed_while_a_worker_starts_leaves_it_to_exit_quietly(capfd):
    pool, [stalled] = _pool_with_a_stalled_start()
    threading.Timer(0.5, os.kill, (stalled.pid, signal.SIGCONT)).start()  # once its pipes are closed
    pool.close()
    assert stalled.exit_status() == 0
    assert "Traceback" not in capfd.readouterr().err


def test_a_worker_that_does_not_start_in_time_is_replaced(monkeypatch):
    monkeypatch.setattr(pool_module, "_START_TIMEOUT_S", 1.0)
    pool, [stalled] = _pool_with_a_stalled_start()
    with pool:
        results = pool.run_batch([Program("import time\ntime.sleep(0.3)\nprint(1)", [""]) for _ in range(6)])
        assert [r[0].stdout for r in results] == ["1\n"] * 6
        assert stalled not in pool.handles and stalled.exit_status() is not None
        assert all(worker.report is not None for worker in pool.handles)


def test_a_killed_worker_is_replaced_and_its_program_retried():
    with ExecutionPool(workers=1) as pool:
        before = pool.worker_pids
        killer = kill_workers_later(pool, rounds=1)
        result = pool.run(
            Program(
                "import time\nfirst = not __import__('os').path.exists('seen')\ntime.sleep(1.5)\nprint('done')",
                [""],
            )
        )[0]
        killer.join()
        assert result.verdict is Verdict.OK and result.stdout == "done\n"
        assert pool.worker_pids != before
        assert pool.run(Program("print(2)", [""]))[0].stdout == "2\n"


def test_a_program_whose_worker_dies_twice_is_worker_lost():
    with ExecutionPool(workers=1) as pool:
        killer = kill_workers_later(pool, rounds=2, delay=0.8)
        done = []
        [results] = pool.run_batch(
            [Program("import time\ntime.sleep(2)\nprint('x')", ["", ""])],
            on_done=lambda index, outcome: done.append((index, outcome)),
        )
        killer.join()
        assert [r.verdict for r in results] == [Verdict.WORKER_LOST] * 2
        assert done == [(0, results)]
        assert "worker lost" in results[0].error
        assert pool.run(Program("print(3)", [""]))[0].stdout == "3\n"


def test_closing_the_pool_ends_every_worker():
    pool = ExecutionPool(workers=2)
    pids = pool.worker_pids
    pool.close()
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    with pytest.raises(RuntimeError, match="closed"):
        pool.run(Program("print(1)", [""]))


def test_isolation_none_runs_programs_without_namespaces():
    with ExecutionPool(workers=1, isolation="none") as pool:
        assert pool.isolation == "none"
        result = pool.run(Program("print(input())", ["plain"]))[0]
        assert result.stdout == "plain\n"
        assert (
            pool.run(Program("while True: pass", [""], limits=pool.limits.with_overrides(timeout_s=1)))[
                0
            ].verdict
            is Verdict.TIMEOUT
        )


def _run_child(code: str, *argv: str, user: str | None = None, python: str = sys.executable) -> str:
    command = [python, "-c", code, REPO_ROOT, *argv]
    if user is not None:
        command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd="/")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_refuses_to_start_when_the_host_forbids_namespaces():
    """Under a seccomp policy that denies unshare (as Docker's default does), full isolation is refused."""
    if platform.machine() not in UNSHARE_SYSCALL:
        pytest.skip(f"no unshare syscall number known for {platform.machine()}")
    code = (
        "import sys\nsys.path.insert(0, sys.argv[1])\n"
        "from tests.engine.seccomp import deny_syscall\ndeny_syscall(int(sys.argv[2]))\n"
        "from nemo_code_rl import ExecutionPool, IsolationUnavailable, Program\n"
        "try:\n    ExecutionPool(workers=1)\nexcept IsolationUnavailable as exc:\n    print('refused:', exc)\n"
        "with ExecutionPool(workers=1, isolation='none') as pool:\n"
        "    print('lowered:', pool.run(Program('print(6 * 7)', ['']))[0].stdout.strip())\n"
    )
    out = _run_child(code, str(UNSHARE_SYSCALL[platform.machine()]))
    assert "refused: isolation set-up failed at 'mount/network/IPC/UTS namespaces'" in out
    assert "isolation='none'" in out
    assert "lowered: 42" in out


def test_namespace_isolation_without_root_through_a_user_namespace():
    """Without root no cgroup can be made: ``full`` says so at start-up, ``namespaces`` runs."""
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None or shutil.which("setpriv") is None:
        pytest.skip("needs a system python3 and setpriv to run as an unprivileged user")
    probe = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "test",
        "-r",
        f"{REPO_ROOT}/nemo_code_rl/__init__.py",
    ]
    if subprocess.run(probe).returncode != 0:
        pytest.skip(f"uid 65534 cannot read the checkout at {REPO_ROOT}")
    code = (
        "import sys\nsys.path.insert(0, sys.argv[1])\nfrom nemo_code_rl import ExecutionPool, Program\n"
        'probe = (\'import os\\nst = dict(l.split(":", 1) for l in open("/proc/self/status"))\\n\'\n'
        '         \'print(st["CapEff"].strip(), st["NoNewPrivs"].strip())\\n\'\n'
        '         \'try:\\n    open("/usr/escape", "w")\\nexcept OSError:\\n    print("read-only")\')\n'
        "from nemo_code_rl.engine.sandbox import IsolationUnavailable\n"
        "try:\n    ExecutionPool(workers=1, preload=('math',))\n"
        "except IsolationUnavailable as exc:\n    print('refused:', exc)\n"
        "with ExecutionPool(workers=1, preload=('math',), isolation='namespaces') as pool:\n"
        "    print(pool.isolation, pool.isolation_report['identity'])\n"
        "    print(pool.run(Program(probe, ['']))[0].stdout)\n"
    )
    out = _run_child(code, user="65534", python=python)
    refusal, *lines = out.splitlines()
    assert refusal.startswith("refused: cannot create a cgroup") and "isolation='namespaces'" in refusal
    assert lines[:3] == [
        "namespaces user namespace, all capabilities dropped",
        "0000000000000000 1",
        "read-only",
    ]


def test_invalid_configuration_is_rejected():
    with pytest.raises(ValueError, match="isolation"):
        ExecutionPool(workers=1, isolation="partial")
    with pytest.raises(ValueError, match="workers"):
        ExecutionPool(workers=0)
    with pytest.raises(TypeError, match="inputs"):
        Program("print(1)", "not a list")


def test_isolation_unavailable_is_exported():
    assert issubclass(IsolationUnavailable, RuntimeError)
