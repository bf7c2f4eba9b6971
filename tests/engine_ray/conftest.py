from nemo_code_rl import Limits

# Skipped where Ray is used, not when this file is imported: pytest cannot skip from a conftest it
# loads before collection (when this folder or one of its files is named on the command line).
RAY_MISSING = "the Ray pool needs the 'ray' extra"

TEST_LIMITS = Limits(
    timeout_s=3, memory_bytes=768 * 1024**2, output_bytes=64 * 1024, file_bytes=4 * 1024**2, processes=24
)

# Several pools share the 2-CPU test cluster, and replacements start while the dead actors' CPUs are freed.
ACTOR_OPTIONS = {"num_cpus": 0.25}
