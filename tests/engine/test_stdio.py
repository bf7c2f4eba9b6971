"""Every common way of reading stdin works, each input sees only its own data and fresh globals."""

import pytest

from nemo_code_rl import Program, Verdict

STYLES = {
    "input": "a, b = map(int, input().split())\nprint(a + b)",
    "readline": "import sys\na, b = map(int, sys.stdin.readline().split())\nprint(a + b)",
    "iterate": "import sys\nfor line in sys.stdin:\n    print(sum(map(int, line.split())))",
    "buffer": "import sys\nprint(sum(map(int, sys.stdin.buffer.read().split())))",
    "open0": "print(sum(map(int, open(0).read().split())))",
    "os_read": "import os\nprint(sum(map(int, os.read(0, 100).split())))",
    "main_guard": "def main():\n    print(sum(map(int, input().split())))\n\nif __name__ == '__main__':\n    main()",
    "fast_io": "import sys\ninput = sys.stdin.readline\nout = []\nout.append(str(sum(map(int, input().split()))))\nsys.stdout.write('\\n'.join(out) + '\\n')",
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_stdin_styles(pool, style):
    results = pool.run(Program(STYLES[style], ["1 2\n", "30 40\n", "-5 5\n"]))
    assert [r.verdict for r in results] == [Verdict.OK] * 3
    assert [r.stdout for r in results] == ["3\n", "70\n", "0\n"]


def test_threading_stack_size_and_deep_recursion(pool):
    source = (
        "import sys, threading\nsys.setrecursionlimit(1 << 20)\nthreading.stack_size(1 << 26)\n"
        "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n"
        "def main():\n    print(depth(int(input())))\nthreading.Thread(target=main).start()"
    )
    results = pool.run(Program(source, ["100000", "5"]))
    assert [r.stdout for r in results] == ["100000\n", "5\n"]


def test_globals_are_fresh_for_each_input(pool):
    source = "try:\n    seen\nexcept NameError:\n    seen = 0\nseen += 1\nprint(seen, __name__)"
    results = pool.run(Program(source, ["", "", ""]))
    assert [r.stdout for r in results] == ["1 __main__\n"] * 3


def test_each_input_gets_only_its_own_output(pool):
    source = "import sys\nx = input()\nprint('out', x)\nprint('err', x, file=sys.stderr)\nraise SystemExit(int(x) % 2)"
    results = pool.run(Program(source, [str(i) for i in range(8)]))
    assert [r.stdout for r in results] == [f"out {i}\n" for i in range(8)]
    assert [r.stderr for r in results] == [f"err {i}\n" for i in range(8)]
    assert [r.exit_code for r in results] == [i % 2 for i in range(8)]


def test_a_crash_hands_the_remaining_inputs_to_a_new_child(pool):
    source = (
        "import os\nx = int(input())\nif x == 1:\n    os._exit(9)\nif x == 3:\n    os.abort()\nprint(x * 10)"
    )
    results = pool.run(Program(source, ["0", "1", "2", "3", "4"]))
    assert [r.verdict for r in results] == [
        Verdict.OK,
        Verdict.RUNTIME_ERROR,
        Verdict.OK,
        Verdict.SIGNAL,
        Verdict.OK,
    ]
    assert [r.stdout for r in results] == ["0\n", "", "20\n", "", "40\n"]
    assert results[3].signal == "SIGABRT"


def test_a_timeout_does_not_cost_the_other_inputs(pool):
    source = "import time\nx = int(input())\nif x == 1:\n    time.sleep(60)\nprint(x)"
    results = pool.run(Program(source, ["0", "1", "2"], limits=pool.limits.with_overrides(timeout_s=1)))
    assert [r.verdict for r in results] == [Verdict.OK, Verdict.TIMEOUT, Verdict.OK]
    assert results[2].stdout == "2\n"


def test_peak_memory_is_a_running_high_water_mark(pool):
    source = "x = int(input())\nblob = bytearray(x * 1024 * 1024)\nblob[::4096] = b'1' * len(blob[::4096])\nprint(len(blob))"
    results = pool.run(Program(source, ["200", "1"]))
    assert [r.verdict for r in results] == [Verdict.OK, Verdict.OK]
    assert results[0].peak_memory_bytes > 200 * 1024 * 1024
    assert results[1].peak_memory_bytes >= results[0].peak_memory_bytes


def test_strict_mode_isolates_inputs(pool):
    source = "import os\nprint(os.path.exists('marker'))\nopen('marker', 'w').write('x')"
    shared = pool.run(Program(source, ["", ""]))
    strict = pool.run(Program(source, ["", ""], strict=True))
    assert [r.stdout for r in shared] == ["False\n", "True\n"]
    assert [r.stdout for r in strict] == ["False\n", "False\n"]


def test_bytes_and_unicode_inputs(pool):
    results = pool.run(Program("print(input().upper())", ["héllo", "naïve".encode()]))
    assert [r.stdout for r in results] == ["HÉLLO\n", "NAÏVE\n"]


def test_big_input_and_output(pool):
    data = "\n".join(str(i) for i in range(200_000)) + "\n"
    result = pool.run(Program("import sys\nprint(sum(map(int, sys.stdin.buffer.read().split())))", [data]))[0]
    assert result.stdout == f"{sum(range(200_000))}\n"


def test_private_inputs_are_not_in_memory_before_their_turn(pool):
    probe = (
        "import gc, re, sys, zlib\nsecret = sys.stdin.read().strip()\n"
        "pattern = re.compile('TOP' + 'SECRET([0-9])')\n"
        "def later(value):\n"
        "    text = value.decode('latin-1') if isinstance(value, bytes) else value\n"
        "    return [m for m in pattern.findall(text) if int(m) > int(secret[9])]\n"
        "def strings(container):\n"
        "    items = container.values() if isinstance(container, dict) else container\n"
        "    return [v for v in items if isinstance(v, (str, bytes))]\n"
        "found = 0\nfor obj in gc.get_objects():\n"
        "    if isinstance(obj, (dict, list, tuple)):\n"
        "        found += sum(len(later(v)) for v in strings(obj))\n"
        "f = sys._getframe()\nwhile f:\n    found += len(later(repr(f.f_locals)))\n    f = f.f_back\n"
        "print(zlib.crc32(secret.encode()), found)"
    )
    inputs = [f"TOPSECRET{i}-{'x' * 600}" for i in range(3)]
    import zlib

    results = pool.run(Program(probe, inputs, private=True))
    assert [r.stdout.split() for r in results] == [[str(zlib.crc32(i.encode())), "0"] for i in inputs]
    shared = pool.run(Program(probe, inputs))
    assert shared[0].stdout.split()[1] != "0", "the probe does find later inputs when they are not private"


def test_private_inputs_run_in_one_child_unless_strict(pool):
    probe = "import os, sys\nsys.stdin.read()\nprint(os.getpid())"
    shared = pool.run(Program(probe, ["a", "b", "c"], private=True))
    strict = pool.run(Program(probe, ["a", "b", "c"], private=True, strict=True))
    assert len({r.stdout for r in shared}) == 1
    assert len({r.stdout for r in strict}) == 3


def test_stop_when_skips_the_remaining_inputs(pool):
    source = "import time\nx = int(input())\ntime.sleep(0.05)\nprint(x)"
    programs = [Program(source, [str(i) for i in range(20)]), Program(source, ["7", "8"])]
    results = pool.run_batch(
        programs, stop_when=lambda program, index, result: program == 0 and result.stdout == "2\n"
    )
    first = [r.verdict for r in results[0]]
    assert first[:3] == [Verdict.OK] * 3
    assert Verdict.NOT_RUN in first and first.count(Verdict.NOT_RUN) >= 10
    assert [r.stdout for r in results[1]] == ["7\n", "8\n"]
    assert pool.run(Program("print(input())", ["after"]))[0].stdout == "after\n"
