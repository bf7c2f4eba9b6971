"""The minimal root: a sandboxed program sees only what it needs, wherever the host keeps the rest.

Each test is an attack a program could make on a host whose sandbox only hid a denylist of
folders: finding its own problem's answers in a world-readable file, reaching a host service
through a world-writable unix socket or FIFO, reading the project checkout; and the false
failure such a sandbox caused, a Python installation under ``/tmp`` hidden by the private
``/tmp``.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from nemo_code_rl import ExecutionPool, Program, Verdict

from .. import isolation_probes as probes
from ..conftest import REPO_ROOT
from ..isolation_probes import stdout_of

_DEVICES = ["fd", "full", "null", "random", "shm", "stderr", "stdin", "stdout", "urandom", "zero"]
_WRITABLE = ["/dev/shm", "/tmp"]


def _installed_in_tmp(bound: list[str]) -> list[str]:
    """Where a Python installation under the host's /tmp is bound back into each private /tmp."""
    return sorted({"/tmp/" + path.split("/")[2] for path in bound if path.startswith("/tmp/")})


def _slow_stdout(pool, source: str, stdin: str = "") -> str:
    """``stdout_of`` with time for a walk of the whole visible tree on a loaded machine."""
    result = pool.run(Program(source, [stdin], limits=pool.limits.with_overrides(timeout_s=60)))[0]
    assert result.verdict is Verdict.OK, result
    return result.stdout


def test_datasets_planted_on_the_host_cannot_be_found(pool):
    with probes.public_folders() as folders:
        probes.assert_planted_datasets_cannot_be_found(pool, folders)


def test_host_unix_sockets_and_fifos_are_unreachable(pool):
    with probes.public_folders() as folders:
        probes.assert_host_sockets_and_fifos_are_unreachable(pool, folders)


def test_a_walk_of_the_whole_tree_finds_nothing_outside_the_allowlist(pool):
    bound = pool.isolation_report.get("bound", [])
    source = textwrap.dedent(
        """
        import json, os
        bound = json.loads(input())
        allowed = {'/etc/passwd', '/etc/group', '/etc/nsswitch.conf', '/tmp', '/dev', '/proc'}
        allowed |= {'/dev/' + name for name in os.listdir('/dev')}
        def inside(path):
            return any(path == b or path.startswith(b + '/') for b in bound)
        unexpected = []
        for top, dirs, files in os.walk('/'):
            if top == '/proc':
                dirs[:] = []
                continue
            for name in dirs + files:
                path = os.path.join(top, name)
                leads_to_bound = any(b.startswith(path + '/') for b in bound)
                if inside(path) or leads_to_bound or path in allowed:
                    continue
                if os.path.islink(path) and inside(os.path.realpath(path)):
                    continue
                unexpected.append(path)
        print(json.dumps(unexpected[:20]))
        """
    )
    assert json.loads(_slow_stdout(pool, source, json.dumps(bound))) == []
    assert bound, "the isolation report lists what the minimal root binds"


def test_the_project_checkout_is_invisible_but_the_package_is_there(pool):
    package = os.path.dirname(os.path.abspath(sys.modules["nemo_code_rl"].__file__))
    source = textwrap.dedent(
        """
        import json, os
        checkout, package = json.loads(input())
        try:
            listing = sorted(os.listdir(checkout))
        except OSError:
            listing = None
        print(json.dumps([listing, os.path.isfile(os.path.join(package, 'engine', 'sandbox.py'))]))
        """
    )
    listing, package_visible = json.loads(stdout_of(pool, source, json.dumps([str(REPO_ROOT), package])))
    assert package_visible
    for name in ("tests", "benchmarks", ".git", "pyproject.toml", "README.md"):
        assert name not in (listing or []), listing
    if os.path.dirname(package) == str(REPO_ROOT):  # left: what the root binds (the package, a venv)
        inside = [b for b in pool.isolation_report["bound"] if b.startswith(f"{REPO_ROOT}/")]
        assert "nemo_code_rl" in listing
        assert set(listing) == {b[len(str(REPO_ROOT)) + 1 :].split("/")[0] for b in inside}


