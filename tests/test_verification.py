"""The verifier on real data, through the public API and the real sandbox."""

import json
import time

import pytest

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.unit_tests.comparison import ComparisonConfig
from nemo_code_rl.unit_tests.problems import load_problems, parse_problem
from nemo_code_rl.unit_tests.rewards import RewardConfig
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

from .verification_data import humaneval


def fenced(code: str) -> str:
    return f"Here is my solution.\n```python\n{code}\n```\n"


def test_all_humaneval_canonical_solutions_pass_and_mutants_fail(verifier):
    problems, canonical = humaneval()
    assert len(problems) == 164
    results = verifier.verify_batch([(p, canonical[p.id]) for p in problems])
    assert [r.passed for r in results] == [True] * 164, [r.problem_id for r in results if not r.passed]
    assert all(r.reward == 1.0 for r in results)
    # A mutant: each problem answered with the next problem's solution, renamed to the entry point.
    mutants = [
        (p, f"def {p.entry_point}(*args, **kwargs):\n    return {canonical_return(canonical[q.id])}\n")
        for p, q in zip(problems, problems[1:] + problems[:1], strict=True)
    ]
    mutated = verifier.verify_batch(mutants)
    assert sum(r.passed for r in mutated) == 0


def canonical_return(body: str) -> str:
    """A plausible but wrong constant answer: the first literal returned by another solution."""
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("return ") and stripped[7:].strip() in (
            "True",
            "False",
            "0",
            "1",
            "[]",
            "''",
            '""',
            "None",
        ):
            return stripped[7:].strip()
    return "None"


HACKS = {
    "sys.exit at import": "import sys\nsys.exit(0)\n",
    "os._exit at import": "import os\nos._exit(0)\n",
    "sys.exit in the call": "def has_close_elements(numbers, threshold):\n    import sys\n    sys.exit(0)\n",
    "os._exit in the call": "def has_close_elements(numbers, threshold):\n    import os\n    os._exit(0)\n",
    "os._exit from atexit": "import atexit, os\natexit.register(lambda: os._exit(0))\ndef has_close_elements(numbers, threshold):\n    raise ValueError\n",
    "SystemExit from the function": "def has_close_elements(numbers, threshold):\n    raise SystemExit(0)\n",
    "redefined check": "def check(candidate):\n    pass\ndef has_close_elements(numbers, threshold):\n    return None\n",
    "redefined builtins": (
        "import builtins\nbuiltins.abs = lambda x: 0\nbuiltins.all = lambda x: True\n"
        "builtins.isinstance = lambda *a: True\ndef has_close_elements(numbers, threshold):\n    return None\n"
    ),
    "rigged __eq__": "class A:\n    def __eq__(self, other):\n        return True\ndef has_close_elements(numbers, threshold):\n    return A()\n",
    "str subclass": "class S(str):\n    def __eq__(self, other):\n        return True\ndef has_close_elements(numbers, threshold):\n    return S('x')\n",
    "kill the test process": (
        "import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError:\n    pass\n"
        "def has_close_elements(numbers, threshold):\n    return True\n"
    ),
    "forge the pass line": (
        "import os\nfor fd in range(1, 20):\n    try:\n        os.write(fd, b'@@nemo-code-rl:tests-passed@@\\n')\n    except OSError:\n        pass\n"
        "def has_close_elements(numbers, threshold):\n    return None\n"
    ),
    "read the tests from memory": (
        "import gc\nfound = [o for o in gc.get_objects() if isinstance(o, dict) and any('assert' in str(v) for v in o.values())]\n"
        "def has_close_elements(numbers, threshold):\n    return bool(found)\n"
    ),
}


@pytest.mark.parametrize("hack", sorted(HACKS))
def test_reward_hacks_fail(verifier, hack):
    problem = humaneval()[0][0]
    assert problem.entry_point == "has_close_elements"
    result = verifier.verify_batch([(problem, fenced(HACKS[hack]))])[0]
    assert result.passed is False and result.reward == 0.0
    assert not result.infra_fault


def test_humaneval_helpers_come_from_the_prompt(verifier):
    problems, canonical = humaneval()
    find_zero = next(p for p in problems if p.id == "HumanEval/32")
    cheat = "def poly(xs, x):\n    return 0\n\ndef find_zero(xs):\n    return 0.0\n"
    assert verifier.verify_batch([(find_zero, fenced(cheat))])[0].passed is False
    assert verifier.verify_batch([(find_zero, canonical[find_zero.id])])[0].passed is True


