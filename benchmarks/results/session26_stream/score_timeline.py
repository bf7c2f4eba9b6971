"""Timeline of one `nemo-code-rl score` run (session 22's, with reading, the rows' rewrite, the
summary and every garbage collection marked): wraps a few functions, then runs the CLI's main.

    python score_timeline.py LAUNCH_TIME SCORE_ARGS...
prints one JSON line of seconds since LAUNCH_TIME (the time.time() at which the caller started
this interpreter). Session 26: in a tree that reads its problems as the batch runs (a
ProblemStream, streaming.patch), read_problems_* mark that stream's first and last row."""

import gc
import json
import os
import resource
import sys
import time
from typing import ClassVar

launch = float(sys.argv[1])
marks = {"interpreter": time.time() - launch}
collections = {"count": [0, 0, 0], "seconds": [0.0, 0.0, 0.0], "while_paused": 0, "longest": 0.0}
_started = [0.0]


def on_collection(phase, info):
    if phase == "start":
        _started[0] = time.perf_counter()
        collections["while_paused"] += not gc.isenabled()
        return
    took = time.perf_counter() - _started[0]
    collections["count"][info["generation"]] += 1
    collections["seconds"][info["generation"]] += took
    collections["longest"] = max(collections["longest"], took)


gc.callbacks.append(on_collection)


def mark(name):
    marks.setdefault(name, time.time() - launch)


def wrapped(function, label):
    def run(*args, **kwargs):
        mark(label + "_begin")
        marks.setdefault(label + "_cpu_begin", time.process_time())
        try:
            return function(*args, **kwargs)
        finally:
            mark(label + "_end")
            marks.setdefault(label + "_cpu_end", time.process_time())

    return run


from nemo_code_rl import cli  # noqa: E402 - imported after the first mark: part of the timeline

mark("cli_imported")
import importlib.abc  # noqa: E402
import importlib.util  # noqa: E402

from nemo_code_rl.engine import pool as poolmod  # noqa: E402

poolmod.ExecutionPool.__init__ = wrapped(poolmod.ExecutionPool.__init__, "pool_start")
poolmod.WorkerPool.close = wrapped(poolmod.WorkerPool.close, "pool_close")
poolmod.WorkerPool.run_batch = wrapped(poolmod.WorkerPool.run_batch, "run_batch")


def patch(name, module):
    if name == "nemo_code_rl.unit_tests.verification":
        module.Verifier.verify_batch = wrapped(module.Verifier.verify_batch, "verify")
    elif name == "nemo_code_rl.score_cli":
        if hasattr(module, "read_problems"):
            module.read_problems = wrapped(module.read_problems, "read_problems")
        else:
            iterate = module.ProblemStream.__iter__

            def streamed(self):
                mark("read_problems_begin")
                marks.setdefault("read_problems_cpu_begin", time.process_time())
                yield from iterate(self)
                mark("read_problems_end")
                marks.setdefault("read_problems_cpu_end", time.process_time())

            module.ProblemStream.__iter__ = streamed
        module.results_files.ResultsFile.finish = wrapped(module.results_files.ResultsFile.finish, "rewrite")
        module.scoring.summarize = wrapped(module.scoring.summarize, "summarize")


class Hook(importlib.abc.MetaPathFinder):
    """Patches modules when the CLI imports them, not before (their imports are part of the timeline)."""

    wanted: ClassVar[set[str]] = {"nemo_code_rl.unit_tests.verification", "nemo_code_rl.score_cli"}

    def find_spec(self, name, path, target=None):
        if name not in self.wanted:
            return None
        self.wanted.discard(name)
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            if self.wanted:
                sys.meta_path.insert(0, self)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            mark(name.rsplit(".", 1)[1] + "_imported")
            patch(name, module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, Hook())
mark("patched")
import contextlib  # noqa: E402
import io  # noqa: E402

with contextlib.redirect_stdout(io.StringIO()):
    rc = cli.main(sys.argv[2:])
mark("main_returned")
t = os.times()
marks["parent_cpu"] = t.user + t.system
marks["children_cpu"] = t.children_user + t.children_system
marks["gc"] = collections
marks["max_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in marks.items()}), flush=True)
raise SystemExit(rc)
