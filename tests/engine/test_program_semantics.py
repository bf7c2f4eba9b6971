"""Programs behave as under ``python3 main.py``: a real ``__main__`` module, and forked children
that leave through ``sys.exit`` without disturbing their parent's results."""

import ast

from nemo_code_rl import ExecutionPool, Program, Verdict
from nemo_code_rl.engine import template


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


_SHOW_ENVIRONMENT = (
    "import os\n"
    "print(sorted(os.environ.items()))\n"
    "print(os.environ['HOME'] == os.environ['TMPDIR'] == os.getcwd())\n"
)


def test_program_environment_is_the_sandbox_one_with_its_own_workdir(pool, monkeypatch):
    """Only the sandbox's variables, whatever the caller's environment holds; HOME and TMPDIR are
    the program's private folder (a fresh one per program at level ``none``)."""
    monkeypatch.setenv("TRAINER_SECRET_TOKEN", "leak")
    with ExecutionPool(workers=1, limits=pool.limits, isolation="none") as bare:
        for engine in (pool, bare):
            first, second = (run_one(engine, _SHOW_ENVIRONMENT) for _ in range(2))
            for result in (first, second):
                assert result.verdict is Verdict.OK, result.stderr
                listed, same = result.stdout.splitlines()
                names = [name for name, _ in ast.literal_eval(listed)]
                assert names == sorted(template.program_env("/tmp")), names
                assert same == "True"
            homes = [dict(ast.literal_eval(r.stdout.splitlines()[0]))["HOME"] for r in (first, second)]
            assert (homes[0] == homes[1]) == (engine is pool), homes


def test_each_program_gets_its_own_random_sequence(pool):
    # ``random`` is preloaded in the template; each child is forked with fork(2) directly and
    # reseeds it itself (``template._after_fork``), as CPython's after-fork hook would.
    programs = [Program("import random\nprint(random.getrandbits(64))", [""]) for _ in range(4)]
    outputs = [results[0].stdout for results in pool.run_batch(programs)]
    assert all(result for result in outputs), outputs
    assert len(set(outputs)) == len(outputs), outputs


def test_threads_start_join_and_see_the_main_thread(pool):
    source = (
        "import threading\n"
        "seen = []\n"
        "def work(i):\n    seen.append((i, threading.current_thread() is not threading.main_thread()))\n"
        "threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]\n"
        "for t in threads: t.start()\n"
        "for t in threads: t.join()\n"
        "lock = threading.Lock()\n"
        "with lock: pass\n"
        "print(sorted(seen), threading.current_thread() is threading.main_thread(), threading.active_count())\n"
    )
    result = run_one(pool, source)
    expected = "[(0, True), (1, True), (2, True), (3, True)] True 1\n"
    assert (result.verdict, result.stdout) == (Verdict.OK, expected), result.stderr


def test_a_program_process_holds_none_of_the_pools(pool):
    # The template every program is forked from is forked from a worker that imports only what it
    # runs: the engine package loads its pools (local, Docker, Ray) on first use, not on import.
    source = (
        "import sys\n"
        "print(sorted(m for m in sys.modules if m.startswith('nemo_code_rl.engine.')"
        " and m.rsplit('.', 1)[-1] in ('pool', 'docker_pool', 'ray_pool', 'backend')))\n"
    )
    result = run_one(pool, source)
    assert (result.verdict, result.stdout) == (Verdict.OK, "[]\n"), result.stderr
