"""Before/after on one machine, in one run: the engine rows of ``bench`` for two checkouts, in turns.

A change to the engine is judged against its parent on the same host, in the same minutes:
drifting load on a shared machine then hits both alike. Each round runs ``bench``'s engine rows
(``--skip-baselines``: row a, full isolation, and a strict) once for each checkout, alternating
which goes first; the medians and the per-program cost of the change are printed.

    git worktree add /tmp/before <commit>
    python benchmarks/compare_checkouts.py /tmp/before . --rounds 5 --workers 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

_RUN = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from nemo_code_rl.benchmarking.engine_bench import main; main(sys.argv[2:])"
)


def _engine_rows(checkout: Path, bench_args: list[str]) -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "bench.json"
        command = [sys.executable, "-c", _RUN, str(checkout.resolve()), *bench_args, "--json", str(report)]
        subprocess.run(command, check=True, capture_output=True, text=True, cwd=folder)
        rows = json.loads(report.read_text())["rows"]
    return {row["key"]: row for row in rows}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("before", type=Path, help="checkout of the parent commit")
    parser.add_argument("after", type=Path, help="checkout with the change")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    bench_args = [
        "--skip-baselines",
        "--repeats=1",
        f"--workers={args.workers}",
        f"--programs={args.programs}",
        f"--tests={args.tests}",
    ]
    rates: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for round_number in range(args.rounds):
        order = ("before", "after") if round_number % 2 == 0 else ("after", "before")
        for name in order:
            rows = _engine_rows(getattr(args, name), bench_args)
            for key, row in rows.items():
                rates[name].setdefault(key, []).append(row["tests_per_s"])
    figures: dict[str, dict] = {}
    for key in sorted(rates["after"]):
        before, after = statistics.median(rates["before"][key]), statistics.median(rates["after"][key])
        # seconds of one worker per program: workers / (tests/s) * tests per program
        cost_ms = (1 / after - 1 / before) * args.workers * args.tests * 1000
        figures[key] = {"before_tests_per_s": before, "after_tests_per_s": after, "per_program_ms": cost_ms}
        print(
            f"row {key}: before {before:.0f} tests/s, after {after:.0f} tests/s "
            f"(after/before {after / before:.3f}); cost per program {cost_ms:+.2f} ms of one worker"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "config": vars(args)
                    | {"before": str(args.before), "after": str(args.after), "json": None},
                    "rows": figures,
                },
                indent=2,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
