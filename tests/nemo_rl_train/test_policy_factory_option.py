"""``--policy-factory``: where it is refused, and a reference that does not resolve."""

from __future__ import annotations

import pytest

from nemo_code_rl import run


@pytest.mark.parametrize("other", [["--dry-run"], ["--script", __file__]])
def test_the_option_is_for_our_own_launch_only(other: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run.main(["--config", "grpo_code_2gpu.yaml", "--policy-factory", "a.b:C", *other])
    assert exit_info.value.code == run.EXIT_USAGE
    assert "--policy-factory applies to our own launch only" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("reference", "message"),
    [("no_such_module_xyz:Policy", "No module named"), ("nemo_code_rl.run:NoSuchName", "NoSuchName")],
)
def test_an_unresolvable_factory_is_an_invalid_config(
    reference: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if run.nemo_rl_problem() is not None:  # without NeMo RL the launcher stops before (exit 3)
        assert (
            run.main(["--config", "grpo_code_2gpu.yaml", "--policy-factory", reference])
            == run.EXIT_NO_NEMO_RL
        )
        return
    assert (
        run.main(["--config", "grpo_code_2gpu.yaml", "--policy-factory", reference])
        == run.EXIT_INVALID_CONFIG
    )
    err = capsys.readouterr().err
    assert f"--policy-factory {reference}" in err and message in err
