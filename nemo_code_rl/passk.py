"""pass@k from n samples per problem, without the bias of "pass in the first k samples".

Uses the unbiased estimator of Chen et al. 2021 (Evaluating Large Language Models Trained on
Code): with ``n`` samples of which ``c`` pass, ``pass@k = 1 - C(n - c, k) / C(n, k)``, the chance
that a random size-``k`` subset holds at least one passing sample.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from math import comb

STANDARD_KS = (1, 2, 5, 10, 20, 50, 100)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate for one problem with ``c`` passing samples out of ``n``.

    Computed with exact integers and one correctly rounded division, so it stays accurate for
    large ``n``.

    >>> pass_at_k(n=10, c=3, k=1)
    0.3
    >>> round(pass_at_k(n=10, c=3, k=5), 4)
    0.9167
    """
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n}")
    if n - c < k:
        return 1.0
    total = comb(n, k)
    return (total - comb(n - c, k)) / total


def pass_at_k_table(
    results: Mapping[str, Sequence[bool]] | Iterable[Sequence[bool]], ks: Sequence[int] = STANDARD_KS
) -> dict[int, float]:
    """Mean pass@k over problems, for each ``k`` in ``ks`` that every problem has samples for.

    ``results`` holds, per problem, whether each sample passed (a mapping from problem id, or a
    plain sequence). ``k`` larger than the fewest samples any problem has is left out rather than
    estimated from too little data.

    >>> pass_at_k_table({"a": [True, False], "b": [False, False]})
    {1: 0.25, 2: 0.5}
    """
    per_problem = list(results.values()) if isinstance(results, Mapping) else list(results)
    if not per_problem:
        raise ValueError("pass@k needs at least one problem")
    fewest = min(len(samples) for samples in per_problem)
    if fewest == 0:
        raise ValueError("every problem needs at least one sample")
    counts = [(len(samples), sum(bool(passed) for passed in samples)) for samples in per_problem]
    return {
        k: sum(pass_at_k(n, c, k) for n, c in counts) / len(counts)
        for k in sorted(set(ks))
        if 1 <= k <= fewest
    }
