"""Merge concurrent requests into one batch call.

NeMo RL's asynchronous rollouts call ``step`` once per sample, from many threads at once, and the
Gym server gets one request per rollout. The sandbox pool runs one batch at a time and spreads it
over all its workers, so answering each call alone would leave all but one worker idle. Instead,
whichever caller finds the pool free runs everything queued so far as one batch, and callers that
arrive meanwhile wait for the next one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

Job = TypeVar("Job")
Result = TypeVar("Result")


class _Request(Generic[Job, Result]):
    def __init__(self, jobs: Sequence[Job]) -> None:
        self.jobs = list(jobs)
        self.results: list[Result] | None = None
        self.error: BaseException | None = None

    @property
    def done(self) -> bool:
        return self.results is not None or self.error is not None


class BatchCoalescer(Generic[Job, Result]):
    """Run ``run_batch`` over the jobs of all callers waiting at once; thread-safe.

    ``run_batch`` must return one result per job, in order. If it raises, every caller whose jobs
    were in that batch gets the exception.

    >>> calls = []
    >>> coalescer = BatchCoalescer(lambda jobs: calls.append(len(jobs)) or [job * 2 for job in jobs])
    >>> coalescer.submit([1, 2]), calls
    ([2, 4], [2])
    """

    def __init__(self, run_batch: Callable[[list[Job]], list[Result]]) -> None:
        self._run_batch = run_batch
        self._condition = threading.Condition()
        self._queue: list[_Request[Job, Result]] = []
        self._busy = False

    def submit(self, jobs: Sequence[Job]) -> list[Result]:
        """The results of ``jobs``, computed in the next batch that includes them."""
        request: _Request[Job, Result] = _Request(jobs)
        with self._condition:
            self._queue.append(request)
            while self._busy and not request.done:
                self._condition.wait()
            if not request.done:
                self._busy = True
                batch, self._queue = self._queue, []
        if not request.done:
            self._lead(batch)
        if request.error is not None:
            raise request.error
        assert request.results is not None
        return request.results

    def _lead(self, batch: list[_Request[Job, Result]]) -> None:
        flat = [job for request in batch for job in request.jobs]
        results: list[Result] | None = None
        error: BaseException | None = None
        try:
            results = self._run_batch(flat)
            if len(results) != len(flat):
                raise RuntimeError(f"batch call returned {len(results)} results for {len(flat)} jobs")
        except BaseException as caught:  # noqa: BLE001 - handed to every caller of this batch
            error = caught
        with self._condition:
            start = 0
            for request in batch:
                if error is not None:
                    request.error = error
                else:
                    assert results is not None
                    request.results = results[start : start + len(request.jobs)]
                start += len(request.jobs)
            self._busy = False
            self._condition.notify_all()
