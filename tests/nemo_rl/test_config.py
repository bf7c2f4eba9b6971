"""The ``env.<name>`` dict is checked key by key; a typo is an error that names the right key."""

from __future__ import annotations

import pytest

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.environments.config import DEFAULT_FEEDBACK_TEMPLATE, CodeEnvConfig


def test_defaults() -> None:
    config = CodeEnvConfig.from_dict({})
    assert (config.workers, config.isolation, config.max_rollout_turns, config.tokenizer) == (
        None,
        "full",
        1,
        None,
    )
    assert config.feedback_template == DEFAULT_FEEDBACK_TEMPLATE
    assert config.verifier.reward.mode == "binary" and config.verifier.timeout_s == 10.0
    assert not config.multi_turn


def test_every_level_is_read() -> None:
    config = CodeEnvConfig.from_dict(
        {
            "workers": 3,
            "isolation": "none",
            "early_exit": True,
            "max_tests": 8,
            "timeout_s": 2.5,
            "feedback_chars": 300,
            "limits": {"memory_bytes": 512 * 1024**2, "processes": 8},
            "reward": {
                "mode": "shaped",
                "weights": {
                    "format_ok": 0.2,
                    "ran_without_error": 0.0,
                    "fraction_passed": 0.3,
                    "all_passed": 0.5,
                },
            },
            "comparison": {"mode": "tokens", "abs_tol": 1e-6},
            "extraction": {"mode": "gym"},
            "max_rollout_turns": 2,
            "tokenizer": {
                "name": "Qwen/Qwen2.5-1.5B-Instruct",
                "chat_template": None,
                "use_fastokens": False,
            },
            "feedback_template": "Failed:\n{feedback}",
        }
    )
    verifier = config.verifier
    assert (config.workers, config.isolation, config.max_rollout_turns) == (3, "none", 2)
    assert (verifier.early_exit, verifier.max_tests, verifier.timeout_s, verifier.feedback_chars) == (
        True,
        8,
        2.5,
        300,
    )
    assert verifier.limits.memory_bytes == 512 * 1024**2 and verifier.limits.processes == 8
    assert verifier.reward.mode == "shaped" and verifier.reward.weights.format_ok == 0.2
    assert verifier.comparison.mode == "tokens" and verifier.extraction.mode == "gym"
    assert (
        config.tokenizer is not None and config.tokenizer.passthrough
    )  # chat_template: null is NeMo RL's passthrough


@pytest.mark.parametrize(
    ("data", "wrong", "suggestion"),
    [
        ({"max_turns": 2}, "max_turns", "max_rollout_turns"),
        ({"num_workers": 4}, "num_workers", "workers"),
        ({"timeout": 3}, "timeout", "timeout_s"),
        ({"earlyexit": True}, "earlyexit", "early_exit"),
        ({"limits": {"memory": 10}}, "memory", "memory_bytes"),
        ({"reward": {"mod": "fraction"}}, "mod", "mode"),
        ({"reward": {"mode": "shaped", "weights": {"format": 1.0}}}, "format", "format_ok"),
        ({"comparison": {"abs_tolerance": 0.1}}, "abs_tolerance", "abs_tol"),
        ({"metrics_json": "env.jsonl"}, "metrics_json", "metrics_jsonl"),
        (
            {"max_rollout_turns": 2, "tokenizer": {"name": "m", "chat_templat": "x"}},
            "chat_templat",
            "chat_template",
        ),
    ],
)
def test_unknown_keys_suggest_the_right_one(data: dict, wrong: str, suggestion: str) -> None:
    with pytest.raises(ConfigError, match=f"unknown key '{wrong}'.*did you mean '{suggestion}'"):
        CodeEnvConfig.from_dict(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"workers": 0}, "workers must be a positive integer"),
        ({"isolation": "partial"}, "isolation must be one of"),
        ({"max_rollout_turns": 0}, "max_rollout_turns must be a positive integer"),
        ({"max_rollout_turns": 2}, "needs tokenizer"),
        ({"feedback_template": "no placeholder"}, "must be a string containing {feedback}"),
        ({"reward": {"mode": "best"}}, "reward.mode: expected 'binary', 'fraction' or 'shaped', got 'best'"),
        ({"timeout_s": -1}, "timeout_s must be a number of seconds above 0"),
        ({"limits": {"memory_bytes": 1}}, "memory_bytes must be at least"),
        ({"tokenizer": {"chat_template": "x"}}, "tokenizer.name is required"),
        ({"metrics_jsonl": 3}, "metrics_jsonl: expected a string, got 3"),
        ({"metrics_jsonl": ""}, "metrics_jsonl must be a file path or null"),
    ],
)
def test_bad_values_are_errors(data: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CodeEnvConfig.from_dict(data)


def test_the_environment_validates_before_starting_anything() -> None:
    pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
    pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")
    from nemo_code_rl.environments.code_environment import UnitTestEnvironment

    with pytest.raises(ConfigError, match="did you mean 'max_tests'"):
        UnitTestEnvironment({"max_test": 4})


@pytest.mark.parametrize("name", ["grpo_code_2gpu", "grpo_code_8gpu", "grpo_code_multiturn_8gpu"])
def test_shipped_code_configs_write_env_metrics_into_the_log_folder(name: str) -> None:
    pytest.importorskip("omegaconf", reason="config loading needs omegaconf: pip install omegaconf")
    from nemo_code_rl.config_loading import load_resolved

    config = load_resolved(name)[1]
    section = config["env"]["code_unit_tests"]
    assert (
        CodeEnvConfig.from_dict(section).metrics_jsonl == f"{config['logger']['log_dir']}/env_metrics.jsonl"
    )
