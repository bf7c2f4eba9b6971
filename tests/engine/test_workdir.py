"""A program's private folders: fresh for every program, and a worker that cannot empty them is
replaced before it runs another program."""

import shutil

import pytest

from nemo_code_rl import ExecutionPool, Program, Verdict

WRITER = "import os\nfor d in ('.', '/tmp', '/dev/shm'):\n    open(os.path.join(d, 'left.txt'), 'w').write('x')\nprint('ok')"
READER = (
    "import os\nprint(sorted(os.path.exists(os.path.join(d, 'left.txt')) for d in ('.', '/tmp', '/dev/shm')))"
)


@pytest.mark.parametrize("level", ["full", "namespaces", "none"])
def test_no_program_sees_the_files_of_the_one_before_it(level):
    """One worker, programs back to back (the strict ones one process per input): each starts
    with empty folders, whatever the one before left there."""
    if level == "none":  # no private /tmp or /dev/shm there: its own working folder only
        writer, reader = "open('left.txt', 'w').write('x')\nprint('ok')", "import os\nprint(os.listdir('.'))"
        empty = "[]\n"
    else:
        writer, reader, empty = WRITER, READER, "[False, False, False]\n"
    with ExecutionPool(workers=1, isolation=level) as pool:
        batch = [Program(writer, ["", ""]), Program(reader, [""])] * 3
        batch += [Program(writer, ["", ""], strict=True), Program(reader, ["", ""], strict=True)]
        results = pool.run_batch(batch)
    assert [[r.stdout for r in per] for per in results[::2]] == [["ok\n", "ok\n"]] * 4
    assert [[r.stdout for r in per] for per in results[1::2]] == [[empty]] * 3 + [[empty, empty]]


def test_a_worker_that_cannot_empty_a_programs_folder_is_replaced_before_the_next_program():
    """At level ``none`` a program can move its working folder away, so that emptying it fails:
    the program's results stand, and the next program runs in a new worker."""
    mover = "import os\nhere = os.getcwd()\nos.rename(here, here + '-moved')\nprint(here + '-moved')"
    with ExecutionPool(workers=1, isolation="none") as pool:
        before = pool.worker_pids
        moved = pool.run(Program(mover, [""]))[0]
        try:
            after = pool.run(Program("print(2)", [""]))[0]
            assert moved.verdict is Verdict.OK and moved.stdout.endswith("-moved\n")
            assert after.verdict is Verdict.OK and after.stdout == "2\n"
            assert pool.worker_pids != before
        finally:
            shutil.rmtree(moved.stdout.strip(), ignore_errors=True)
