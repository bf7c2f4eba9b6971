"""C++ in the engine: compiled once in the sandbox, cached per worker, run once per input, with
Python's verdicts and isolation. Real g++, real sandbox; one hostile program (``cpp_probes``)
serves every probe, so the module compiles only a handful of sources."""

from __future__ import annotations

import os
import shutil
import uuid

import pytest

from nemo_code_rl import ExecutionPool, Program, Verdict
from nemo_code_rl.benchmarking.process_tree import alive, descendants
from nemo_code_rl.engine.languages import CompileSettings, Language
from nemo_code_rl.engine.results import CANCELLED_ERROR

from ..cpp_probes import (
    SLOW_SETTINGS,
    SLOW_TO_COMPILE,
    assert_cpp_contained,
    assert_cpp_verdicts,
    hostile,
    run_hostile,
    scan_input,
)
from .conftest import TEST_LIMITS

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="these tests need g++ on the host")


@pytest.fixture(scope="module")
def cpp_pool():
    """One worker, so that every program of the module meets the same binary cache."""
    with ExecutionPool(workers=1, limits=TEST_LIMITS.with_overrides(timeout_s=2)) as engine:
        yield engine


def test_run_verdicts_are_pythons(cpp_pool):
    assert_cpp_verdicts(cpp_pool)


def test_compile_error_keeps_the_compilers_first_lines(cpp_pool):
    source = "int main() {\n  return undeclared;\n}\n" + "int f() { return nope; }\n" * 40
    results = cpp_pool.run(Program(source, ["", ""], language="cpp"))
    assert [r.verdict for r in results] == [Verdict.COMPILE_ERROR] * 2
    assert "undeclared" in results[0].error and "error" in results[0].error
    assert 0 < len(results[0].stderr.splitlines()) <= 12


def test_the_compilers_limits_and_a_missing_compiler(cpp_pool):
    """The compiler runs under its own limits (each failure names the limit; the limits are part of
    the cache key), and a compiler that cannot start is not the program's fault: ``bad_input``."""
    source = "#include <iostream>\nint main() { std::cout << 1; }\n"
    settings = [
        CompileSettings(memory_bytes=64 * 1024**2),
        CompileSettings(timeout_s=0.01),
        CompileSettings(compiler="no-such-compiler"),
    ]
    results = cpp_pool.run_batch([Program(source, language="cpp", compile=s) for s in settings])
    assert [r[0].verdict for r in results] == [
        Verdict.COMPILE_ERROR,
        Verdict.COMPILE_ERROR,
        Verdict.BAD_INPUT,
    ]
    assert "memory" in results[0][0].error
    assert results[1][0].error == "compilation exceeded its time limit of 0.01 s"
    assert "the compiler could not start" in results[2][0].error and "no-such-compiler" in results[2][0].error


def test_the_compiler_runs_in_the_minimal_root(cpp_pool):
    """A source that includes a host file outside the root (this test) cannot compile: the
    compiler sees only the sandbox's root."""
    results = cpp_pool.run(
        Program(f'#include "{os.path.abspath(__file__)}"\nint main() {{}}\n', language="cpp")
    )
    assert results[0].verdict is Verdict.COMPILE_ERROR
    assert "No such file or directory" in results[0].stderr


def test_standard_and_flags_are_honoured(cpp_pool):
    source = (
        "#include <cstdio>\n#include <optional>\n"
        'int main() { std::optional<int> a = ANSWER; std::printf("%d\\n", *a + 1); }\n'
    )
    old = CompileSettings(standard="c++11", flags=("-O2", "-DANSWER=41"))
    new = CompileSettings(flags=("-O2", "-DANSWER=41"))
    results = cpp_pool.run_batch([Program(source, language="cpp", compile=s) for s in (old, new)])
    assert results[0][0].verdict is Verdict.COMPILE_ERROR
    assert (results[1][0].verdict, results[1][0].stdout) == (Verdict.OK, "42\n")


def test_a_source_is_compiled_once_for_all_its_tests_and_repeats(cpp_pool):
    """The binary's inode names the compile: the same for every test, for a repeat of the same
    source in the batch and in a later batch; another source gets another binary."""
    same = Program(hostile(), ["exe", "exe"], language="cpp")
    other = Program(hostile("other"), ["exe"], language="cpp")
    first = cpp_pool.run_batch([same, same, other])
    later = cpp_pool.run(same)
    inodes = {r.stdout.split()[0] for r in [*first[0], *first[1], *later]}
    assert len(inodes) == 1, inodes
    assert first[2][0].stdout.split()[0] not in inodes
    assert {r.stdout.split()[1] for r in [*first[0], *first[2]]} == {"read-only"}


def test_the_workers_of_a_pool_share_what_one_compiled(pool):
    """A source compiled by one worker is not compiled again by another: the pool's binaries
    folder keeps one file per source, rewritten by every compile, and it is untouched when both
    workers run the source again; programs cannot see the folder."""
    source = hostile(f"SHARED{uuid.uuid4().hex}")
    before = set(os.listdir(pool.binaries))
    assert pool.run(Program(source, ["echo compiled"], language="cpp"))[0].stdout == "compiled\n"
    (added,) = set(os.listdir(pool.binaries)) - before
    inode = os.stat(os.path.join(pool.binaries, added)).st_ino
    twice = pool.run_batch([Program(source, ["echo again", f"stat {pool.binaries}"], language="cpp")] * 2)
    assert [[r.stdout for r in per] for per in twice] == [["again\n", "absent\n"]] * 2
    assert os.stat(os.path.join(pool.binaries, added)).st_ino == inode, "compiled again"


