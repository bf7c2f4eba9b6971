"""Start and close ExecutionPools: wall time of each, and the CPU of everything they ran."""

import json
import os
import pathlib
import sys
import time

from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.engine.pool import DEFAULT_PRELOAD

out = {}
for workers in (1, 16):
    for isolation in ("none", "namespaces"):
        for preload_name, preload in (("default", DEFAULT_PRELOAD), ("bare", ())):
            if preload_name == "bare" and isolation == "none":
                continue
            rows = []
            for _ in range(3):
                c0 = os.times()
                t0 = time.perf_counter()
                pool = ExecutionPool(
                    workers=workers, limits=Limits(timeout_s=5.0), isolation=isolation, preload=preload
                )
                t1 = time.perf_counter()
                pool.run_batch([Program("print(1)", [""]) for _ in range(workers)])
                t2 = time.perf_counter()
                pool.close()
                t3 = time.perf_counter()
                c1 = os.times()
                rows.append(
                    {
                        "start": round(t1 - t0, 4),
                        "first_batch": round(t2 - t1, 4),
                        "close": round(t3 - t2, 4),
                        "children_cpu": round(
                            c1.children_user + c1.children_system - c0.children_user - c0.children_system, 3
                        ),
                    }
                )
            key = f"w{workers}_{isolation}_{preload_name}"
            out[key] = rows
            print(key, rows, flush=True)
pathlib.Path(sys.argv[1]).write_text(json.dumps(out, indent=1))
