"""Session 28: add to a tree's supervisor a count of how long it waits for each next job."""

import sys
from pathlib import Path

p = Path(sys.argv[1]) / "nemo_code_rl/engine/supervisor.py"
s = p.read_text()
old = """    while True:
        job = link.next_job()
        if job is None:
            return
        link.send({"id": job["id"], "results": [result_from_fields(r) for r in execute(job, link)]})"""
new = """    waits: list[float] = []
    busy = 0.0
    sent_at = None
    while True:
        job = link.next_job()
        now = time.monotonic()
        if sent_at is not None:
            waits.append(now - sent_at)
        if job is None:
            short = sorted(w for w in waits if w < 0.1)
            if short:
                sys.stderr.write(
                    f"IDLE sum={sum(short):.4f} n={len(short)} p50={short[len(short)//2]*1e6:.0f}us "
                    f"p90={short[int(len(short)*0.9)]*1e6:.0f}us busy={busy:.4f}\\n"
                )
            return
        link.send({"id": job["id"], "results": [result_from_fields(r) for r in execute(job, link)]})
        sent_at = time.monotonic()
        busy += sent_at - now"""
assert old in s
p.write_text(s.replace(old, new))
