"""A program's private folders: as new for every program, and a worker that cannot empty them is
replaced before it runs another program."""

import json
import shutil
import textwrap

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


# What a program sees of the root of each private folder, after listing it (as Python's import
# system lists the program's folder): its change time, and all of it that a program could change.
# A tmpfs mounted later than a time has a later change time: each program below sleeps past a
# clock tick before it ends.
LOOK = """
import json, os, fcntl, struct, time
state = {}
for folder in ('/tmp', '/dev/shm'):
    assert os.listdir(folder) == []
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    st, space = os.fstat(fd), os.fstatvfs(fd)
    try:
        flags = struct.unpack('l', fcntl.ioctl(fd, 0x80086601, b'\\0' * 8))[0]  # FS_IOC_GETFLAGS
    except OSError:  # a kernel whose tmpfs has no flags (before 6.0)
        flags = None
    state[folder] = [st.st_ctime_ns, oct(st.st_mode), st.st_size, st.st_mtime_ns, space.f_bfree, space.f_ffree,
                     os.listxattr(fd), flags]
print(json.dumps(state))
time.sleep(0.05)
"""
# Each leaves its folders empty, but not as they were mounted. An older kernel may refuse one
# (tmpfs took extended attributes in 6.6, inode flags in 6.0): the folders then stay as they were.
CHANGES = {
    "a file made and removed": "open('/tmp/x', 'w').close()\nos.unlink('/tmp/x')",
    "the mode": "os.chmod('/dev/shm', 0o777)",
    "the times": "os.utime('/tmp', (0, 0))",
    "an extended attribute": "os.setxattr('/tmp', 'user.note', b'left for the next program')",
    "an inode flag": (
        "fd = os.open('/tmp', os.O_RDONLY)\n"
        "fcntl.ioctl(fd, 0x40086602, struct.pack('l', 0x80))"  # FS_IOC_SETFLAGS, FS_NOATIME_FL
    ),
    "a file held, unlinked, in flight on a socket": (
        "left, right = socket.socketpair()\nfd = os.open('/tmp/big', os.O_RDWR | os.O_CREAT)\n"
        "os.write(fd, b'x' * (1 << 20))\nos.unlink('/tmp/big')\nsocket.send_fds(left, [b'x'], [fd])"
    ),
}
_CHANGER = """
import fcntl, os, socket, struct, time
try:
{change}
except OSError as exc:
    print('refused', exc.errno)
print(max(os.stat(folder).st_ctime_ns for folder in ('/tmp', '/dev/shm')))
time.sleep(0.05)
"""


@pytest.mark.parametrize("level", ["full", "namespaces"])
def test_a_folder_is_replaced_exactly_when_a_program_changed_it(level):
    """A tmpfs that programs only looked at stays (replacing it costs every CPU of the host an
    interrupt); after a program that changed either folder in any way, even one left empty, both
    are replaced, so every program finds them as a new tmpfs is."""
    batch = [Program(LOOK), Program(LOOK)]
    for change in CHANGES.values():
        batch += [Program(_CHANGER.format(change=textwrap.indent(change, "    "))), Program(LOOK)]
    with ExecutionPool(workers=1, isolation=level) as pool:
        results = [per[0] for per in pool.run_batch(batch)]
    assert all(r.verdict is Verdict.OK for r in results), results
    first, untouched = json.loads(results[0].stdout), json.loads(results[1].stdout)
    assert untouched == first  # the same tmpfs, as it was (listing it changed nothing)
    for name, changer, look in zip(CHANGES, results[2::2], results[3::2], strict=True):
        *refused, changed_at = changer.stdout.split("\n")[:-1]
        for folder, (ctime, mode, size, mtime, *rest) in json.loads(look.stdout).items():
            _, new_mode, new_size, new_mtime, *new_rest = first[folder]
            if not refused:  # mounted after the change
                assert ctime > int(changed_at) and mtime > new_mtime, (name, folder)
            assert (mode, size, rest) == (new_mode, new_size, new_rest), (name, folder)  # space, attributes


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
