"""Rewards for samples that could not be judged (an infrastructure fault, not the model's).

GRPO turns rewards into advantages within the group of samples of one prompt. A sample given 0
for a sandbox fault would be pushed down as if the model had failed; given the mean reward of its
group it gets an advantage of about 0, so it teaches nothing either way. A step's samples of one
problem are its group in synchronous GRPO; where a sample has no judged peer in the step
(asynchronous rollouts send samples one by one), the fallback is 0, and the sample stays flagged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence


def neutral_rewards(problem_ids: Sequence[str | None], rewards: Sequence[float | None]) -> list[float]:
    """``rewards`` with each ``None`` replaced by the mean of the same problem's judged rewards.

    >>> neutral_rewards(["a", "a", "a", "b"], [1.0, None, 0.0, None])
    [1.0, 0.5, 0.0, 0.0]
    """
    judged: dict[str, list[float]] = defaultdict(list)
    for problem_id, reward in zip(problem_ids, rewards, strict=True):
        if problem_id is not None and reward is not None:
            judged[problem_id].append(reward)
    return [
        reward
        if reward is not None
        else (sum(judged[problem_id]) / len(judged[problem_id]) if judged.get(problem_id) else 0.0)
        for problem_id, reward in zip(problem_ids, rewards, strict=True)
    ]
