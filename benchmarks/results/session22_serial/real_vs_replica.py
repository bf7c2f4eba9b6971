"""Probe (session 22): a one-worker pool's start (default preloads) as it is, with its worker
writing no bytecode (sys.dont_write_bytecode, which `python -E` otherwise leaves off), and with
numpy alone or the standard library alone; the time to the start-up report."""

import sys
import time

from nemo_code_rl.engine import pool as pool_module

plain = pool_module._BOOT
variant, isolation = sys.argv[1], sys.argv[2]
preload = pool_module.DEFAULT_PRELOAD
if variant == "no_bytecode":
    pool_module._BOOT = "import sys; sys.dont_write_bytecode = True; " + plain
elif variant == "numpy":
    preload = ("numpy",)
elif variant == "stdlib":
    preload = tuple(m for m in pool_module.DEFAULT_PRELOAD if m != "numpy")
t = time.monotonic()
pool = pool_module.ExecutionPool(workers=1, isolation=isolation, preload=preload)
print(variant, isolation, "start", round(time.monotonic() - t, 3), flush=True)
pool.close()