def test_a_completion_prefix_and_trusted_helpers_are_the_problems_not_its_formats(verifier):
    """HumanEval's rules are fields its parser fills; any problem with them gets the same judging,
    and a HumanEval row written before they were fields still gets them."""
    problem = parse_problem(
        {
            "id": "double",
            "kind": "assert",
            "source_format": "mine",
            "prompt": "def double(x):\n",
            "messages": [],
            "test_list": ["assert double(2) == 4", "assert helper() == 1"],
            "entry_point": "double",
            "completion_prefix": "def double(x):\n",
            "trusted_helpers": "def helper():\n    return 1\n",
        }
    )
    cheat = "def helper():\n    return 0\n\ndef double(x):\n    return 2 * x\n"
    bare_body, cheated = verifier.verify_batch([(problem, "    return 2 * x\n"), (problem, fenced(cheat))])
    assert bare_body.passed is True and bare_body.n_passed == 2
    assert cheated.passed is True  # the helper the tests call is the data's, not the candidate's

    problems, _ = humaneval()
    earlier = {
        k: v for k, v in problems[0].to_dict().items() if k not in ("completion_prefix", "trusted_helpers")
    }
    assert parse_problem(earlier) == problems[0]


def test_mbpp_reference_solutions_pass_and_a_wrong_one_fails(verifier, fixtures_dir):
    problems = load_problems(fixtures_dir / "sandboxfusion" / "code_eval_mbpp.jsonl")
    results = verifier.verify_batch([(p, fenced(p.reference_solution)) for p in problems])
    assert all(r.passed for r in results), [(r.problem_id, r.feedback) for r in results if not r.passed]
    assert [r.n_total for r in results] == [len(p.test_list) for p in problems]
    first = problems[0]
    wrong = verifier.verify_batch([(first, fenced(f"def {first.entry_point}(*args):\n    return ''\n"))])[0]
    assert wrong.passed is False and wrong.tests[0].verdict == "wrong_answer"
    assert "failed: assert" in wrong.tests[0].detail


def test_each_assert_test_sees_a_freshly_loaded_candidate(verifier):
    problem = parse_problem(
        {"task_id": "calls", "text": "Count calls.", "test_list": ["assert f() == 1", "assert f() == 1"] * 2}
    )
    counter = "calls = 0\n\ndef f():\n    global calls\n    calls += 1\n    return calls\n"
    noisy = "import sys\nprint('loaded', file=sys.stderr)\n" + counter

    counted, printed = verifier.verify_batch([(problem, fenced(counter)), (problem, fenced(noisy))])

    assert [t.verdict for t in counted.tests] == ["passed"] * 4
    assert [t.verdict for t in printed.tests] == ["passed"] * 4


CALL_ROWS = [
    {
        "id": "two-sum",
        "question": "Return indices of the two numbers adding up to target.",
        "input_output": json.dumps(
            {
                "fn_name": "twoSum",
                "inputs": [[[2, 7, 11, 15], 9], [[3, 2, 4], 6]],
                "outputs": [[[0, 1]], [[1, 2]]],
            }
        ),
    },
    {
        "id": "pair",
        "question": "Return the minimum and the maximum as a tuple.",
        "input_output": json.dumps(
            {"fn_name": "min_max", "inputs": [[[3, 1, 2]], [[5]]], "outputs": [[[1, 3]], [[5, 5]]]}
        ),
    },
]


def test_call_based_functions_and_solution_methods(verifier):
    two_sum, pair = (parse_problem(row) for row in CALL_ROWS)
    solution_class = (
        "class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n        for i, x in enumerate(nums):\n"
        "            if target - x in seen:\n                return [seen[target - x], i]\n            seen[x] = i\n"
    )
    plain = "def min_max(xs):\n    print('debugging output is fine')\n    return (min(xs), max(xs))\n"
    rigged = "class Anything:\n    def __eq__(self, other):\n        return True\ndef min_max(xs):\n    return Anything()\n"
    wrong = "def min_max(xs):\n    return (max(xs), min(xs))\n"
    results = verifier.verify_batch(
        [
            (two_sum, fenced(solution_class)),
            (pair, fenced(plain)),
            (pair, fenced(rigged)),
            (pair, fenced(wrong)),
        ]
    )
    assert [r.passed for r in results] == [True, True, False, False]
    assert results[2].tests[0].verdict == "runtime_error" and "not plain data" in results[2].tests[0].detail
    assert results[3].tests[0].verdict == "wrong_answer"


