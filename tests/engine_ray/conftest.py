import pytest

from nemo_code_rl import Limits

# Skipped where Ray is used, not when this file is imported: pytest cannot skip from a conftest it
# loads before collection (when this folder or one of its files is named on the command line).
RAY_MISSING = "the Ray pool needs the 'ray' extra"

TEST_LIMITS = Limits(
    timeout_s=3, memory_bytes=768 * 1024**2, output_bytes=64 * 1024, file_bytes=4 * 1024**2, processes=24
)

# Several pools share the 2-CPU test cluster, and replacements start while the dead actors' CPUs are freed.
ACTOR_OPTIONS = {"num_cpus": 0.25}


@pytest.fixture(scope="module")
def ray_cluster():
    """A real local Ray cluster of 2 CPUs, shared by a module's tests.

    Module scope, not package: a process holds one ``ray.init`` at a time, and the multi-node
    module connects to a cluster of its own, so each module's Ray must be gone before the next starts.
    """
    ray = pytest.importorskip("ray", reason=RAY_MISSING)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
