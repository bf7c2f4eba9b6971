"""One test per verdict, through the public API and real sandboxed processes."""

import pytest

from nemo_code_rl import Limits, Program, Verdict


def run_one(pool, source, stdin="", **limits):
    program = Program(source, [stdin], limits=pool.limits.with_overrides(**limits) if limits else None)
    return pool.run(program)[0]


def test_ok_captures_stdout_and_stderr(pool):
    result = run_one(pool, "import sys\nprint(input()[::-1])\nprint('note', file=sys.stderr)", "abc\n")
    assert result.verdict is Verdict.OK
    assert result.exit_code == 0
    assert result.stdout == "cba\n"
    assert result.stderr == "note\n"
    assert result.wall_s > 0 and result.peak_memory_bytes > 0


def test_runtime_error_reports_the_exception_last_line_and_traceback(pool):
    result = run_one(pool, "def f(x):\n    return 1 // x\nf(0)")
    assert result.verdict is Verdict.RUNTIME_ERROR
    assert result.exit_code == 1
    assert result.error == "ZeroDivisionError: integer division or modulo by zero"
    assert 'File "main.py", line 2, in f' in result.stderr
    assert "return 1 // x" in result.stderr


def test_an_error_message_of_any_text_reaches_the_verdict(pool):
    """The child's report ends with the error as free text: spaces, digits, non-ASCII and a lone
    surrogate (which no codec encodes as is) neither break it nor make it a violation."""
    results = pool.run(
        Program("raise ValueError('ok 0 1.0 2 3.0 héllo ' + chr(0xDCFF) + input())", ["x", "y"])
    )
    assert [r.verdict for r in results] == [Verdict.RUNTIME_ERROR] * 2
    assert [r.error for r in results] == [f"ValueError: ok 0 1.0 2 3.0 héllo \\udcff{s}" for s in "xy"]


def test_sys_exit_status_is_the_exit_code(pool):
    failing = run_one(pool, "import sys\nprint('partial')\nsys.exit(3)")
    assert (failing.verdict, failing.exit_code, failing.stdout) == (Verdict.RUNTIME_ERROR, 3, "partial\n")
    clean = run_one(pool, "import sys\nprint('done')\nsys.exit(0)")
    assert (clean.verdict, clean.exit_code, clean.stdout) == (Verdict.OK, 0, "done\n")


def test_os_exit_ends_the_input_like_a_real_interpreter(pool):
    result = run_one(pool, "import os, sys\nprint('flushed', flush=True)\nprint('lost')\nos._exit(4)")
    assert result.verdict is Verdict.RUNTIME_ERROR
    assert result.exit_code == 4
    assert result.stdout == "flushed\n"


def test_timeout_is_enforced_from_outside(pool):
    result = run_one(
        pool, "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True: pass", timeout_s=1
    )
    assert result.verdict is Verdict.TIMEOUT
    assert result.signal == "SIGKILL"
    assert 1.0 <= result.wall_s < 2.5


def test_sleeping_program_times_out(pool):
    result = run_one(pool, "import time\nprint('started', flush=True)\ntime.sleep(60)", timeout_s=1)
    assert result.verdict is Verdict.TIMEOUT
    assert result.stdout == "started\n"


def test_memory_limit(pool):
    result = run_one(pool, "blob = bytearray(2 * 1024**3)")
    assert result.verdict is Verdict.MEMORY_LIMIT
    assert result.error.startswith("MemoryError")


def test_output_limit_keeps_the_cap_and_reports_the_rest(pool):
    result = run_one(pool, "import sys\nsys.stdout.write('y' * 200_000)", output_bytes=10_000)
    assert result.verdict is Verdict.OUTPUT_LIMIT
    assert result.stdout == "y" * 10_000
    assert result.stdout_dropped == 190_000


def test_endless_output_is_stopped(pool):
    result = run_one(pool, "while True: print('spam' * 100)", output_bytes=10_000, timeout_s=3)
    assert result.verdict is Verdict.OUTPUT_LIMIT
    assert result.wall_s < 2
    assert len(result.stdout) == 10_000