def test_stdio_verdicts_early_exit_and_timeouts(fixtures_dir):
    problem = load_problems(fixtures_dir / "sandboxfusion" / "code_eval_code_contests.jsonl")[0]
    config = VerifierConfig(
        timeout_s=1, early_exit=True, use_data_time_limits=False, feedback_reveals="input_and_expected"
    )
    with Verifier(config, workers=2) as early:
        wrong, looping = early.verify_batch(
            [(problem, fenced("print(0)")), (problem, fenced("while True:\n    pass"))]
        )
    assert wrong.tests[0].verdict == "wrong_answer"
    assert {t.verdict for t in wrong.tests[1:]} == {"not_run"}
    assert looping.tests[0].verdict == "timeout" and looping.timeout_lost_s >= 1.0
    assert "Expected:" in wrong.feedback and "Got:\n0" in wrong.feedback


def test_format_failure_is_a_verdict_not_an_error(verifier, fixtures_dir):
    problem = load_problems(fixtures_dir / "sandboxfusion" / "code_eval_code_contests.jsonl")[0]
    result = verifier.verify_batch([(problem, "I think the answer is 42.")])[0]
    assert (result.format_ok, result.passed, result.reward, result.tests) == (False, False, 0.0, [])
    assert "No code" in result.feedback


def test_reward_modes_and_think_sections():
    problem = parse_problem(
        {
            "id": "echo",
            "question": "Echo.",
            "input_output": json.dumps({"inputs": ["a\n", "b\n", "c\n"], "outputs": ["a\n", "b\n", "X\n"]}),
        }
    )
    completion = "<think>```python\nprint('wrong')\n```</think>\n```python\nprint(input())\n```"
    for mode, expected in (("binary", 0.0), ("fraction", 2 / 3)):
        with Verifier(VerifierConfig(reward=RewardConfig(mode=mode)), workers=1) as one:
            result = one.verify_batch([(problem, completion)])[0]
        assert result.reward == pytest.approx(expected)
        assert [t.verdict for t in result.tests] == ["passed", "passed", "wrong_answer"]


def test_whitespace_and_float_comparison_options():
    problem = parse_problem(
        {
            "id": "pi",
            "question": "Print pi.",
            "input_output": json.dumps({"inputs": [""], "outputs": ["3.14159 ok\n"]}),
        }
    )
    answer = fenced("print('3.1416   OK')")
    strict = Verifier(VerifierConfig(), workers=1)
    loose = Verifier(
        VerifierConfig(comparison=ComparisonConfig(mode="tokens", abs_tol=1e-3, case_sensitive=False)),
        pool=strict.pool,
    )
    try:
        assert strict.verify_batch([(problem, answer)])[0].passed is False
        assert loose.verify_batch([(problem, answer)])[0].passed is True
    finally:
        strict.close()


def test_time_limits_calibrated_from_the_reference_solution(verifier):
    slow = "import time\ntime.sleep(0.2)\nprint(int(input()) * 2)"
    row = {
        "id": "double",
        "question": "Double it.",
        "input_output": json.dumps({"inputs": ["2\n"], "outputs": ["4\n"]}),
        "solutions": json.dumps([slow]),
    }
    problem = parse_problem(row)
    limits = verifier.calibrate_time_limits([problem], factor=2.0, floor_s=0.1, ceiling_s=5.0)
    assert 0.4 <= limits["double"] < 1.5
    too_slow = fenced("import time\ntime.sleep(2)\nprint(int(input()) * 2)")
    assert verifier.verify_batch([(problem, too_slow)])[0].tests[0].verdict == "timeout"


