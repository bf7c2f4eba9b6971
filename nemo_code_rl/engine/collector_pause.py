"""The cyclic garbage collector paused in the process that routes a batch, while it routes.

With a worker per core, a pool's routing process hands out a program about every half a
millisecond, and its collections stop it meanwhile: 70-130 ms per batch of 2,000 programs on a
16-core host, full collections of up to 44 ms each (a full collection walks the whole heap: the
batch's problems, programs and results, the configuration, every module), while each worker that
finished waited for its next program. With the collector paused, the verifier took 4-5% less
time there in two of three comparisons of alternating rounds, and as long in the third (session
20). Freezing the heap when a batch starts (``gc.freeze``) was tried: the batch's own objects are
most of what a full collection walks (on Python 3.11 the longest pause only halved), and on
Python 3.12 the heap starts with objects frozen, which a freeze that leaves others' alone reads
as someone else's.

Paused, not turned off: while batches route, a full collection still runs every ``PAUSE_MAX_S``
(a server running one batch after another would otherwise never collect), and the collector is
as it was once the last batch in the process ends; what the batch made is collected then, when
no worker waits. A periodic collection stops every worker for as long as it walks the heap, which
grows with the batch: on the 16-core host the verifier alone, routing 50,000 programs, ran two of
0.6-1.0 s each. So the next one waits at least ``1 / PERIODIC_SHARE`` times as long as the last
took: periodic collections take at most that share of the routing time, whatever the heap. A
collector turned off before is left off. The pools pause it around ``run_batch``, the verifier
around ``verify_batch`` (its extraction and judging too), and the ``score`` and ``eval`` commands
from reading their input until their rows are written and summarized.

The commands pause it with ``periodic=False``: no periodic collection runs while they judge.
Their problems, rows and verifications live until they end, so each full collection walked all
of them and freed nothing (none found anything to free after 8,000 programs), while every worker
waited: 0.47-0.59 s each on the development VM at 8,000 programs, 1.0-1.4 s on the 16-core host
at 50,000, one every ``PAUSE_MAX_S``, so a long run spent a growing share of its time in them.
A command's run ends, and with it what it holds; a server's batches never all end, and keep the
periodic collection.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Iterator

PAUSE_MAX_S = 10.0  # the shortest wait between periodic collections while batches route
PERIODIC_SHARE = 0.02  # the most of the routing time spent in periodic collections

_lock = threading.Lock()
_batches = 0  # batches routing now, in every pool of this process
_paused_here = False  # whether this module paused the collector (not someone before it)
_next_collection = 0.0  # when the next periodic collection is due (time.monotonic())
_not_periodic = 0  # pauses in force that run no periodic collection (``periodic=False``)


@contextlib.contextmanager
def collector_paused_while_routing(periodic: bool = True) -> Iterator[None]:
    """Pause the collector for the first batch to start routing; resume it when the last ends.
    With ``periodic=False`` (a command whose objects live until its run ends), no periodic
    collection runs while this pause is in force, whatever the pauses inside it ask."""
    global _batches, _paused_here, _next_collection, _not_periodic
    with _lock:
        if _batches == 0 and gc.isenabled():
            gc.disable()
            _paused_here = True
            _next_collection = time.monotonic() + PAUSE_MAX_S
        _batches += 1
        _not_periodic += not periodic
    try:
        yield
    finally:
        with _lock:
            _batches -= 1
            _not_periodic -= not periodic
            if _batches == 0 and _paused_here:
                _paused_here = False
                gc.enable()


def collect_if_due() -> None:
    """Between hand-outs: a full collection, once it is due (``PAUSE_MAX_S`` after the pause
    began or the last one ended, or longer after a slow one: see ``PERIODIC_SHARE``)."""
    global _next_collection
    if not _due():
        return
    with _lock:
        if not _due():
            return
        _next_collection = float("inf")  # no other thread starts one meanwhile
    started = time.monotonic()
    try:
        gc.collect()
    finally:
        ended = time.monotonic()
        _next_collection = ended + max(PAUSE_MAX_S, (ended - started) / PERIODIC_SHARE)


def _due() -> bool:
    return _paused_here and not _not_periodic and time.monotonic() >= _next_collection
