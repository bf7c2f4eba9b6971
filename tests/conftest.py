"""Locate the real-data fixtures (``shared/data`` next to the repository, or ``$NEMO_CODE_RL_FIXTURES``)."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# The isolation probes shared by the backends' tests assert in a helper module: let pytest show
# the values of their failing asserts, as it does in test files.
pytest.register_assert_rewrite("tests.isolation_probes")

FIXTURES_ENV = "NEMO_CODE_RL_FIXTURES"
REPO_ROOT = Path(__file__).resolve().parent.parent


def fixtures_path() -> Path:
    """Where the fixtures should be; they may be absent (e.g. in a bare checkout)."""
    configured = os.environ.get(FIXTURES_ENV)
    return Path(configured) if configured else (REPO_ROOT.parent / "shared" / "data")


def pytest_configure() -> None:
    """Hugging Face's caches, where they are unset, before any test module imports NeMo Gym: its
    import points both at ``./cache/huggingface`` (the checkout, when the tests run) where unset.
    Models and tokenizers stay where Hugging Face keeps them; the datasets the tests build go to
    a temporary folder."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    os.environ.setdefault("HF_HOME", os.path.join(cache, "huggingface"))
    if "HF_DATASETS_CACHE" not in os.environ:
        folder = os.environ["HF_DATASETS_CACHE"] = tempfile.mkdtemp(prefix="nemo-code-rl-tests-datasets-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """The real-data folder; tests that use it are skipped, saying why, when it is absent."""
    path = fixtures_path()
    if not path.is_dir():
        pytest.skip(f"real-data fixtures not found at {path} (set {FIXTURES_ENV} to the shared/data folder)")
    return path


@pytest.fixture(scope="module")
def ray_cluster():
    """A real local Ray cluster of 2 CPUs, shared by a module's tests; skipped without Ray.

    Module scope: a process holds one ``ray.init`` at a time, and some modules connect to a
    cluster of their own (several nodes), so each module's Ray must be gone before the next starts.
    """
    ray = pytest.importorskip("ray", reason="these tests need Ray: pip install 'nemo-code-rl[ray]'")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def verifier():
    """A verifier with two sandbox workers and a 5 s test limit, shared by a test module."""
    from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

    with Verifier(VerifierConfig(timeout_s=5), workers=2) as engine:
        yield engine


@pytest.fixture(scope="session", autouse=True)
def private_cache_home(tmp_path_factory) -> Path:
    """``score`` keeps calibrated time limits under ``$XDG_CACHE_HOME``: the tests (and the
    commands they start) use a temporary one, never the user's."""
    folder = tmp_path_factory.mktemp("cache_home")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    return folder


_FINISHED: list[pytest.Session] = []  # the session, once it has finished (its status final)


def pytest_sessionfinish(session: pytest.Session) -> None:
    _FINISHED.append(session)


def _exit_without_finalizing() -> None:
    """Where Ray was imported (its tests start and stop clusters in this process), end the
    process with pytest's status once the other exit handlers have run, skipping the
    interpreter's finalization and the C++ destructors after it.

    ``ray.shutdown`` leaves Ray's GCS client thread and gRPC's threads running, and destroying
    their objects under them at exit can crash the process (ray-project/ray#31145, #37596): the
    NeMo RL lane once ended in a segmentation fault (exit 139) after all its tests had passed.
    Registered as this file is imported, before the handlers of anything the tests start, so it
    runs after them (the pools' finalizers, Ray's own ``shutdown``, pytest's lock files).
    """
    if "ray" not in sys.modules or not _FINISHED:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(_FINISHED[-1].exitstatus))


atexit.register(_exit_without_finalizing)