def test_config_from_dict_is_strict():
    config = VerifierConfig.from_dict(
        {"timeout_s": 2, "reward": {"mode": "fraction"}, "limits": {"memory_bytes": 2**30}}
    )
    assert config.reward.mode == "fraction" and config.limits.memory_bytes == 2**30
    with pytest.raises(ConfigError, match="did you mean 'early_exit'"):
        VerifierConfig.from_dict({"early_exti": True})
    with pytest.raises(ConfigError, match=r"did you mean 'memory_bytes'"):
        VerifierConfig.from_dict({"limits": {"memory": 1}})
    with pytest.raises(ConfigError, match=r"^verifier: limits.timeout_s is not used: .* with timeout_s"):
        VerifierConfig.from_dict({"limits": {"timeout_s": 3}})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"timeout_s": "abc"}, "verifier.timeout_s: expected a number, got 'abc'"),
        ({"limits": {"processes": "many"}}, "verifier.limits.processes: expected an integer, got 'many'"),
        (
            {"reward": {"mode": "sum"}},
            "verifier.reward.mode: expected 'binary', 'fraction' or 'shaped', got 'sum'",
        ),
        ({"comparison": []}, "verifier.comparison: expected a mapping, got []"),
        ({"early_exit": "sometimes"}, "verifier.early_exit: expected true or false, got 'sometimes'"),
        (
            {"reward": {"weights": {"format_ok": 0.5}}},
            "verifier.reward.weights: shaped reward weights must sum to 1",
        ),
    ],
)
def test_config_errors_name_the_key_and_say_what_was_expected(data, message):
    with pytest.raises(ConfigError) as error:
        VerifierConfig.from_dict(data)
    assert str(error.value).startswith(message)


def test_configured_cpu_limit_is_enforced():
    """``limits.cpu_s`` bounds a busy program's CPU time below its wall limit (it was once dropped)."""
    config = VerifierConfig.from_dict({"timeout_s": 30, "limits": {"cpu_s": 1}})
    problem = parse_problem(
        {
            "id": "busy",
            "question": "Loop.",
            "input_output": json.dumps({"inputs": ["1\n"], "outputs": ["1\n"]}),
        }
    )
    with Verifier(config, workers=1) as verifier:
        (result,) = verifier.verify_batch([(problem, fenced("while True:\n    pass"))])
    assert result.tests[0].verdict == "timeout" and result.tests[0].wall_s < 15


def test_code_that_does_not_compile_is_a_syntax_error_in_every_kind(verifier, fixtures_dir):
    humaneval_problem = humaneval()[0][0]
    call_problem = parse_problem(CALL_ROWS[1])
    stdio_problem = load_problems(fixtures_dir / "sandboxfusion" / "code_eval_code_contests.jsonl")[0]
    broken = fenced("def broken(:\n    pass")
    results = verifier.verify_batch(
        [(humaneval_problem, broken), (call_problem, broken), (stdio_problem, broken)]
    )
    assert [r.tests[0].verdict for r in results] == ["syntax_error"] * 3


def _stdin_problem(problem_id: str, reference: str | None = None, tests: int = 4):
    row = {
        "id": problem_id,
        "question": "Double it.",
        "input_output": json.dumps(
            {"inputs": [f"{i}\n" for i in range(tests)], "outputs": [f"{2 * i}\n" for i in range(tests)]}
        ),
    }
    if reference is not None:
        row["solutions"] = json.dumps([reference])
    return parse_problem(row)


# Loops on test 1 (input 1) only: every other test would pass.
LOOPS_ON_ONE = "n = int(input())\nwhile n == 1:\n    pass\nprint(2 * n)"


def test_after_timeout_policy_skips_the_rest_and_keeps_pass_fail():
    """``skip`` records the tests after the first timeout ``not_run`` without running them, ``run``
    runs them all; pass/fail and the binary reward are the same, the fraction reward states the
    difference (the two tests after the timeout would have passed)."""
    problem = _stdin_problem("double-policy")
    answers = [(problem, fenced(LOOPS_ON_ONE)), (problem, fenced("print(2 * int(input()))"))]
    verdicts, passed, fractions = {}, {}, {}
    for policy in ("skip", "run"):
        config = VerifierConfig(
            timeout_s=1, after_timeout=policy, calibrate=False, reward=RewardConfig(mode="fraction")
        )
        with Verifier(config, workers=2) as verifier:
            results = verifier.verify_batch(answers)
        verdicts[policy] = [t.verdict for t in results[0].tests]
        passed[policy] = [r.passed for r in results]
        fractions[policy] = results[0].reward
    assert verdicts["skip"] == ["passed", "timeout", "not_run", "not_run"]
    assert verdicts["run"] == ["passed", "timeout", "passed", "passed"]
    assert passed["skip"] == passed["run"] == [False, True]
    assert (fractions["skip"], fractions["run"]) == (0.25, 0.75)
    with pytest.raises(ConfigError, match=r"verifier.after_timeout: expected 'run' or 'skip', got 'later'"):
        VerifierConfig(after_timeout="later")
    with pytest.raises(
        ConfigError, match=r"verifier: limits.stop_after_timeout is not used: set it with after_timeout"
    ):
        VerifierConfig.from_dict({"limits": {"stop_after_timeout": True}})


