"""The server as Gym's clients meet it: ``python -m nemo_code_rl.gym_server`` in its own process,
uvicorn on a loopback port, real sandbox workers, requests over HTTP (never through a proxy the
environment may name)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import httpx
import pytest

from nemo_code_rl.benchmarking.process_tree import alive, descendants

from . import CHECKED_PROBLEMS, CHECKERS_DIR, recorded_rollouts, stdio_request

START_TIMEOUT_S = 60.0
# The server process behind each URL that ``start_server`` started.
SERVER_PROCESSES: dict[str, subprocess.Popen] = {}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _write_config(folder: Path, options: str) -> Path:
    """A Gym config in the three-level layout, with the server's options indented in."""
    lines = ["my_code_gen:", "  resources_servers:", "    nemo_code_rl_code_gen:", "      entrypoint: app.py"]
    lines += [f"      {line}" for line in options.strip().splitlines()]
    path = folder / "config.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def start_server(tmp_path_factory) -> Iterator:
    """Starts servers on free loopback ports and stops them after the module's tests."""
    started: list[tuple[subprocess.Popen, IO[str]]] = []

    def start(options: str) -> str:
        folder = tmp_path_factory.mktemp("gym_server")
        port = _free_port()
        log = (folder / "server.log").open("w")
        command = [
            sys.executable,
            "-m",
            "nemo_code_rl.gym_server",
            "--config",
            str(_write_config(folder, options)),
        ]
        process = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", str(port)], stdout=log, stderr=subprocess.STDOUT
        )
        started.append((process, log))
        url = f"http://127.0.0.1:{port}"
        SERVER_PROCESSES[url] = process
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(
                    f"the server exited ({process.returncode}):\n{(folder / 'server.log').read_text()}"
                )
            try:
                if httpx.get(url + "/", timeout=2, trust_env=False).status_code == 200:
                    return url
            except httpx.TransportError:
                time.sleep(0.1)
        pytest.fail(
            f"the server did not answer in {START_TIMEOUT_S} s:\n{(folder / 'server.log').read_text()}"
        )

    yield start
    for process, _ in started:
        process.terminate()
    for process, log in started:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module")
def server(start_server) -> str:
    return start_server("num_processes: 2\nunit_test_timeout_secs: 5")


@pytest.fixture(scope="module")
def rollouts(fixtures_dir):
    return recorded_rollouts(fixtures_dir)


def test_every_recorded_rollout_gets_gyms_reward(server, rollouts):
    with httpx.Client(base_url=server, timeout=120, trust_env=False) as client:
        for request, gym_reward in rollouts:
            answer = client.post("/verify", json=request)
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert body["reward"] == gym_reward, (request["hash_id"], body["feedback"])
            assert body["passed"] is (gym_reward == 1.0) and body["infra_fault"] is False
            # Gym's own fields come back: the request, and code_gen's extraction and results.
            assert body["response"] == request["response"] and body["hash_id"] == request["hash_id"]
            assert body["verifier_metadata"] == request["verifier_metadata"]
            assert body["extracted_model_code"] and body["extracted_model_output"]
            assert (
                len(body["tests"])
                == body["n_total"]
                == len(request["verifier_metadata"]["unit_tests"]["inputs"])
            )
            assert all(code is True for code in body["result"]) is (gym_reward == 1.0)


def test_checkers_accept_the_multi_answer_rollouts(start_server, rollouts):
    url = start_server(f"num_processes: 2\ncheckers_dir: {CHECKERS_DIR}")
    checked = [request for request, _ in rollouts if request["hash_id"] in CHECKED_PROBLEMS]
    assert len(checked) == 2
    with httpx.Client(base_url=url, timeout=120, trust_env=False) as client:
        for request in checked:
            body = client.post("/verify", json=request).json()
            assert body["reward"] == 1.0 and body["passed"] is True, body["feedback"]
            assert {test["detail"] for test in body["tests"]} == {"accepted by the checker"}


def test_concurrent_requests_are_each_answered_correctly(server):
    # Ten different problems (print n times i), half answered right; each answer must be its own.
    requests = [
        stdio_request(
            f"n = int(input())\nprint(n * {i if i % 2 == 0 else i + 1})",
            [f"{n}\n" for n in range(1, 4)],
            [str(n * i) for n in range(1, 4)],
            hash_id=f"times-{i}",
        )
        for i in range(10)
    ]

    async def post_all() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server, timeout=60, trust_env=False) as client:
            return await asyncio.gather(*(client.post("/verify", json=request) for request in requests))

    answers = asyncio.run(post_all())
    assert [answer.status_code for answer in answers] == [200] * 10
    assert [answer.json()["problem_id"] for answer in answers] == [f"times-{i}" for i in range(10)]
    assert [answer.json()["reward"] for answer in answers] == [1.0 if i % 2 == 0 else 0.0 for i in range(10)]


def test_malformed_requests_get_a_4xx_and_the_server_keeps_serving(server):
    good = stdio_request("print(input())", ["7\n"], ["7"])
    with httpx.Client(base_url=server, timeout=10, trust_env=False) as client:
        garbage = client.post(
            "/verify", content=b'{"responses_create_params": ', headers={"content-type": "application/json"}
        )
        assert garbage.status_code == 422 and "JSON" in garbage.text
        no_tests = client.post("/verify", json={**good, "verifier_metadata": {}})
        assert no_tests.status_code == 422
        assert no_tests.json()["detail"][0]["loc"] == ["body", "verifier_metadata", "unit_tests"]
        wrong_type = client.post("/verify", json={**good, "response": "```python\nprint(7)\n```"})
        assert wrong_type.status_code == 422 and wrong_type.json()["detail"][0]["loc"] == ["body", "response"]
        assert client.post("/verify", json=good).json()["reward"] == 1.0