def test_mounts_devices_and_writable_folders_are_only_the_allowlisted_ones(pool):
    bound = pool.isolation_report.get("bound", [])
    source = textwrap.dedent(
        """
        import json, os
        bound = json.loads(input())
        mounts = {}
        for line in open('/proc/self/mountinfo'):
            fields = line.split()
            mounts[fields[4]] = 'ro' in fields[5].split(',')
        writable = []
        for top, dirs, files in os.walk('/'):
            if top == '/proc' or top in bound:
                dirs[:] = []
            targets = [top] + [os.path.join(top, d) for d in dirs if os.path.join(top, d) in bound]
            for folder in targets:
                try:
                    with open(os.path.join(folder, '.nemo-probe'), 'w'):
                        writable.append(folder)
                    os.unlink(os.path.join(folder, '.nemo-probe'))
                except OSError:
                    pass
        print(json.dumps([sorted(os.listdir('/dev')), mounts, sorted(set(writable))]))
        """
    )
    devices, mounts, writable = json.loads(_slow_stdout(pool, source, json.dumps(bound)))
    assert devices == _DEVICES
    assert writable == _WRITABLE
    devices = [f"/dev/{d}" for d in pool.isolation_report["devices"]]
    assert set(mounts) == {"/", "/dev", "/proc", *bound, *_WRITABLE, *devices, *_installed_in_tmp(bound)}
    assert sorted(p for p, read_only in mounts.items() if not read_only) == ["/dev/shm", "/proc", "/tmp"]


def test_exposed_paths_are_readable_read_only_and_nothing_beside_them(tmp_path):
    with pytest.raises(ValueError, match="exposed_paths"):
        ExecutionPool(workers=1, exposed_paths=["relative/data"])
    shared = Path(tempfile.mkdtemp(prefix="nemo-minroot-", dir="/var/tmp"))
    try:
        (shared / "judge").mkdir()
        (shared / "judge" / "data.txt").write_text("judge data\n")
        (shared / "answers.txt").write_text("answers\n")
        for path in (shared, shared / "judge"):
            path.chmod(0o755)
        source = textwrap.dedent(
            f"""
            for path in ({str(shared / "judge" / "data.txt")!r}, {str(shared / "answers.txt")!r}):
                try:
                    print(open(path).read().strip())
                except OSError as exc:
                    print('missing', exc.errno)
            try:
                open({str(shared / "judge" / "new.txt")!r}, 'w')
            except OSError as exc:
                print('read-only', exc.errno)
            """
        )
        with ExecutionPool(workers=1, exposed_paths=[str(shared / "judge")]) as exposed:
            assert str(shared / "judge") in exposed.isolation_report["bound"]
            assert stdout_of(exposed, source).splitlines() == ["judge data", "missing 2", "read-only 30"]
    finally:
        shutil.rmtree(shared)


def test_a_deep_tree_or_a_full_tmp_is_gone_before_the_next_program(pool):
    deep = (
        "import os\nfor _ in range(3000):\n    os.mkdir('d')\n    os.chdir('d')\n"
        "open('leaf', 'w').write('x')\nprint('deep')"
    )
    full = (
        "try:\n    with open('/tmp/fill', 'wb') as out:\n        while True:\n"
        "            out.write(b'x' * 65536)\nexcept OSError as exc:\n    print('full', exc.errno)"
    )
    look = "import os\nprint(sorted(os.listdir('/tmp')), os.listdir('/dev/shm'))"
    left = f"{[p[5:] for p in _installed_in_tmp(pool.isolation_report['bound'])]} []\n"
    results = pool.run_batch([Program(deep), Program(full), Program(look)])
    assert results[0][0].stdout == "deep\n"
    assert results[1][0].stdout in ("full 27\n", "full 28\n")  # the file's rlimit or the tmpfs's size
    assert results[2][0].stdout == left
    for program in (look, look):
        assert stdout_of(pool, program) == left


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


@pytest.fixture
def venv_under_tmp():
    """A venv under /tmp (as Slurm jobs make them in $TMPDIR) holding its own numpy and a module.

    numpy's files are hard links to the test interpreter's (copies across filesystems); this
    package comes from where the tests import it.
    """
    numpy = pytest.importorskip("numpy", reason="the venv under /tmp gets its numpy from the test's")
    folder = tempfile.mkdtemp(prefix="nemo-minroot-venv-", dir="/tmp")
    os.chmod(folder, 0o755)
    venv = os.path.join(folder, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    (site_packages,) = Path(venv).glob("lib/python3*/site-packages")
    numpy_folder = os.path.dirname(numpy.__file__)
    for name in ("numpy", "numpy.libs"):
        source = os.path.join(os.path.dirname(numpy_folder), name)
        if os.path.isdir(source):
            shutil.copytree(source, site_packages / name, copy_function=_link_or_copy, symlinks=True)
    (site_packages / "tmp_venv_probe.py").write_text("VALUE = 'from the venv under /tmp'\n")
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["nemo_code_rl"].__file__)))
    (site_packages / "nemo_code_rl_source.pth").write_text(package_root + "\n")
    yield venv
    shutil.rmtree(folder, ignore_errors=True)