def test_a_cancelled_answer_stops_mid_test_unless_a_repeat_still_wants_it():
    """``cancelled`` stops a program while it runs a test (60 s limit: the loop would otherwise
    time out), once every pair that repeats the answer is cancelled; one still wanted keeps it."""
    problem = _stdin_problem("double-cancel")
    looping = (problem, fenced(LOOPS_ON_ONE))
    with Verifier(VerifierConfig(timeout_s=60, calibrate=False), workers=1) as verifier:
        started = time.monotonic()  # time enough to pass test 0, far below the 60 s limit
        gone = verifier.verify_batch([looping, looping], cancelled=lambda i: time.monotonic() - started > 4)
    assert [[t.verdict for t in v.tests] for v in gone] == [["passed", "not_run", "not_run", "not_run"]] * 2
    assert [v.passed for v in gone] == [False, False]
    with Verifier(VerifierConfig(timeout_s=1, calibrate=False), workers=1) as verifier:
        kept = verifier.verify_batch([looping, looping], cancelled=lambda i: i == 0)
    assert [t.verdict for t in kept[1].tests] == ["passed", "timeout", "not_run", "not_run"]


def test_calibrated_limits_are_measured_once_per_problem_content(tmp_path):
    """Calibration runs a problem's reference once: the same content later (another call, another
    problem object with another id, another verifier reading the same cache file) gets the limit
    measured the first time, to the last digit; changed tests are measured anew."""
    from nemo_code_rl.unit_tests.time_limits import TimeLimitCache

    reference = "import time\ntime.sleep(0.5)\nprint(2 * int(input()))"
    problem = _stdin_problem("double-a", reference, tests=2)
    cache_file = tmp_path / "limits.json"
    config = VerifierConfig(timeout_s=10)
    with Verifier(config, workers=2, time_limits=TimeLimitCache(cache_file)) as verifier:
        verifier.verify_batch([(problem, fenced("print(2 * int(input()))"))])
        first = verifier.time_limit(problem)
        assert 1.5 <= first < 10
        verifier.verify_batch([(problem, fenced("print(0)"))])
        assert verifier.time_limit(problem) == first
        assert verifier.time_limit(_stdin_problem("double-b", reference, tests=2)) == first
        changed = _stdin_problem("double-a", reference, tests=3)
        assert verifier.time_limit(changed) == 10  # not calibrated yet: the configured limit
        verifier.verify_batch([(changed, fenced("print(0)"))])
        assert verifier.time_limit(changed) not in (10, first)
    with Verifier(config, workers=1, time_limits=TimeLimitCache(cache_file)) as again:
        assert again.time_limit(problem) == first
        off = Verifier(
            VerifierConfig(timeout_s=10, calibrate=False), pool=again.pool, time_limits=again.time_limits
        )
        assert off.time_limit(problem) == 10
    cache_file.write_text("not json")
    with pytest.raises(ValueError, match="not a readable time-limit cache"):
        TimeLimitCache(cache_file)


def test_early_exit_reports_each_streamed_completion_once():
    """With early exit, a program goes on running for a moment after its first failure (the stop
    reaches the worker later): the results that come after it must not report the completion
    again, and what is reported is what the batch returns."""
    problem = _stdin_problem("double-many", tests=40)
    answers = [(problem, fenced(f"print({k})")) for k in range(6)] + [
        (problem, fenced("print(2 * int(input()))"))
    ]
    reported: dict[int, list] = {}
    config = VerifierConfig(timeout_s=5, early_exit=True, calibrate=False)
    with Verifier(config, workers=2) as verifier:
        results = verifier.verify_batch(
            answers, on_verified=lambda index, v: reported.setdefault(index, []).append(v)
        )
    assert {index: len(seen) for index, seen in reported.items()} == {i: 1 for i in range(len(answers))}
    assert [reported[i][0] for i in range(len(answers))] == results
    assert [r.passed for r in results] == [False] * 6 + [True]
    assert [t.verdict for t in results[1].tests[:2]] == ["wrong_answer", "not_run"]
