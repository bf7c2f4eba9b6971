"""Splitting a batch into chunks of equal work, not of equal count.

A program's work is the number of inputs it runs on (its tests): one program with 100 tests is
100 units, not one. Chunks are built longest-program-first onto the lightest chunk (the classic
LPT greedy, within 4/3 of the best split), so no chunk is stuck with all the heavy programs.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence


def work_of(input_count: int) -> int:
    """The work of a program: its inputs, and at least 1 (a program without inputs still costs a message)."""
    return max(1, input_count)


def split_by_work(weights: Sequence[int], parts: int) -> list[list[int]]:
    """Indices of ``weights`` in at most ``parts`` non-empty chunks of near-equal total weight.

    Chunks come heaviest first; the indices inside a chunk keep their heaviest-first order, which
    is also the order the receiving pool starts them in.
    """
    if parts < 1:
        raise ValueError(f"parts must be at least 1, got {parts}")
    heap = [(0, slot) for slot in range(min(parts, len(weights)))]
    chunks: list[list[int]] = [[] for _ in heap]
    totals = [0] * len(heap)
    for index in sorted(range(len(weights)), key=lambda i: -weights[i]):
        total, slot = heapq.heappop(heap)
        chunks[slot].append(index)
        totals[slot] = total + weights[index]
        heapq.heappush(heap, (totals[slot], slot))
    order = sorted(range(len(chunks)), key=lambda slot: -totals[slot])
    return [chunks[slot] for slot in order]
