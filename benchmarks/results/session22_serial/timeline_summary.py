"""Summarize worker_timeline.py's output (stdout then stderr lines, one file): each phase's
duration min/max over the workers, and when the first and last were ready."""

import json
import sys
from pathlib import Path

parent, boots = None, []
for line in Path(sys.argv[1]).read_text().splitlines():
    if line.startswith("PARENT "):
        parent = json.loads(line[7:])
    elif line.startswith("BOOT "):
        boots.append(json.loads(line[5:]))
t0 = parent["t0"]
spawn_end = max(end for _, _, end in parent["spawns"]) - t0
phases = {
    "to_boot": ("boot", None),
    "imports": ("imported", "boot"),
    "isolate": ("isolate_end", "isolate_begin"),
    "fork": ("template_forked", "template_fork_begin"),
    "preload": ("template_ready", "ready_begin"),
}
out = {}
for name, (end, begin) in phases.items():
    values = [b[end] - (b[begin] if begin else t0) for b in boots]
    out[name] = (round(min(values), 3), round(max(values), 3))
print(
    len(boots),
    "workers; spawns done",
    round(spawn_end, 3),
    "phases min/max",
    out,
    "ready first/last",
    round(parent["first"] - t0, 3),
    round(parent["last"] - t0, 3),
)
