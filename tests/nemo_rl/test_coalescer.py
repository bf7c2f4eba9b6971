"""Concurrent single-sample requests are merged into few batch calls, each caller getting its own results."""

from __future__ import annotations

import doctest
import threading
import time

import pytest

from nemo_code_rl import coalescer
from nemo_code_rl.coalescer import BatchCoalescer


def test_docstring_examples() -> None:
    assert doctest.testmod(coalescer).failed == 0


def test_concurrent_callers_share_batches_and_get_their_own_results() -> None:
    batches: list[list[int]] = []

    def run(jobs: list[int]) -> list[int]:
        batches.append(list(jobs))
        time.sleep(0.2)  # the pool is busy; later callers queue up meanwhile
        return [job * 10 for job in jobs]

    merger = BatchCoalescer(run)
    results: dict[int, list[int]] = {}

    def call(index: int) -> None:
        results[index] = merger.submit([index, index + 100])

    threads = [threading.Thread(target=call, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert results == {i: [i * 10, (i + 100) * 10] for i in range(12)}
    assert sorted(job for batch in batches for job in batch) == sorted(
        j for i in range(12) for j in (i, i + 100)
    )
    assert len(batches) < 12  # callers that arrived during a batch were served together


def test_a_failing_batch_fails_its_callers_only() -> None:
    def run(jobs: list[str]) -> list[str]:
        if "bad" in jobs:
            raise RuntimeError("sandbox gone")
        return [job.upper() for job in jobs]

    merger = BatchCoalescer(run)
    with pytest.raises(RuntimeError, match="sandbox gone"):
        merger.submit(["ok", "bad"])
    assert merger.submit(["ok"]) == ["OK"]  # the next batch runs normally


def test_a_wrong_number_of_results_is_an_error() -> None:
    merger = BatchCoalescer(lambda jobs: jobs[:-1])
    with pytest.raises(RuntimeError, match="returned 1 results for 2 jobs"):
        merger.submit([1, 2])
