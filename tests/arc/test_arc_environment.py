"""The ARC environment in process and as NeMo RL runs it (a Ray actor), judging in the real sandbox."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray", reason="the environment actor needs Ray: pip install 'ray[default]'")
torch = pytest.importorskip("torch", reason="the environment needs torch: pip install torch")

from nemo_code_rl.arc.augment import Augmentation  # noqa: E402
from nemo_code_rl.config_keys import ConfigError  # noqa: E402
from nemo_code_rl.environments.arc_environment import ArcProgramEnvironment, ArcProgramsEnvironment  # noqa: E402
from nemo_code_rl.processors.arc_processors import env_info_for_task  # noqa: E402
from tests.nemo_rl.helpers import conversation  # noqa: E402

from .conftest import VERIFIER_CONFIG  # noqa: E402
from .programs import CORRECT_PROGRAMS, completion  # noqa: E402

ROT180 = "3c9b0459"
ENV_CONFIG = {"workers": 2, **VERIFIER_CONFIG}
IDENTITY = completion("def transform(grid):\n    return grid")


@pytest.fixture(scope="module")
def env():
    environment = ArcProgramEnvironment(ENV_CONFIG)
    try:
        yield environment
    finally:
        environment.shutdown()


def test_one_reward_per_sample_for_a_mixed_batch(env, arc1) -> None:
    task = arc1[ROT180]
    info = env_info_for_task(task)
    rotated = Augmentation(1, (0, 2, 1, 3, 4, 5, 6, 7, 8, 9))
    augmented_info = env_info_for_task(rotated.apply_task(task), rotated)
    right = completion(CORRECT_PROGRAMS[ROT180])
    cases = [
        (right, info, 10.0),
        (IDENTITY, info, 1.0),
        ("The grid is rotated.", info, -1.0),
        (completion("def transform(grid):\n    return grid[0][99]"), info, 0.0),
        (right, "not json at all", 0.0),
        (right, {"task_id": ROT180}, 0.0),
        (right, None, 0.0),
        (right, json.dumps(info), 10.0),
        (right, augmented_info, 10.0),
    ]
    observations, metadata, stops, rewards, terminateds, answers = env.step(
        [conversation(c[0]) for c in cases], [c[1] for c in cases]
    )

    assert rewards.dtype == torch.float32 and rewards.tolist() == [c[2] for c in cases]
    assert terminateds.tolist() == [True] * len(cases) and stops == [None] * len(cases)
    assert all(o["role"] == "environment" for o in observations)
    assert answers[0] == CORRECT_PROGRAMS[ROT180] and answers[2] is None
    assert metadata[0]["result"]["passed"] is True and metadata[1]["result"]["train_accuracy"] == 0.0
    assert all(metadata[i]["result"]["error"] for i in (4, 5, 6))
    assert metadata[8]["result"]["predictions"] == [task.test[0].output]  # mapped back to the task

    _, metrics = env.global_post_process_and_metrics({"message_log": [conversation(c[0]) for c in cases]})
    assert metrics["bad_metadata"] == 3.0 and metrics["samples"] == 9.0
    assert metrics["arc/n_preds"] == 6.0 and metrics["arc/valid_code"] == pytest.approx(5 / 6)
    assert metrics["arc/train_pass_rate"] == pytest.approx(3 / 6) and metrics["arc/pass@n"] == 1.0
    assert metrics["arc/unique_outputs"] == pytest.approx(
        3 / 6
    )  # right (twice the same), identity, rotated view
    assert "responses" in metrics and env.global_post_process_and_metrics({})[1]["samples"] == 0.0


def test_feedback_turn_then_a_fixed_program(arc1, chat_tokenizer_config) -> None:
    environment = ArcProgramEnvironment(
        {**ENV_CONFIG, "max_rollout_turns": 2, "tokenizer": chat_tokenizer_config}
    )
    try:
        info = env_info_for_task(arc1[ROT180])
        first = environment.step([conversation(IDENTITY)], [info])
        [observation] = first.observations
        assert first.rewards.tolist() == [1.0] and first.terminateds.tolist() == [False]
        assert "Your program got 0 of 4 training examples right." in observation["content"]
        assert "In example 1, first difference at row 0, column 0" in observation["content"]
        assert observation["content"].rstrip().endswith("assistant")  # the next assistant turn is opened

        log = [
            *conversation(IDENTITY),
            observation,
            {"role": "assistant", "content": completion(CORRECT_PROGRAMS[ROT180])},
        ]
        second = environment.step([log], first.metadata)
        assert second.rewards.tolist() == [9.0] and second.terminateds.tolist() == [True]
        _, metrics = environment.global_post_process_and_metrics({})
        assert metrics["solved_after_feedback"] == 1.0 and metrics["arc/n_preds"] == 1.0
    finally:
        environment.shutdown()


def test_metrics_jsonl_rows_reach_the_plots(arc1, tmp_path) -> None:
    plotting = pytest.importorskip("nemo_code_rl.plotting", reason="the plot extra is not installed")
    run = tmp_path / "logs" / "grpo_arc"
    environment = ArcProgramEnvironment({**ENV_CONFIG, "metrics_jsonl": str(run / "env_metrics.jsonl")})
    info = env_info_for_task(arc1[ROT180])
    try:
        for program in (IDENTITY, completion(CORRECT_PROGRAMS[ROT180])):
            environment.step([conversation(program), conversation(IDENTITY)], [info, info])
    finally:
        environment.shutdown()

    rows = [json.loads(line) for line in (run / "env_metrics.jsonl").read_text().splitlines()]
    assert [(row["step"], row["arc/train_pass_rate"], row["pass_rate"]) for row in rows] == [
        (0, 0.0, 0.0),
        (1, 0.5, 0.5),
    ]
    scalars = plotting.load_scalars(run)
    assert scalars["arc/train_pass_rate"] == [(0, 0.0), (1, 0.5)] and len(scalars["mean_reward"]) == 2


def test_config_is_validated_at_start() -> None:
    with pytest.raises(ConfigError, match="did you mean 'execution'"):
        ArcProgramEnvironment({"executions": {}})
    with pytest.raises(ConfigError, match="needs tokenizer"):
        ArcProgramEnvironment({"max_rollout_turns": 3})


def test_ray_actor_as_nemo_rl_creates_it(arc1) -> None:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        actor = ArcProgramsEnvironment.remote(ENV_CONFIG)
        info = env_info_for_task(arc1[ROT180])
        result = ray.get(
            actor.step.remote(
                [conversation(completion(CORRECT_PROGRAMS[ROT180])), conversation(IDENTITY)], [info, info]
            ),
            timeout=120,
        )
        observations, _metadata, _, rewards, terminateds, _ = result  # NeMo RL unpacks by position
        assert rewards.tolist() == [10.0, 1.0] and terminateds.tolist() == [True, True]
        assert observations[0]["content"] == "Environment: 4/4 training examples right; reward 10."
        ray.get(actor.shutdown.remote(), timeout=30)
        ray.kill(actor)
    finally:
        ray.shutdown()
