"""How fast a gone client's program stops, and what asking ``cancelled`` costs the parent.

``latency``: ``python -m nemo_code_rl.gym_server`` on a loopback port (one worker, 60 s a test);
a client posts a looping answer over a raw socket, waits until its program's process runs, keeps
it running ``--running`` seconds, hangs up, and the seconds until the program's processes are
gone are measured (from ``/proc``). Before ``run_batch(cancelled=...)``, the program ran its whole
test limit. ``overhead``: the parent's CPU for a batch of short programs without a ``cancelled``
check and with one that never says True (the dispatch loop then wakes every ``CANCEL_POLL_S``).

    python benchmarks/cancel_latency.py --repeats 10
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from nemo_code_rl.benchmarking.process_tree import alive, descendants
from nemo_code_rl.engine import ExecutionPool, Program

_CONFIG = (
    "bench:\n  resources_servers:\n    nemo_code_rl_code_gen:\n      entrypoint: app.py\n"
    "      num_processes: 1\n      unit_test_timeout_secs: 60\n"
)
_LOOPING = {
    "responses_create_params": {"input": [{"role": "user", "content": "Solve the problem."}]},
    "response": {
        "output": [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "```python\nwhile True:\n    pass\n```"}],
            }
        ]
    },
    "verifier_metadata": {"unit_tests": {"inputs": ["1\n", "2\n"], "outputs": ["1", "2"]}},
}


def latency(repeats: int, running_s: float) -> list[float]:
    """Seconds from each hang-up to the end of the looping program's processes."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = Path(tempfile.mkdtemp()) / "config.yaml"
    config.write_text(_CONFIG)
    command = [sys.executable, "-m", "nemo_code_rl.gym_server", "--config", str(config), "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/", timeout=2, trust_env=False).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        standing = descendants(server.pid)
        body = json.dumps(_LOOPING).encode()
        head = "POST /verify HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        head += f"Content-Length: {len(body)}\r\n\r\n"
        seconds = []
        for _ in range(repeats):
            with socket.create_connection(("127.0.0.1", port)) as client:
                client.sendall(head.encode() + body)
                while not (program := {p for p in descendants(server.pid) - standing if alive(p)}):
                    time.sleep(0.01)
                time.sleep(running_s)
                hung_up = time.monotonic()
            while any(alive(pid) for pid in program):
                time.sleep(0.005)
            seconds.append(time.monotonic() - hung_up)
        return seconds
    finally:
        server.terminate()
        server.wait()


def overhead(repeats: int, programs: int) -> dict[str, list[float]]:
    """Parent CPU seconds of each batch, without a check and with one that never cancels."""
    batch = [Program("print(sum(range(200000)))", ["", ""]) for _ in range(programs)]
    cpu: dict[str, list[float]] = {"no check": [], "check": []}
    with ExecutionPool(workers=2) as pool:
        pool.run_batch(batch[:50])
        for _ in range(repeats):
            for name, check in (("no check", None), ("check", lambda index: False)):
                start = time.process_time()
                pool.run_batch(batch, cancelled=check)
                cpu[name].append(time.process_time() - start)
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument(
        "--running", type=float, default=0.5, help="seconds the program runs before the hang-up"
    )
    parser.add_argument("--programs", type=int, default=1000, help="programs of each overhead batch")
    args = parser.parse_args()
    seconds = latency(args.repeats, args.running)
    print(f"hang-up to program gone, s: median {statistics.median(seconds):.2f}, max {max(seconds):.2f}")
    for name, values in overhead(max(3, args.repeats // 2), args.programs).items():
        print(f"parent CPU per {args.programs} programs, {name}: median {statistics.median(values):.3f} s")


if __name__ == "__main__":
    main()
