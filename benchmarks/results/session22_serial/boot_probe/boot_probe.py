"""Imported by an instrumented worker boot (worker_timeline.py): times each phase of a real
worker's start, on CLOCK_MONOTONIC, and writes them to stderr before the start-up report."""

import json
import sys
import time

T0 = time.monotonic()
from nemo_code_rl.engine import sandbox, supervisor, template, worker  # noqa: E402

marks = {"boot": T0, "imported": time.monotonic()}


def timed(owner, name, before, after):
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        marks[before] = time.monotonic()
        result = original(*args, **kwargs)
        marks[after] = time.monotonic()
        return result

    setattr(owner, name, wrapper)


timed(sandbox, "isolate_worker", "isolate_begin", "isolate_end")
timed(template, "start", "template_fork_begin", "template_forked")
timed(template.TemplateHandle, "ready", "ready_begin", "template_ready")
serve = supervisor.serve


def serve_marked(*args, **kwargs):
    marks["serve"] = time.monotonic()
    sys.stderr.write("BOOT " + json.dumps(marks) + "\n")
    sys.stderr.flush()
    return serve(*args, **kwargs)


supervisor.serve = serve_marked


def main() -> int:
    return worker.main()