def test_seed_session_and_aggregate_metrics_over_http(server):
    requests = [stdio_request("print(input())", ["1\n"], ["1"]), stdio_request("print(2)", ["1\n"], ["1"])]
    with httpx.Client(base_url=server, timeout=60, trust_env=False) as client:
        assert client.post("/seed_session", json={}).json() == {}
        verified = [client.post("/verify", json=request).json() for request in requests]
        rows = [{**row, "_ng_task_index": 0, "_ng_rollout_index": i} for i, row in enumerate(verified)]
        metrics = client.post("/aggregate_metrics", json={"verify_responses": rows}).json()
    assert set(metrics) == {"group_level_metrics", "agent_metrics", "key_metrics"}
    assert metrics["agent_metrics"]["mean/reward"] == 0.5
    assert metrics["key_metrics"]["pass@2/accuracy"] == 100.0
    assert metrics["key_metrics"]["pass@1[avg-of-2]/accuracy"] == 50.0


SLOW_ANSWER = "import time\nn = int(input())\ntime.sleep(0.5)\nprint(n)"


def _slow_request(tests: int) -> dict:
    return stdio_request(SLOW_ANSWER, [f"{n}\n" for n in range(tests)], [str(n) for n in range(tests)])


def test_a_request_whose_client_has_gone_stops_its_program(start_server):
    """One worker; the first client gives up on a request that needs 60 s of tests: its program
    is stopped, so the next request does not wait behind it."""
    url = start_server("num_processes: 1\nunit_test_timeout_secs: 5")
    with httpx.Client(base_url=url, timeout=2, trust_env=False) as client:  # noqa: SIM117 - the server must be up before the client starts
        with pytest.raises(httpx.ReadTimeout):
            client.post("/verify", json=_slow_request(120))
    with httpx.Client(base_url=url, timeout=30, trust_env=False) as client:
        answer = client.post("/verify", json=stdio_request("print(input())", ["7\n"], ["7"]))
    assert answer.status_code == 200 and answer.json()["reward"] == 1.0


LOOPING_ANSWER = "while True:\n    pass"
# A bound on how long a cancellation may take, well below the 60 s limit it must beat; not a timing.
CANCEL_BOUND_S = 30.0


def disconnect_mid_program(url: str, request: dict) -> None:
    """Post ``request`` to ``/verify``, wait for its program to run, then hang up; assert that the
    program is gone long before its time limit and that the server's workers are all kept (none
    was replaced: the program was cancelled, not its worker killed)."""
    server = SERVER_PROCESSES[url].pid
    standing = descendants(server)  # the workers and their templates, idle
    body = json.dumps(request).encode()
    host, port = url.removeprefix("http://").split(":")
    head = f"POST /verify HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    with socket.create_connection((host, int(port))) as client:
        client.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
        program = _wait_for(lambda: {pid for pid in descendants(server) - standing if alive(pid)})
    _wait_for(lambda: not any(alive(pid) for pid in program))
    assert all(alive(pid) for pid in standing)


def _wait_for(condition):
    deadline = time.monotonic() + CANCEL_BOUND_S
    while not (found := condition()):
        assert time.monotonic() < deadline, f"not within {CANCEL_BOUND_S:g} s"
        time.sleep(0.05)
    return found


def test_a_looping_program_is_stopped_mid_test_when_its_client_has_gone(start_server):
    """With a 60 s limit per test, a looping answer whose client hangs up is stopped while it runs
    its first test (not at that test's end), and its worker serves the next request."""
    url = start_server("num_processes: 1\nunit_test_timeout_secs: 60")
    disconnect_mid_program(url, stdio_request(LOOPING_ANSWER, ["1\n", "2\n"], ["1", "2"]))
    with httpx.Client(base_url=url, timeout=30, trust_env=False) as client:
        answer = client.post("/verify", json=stdio_request("print(input())", ["7\n"], ["7"]))
    assert answer.status_code == 200 and answer.json()["reward"] == 1.0


def test_sigterm_stops_the_server_and_its_sandbox_workers_mid_request(tmp_path):
    """SIGTERM while a request runs a program that needs a minute: the open request is cancelled
    after the graceful-shutdown delay, the server exits, and none of its workers, templates or
    programs is left running."""
    import signal
    import threading

    port = _free_port()
    config = _write_config(tmp_path, "num_processes: 2\nunit_test_timeout_secs: 5")
    command = [sys.executable, "-m", "nemo_code_rl.gym_server", "--config", str(config), "--port", str(port)]
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/", timeout=2, trust_env=False).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)

        def post() -> None:
            try:  # noqa: SIM105 - the request is expected to fail or hang
                httpx.post(url + "/verify", json=_slow_request(120), timeout=120, trust_env=False)
            except httpx.HTTPError:
                pass  # the server went away mid-request, as it should

        client = threading.Thread(target=post, daemon=True)
        client.start()
        time.sleep(2)  # let the program start
        spawned = descendants(server.pid)
        assert len(spawned) >= 2  # the workers, their templates and the running program
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) is not None  # the request alone needs a minute
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(pid) for pid in spawned):
            time.sleep(0.1)
        assert not [pid for pid in spawned if alive(pid)], (tmp_path / "server.log").read_text()
        client.join(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        log.close()
