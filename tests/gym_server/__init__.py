"""Tests of the NeMo Gym resources server, and what they share: verify requests built from Gym's
recorded ``code_gen`` rollouts, and Responses-format answers.

A rollout file keeps Gym's answer to ``/verify`` (the request less ``verifier_metadata``), so each
rollout is joined to its row of ``code_gen_example.jsonl`` by the first user message to rebuild the
request Gym's agent sent: the rollout's ``responses_create_params`` and ``response``, and the row's
``verifier_metadata`` and ``hash_id``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nemo_code_rl.unit_tests.checkers import SHIPPED_CHECKERS

CHECKERS_DIR = SHIPPED_CHECKERS
# The two multi-answer problems; their checkers accept both rollouts (see nemo_code_rl/unit_tests/checkers/README.md).
CHECKED_PROBLEMS = frozenset({"ff86821ed6f7260c7a17c4c9be03b663", "c69268d8bdb4da0685d7b187c88296c1"})


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _first_user_text(params: dict[str, Any]) -> str:
    return next(item["content"] for item in params["input"] if item.get("role") == "user")


def recorded_rollouts(fixtures_dir: Path) -> list[tuple[dict[str, Any], float]]:
    """(the verify request Gym sent, the reward Gym recorded) for each example rollout."""
    folder = fixtures_dir / "nemo_gym"
    if not (folder / "code_gen_example_rollouts.jsonl").is_file():
        pytest.skip(f"no NeMo Gym code_gen fixtures in {folder}")
    rows = {
        _first_user_text(row["responses_create_params"]): row
        for row in _jsonl(folder / "code_gen_example.jsonl")
    }
    joined = []
    for rollout in _jsonl(folder / "code_gen_example_rollouts.jsonl"):
        row = rows[_first_user_text(rollout["responses_create_params"])]
        request = {
            "responses_create_params": rollout["responses_create_params"],
            "response": rollout["response"],
            "verifier_metadata": row["verifier_metadata"],
            "hash_id": row["hash_id"],
        }
        joined.append((request, float(rollout["reward"])))
    assert len(joined) == 5
    return joined


def responses_answer(text: str, reasoning: str | None = None) -> dict[str, Any]:
    """A model response in the OpenAI Responses format, as Gym's agents forward it."""
    output: list[dict[str, Any]] = []
    if reasoning is not None:
        output.append(
            {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": reasoning}]}
        )
    output.append(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    )
    return {
        "id": "resp_1",
        "created_at": 0.0,
        "model": "policy",
        "object": "response",
        "output": output,
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
    }


def stdio_request(code: str, inputs: list[str], outputs: list[str], **row: Any) -> dict[str, Any]:
    """A verify request whose answer is ``code`` in a python fence, on stdin/stdout tests."""
    return {
        "responses_create_params": {"input": [{"role": "user", "content": "Solve the problem."}]},
        "response": responses_answer(f"Here it is.\n```python\n{code}\n```"),
        "verifier_metadata": {"unit_tests": {"inputs": inputs, "outputs": outputs}},
        **row,
    }
