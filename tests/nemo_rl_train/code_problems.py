"""The coding problems of the ``grpo_train`` tests, and our verifier re-judging the texts NeMo RL logged.

NeMo RL logs each training sample's conversation as its texts (``train_data_step*.jsonl``: prompt,
then assistant answers and our environment's observations in turn) and each validation sample's
as message dicts (``val_data_step*.jsonl``); the tests judge the answers again here, with the
environment's own settings, and compare with the rewards NeMo RL trained on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nemo_code_rl.environments.config import CodeEnvConfig
from nemo_code_rl.unit_tests.problems import Problem, load_problems
from nemo_code_rl.unit_tests.verification import Verifier

# Problems SmolLM2-135M-Instruct solves now and then at temperature 1, so that a group of 4 answers
# has mixed rewards (with all rewards equal, every advantage is 0 and nothing is learnt).
PROBLEMS = [
    {
        "responses_create_params": {
            "input": [
                {
                    "role": "user",
                    "content": "Write a Python program that prints Hello, World!\n\n"
                    "Answer with the program in a ```python code block.",
                }
            ]
        },
        "verifier_metadata": {"unit_tests": {"inputs": [""], "outputs": ["Hello, World!\n"]}},
        "hash_id": "hello",
    },
    {
        "responses_create_params": {
            "input": [
                {
                    "role": "user",
                    "content": "Write a Python program that reads an integer n from standard input and "
                    "prints n + 1.\n\nAnswer with the program in a ```python code block.",
                }
            ]
        },
        "verifier_metadata": {"unit_tests": {"inputs": ["1\n", "41\n"], "outputs": ["2\n", "42\n"]}},
        "hash_id": "plus-one",
    },
]


def problems_file(folder: Path, copies: int = 1) -> Path:
    """``PROBLEMS`` as a JSONL file in the Nemotron-RL layout that ``data.*.source`` reads, the list
    ``copies`` times over (unshuffled, each batch of 2 prompts then holds both problems; ids must be
    unique, so each copy after the first gets its own)."""
    rows = [
        {**row, "hash_id": f"{row['hash_id']}-{copy}" if copy else row["hash_id"]}
        for copy in range(copies)
        for row in PROBLEMS
    ]
    path = folder / "problems.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def logged_text(message: Any) -> str:
    """A message of ``val_data_step*.jsonl`` (a dict) or of ``train_data_step*.jsonl`` (its text)."""
    return message["content"] if isinstance(message, dict) else str(message)


def conversation(row: dict[str, Any]) -> list[str]:
    """One logged sample's messages as texts: prompt, then answer and observation, turn by turn."""
    (messages,) = row["content"]
    return [logged_text(m) for m in messages]


def problem_of(prompt: str, problems: Path) -> Problem:
    """The problem whose statement opens ``prompt`` (the prompt is its chat-templated text); of copies
    of one problem, the first."""
    found = {p.prompt: p for p in reversed(load_problems(problems)) if p.prompt.split("\n")[0] in prompt}
    (problem,) = found.values()
    return problem


def judge(jobs: Sequence[tuple[Problem, str]], config_env: dict[str, Any]) -> list[float]:
    """Our verifier's rewards for ``(problem, answer)`` pairs, with the ``env.code_unit_tests`` settings."""
    settings = CodeEnvConfig.from_dict(config_env)
    with Verifier(settings.verifier, workers=2, isolation=settings.isolation) as verifier:
        return [float(v.reward) for v in verifier.verify_batch(list(jobs))]


def rejudge(
    rows: list[dict], config_env: dict, problems: Path, text: Callable[[Any], str] = logged_text
) -> dict[str, tuple[list[float], list[float]]]:
    """NeMo RL's logged rewards of single-turn rows and our verifier's, run here on the same texts, by
    problem (the answers to one problem are one GRPO group). ``text`` reads a logged message's text."""
    jobs, logged = [], []
    for row in rows:  # one sample a row; content: its messages (prompt, answer, closing observation)
        (messages,) = row["content"]
        jobs.append((problem_of(text(messages[0]), problems), text(messages[1])))
        (reward,) = row["rewards"]
        logged.append(float(reward))
    groups: dict[str, tuple[list[float], list[float]]] = {}
    for (problem, _), theirs, mine in zip(jobs, logged, judge(jobs, config_env), strict=True):
        group = groups.setdefault(problem.id, ([], []))
        group[0].append(theirs)
        group[1].append(mine)
    return groups
