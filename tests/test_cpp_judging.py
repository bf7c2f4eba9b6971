"""C++ answers through every judging surface: the verifier (stdin/stdout tests, special judges,
feedback), ``score``, the TRL reward and the NeMo RL environment in process; call-based and
assert problems answered in C++ get ``bad_input`` saying why. Real g++, real sandbox."""

from __future__ import annotations

import json
import shutil

import pytest

from nemo_code_rl import ExecutionPool, Limits
from nemo_code_rl.cli import main
from nemo_code_rl.engine.languages import Language
from nemo_code_rl.integrations.trl import UnitTestReward, trl_rows
from nemo_code_rl.unit_tests.problems import load_problems, parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="these tests need g++ on the host")

SUM_CPP = (
    "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }"
)
SWAP_CPP = "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << b << ' ' << a << '\\n'; }"
SUM_ROW = {
    "id": "sum",
    "question": "Print a + b.",
    "input_output": json.dumps({"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}),
}
SWAP_ROW = {
    "id": "swap",
    "question": "Print the two numbers in any order.",
    "input_output": json.dumps({"inputs": ["1 2\n"], "outputs": ["1 2\n"]}),
}
ANY_ORDER = (
    "def check(input, expected, actual):\n    return sorted(actual.split()) == sorted(expected.split())\n"
)


def fenced(code: str, label: str = "cpp") -> str:
    return f"My answer:\n```{label}\n{code}\n```\n"


@pytest.fixture(scope="module")
def cpp_pool():
    """One worker for the module: the verifier and the TRL reward meet the same binary cache."""
    with ExecutionPool(workers=1, limits=Limits(timeout_s=5)) as pool:
        yield pool


def test_verifier_judges_cpp_on_stdio_tests_and_special_judges(cpp_pool):
    sum_problem, swap_problem = load_problems([SUM_ROW, SWAP_ROW])
    call_problem = load_problems([{"task_id": 1, "text": "Add one.", "test_list": ["assert add(1) == 2"]}])[0]
    config = VerifierConfig(timeout_s=5, checkers={"swap": ANY_ORDER}, feedback_reveals="input")
    verifier = Verifier(config, pool=cpp_pool)
    results = verifier.verify_batch(
        [
            (sum_problem, fenced(SUM_CPP)),
            (sum_problem, fenced(SUM_CPP.replace("a + b", "a - b"), "c++")),
            (sum_problem, fenced("int main() { return missing; }", "cc")),
            (swap_problem, fenced(SWAP_CPP)),
            (call_problem, fenced(SUM_CPP)),
            (sum_problem, fenced("a, b = map(int, input().split())\nprint(a + b)", "python")),
        ]
    )
    assert [r.passed for r in results] == [True, False, False, True, False, True]
    assert [t.verdict for t in results[1].tests] == ["wrong_answer", "wrong_answer"]
    assert [t.verdict for t in results[2].tests] == ["compile_error", "compile_error"]
    assert "Compiler output:" in results[2].feedback and "missing" in results[2].feedback
    assert results[3].tests[0].detail == "accepted by the checker"
    assert [t.verdict for t in results[4].tests] == ["bad_input"]
    assert "assert tests run Python only" in results[4].tests[0].detail and results[4].reward == 0.0


def test_language_comes_from_the_block_else_the_problem_else_the_config(cpp_pool):
    cpp_problem = parse_problem({**SUM_ROW, "language": "C++"})
    java_problem = parse_problem({**SUM_ROW, "id": "java", "language": "java"})
    (sum_problem,) = load_problems([SUM_ROW])
    unlabelled = f"```\n{SUM_CPP}\n```"
    python_default = Verifier(VerifierConfig(timeout_s=5), pool=cpp_pool)
    by_problem = python_default.verify_batch([(cpp_problem, unlabelled), (sum_problem, unlabelled)])
    assert [r.passed for r in by_problem] == [True, False]
    assert by_problem[1].tests[0].verdict == "syntax_error", "unlabelled code is Python by default"
    cpp_default = Verifier(VerifierConfig.from_dict({"timeout_s": 5, "language": "cpp"}), pool=cpp_pool)
    assert cpp_default.config.language is Language.CPP
    by_config = cpp_default.verify_batch([(sum_problem, unlabelled), (java_problem, unlabelled)])
    assert by_config[0].passed is True
    assert (
        by_config[1].format_ok is False and "'java' is not one the engine runs" in by_config[1].format_detail
    )


def test_trl_reward_accepts_cpp_answers(cpp_pool):
    (sum_problem,) = load_problems([SUM_ROW])
    row = trl_rows([sum_problem])[0]
    reward = UnitTestReward({"timeout_s": 5}, pool=cpp_pool)
    columns = {key: [value] * 2 for key, value in row.items()}
    assert reward([fenced(SUM_CPP), fenced("int main() { return 1; }")], **columns) == [1.0, 0.0]


def test_score_judges_cpp_completions(tmp_path, capsys):
    (tmp_path / "problems.jsonl").write_text(json.dumps(SUM_ROW) + "\n")
    completions = [fenced(SUM_CPP), fenced("int main() { return x; }"), fenced(SUM_CPP, "c++")]
    (tmp_path / "completions.jsonl").write_text(
        "".join(json.dumps({"id": "sum", "completion": c}) + "\n" for c in completions)
    )
    files = [str(tmp_path / "problems.jsonl"), str(tmp_path / "completions.jsonl")]
    assert main(["score", *files, "--workers", "1", "--quiet", "--no-calibrate"]) == 0
    rows = [json.loads(line) for line in (tmp_path / "completions.results.jsonl").read_text().splitlines()]
    assert [r["passed"] for r in rows] == [True, False, True]
    assert [t["verdict"] for t in rows[1]["tests"]] == ["compile_error", "compile_error"]


def test_score_language_and_standard_flags(tmp_path, capsys):
    """Unlabelled blocks are C++ with --language cpp; --cpp-std reaches g++ (consteval is C++20)."""
    (tmp_path / "problems.jsonl").write_text(json.dumps(SUM_ROW) + "\n")
    cpp20 = SUM_CPP.replace("int main()", "consteval int one() { return 1; }\nint main()").replace(
        "a + b", "a + b + one() - 1"
    )
    (tmp_path / "completions.jsonl").write_text(
        "".join(json.dumps({"id": "sum", "completion": fenced(c, "")}) + "\n" for c in (SUM_CPP, cpp20))
    )
    files = [str(tmp_path / "problems.jsonl"), str(tmp_path / "completions.jsonl")]
    results = tmp_path / "completions.results.jsonl"

    def passed(*flags: str) -> list[bool]:
        results.unlink(missing_ok=True)
        assert main(["score", *files, "--workers", "1", "--quiet", "--no-calibrate", *flags]) == 0
        return [json.loads(line)["passed"] for line in results.read_text().splitlines()]

    assert passed() == [False, False]  # read as Python
    assert passed("--language", "cpp") == [True, False]  # consteval is not C++17
    assert passed("--language", "cpp", "--cpp-std", "c++20") == [True, True]
    with pytest.raises(SystemExit) as stopped:
        main(["score", *files, "--language", "cpp", "--cpp-std", "c99"])
    assert stopped.value.code == 2
    assert "standard must be like 'c++17'" in capsys.readouterr().err


def test_nemo_rl_environment_accepts_cpp_answers():
    pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
    pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")
    from nemo_code_rl.environments.code_environment import UnitTestEnvironment
    from nemo_code_rl.processors import env_info_for_problem

    from .nemo_rl.helpers import conversation

    env = UnitTestEnvironment({"workers": 1, "timeout_s": 5.0})
    try:
        (problem,) = load_problems([SUM_ROW])
        infos = [env_info_for_problem(problem)] * 2
        result = env.step(
            [conversation(fenced(SUM_CPP)), conversation(fenced("int main() { return y; }"))], infos
        )
    finally:
        env.shutdown()
    assert result.rewards.tolist() == [1.0, 0.0]
    assert "compile_error" in json.dumps(result.metadata[1]["result"]), result.metadata[1]


def test_gym_server_accepts_cpp_answers():
    pytest.importorskip("fastapi", reason="the Gym server needs its extra: pip install 'nemo-code-rl[gym]'")
    from .gym_server import responses_answer, stdio_request
    from .gym_server.test_app import verify

    request = stdio_request("unused", ["1 2\n", "3 4\n"], ["3", "7"])
    body = verify({**request, "response": responses_answer(fenced(SUM_CPP))})
    assert body["reward"] == 1.0 and [t["verdict"] for t in body["tests"]] == ["passed", "passed"]
    broken = verify({**request, "response": responses_answer(fenced("int main() { return y; }"))})
    assert broken["result"] == [-1, -1], broken  # LiveCodeBench's compile error
    assert broken["metadata"]["error_code"] == -1 and "y" in broken["metadata"]["error_message"]
    assert broken["infra_fault"] is False
