"""Timeline of one `nemo-code-rl score` run: wraps a few functions, then runs the CLI's main.

Its imports follow the first mark on purpose (they are part of the timeline): E402 is expected.

    python score_timeline.py LAUNCH_TIME SCORE_ARGS...
prints one JSON line of seconds since LAUNCH_TIME (the time.time() at which the caller started
this interpreter)."""

import json
import os
import sys
import time

launch = float(sys.argv[1])
marks = {"interpreter": time.time() - launch}


def mark(name):
    marks.setdefault(name, time.time() - launch)


from nemo_code_rl import cli  # noqa: E402 - imported after the first mark: part of the timeline

mark("cli_imported")
from nemo_code_rl.engine import pool as poolmod  # noqa: E402 - imported after the first mark: part of the timeline

orig_init = poolmod.ExecutionPool.__init__


def init(self, *a, **k):
    mark("pool_start_begin")
    orig_init(self, *a, **k)
    mark("pool_started")


poolmod.ExecutionPool.__init__ = init
orig_close = poolmod.WorkerPool.close


def close(self):
    mark("pool_close_begin")
    orig_close(self)
    mark("pool_closed")


poolmod.WorkerPool.close = close
import importlib.abc  # noqa: E402 - imported after the first mark: part of the timeline
import importlib.util  # noqa: E402 - imported after the first mark: part of the timeline


def patch_verifier(verification):
    orig_vb = verification.Verifier.verify_batch

    def vb(self, *a, **k):
        mark("verify_begin")
        try:
            return orig_vb(self, *a, **k)
        finally:
            mark("verify_end")

    verification.Verifier.verify_batch = vb


class Hook(importlib.abc.MetaPathFinder):
    """Patches the verifier when the CLI imports it, not before (the import is part of the timeline)."""

    def find_spec(self, name, path, target=None):
        if name != "nemo_code_rl.unit_tests.verification":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            mark("verifier_imported")
            patch_verifier(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, Hook())
orig_rb = poolmod.WorkerPool.run_batch


def rb(self, *a, **k):
    mark("run_batch_begin")
    try:
        return orig_rb(self, *a, **k)
    finally:
        mark("run_batch_end")


poolmod.WorkerPool.run_batch = rb
mark("patched")
import contextlib  # noqa: E402 - imported after the first mark: part of the timeline
import io  # noqa: E402 - imported after the first mark: part of the timeline

with contextlib.redirect_stdout(io.StringIO()):
    rc = cli.main(sys.argv[2:])
mark("main_returned")
t = os.times()
marks["parent_cpu"] = t.user + t.system
marks["children_cpu"] = t.children_user + t.children_system
print(json.dumps({k: round(v, 4) for k, v in marks.items()}), flush=True)
raise SystemExit(rc)
