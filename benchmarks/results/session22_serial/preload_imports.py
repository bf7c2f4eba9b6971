"""Probe (session 22): a one-worker pool's start with the default preloads and with none, and each
preload's import time inside a program of the bare pool (the sandbox's view of the files)."""

import sys
import time

from nemo_code_rl.engine import Program
from nemo_code_rl.engine.pool import DEFAULT_PRELOAD, ExecutionPool

TIMED_IMPORTS = """import time
for m in {modules!r}:
    t = time.perf_counter()
    __import__(m)
    print(m, round((time.perf_counter() - t) * 1000, 1))
"""

iso = sys.argv[1]
for preload in ("default", "bare"):
    t = time.perf_counter()
    pool = ExecutionPool(workers=1, isolation=iso, preload=DEFAULT_PRELOAD if preload == "default" else ())
    s = time.perf_counter() - t
    if preload == "bare":
        r = pool.run(Program(TIMED_IMPORTS.format(modules=list(DEFAULT_PRELOAD)), [""]))
        print(r[0].stdout.replace("\n", " | "), r[0].stderr[-300:])
    pool.close()
    print(iso, preload, round(s, 3))