def test_signal_verdict_names_the_signal(pool):
    result = run_one(pool, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
    assert result.verdict is Verdict.SIGNAL
    assert result.signal == "SIGSEGV"
    assert result.exit_code is None


def test_syntax_error_for_every_input_without_running(pool):
    results = pool.run(Program("print('never')\ndef broken(:\n", ["1", "2", "3"]))
    assert [r.verdict for r in results] == [Verdict.SYNTAX_ERROR] * 3
    assert all(r.stdout == "" and r.error.startswith("SyntaxError") for r in results)


def test_null_bytes_in_source_are_a_syntax_error(pool):
    assert pool.run(Program("print(1)\x00", [""]))[0].verdict is Verdict.SYNTAX_ERROR


def test_cpu_limit(pool):
    # The wall limit is far above the CPU limit, so that on a busy machine, where the loop gets a
    # small share of a core, the CPU limit still comes first (a normal run takes 1-2 s).
    result = run_one(pool, "while True: pass", timeout_s=60, cpu_s=1)
    assert result.verdict is Verdict.TIMEOUT
    assert result.signal == "SIGXCPU"
    # The CPU limit (1 s, rounded up to whole seconds), not the wall clock, ended it: CPU time is
    # what the limit counts, so this holds however busy the machine is.
    assert 1 <= result.cpu_s < 3


def test_file_size_limit(pool):
    result = run_one(pool, "open('big.bin', 'wb').write(b'x' * (8 * 1024 * 1024))")
    assert result.verdict is Verdict.RUNTIME_ERROR
    assert "File too large" in result.error


def test_process_limit_stops_a_fork_bomb(pool):
    source = (
        "import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n"
        "            time.sleep(30)\n            os._exit(0)\n        n += 1\n"
        "except OSError as exc:\n    print('stopped', n, exc.errno)"
    )
    result = run_one(pool, source, processes=16)
    assert result.verdict is Verdict.OK
    stopped, count, errno = result.stdout.split()
    assert stopped == "stopped" and int(count) < 16 and errno == "11"


def test_limits_reject_nonsense():
    import pytest

    with pytest.raises(ValueError, match="timeout_s"):
        Limits(timeout_s=0)
    with pytest.raises(ValueError, match="unknown limit"):
        Limits().with_overrides(timeout=3)


def test_writing_to_the_control_channel_is_the_programs_fault_not_a_lost_worker(pool):
    hijack = (
        "import os, socket, stat\n"
        "for name in os.listdir('/proc/self/fd'):\n"
        "    fd = int(name)\n"
        "    try:\n"
        "        if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
        '            socket.socket(fileno=os.dup(fd)).send(b\'E 0 {"status": "ok"}\')\n'
        "    except OSError:\n"
        "        pass\n"
        "print(input())\n"
    )
    results = pool.run(Program(hijack, ["1", "2", "3"]))
    assert [r.verdict for r in results] == [Verdict.SANDBOX_VIOLATION, Verdict.NOT_RUN, Verdict.NOT_RUN]
    assert "control channel" in results[0].error
    assert pool.run(Program("print(5)", [""]))[0].stdout == "5\n"


@pytest.mark.parametrize("strict", [False, True])
def test_stop_after_timeout_leaves_the_rest_not_run(pool, strict):
    """With ``stop_after_timeout`` the inputs after the first timeout are never run (an endless
    loop costs one limit); without it every input runs."""
    source = "n = int(input())\nwhile n == 1:\n    pass\nprint(n)"
    inputs = ["0\n", "1\n", "2\n", "3\n"]
    limits = Limits(timeout_s=0.5, stop_after_timeout=True)
    stopped = pool.run(Program(source, inputs, limits=limits, strict=strict))
    assert [r.verdict for r in stopped] == [Verdict.OK, Verdict.TIMEOUT, Verdict.NOT_RUN, Verdict.NOT_RUN]
    assert stopped[2].error == "not run: an earlier input timed out" and stopped[2].wall_s == 0.0
    every = pool.run(Program(source, inputs, limits=Limits(timeout_s=0.5), strict=strict))
    assert [r.verdict for r in every] == [Verdict.OK, Verdict.TIMEOUT, Verdict.OK, Verdict.OK]


def test_wall_backstop_makes_the_limit_count_cpu_time(pool):
    """With ``wall_backstop_s`` the limit counts CPU time: a program that used little CPU (here it
    sleeps, as one waiting for a busy machine's CPU would) runs on up to the backstop; a busy loop
    and a program that outlasts the backstop time out."""
    limits = Limits(timeout_s=0.5, wall_backstop_s=4)
    source = "import time\ntime.sleep(float(input()))\nprint('done')"
    waited, stuck = pool.run(Program(source, ["1.0\n", "30\n"], limits=limits))
    assert waited.verdict is Verdict.OK and waited.stdout == "done\n"
    assert stuck.verdict is Verdict.TIMEOUT and "backstop of 4 s" in stuck.error
    assert pool.run(Program(source, ["1.0\n"], limits=Limits(timeout_s=0.5)))[0].verdict is Verdict.TIMEOUT
    assert pool.run(Program("while True:\n    pass", [""], limits=limits))[0].verdict is Verdict.TIMEOUT
    with pytest.raises(ValueError, match="wall_backstop_s must be at least timeout_s"):
        Limits(timeout_s=2, wall_backstop_s=1)
