"""Probe (session 22): a real pool's start, with each worker's phases timed (boot_probe.py) and
the parent's spawns, on CLOCK_MONOTONIC. Worker lines go to stderr; run with 2> FILE.

    python worker_timeline.py WORKERS ISOLATION
"""

import json
import sys
import time
from pathlib import Path

from nemo_code_rl.engine import pool as pool_module

here = Path(__file__).parent / "boot_probe"
pool_module._BOOT = (
    "import sys; sys.path.insert(0, {root!r}); sys.path.insert(0, " + repr(str(here)) + "); "
    "import boot_probe; raise SystemExit(boot_probe.main())"
)
spawns = []
call = pool_module._ProcessSpawner.__call__


def spawn(self, index):
    begin = time.monotonic()
    made = call(self, index)
    spawns.append((index, begin, time.monotonic()))
    return made


pool_module._ProcessSpawner.__call__ = spawn
workers, isolation = int(sys.argv[1]), sys.argv[2]
t0 = time.monotonic()
pool = pool_module.ExecutionPool(workers=workers, isolation=isolation)
first = time.monotonic()
pool_module._await_handshakes(pool._workers, 60)
last = time.monotonic()
pool.close()
print("PARENT " + json.dumps({"t0": t0, "first": first, "last": last, "spawns": spawns}), flush=True)
