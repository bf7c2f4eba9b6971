"""Multi-turn feedback: a failing program gets its test report back as a user turn in the policy's chat
format, and the episode ends on success or when the turns run out, with NeMo RL's summed reward
equal to the last attempt's reward."""

from __future__ import annotations

import copy
from typing import Any

import pytest

pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")

from nemo_code_rl.environments.chat_turns import PASSTHROUGH_TEMPLATE, UserTurnFormat, user_turn_format
from nemo_code_rl.environments.code_environment import UnitTestEnvironment
from nemo_code_rl.processors import code_unit_tests_processor, env_info_for_problem

from .helpers import CORRECT_SUM, answer, sum_problem, sum_row

HALF_RIGHT = "print(3)"  # passes the first test (1 2 -> 3), fails the second


@pytest.fixture(scope="module")
def env(chat_tokenizer_config: dict[str, str]):
    environment = UnitTestEnvironment(
        {
            "workers": 2,
            "timeout_s": 2.0,
            "max_rollout_turns": 3,
            "tokenizer": chat_tokenizer_config,
            "reward": {"mode": "fraction"},
        }
    )
    try:
        yield environment
    finally:
        environment.shutdown()


def _rollout(
    env: UnitTestEnvironment, tokenizer: Any, scripts: list[list[str]], max_turns: int = 3
) -> list[dict]:
    """What NeMo RL's ``run_multi_turn_rollout`` does with the environment's answers, turn by turn:
    append the assistant message, call ``step`` on the active samples, add the rewards up, append the
    observation as raw text, and keep the returned metadata only for samples that go on."""
    datum = code_unit_tests_processor(sum_row(), None, tokenizer, 4096, 0)
    episodes = [
        {
            "log": [dict(datum["message_log"][0])],
            "info": dict(datum["extra_env_info"]),
            "reward": 0.0,
            "done": False,
            "turns": 0,
            "observations": [],
            "text": datum["message_log"][0]["content"],
        }
        for _ in scripts
    ]
    for turn in range(max_turns):
        active = [i for i, episode in enumerate(episodes) if not episode["done"]]
        if not active:
            break
        for i in active:
            completion = scripts[i][turn]
            episodes[i]["log"].append({"role": "assistant", "content": completion})
            # the generated tokens end with EOS; the decoded content does not
            episodes[i]["text"] += completion + tokenizer.eos_token
        result = env.step(
            [[{"role": m["role"], "content": m["content"]} for m in episodes[i]["log"]] for i in active],
            [episodes[i]["info"] for i in active],
        )
        for local, i in enumerate(active):
            episode = episodes[i]
            episode["reward"] += result.rewards[local].item()
            episode["turns"] += 1
            observation = result.observations[local]
            episode["log"].append(dict(observation))
            episode["observations"].append(observation["content"])
            episode["text"] += observation["content"]
            if result.terminateds[local]:
                episode["done"] = True
            else:
                episode["info"] = result.metadata[local]
    return episodes


def test_feedback_turns_until_success_or_out_of_turns(env, tokenizer) -> None:
    scripts = [
        [answer(CORRECT_SUM)],  # solved at once
        [answer(HALF_RIGHT), answer(CORRECT_SUM)],  # solved after feedback
        [answer(HALF_RIGHT), answer("print(0)"), answer(HALF_RIGHT)],  # never solved: 3 turns
        ["no code at all", answer(CORRECT_SUM)],  # format failure gets feedback too
    ]
    solved, fixed, failed, unformatted = _rollout(env, tokenizer, scripts)

    assert (solved["turns"], solved["reward"]) == (1, 1.0)
    assert (fixed["turns"], fixed["reward"]) == (2, 1.0)
    assert (unformatted["turns"], unformatted["reward"]) == (2, 1.0)
    # the summed reward is the last attempt's (fraction mode: 1 of 2 tests), not the sum of attempts
    assert failed["turns"] == 3 and failed["reward"] == pytest.approx(0.5)

    feedback = fixed["observations"][0]
    assert feedback.startswith("\n<|im_start|>user\n")
    assert feedback.endswith("<|im_end|>\n<|im_start|>assistant\n")
    # by default a feedback turn names the failing test and its verdict, never the hidden test itself
    assert (
        "Test 2 of 2 failed: wrong answer." in feedback
        and "Input" not in feedback
        and "Expected" not in feedback
    )
    assert "No code was found" in unformatted["observations"][0]
    assert failed["observations"][-1].startswith("Environment:")  # the last turn closes, no new prompt


def test_the_conversation_is_what_the_chat_template_renders(env, tokenizer) -> None:
    """Prompt + assistant tokens + feedback observation must equal the template's own rendering of the
    whole conversation, so the policy sees a well-formed chat at every turn."""
    (episode,) = _rollout(env, tokenizer, [[answer(HALF_RIGHT), answer(CORRECT_SUM)]])
    user_turns = [m["content"] for m in episode["log"] if m["role"] == "environment"]
    feedback_text = user_turns[0][len("\n<|im_start|>user\n") : -len("<|im_end|>\n<|im_start|>assistant\n")]
    expected = tokenizer.apply_chat_template(
        [
            {"role": "user", "content": sum_problem().prompt},
            {"role": "assistant", "content": answer(HALF_RIGHT)},
            {"role": "user", "content": feedback_text},
        ],
        tokenize=False,
        add_generation_prompt=True,
    )
    first_two_turns = episode["text"][: episode["text"].index(answer(CORRECT_SUM))]
    assert first_two_turns == expected


def test_metadata_carries_the_episode_state(env) -> None:
    info = env_info_for_problem(sum_problem())
    log = [{"role": "user", "content": "p"}, {"role": "assistant", "content": answer(HALF_RIGHT)}]
    first = env.step([log], [info])
    assert first.terminateds.tolist() == [False]
    assert first.metadata[0]["turn"] == 1 and first.metadata[0]["episode_reward"] == 0.5  # fraction: 1 of 2
    assert first.metadata[0]["problem"] == info["problem"]

    last = env.step([log], [{**first.metadata[0], "turn": 2}])
    assert last.terminateds.tolist() == [True]  # third turn of three
    assert last.metadata[0]["turn"] == 3
    assert last.rewards.tolist() == [0.0]  # the same 0.5 again: no change in the episode's reward


def test_user_turn_format_of_other_templates(tokenizer) -> None:
    assert (
        user_turn_format(tokenizer).render("hi")
        == "\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    )

    passthrough = copy.deepcopy(tokenizer)
    passthrough.chat_template = PASSTHROUGH_TEMPLATE
    assert user_turn_format(passthrough) == UserTurnFormat("", "")

    headers = copy.deepcopy(tokenizer)
    headers.chat_template = (
        "{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n"
        "{{ m['content'] }}<|eot_id|>{% endfor %}"
        "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}"
    )
    turn = user_turn_format(headers)  # its EOS is not <|eot_id|>, so the closing token stays
    assert turn.prefix == "<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n"
    assert turn.suffix == "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
