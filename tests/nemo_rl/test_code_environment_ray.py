"""The environment as NeMo RL runs it: a Ray actor on a real Ray cluster, verifying in the real sandbox."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray", reason="the environment actor needs Ray: pip install 'ray[default]'")
torch = pytest.importorskip("torch", reason="the environment needs torch: pip install torch")

from nemo_code_rl.environments.code_environment import CodeUnitTestEnvironment  # noqa: E402
from nemo_code_rl.processors import env_info_for_problem  # noqa: E402

from .helpers import CORRECT_SUM, answer, conversation, sum_problem  # noqa: E402

ENV_CONFIG = {
    "workers": 2,
    "timeout_s": 1.0,
    "early_exit": True,
    "limits": {"memory_bytes": 256 * 1024 * 1024, "output_bytes": 64 * 1024},
}


@pytest.fixture(scope="module")
def env(ray_cluster):
    actor = CodeUnitTestEnvironment.remote(ENV_CONFIG)
    try:
        yield actor
    finally:
        ray.get(actor.shutdown.remote(), timeout=30)
        ray.kill(actor)


# (completion, metadata or None for the good problem, expected reward, what it is)
def _cases(info: dict) -> list[tuple[str, object, float, str]]:
    return [
        (answer(CORRECT_SUM), info, 1.0, "correct"),
        (answer("print(3)"), info, 0.0, "wrong on the second test"),
        ("I think the answer is to add the numbers.", info, 0.0, "no code"),
        (answer(CORRECT_SUM), "not json at all", 0.0, "garbage metadata"),
        (answer(CORRECT_SUM), {"problem_id": "x"}, 0.0, "metadata without a problem"),
        (answer(CORRECT_SUM), None, 0.0, "no metadata"),
        (answer("import os\nos.kill(os.getppid(), 9)\nprint(3)"), info, 0.0, "kills its parent"),
        (answer("while True:\n    pass"), info, 0.0, "infinite loop"),
        (answer("import sys\nsys.exit(0)\nprint(3)"), info, 0.0, "exits before printing"),
        (answer("x = bytearray(2 * 1024**3)\nprint(3)"), info, 0.0, "allocates too much memory"),
        (answer("while True:\n    print('spam' * 1000)"), info, 0.0, "floods stdout"),
        (answer(CORRECT_SUM), json.dumps(info), 1.0, "correct, metadata as JSON text"),
    ]


def test_one_reward_per_sample_for_a_hostile_mixed_batch(env) -> None:
    info = env_info_for_problem(sum_problem())
    cases = _cases(info)
    result = ray.get(env.step.remote([conversation(c[0]) for c in cases], [c[1] for c in cases]), timeout=120)

    observations, metadata, next_stop_strings, rewards, terminateds, answers = (
        result  # NeMo RL unpacks by position
    )
    assert isinstance(rewards, torch.Tensor) and rewards.dtype == torch.float32
    assert rewards.tolist() == [c[2] for c in cases], [c[3] for c in cases]
    assert terminateds.tolist() == [True] * len(cases)
    assert next_stop_strings == [None] * len(cases)
    assert all(o["role"] == "environment" and isinstance(o["content"], str) for o in observations)
    assert len(metadata) == len(answers) == len(cases)
    assert answers[0] == CORRECT_SUM and answers[2] is None

    for index in (3, 4, 5):  # unreadable metadata: recorded, never raised
        assert metadata[index]["result"]["error"]
    assert metadata[0]["result"]["passed"] is True
    assert metadata[2]["result"]["format_ok"] is False
    assert metadata[7]["result"]["verdicts"] == {"timeout": 1, "not_run": 1}


def test_metrics_cover_the_attempts_since_the_last_call(env) -> None:
    ray.get(env.global_post_process_and_metrics.remote({}), timeout=30)  # start from a clean slate
    info = env_info_for_problem(sum_problem("again"))
    logs = [
        conversation(answer(CORRECT_SUM)),
        conversation(answer("while True:\n    pass")),
        conversation("no code"),
    ]
    result = ray.get(env.step.remote(logs, [info, info, 42]), timeout=60)
    assert result.rewards.tolist() == [1.0, 0.0, 0.0]

    batch = {"message_log": logs, "truncated": torch.tensor([False, True, False])}
    returned, metrics = ray.get(env.global_post_process_and_metrics.remote(batch), timeout=30)
    assert set(returned) == set(batch)
    assert metrics["samples"] == 3 and metrics["judged_samples"] == 2
    assert metrics["bad_metadata"] == 1
    assert metrics["pass_rate"] == 0.5
    assert metrics["verdict/timeout"] == 1
    assert metrics["timeout_lost_s"] >= 0.9
    assert metrics["truncation_rate"] == pytest.approx(1 / 3)

    _, after = ray.get(env.global_post_process_and_metrics.remote({}), timeout=30)
    assert after["samples"] == 0


def test_concurrent_single_sample_steps_are_answered(env) -> None:
    """NeMo RL's async rollouts call ``step`` once per sample from many threads."""
    info = env_info_for_problem(sum_problem("async"))
    codes = [CORRECT_SUM, "print(3)", CORRECT_SUM, "print(0)", CORRECT_SUM, "print(1/0)"]
    futures = [env.step.remote([conversation(answer(code))], [info]) for code in codes]
    rewards = [result.rewards.item() for result in ray.get(futures, timeout=120)]
    assert rewards == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]


def test_a_config_typo_fails_the_actor_at_once_with_a_suggestion(ray_cluster) -> None:
    actor = CodeUnitTestEnvironment.remote({"max_test": 3})
    with pytest.raises(ray.exceptions.RayActorError, match="did you mean 'max_tests'"):
        ray.get(actor.global_post_process_and_metrics.remote({}), timeout=60)
