"""Summarize a py-spy raw profile (``-f raw``): each function's share of the samples, on its
own (the frame on top; a C call counts for the Python function that made it) and with what it
called.

    python profile_summary.py score.raw [TOP]      (a .gz file is read as such)

With ``--subprocesses`` (call 3), each stack starts with its processes' frames ("process PID:..."),
counted like functions.
"""

import gzip
import re
import sys
from collections import Counter
from pathlib import Path

own, within = Counter(), Counter()
total = 0
frame_name = re.compile(r"(.*?) \((.*?)(:\d+)?\)$")


def name(frame: str) -> str:
    match = frame_name.match(frame)
    return f"{match.group(1)} ({match.group(2).split('/')[-1]})" if match else frame


path = Path(sys.argv[1])
text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
for line in text.splitlines():
    if not line.strip():
        continue
    stack, count = line.rsplit(" ", 1)
    names = [name(frame) for frame in stack.split(";")]
    total += int(count)
    own[names[-1]] += int(count)
    for called in set(names):
        within[called] += int(count)
top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
print(f"{total} samples")
for title, counts in (("own", own), ("with what it called", within)):
    print(f"--- {title}")
    for function, count in counts.most_common(top):
        print(f"{count:6d} {count / total:6.1%}  {function}")
