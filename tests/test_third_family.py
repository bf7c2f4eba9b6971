"""A third task family plugs into every generic adapter: the TRL reward, the NeMo RL processor and
the NeMo RL environment, with nothing of its own but its pieces.

The family here ("say the word") reads rows ``{"word": ...}`` and judges a program by whether it
prints the word; it reuses the unit-test family's verifier and judging, so only the row reading
and the prompt are new, which is what a small family costs.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import pytest

from nemo_code_rl.families import UNIT_TESTS
from nemo_code_rl.integrations.trl import FamilyReward
from nemo_code_rl.processors.family_processor import FamilyProcessor
from nemo_code_rl.rows import ProblemFormatError
from nemo_code_rl.unit_tests.family import UnitTestPieces, env_info_for_problem
from nemo_code_rl.unit_tests.problems import Problem

SAY = dataclasses.replace(UNIT_TESTS, name="say_the_word", pieces=f"{__name__}.PIECES")


class SayTheWordPieces(UnitTestPieces):
    family = SAY

    def subject_from_row(self, row: Mapping[str, Any], idx: int) -> Problem:
        word = row.get("word")
        if not isinstance(word, str) or not word:
            raise ProblemFormatError("must be a non-empty string", field="word", location=f"row idx {idx}")
        prompt = f"Write a program that prints {word!r}."
        return Problem(
            id=f"say-{word}",
            prompt=prompt,
            messages=[{"role": "user", "content": prompt}],
            kind="stdio",
            source_format="say_the_word",
            inputs=[""],
            outputs=[word + "\n"],
        )

    def prompt(
        self, row: Mapping[str, Any], task_data_spec: Any, idx: int
    ) -> tuple[list[dict[str, str]], dict[str, Any]]:
        problem = self.subject_from_row(row, idx)
        return [{"role": "user", "content": problem.prompt}], env_info_for_problem(problem)


PIECES = SayTheWordPieces()


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def test_the_generic_trl_reward_judges_a_new_family() -> None:
    rows = [{"word": "hello"}, {"word": "hello"}, {"word": ""}]
    with FamilyReward(PIECES, {"timeout_s": 5.0}, name="say", workers=1, isolation="namespaces") as reward:
        completions = [fenced("print('hello')"), fenced("print('bye')"), fenced("print('')")]
        rewards = reward(completions, word=[row["word"] for row in rows])
        assert rewards == [1.0, 0.0, 0.0]
        assert reward.last_metrics["bad_rows"] == 1.0 and reward.last_metrics["pass_rate"] == 0.5


def test_the_generic_processor_and_environment_serve_a_new_family() -> None:
    pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
    pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")
    from nemo_code_rl.environments.verifying_environment import VerifyingEnvironment

    class SayTheWordEnvironment(VerifyingEnvironment[Problem, tuple[Problem, str], Any]):
        PIECES = PIECES

    messages, info = FamilyProcessor(PIECES).pieces.prompt({"word": "ok"}, None, 0)
    assert messages[-1]["content"] == "Write a program that prints 'ok'."
    env = SayTheWordEnvironment({"workers": 1, "isolation": "namespaces", "timeout_s": 5.0})
    try:
        log = [*messages, {"role": "assistant", "content": fenced("print('ok')")}]
        wrong = [*messages, {"role": "assistant", "content": fenced("print('no')")}]
        result = env.step([log, wrong], [info, json.dumps(info)])
    finally:
        env.shutdown()
    assert result.rewards.tolist() == [1.0, 0.0]
    assert result.metadata[0]["result"]["passed"] is True
