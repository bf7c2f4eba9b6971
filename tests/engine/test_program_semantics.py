"""Programs behave as under ``python3 main.py``: a real ``__main__`` module, and forked children
that leave through ``sys.exit`` without disturbing their parent's results."""

from nemo_code_rl import Program, Verdict


def run_one(pool, source: str, stdin: str = ""):
    return pool.run(Program(source, [stdin]))[0]


def test_multiprocessing_pool_under_main_guard(pool):
    source = (
        "import multiprocessing\n"
        "def square(x):\n    return x * x\n"
        "if __name__ == '__main__':\n"
        "    with multiprocessing.Pool(2) as workers:\n"
        "        print(sum(workers.map(square, range(10))))\n"
    )
    result = run_one(pool, source)
    assert (result.verdict, result.stdout) == (Verdict.OK, "285\n"), result.stderr


def test_process_pool_executor_pickles_main_functions(pool):
    source = (
        "from concurrent.futures import ProcessPoolExecutor\nimport pickle, sys\n"
        "def double(x):\n    return 2 * x\n"
        "assert pickle.loads(pickle.dumps(double)) is double\n"
        "assert sys.modules['__main__'].double is double\n"
        "if __name__ == '__main__':\n"
        "    with ProcessPoolExecutor(2) as ex:\n        print(list(ex.map(double, [1, 2, 3])))\n"
    )
    result = run_one(pool, source)
    assert (result.verdict, result.stdout) == (Verdict.OK, "[2, 4, 6]\n"), result.stderr


def test_each_input_gets_a_fresh_main_module(pool):
    source = "import sys\nprint(hasattr(sys.modules['__main__'], 'seen'))\nseen = True\n"
    results = pool.run(Program(source, ["", "", ""]))
    assert [r.stdout for r in results] == ["False\n"] * 3


def test_a_forked_child_that_exits_never_returns_into_the_runner(pool):
    source = (
        "import os, sys\n"
        "line = input()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n    print('child', line)\n    sys.exit(0)\n"
        "os.waitpid(pid, 0)\nprint('parent', line)\n"
    )
    results = pool.run(Program(source, ["a", "b"]))
    assert [r.verdict for r in results] == [Verdict.OK, Verdict.OK]
    assert [sorted(r.stdout.splitlines()) for r in results] == [
        ["child a", "parent a"],
        ["child b", "parent b"],
    ]


def test_a_forked_child_falling_off_the_end_exits_with_the_program(pool):
    source = "import os\nif os.fork() == 0:\n    print('child')\nelse:\n    os.wait()\n    print('parent')\n"
    result = run_one(pool, source)
    assert (result.verdict, sorted(result.stdout.splitlines())) == (Verdict.OK, ["child", "parent"])