def test_the_compile_cache_and_earlier_jobs_are_invisible(cpp_pool):
    """A program searching its own binary and memory, every process and file /proc shows, /tmp
    and /dev/shm finds nothing of another compiled program (its binary, input or output), while
    the same search finds its own marker (the scanner works)."""
    marker, secret = f"MARK{uuid.uuid4().hex}", f"SECRET{uuid.uuid4().hex}"
    earlier = cpp_pool.run(Program(hostile(marker), ["mark", f"echo {secret}"], language="cpp"))
    assert [r.stdout for r in earlier] == [f"{marker}\n", f"{secret}\n"]
    python_job = cpp_pool.run(Program("print(input())", [secret], private=True))
    assert python_job[0].stdout == f"{secret}\n"
    own = f"OWN{uuid.uuid4().hex}"
    scans = run_hostile(cpp_pool, scan_input(marker), scan_input(secret), scan_input(own), marker=own)
    nothing = "exe 0 memory 0 processes 0 files 0\n"
    assert [r.stdout for r in scans[:2]] == [nothing, nothing]
    assert scans[2].stdout.startswith("exe 1 memory ") and scans[2].stdout != nothing


def test_fork_bomb_network_writes_and_signals_are_contained(cpp_pool):
    assert_cpp_contained(cpp_pool, __file__)


def test_secrets_of_the_parent_are_invisible_to_cpp(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_secret_value_123")
    monkeypatch.setenv("WANDB_API_KEY", "wandb_secret_value_456")
    with ExecutionPool(workers=1, limits=TEST_LIMITS) as fresh:
        result = fresh.run(Program(hostile(), ["env"], language="cpp"))[0]
    assert result.stdout == "keys 0 leaks 0\n"


def test_bad_language_and_settings_are_clear_errors():
    with pytest.raises(ValueError, match="language must be one of"):
        Program("fn main() {}", language="rust")
    with pytest.raises(ValueError, match="output file"):
        CompileSettings(flags=("-O2", "-o/tmp/x"))
    with pytest.raises(ValueError, match="standard"):
        CompileSettings(standard="c++17; rm -rf /")
    assert Program("x", language="cpp").language is Language.CPP and Program("x").compile_settings is None


def _compilers() -> list[int]:
    """The compilers (``cc1plus``) running below this test's process: those of its pool's workers."""
    running = []
    for pid in descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/comm") as comm:
                if comm.read().strip() == "cc1plus" and alive(pid):
                    running.append(pid)
        except OSError:
            continue
    return running


def _cancel_while_compiling(pool: ExecutionPool, source: str) -> list:
    """Run ``source`` on two inputs, cancelled as soon as its compiler is seen running; its results."""
    seen: list[int] = []

    def cancelled(program: int) -> bool:
        seen.extend(_compilers())
        return bool(seen)

    (results,) = pool.run_batch(
        [Program(source, ["1", "2"], language="cpp", compile=SLOW_SETTINGS)], cancelled=cancelled
    )
    assert seen, "the compiler was never seen running"
    return results


def test_a_program_cancelled_while_it_compiles_stops_its_compiler(cpp_pool):
    """A C++ program cancelled during its (seconds-long) compile: its compiler is gone when the call
    returns, every input is ``not_run`` as a cancelled Python program's, nothing reaches the
    binaries cache (neither a binary nor a compile error), and the worker serves the next program."""
    before = set(os.listdir(cpp_pool.binaries))
    results = _cancel_while_compiling(cpp_pool, f"// {uuid.uuid4().hex}\n{SLOW_TO_COMPILE}")
    assert _compilers() == []
    assert [(r.verdict, r.error) for r in results] == [(Verdict.NOT_RUN, CANCELLED_ERROR)] * 2
    assert set(os.listdir(cpp_pool.binaries)) == before, "a cancelled compile was cached"
    after = cpp_pool.run(Program(hostile(), ["echo next"], language="cpp"))
    assert [(r.verdict, r.stdout) for r in after] == [(Verdict.OK, "next\n")]


def test_a_source_whose_compile_was_cancelled_compiles_next_time(cpp_pool):
    """The same source again, not cancelled: compiled now (its binary reaches the cache only now),
    and it runs correctly."""
    source = f"// {uuid.uuid4().hex}\n{SLOW_TO_COMPILE}"
    _cancel_while_compiling(cpp_pool, source)
    before = set(os.listdir(cpp_pool.binaries))
    results = cpp_pool.run(Program(source, ["1", "2"], language="cpp", compile=SLOW_SETTINGS))
    assert [(r.verdict, r.stdout) for r in results] == [(Verdict.OK, "553\n"), (Verdict.OK, "554\n")]
    assert len(set(os.listdir(cpp_pool.binaries)) - before) == 1, "the source was not compiled again"
