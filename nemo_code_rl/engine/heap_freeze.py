"""The routing process's heap set aside from the cyclic garbage collector while a batch routes.

With a worker per core, a pool's routing process hands out a program about every half a
millisecond. A full collection walks its whole heap (the batch's problems and programs, the
configuration, every module) and stopped it for 36-79 ms per batch of 2,000 programs on a
16-core host, while each worker that finished waited for its next program: the verifier took
4% longer there than with the collector off (session 20). ``gc.freeze`` at the batch's start
leaves the collector only what the batch itself makes, so a full collection during the batch is
shorter and rarer. Unlike turning the collector off, nothing made during the batch is kept from
it: a long-lived server running one batch after another (the Gym server, an environment actor)
still collects the cycles its other threads make.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_batches = 0  # batches routing now, in every pool of this process
_frozen_here = False  # whether this module froze the heap (not someone before it)


@contextlib.contextmanager
def heap_frozen_while_routing() -> Iterator[None]:
    """Freeze the heap for the first batch to start routing, and unfreeze it when the last ends.

    A heap frozen already when the first batch starts (by a program that freezes before forking,
    as the ``gc.freeze`` documentation advises) is left as it is, and is not unfrozen afterwards.
    """
    global _batches, _frozen_here
    with _lock:
        if _batches == 0:
            _frozen_here = gc.get_freeze_count() == 0
            if _frozen_here:
                gc.freeze()
        _batches += 1
    try:
        yield
    finally:
        with _lock:
            _batches -= 1
            if _batches == 0 and _frozen_here:
                gc.unfreeze()
                _frozen_here = False
