import pytest

from nemo_code_rl import Limits

ray = pytest.importorskip("ray", reason="the Ray pool needs the 'ray' extra")

TEST_LIMITS = Limits(
    timeout_s=3, memory_bytes=768 * 1024**2, output_bytes=64 * 1024, file_bytes=4 * 1024**2, processes=24
)

# Several pools share the 2-CPU test cluster, and replacements start while the dead actors' CPUs are freed.
ACTOR_OPTIONS = {"num_cpus": 0.25}


@pytest.fixture(scope="package")
def ray_cluster():
    """A real local Ray cluster of 2 CPUs, shared by the package's tests."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
