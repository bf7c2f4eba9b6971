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
no worker waits. A collector turned off before is left off. The pools pause it around
``run_batch``, the verifier around ``verify_batch`` (its extraction and judging too), and the
``score`` command until its rows are written and summarized (they live until then, so walking
them finds nothing to free).
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Iterator

PAUSE_MAX_S = 10.0  # the longest the collector waits while batches route

_lock = threading.Lock()
_batches = 0  # batches routing now, in every pool of this process
_paused_here = False  # whether this module paused the collector (not someone before it)
_last_collection = 0.0


@contextlib.contextmanager
def collector_paused_while_routing() -> Iterator[None]:
    """Pause the collector for the first batch to start routing; resume it when the last ends."""
    global _batches, _paused_here, _last_collection
    with _lock:
        if _batches == 0 and gc.isenabled():
            gc.disable()
            _paused_here = True
            _last_collection = time.monotonic()
        _batches += 1
    try:
        yield
    finally:
        with _lock:
            _batches -= 1
            if _batches == 0 and _paused_here:
                _paused_here = False
                gc.enable()


def collect_if_due() -> None:
    """Between hand-outs: a full collection, once the collector has waited ``PAUSE_MAX_S``."""
    global _last_collection
    if not _paused_here or time.monotonic() - _last_collection < PAUSE_MAX_S:
        return
    with _lock:
        if not _paused_here or time.monotonic() - _last_collection < PAUSE_MAX_S:
            return
        _last_collection = time.monotonic()
    gc.collect()
