"""The standalone app in-process (httpx's ASGI transport, with the app's lifespan and so its real
sandbox pool): request validation, what ``/verify`` answers, and the server's options."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest
from pydantic import ValidationError

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.gym_server import ServerOptions, create_app

from . import responses_answer, stdio_request

T = TypeVar("T")


def run_in_app(options: dict[str, Any], scenario: Callable[[httpx.AsyncClient], Awaitable[T]]) -> T:
    """Run ``scenario`` against a fresh app, its sandbox pool started and stopped around it."""

    async def main() -> T:
        app = create_app({"num_processes": 1, **options})
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://gym-server") as client:
                return await scenario(client)

    return asyncio.run(main())


def verify(request: dict[str, Any], **options: Any) -> dict[str, Any]:
    async def post(client: httpx.AsyncClient) -> dict[str, Any]:
        answer = await client.post("/verify", json=request)
        assert answer.status_code == 200, answer.text
        return answer.json()

    return run_in_app(options, post)


GOOD = stdio_request("print(int(input()) * 2)", ["2\n", "5\n"], ["4", "10"])
TESTS = GOOD["verifier_metadata"]["unit_tests"]


def _without(key: str) -> dict[str, Any]:
    return {name: value for name, value in GOOD.items() if name != key}


def _with_tests(**tests: Any) -> dict[str, Any]:
    return {**GOOD, "verifier_metadata": {"unit_tests": {**TESTS, **tests}}}


def _with_output(output: Any) -> dict[str, Any]:
    return {**GOOD, "response": {**GOOD["response"], "output": output}}


MALFORMED = {
    "no responses_create_params": (_without("responses_create_params"), ["body", "responses_create_params"]),
    "no response": (_without("response"), ["body", "response"]),
    "no verifier_metadata": (_without("verifier_metadata"), ["body", "verifier_metadata"]),
    "null verifier_metadata": ({**GOOD, "verifier_metadata": None}, ["body", "verifier_metadata"]),
    "no unit tests": (
        {**GOOD, "verifier_metadata": {"difficulty": "easy"}},
        ["body", "verifier_metadata", "unit_tests"],
    ),
    "zero tests": (_with_tests(inputs=[], outputs=[]), ["body", "verifier_metadata", "unit_tests", "inputs"]),
    "unpaired tests": (_with_tests(outputs=["4"]), ["body", "verifier_metadata", "unit_tests"]),
    "inputs not a list": (_with_tests(inputs="2\n"), ["body", "verifier_metadata", "unit_tests", "inputs"]),
    "numbers as inputs": (
        _with_tests(inputs=[2, 5]),
        ["body", "verifier_metadata", "unit_tests", "inputs", 0],
    ),
    "fn_name not text": (_with_tests(fn_name=3), ["body", "verifier_metadata", "unit_tests", "fn_name"]),
    "response as text": ({**GOOD, "response": "print(4)"}, ["body", "response"]),
    "output not a list": (_with_output({"type": "message"}), ["body", "response", "output"]),
    "untyped output item": (_with_output([{"content": []}]), ["body", "response", "output", 0, "type"]),
    "output_text without text": (
        _with_output([{"type": "message", "content": [{"type": "output_text"}]}]),
        ["body", "response", "output", 0, "content", 0],
    ),
    "input a number": (
        {**GOOD, "responses_create_params": {"input": 7}},
        ["body", "responses_create_params", "input"],
    ),
    # Read by the problem parser, past the schema: still a 422 naming the field.
    "call test not JSON": (
        _with_tests(inputs=["not json"], outputs=["1"], fn_name="f"),
        ["body", "verifier_metadata", "unit_tests", "inputs[0]"],
    ),
    "no user message": (
        {**GOOD, "responses_create_params": {"input": [{"role": "system", "content": "Be brief."}]}},
        ["body", "responses_create_params", "input"],
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_request_is_a_422_naming_the_field(name):
    request, location = MALFORMED[name]

    async def post(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/verify", json=request)

    answer = run_in_app({}, post)
    assert answer.status_code == 422, answer.text
    errors = answer.json()["detail"]
    assert errors[0]["loc"][: len(location)] == location and errors[0]["msg"]
    assert all(set(error) == {"loc", "msg", "type"} for error in errors)  # the input is not echoed


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        (b"{not json", {"content-type": "application/json"}),
        (b"", {"content-type": "application/json"}),
        (b"[1, 2]", {"content-type": "application/json"}),
        (b"responses_create_params=x", {"content-type": "application/x-www-form-urlencoded"}),
    ],
)
def test_a_body_that_is_not_a_json_object_is_a_422(body, headers):
    async def post(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/verify", content=body, headers=headers)

    answer = run_in_app({}, post)
    assert answer.status_code == 422 and answer.json()["detail"][0]["msg"]


def test_the_answer_is_the_request_plus_reward_and_details():
    request = {**GOOD, "hash_id": "double", "_ng_task_index": 3, "_ng_rollout_index": 1}
    request["verifier_metadata"] = {**request["verifier_metadata"], "difficulty": "easy"}
    body = verify(request)
    assert {key: body[key] for key in request} == request
    assert body["reward"] == 1.0 and body["passed"] is True and body["problem_id"] == "double"
    assert body["extracted_model_code"] == "print(int(input()) * 2)"
    assert body["extracted_model_output"].startswith("Here it is.")
    assert body["result"] == [True, True] and body["difficulty"] == "easy"
    assert body["reasoning_format_violation_rate"] == 0.0 and body["infra_fault"] is False
    assert [test["verdict"] for test in body["tests"]] == ["passed", "passed"]
    assert (body["n_passed"], body["n_total"], body["format_ok"], body["feedback"]) == (2, 2, True, "")
    assert "_ng_failure_class" not in body


def test_failures_are_reported_with_livecodebench_codes():
    wrong = verify(stdio_request("print(4)", ["2\n", "5\n"], ["4", "10"]))
    assert wrong["reward"] == 0.0 and wrong["result"] == [True, -2]
    assert wrong["metadata"]["error_code"] == -2 and "expected '10'" in wrong["metadata"]["error_message"]
    crash = verify(stdio_request("raise ValueError('boom')", ["2\n"], ["4"]))
    assert crash["result"] == [-4] and crash["tests"][0]["verdict"] == "runtime_error"
    slow = verify(stdio_request("while True:\n    pass", ["2\n"], ["4"]), unit_test_timeout_secs=1)
    assert slow["result"] == [-3] and slow["metadata"]["error_code"] == -3


def test_no_code_or_no_text_is_a_zero_without_running():
    prose = verify({**GOOD, "response": responses_answer("I would double the number.")})
    assert prose["reward"] == 0.0 and prose["format_ok"] is False and prose["tests"] == []
    assert prose["extracted_model_code"] is None and prose["result"] is None
    assert prose["extracted_model_output"] == "I would double the number."
    empty = verify({**GOOD, "response": responses_answer("")})
    assert empty["reward"] == 0.0 and empty["extracted_model_output"] is None


def test_call_based_tests_in_gym_format():
    request = {
        **GOOD,
        "response": responses_answer("```python\ndef add(a, b):\n    return a + b\n```"),
        "verifier_metadata": {
            "unit_tests": {"inputs": ["1\n2", "[1]\n[2, 3]"], "outputs": ["3", "[1, 2, 3]"], "fn_name": "add"}
        },
    }
    assert verify(request)["result"] == [True, True]


def test_think_tags_in_the_final_text_get_code_gens_penalty():
    text = "<think>double it</think>\n```python\nprint(int(input()) * 2)\n```"
    tagged = {**GOOD, "response": responses_answer(text)}
    assert verify(tagged)["reward"] == 0.0
    penalised = verify(tagged, reasoning_format_penalty=-0.5)
    assert penalised["reward"] == -0.5 and penalised["reasoning_format_violation_rate"] == 1.0
    assert penalised["passed"] is True  # the code itself is right
    twice = {
        **GOOD,
        "response": responses_answer(GOOD["response"]["output"][0]["content"][0]["text"], "<think>a<think>b"),
    }
    assert verify(twice)["reasoning_format_violation_rate"] == 1.0


def test_reward_mode_and_tolerance_options():
    request = stdio_request("print(f'{1 / int(input()):.3f}')", ["1\n", "3\n"], ["1.00000", "0.33333"])
    assert verify(request)["reward"] == 0.0  # code_gen's comparison: 1.000 == 1.00000, 0.333 != 0.33333
    assert verify(request, verifier={"reward": {"mode": "fraction"}})["reward"] == 0.5
    tolerant = {"reward": {"mode": "fraction"}, "comparison": {"abs_tol": 1e-3}}
    assert verify(request, verifier=tolerant)["reward"] == 1.0


def test_liveness_seed_session_and_reverify_mode():
    async def calls(client: httpx.AsyncClient) -> list[Any]:
        return [
            (await client.get("/")).json(),
            (await client.post("/seed_session", json={})).json(),
            (await client.get("/reverify_mode")).json(),
        ]

    assert run_in_app({}, calls) == [{"status": "ok"}, {}, "stateless"]


def test_options_are_checked_when_the_app_is_built(tmp_path):
    with pytest.raises(ConfigError, match="did you mean 'unit_test_timeout_secs'"):
        ServerOptions.from_gym_config({"unit_test_timout_secs": 3})
    with pytest.raises(ValidationError, match="set by the server option 'unit_test_timeout_secs'"):
        create_app({"verifier": {"timeout_s": 3}})
    with pytest.raises(ValidationError, match="did you mean 'abs_tol'"):
        create_app({"verifier": {"comparison": {"abs_tolerance": 0.1}}})
    with pytest.raises(ValidationError, match="is not a folder"):
        create_app({"checkers_dir": str(tmp_path / "missing")})
    with pytest.raises(ValidationError, match="num_processes"):
        create_app({"num_processes": 0})


def test_options_come_from_gyms_three_level_layout():
    node = {"entrypoint": "app.py", "domain": "coding", "verified": False, "unit_test_timeout_secs": 3}
    config = {
        "code_gen_simple_agent": {"responses_api_agents": {"simple_agent": {"entrypoint": "app.py"}}},
        "mine": {"resources_servers": {"nemo_code_rl_code_gen": node}},
    }
    assert ServerOptions.from_gym_config(config).unit_test_timeout_secs == 3
    assert ServerOptions.from_gym_config(config, "mine").verifier_config().timeout_s == 3
    two = {**config, "other": {"resources_servers": {"code_gen": {}}}}
    with pytest.raises(ConfigError, match="several resources servers"):
        ServerOptions.from_gym_config(two)
    with pytest.raises(ConfigError, match="no resources server named 'missing'"):
        ServerOptions.from_gym_config(two, "missing")
    assert ServerOptions.from_gym_config({"isolation": "none"}).isolation == "none"