def test_a_python_installation_under_tmp_keeps_working_and_stays_read_only(venv_under_tmp):
    driver = textwrap.dedent(
        """
        import json, sys
        from nemo_code_rl import ExecutionPool, Limits, Program
        use = (
            "import numpy.random, tmp_venv_probe\\n"
            "print(numpy.__file__.startswith(sys.prefix), numpy.random.default_rng(0).integers(1000),"
            " tmp_venv_probe.VALUE)"
        )
        attack = (
            "import os, sys\\n"
            "top = '/tmp/' + sys.prefix.split('/')[2]\\n"
            "for act in (lambda: open(sys.prefix + '/planted.py', 'w'), lambda: os.rename(top, '/tmp/moved'),"
            " lambda: os.rmdir(top), lambda: os.unlink(sys.prefix + '/pyvenv.cfg')):\\n"
            "    try:\\n        act()\\n        print('done')\\n"
            "    except OSError as exc:\\n        print('refused', exc.errno)\\n"
            "open('/tmp/junk', 'w').write('x')\\nprint(sorted(os.listdir('/tmp')))"
        )
        with ExecutionPool(workers=1, limits=Limits(timeout_s=20)) as pool:
            runs = pool.run_batch([Program("import sys\\n" + use), Program(attack), Program("import sys\\n" + use)])
            print(json.dumps([pool.isolation_report.get("bound", []), [(r[0].verdict.value, r[0].stdout, r[0].stderr[-300:]) for r in runs]]))
        """
    )
    venv_python = os.path.join(venv_under_tmp, "bin", "python")
    done = subprocess.run([venv_python, "-c", driver], capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr
    bound, runs = json.loads(done.stdout)
    top = venv_under_tmp.split("/")[2]
    expected_use = ("ok", "True 850 from the venv under /tmp\n", "")
    assert runs[0] == runs[2] == list(expected_use)
    verdict, attack, _ = runs[1]
    lines = attack.splitlines()
    assert verdict == "ok" and all(line.startswith("refused") for line in lines[:4]), attack
    assert lines[4] == str(sorted([top, "junk"]))
    assert venv_under_tmp in bound


def test_folders_bound_below_the_private_tmp_and_dev_shm_survive_every_program():
    made = [tempfile.mkdtemp(prefix="nemo-minroot-", dir=parent) for parent in ("/tmp", "/dev/shm")]
    try:
        for folder in made:
            os.chmod(folder, 0o755)
            Path(folder, "data.txt").write_text(f"kept in {folder}\n")
        read = f"for path in {made!r}:\n    print(open(path + '/data.txt').read().strip())"
        attack = textwrap.dedent(
            f"""
            import os
            for path in {made!r}:
                for act in (lambda: os.rename(path, path + '-moved'), lambda: os.rmdir(path),
                            lambda: open(path + '/data.txt', 'w')):
                    try:
                        act()
                        print('done')
                    except OSError as exc:
                        print('refused', exc.errno)
            """
        )
        with ExecutionPool(workers=1, exposed_paths=made) as exposed:
            results = exposed.run_batch([Program(read), Program(attack), Program(read)])
        expected = "".join(f"kept in {folder}\n" for folder in made)
        assert results[0][0].stdout == results[2][0].stdout == expected
        assert results[1][0].stdout.split() == ["refused", "16", "refused", "16", "refused", "30"] * 2
    finally:
        for folder in made:
            shutil.rmtree(folder)


def test_library_folders_of_ld_library_path_stay_visible(monkeypatch):
    """The pool passes ``LD_LIBRARY_PATH`` on, so extensions may need what it names (a cluster's MKL)."""
    folder = tempfile.mkdtemp(prefix="nemo-minroot-lib-", dir="/tmp")
    try:
        os.chmod(folder, 0o755)
        Path(folder, "libcluster.so.txt").write_text("a library\n")
        monkeypatch.setenv("LD_LIBRARY_PATH", f"{folder}:relative/ignored")
        with ExecutionPool(workers=1) as fresh:
            assert stdout_of(fresh, f"import os\nprint(os.listdir({folder!r}))") == "['libcluster.so.txt']\n"
    finally:
        shutil.rmtree(folder)
