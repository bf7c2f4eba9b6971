from __future__ import annotations

import doctest
import json
import random

import pytest

from nemo_code_rl import extraction
from nemo_code_rl.extraction import ExtractionConfig, extract_code, fenced_blocks, strip_think_sections

GYM = ExtractionConfig(mode="gym")


def test_docstring_examples() -> None:
    assert doctest.testmod(extraction).failed == 0


def test_last_python_block_wins() -> None:
    text = "First try:\n```python\nprint(1)\n```\nBetter:\n```python\nprint(2)\n```\nDone."
    result = extract_code(text)
    assert result.code == "print(2)"
    assert result.format_ok
    assert "```python" in result.reason


@pytest.mark.parametrize(
    "label", ["python", "py", "python3", "Python", "PY3", "python:main.py", "python title"]
)
def test_python_labels(label: str) -> None:
    assert extract_code(f"```{label}\nx = 1\n```").code == "x = 1"


def test_python_block_preferred_over_later_unlabelled_block() -> None:
    text = "```python\nsolve()\n```\nExample output:\n```\n42\n```"
    assert extract_code(text).code == "solve()"


def test_unlabelled_block_used_when_no_python_block() -> None:
    text = "```\nfirst\n```\n```\nsecond()\n```"
    assert extract_code(text).code == "second()"


def test_other_languages_do_not_count() -> None:
    result = extract_code("```cpp\nint main() {}\n```")
    assert result.code is None
    assert result.reason.startswith("format failure")


def test_no_code_is_a_format_failure_not_an_exception() -> None:
    result = extract_code("I cannot solve this.")
    assert not result.format_ok
    assert result.code is None
    assert result.reason.startswith("format failure")


def test_empty_python_block_is_skipped() -> None:
    assert extract_code("```python\nreal()\n```\n```python\n\n```").code == "real()"
    assert not extract_code("```python\n   \n```").format_ok


def test_unclosed_fence_is_not_a_block() -> None:
    assert extract_code("```python\nok()\n```\n```python\ntruncated(").code == "ok()"
    assert not extract_code("```python\ntruncated(").format_ok


def test_closing_fence_at_end_of_code_line() -> None:
    assert extract_code("```python\na = 1\nprint(a)```\ntext").code == "a = 1\nprint(a)"


def test_longer_fence_holds_inner_backticks() -> None:
    text = '````python\ns = """\n```\n"""\nprint(s)\n````'
    assert extract_code(text).code == 's = """\n```\n"""\nprint(s)'


def test_indentation_is_kept_and_crlf_is_a_line_break() -> None:
    text = "```python\r\nfor i in range(2):\r\n    print(i)\r\n```\r\n"
    assert extract_code(text).code == "for i in range(2):\n    print(i)"


def test_fenced_blocks_lists_labels_and_code() -> None:
    assert fenced_blocks("```py\na\n```\n```cpp\nb\n```\n```\nc\n```") == [
        ("py", "a"),
        ("cpp", "b"),
        ("", "c"),
    ]


def _blocks_line_by_line(text: str) -> list[tuple[str, str]]:
    """The rule ``fenced_blocks`` documents, applied to every line in turn: the oracle its
    faster reading (only the lines holding three backticks) must agree with."""
    blocks, fence, label, body = [], "", "", []
    for line in text.replace("\r\n", "\n").split("\n"):
        if not fence:
            opening = extraction._FENCE_OPEN.match(line)
            if opening:
                fence, label, body = opening.group(1), opening.group(2).lower(), []
            continue
        closing = extraction._FENCE_CLOSE.match(line)
        if closing and len(closing.group(1)) >= len(fence):
            blocks.append((label, "\n".join(body)))
            fence = ""
        elif line.rstrip().endswith(fence) and not line.strip().startswith("`"):
            blocks.append((label, "\n".join([*body, line.rstrip()[: -len(fence)]])))
            fence = ""
        else:
            body.append(line)
    return blocks


def test_fenced_blocks_agree_with_reading_every_line() -> None:
    pieces = ["```", "````", "``````", "`x`", "``", "python", "cpp", " ", "\t", "\n", "\r\n", "\r"]
    pieces += ["print(1)", "    ", "\u2028", "\x85", "a```", "``` py", "\n```\n", "\n```python\n", "é"]
    rng = random.Random(0)
    for _ in range(30_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        assert fenced_blocks(text) == _blocks_line_by_line(text), repr(text)


def test_long_answers_with_inline_code_keep_their_last_block() -> None:
    prose = "Use `sum` over the `list`, then ``print`` it: ``` is a fence only at a line's start.\n" * 400
    text = prose + "```python\nprint(sum(map(int, input().split())))\n```\n" + prose
    assert extract_code(text).code == "print(sum(map(int, input().split())))"
    assert fenced_blocks(text) == _blocks_line_by_line(text)


def test_think_sections_are_ignored() -> None:
    text = "<think>\n```python\nwrong()\n```\n</think>\nAnswer:\n```python\nright()\n```"
    assert extract_code(text).code == "right()"


def test_code_only_inside_think_is_a_format_failure() -> None:
    assert not extract_code("<think>\n```python\ndraft()\n```\n</think>\nNo answer.").format_ok


def test_leading_reasoning_closed_without_opening_tag() -> None:
    text = "reasoning ```python\ndraft()\n```\n</think>\n```python\nfinal()\n```"
    assert extract_code(text).code == "final()"
    assert strip_think_sections("a</think>b") == "b"


def test_unclosed_think_drops_the_rest() -> None:
    assert not extract_code("<think>\n```python\nhalf()\n```\n").format_ok
    assert strip_think_sections("answer <think> still thinking") == "answer "


def test_strip_think_can_be_turned_off() -> None:
    text = "<think>\n```python\ndraft()\n```\n</think>"
    assert extract_code(text, ExtractionConfig(strip_think=False)).code == "draft()"


def test_code_tags_mode() -> None:
    config = ExtractionConfig(mode="code_tags")
    text = "<code>\nfirst()\n</code> then <code>\nsecond()\n</code>"
    assert extract_code(text, config).code == "second()"
    assert not extract_code("```python\nx()\n```", config).format_ok


def test_regex_mode_uses_first_group_of_last_match() -> None:
    config = ExtractionConfig(mode="regex", pattern=r"\[PYTHON\](.*?)\[/PYTHON\]")
    text = "[PYTHON]a()[/PYTHON] and [PYTHON]\nb()\n[/PYTHON]"
    assert extract_code(text, config).code == "\nb()\n"
    assert not extract_code("none", config).format_ok


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mode": "regex"},
        {"mode": "regex", "pattern": "no group"},
        {"mode": "fenced", "pattern": "(x)"},
        {"mode": "markdown"},
    ],
)
def test_invalid_configs_are_rejected(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        ExtractionConfig(**kwargs)


def test_gym_mode_takes_lines_between_last_two_fence_lines() -> None:
    text = "```python\nfirst()\n```\nThen:\n```python\nsecond()\n```"
    assert extract_code(text, GYM).code == "second()"
    assert extract_code("text ```python\ncode()\n``` trailing", GYM).code == "code()"


def test_gym_mode_failures() -> None:
    assert not extract_code("```python\nonly one fence", GYM).format_ok
    assert not extract_code("```python\n```", GYM).format_ok
    assert extract_code("```\n \n```", GYM).code == " "


def test_gym_mode_differs_from_default_on_trailing_output_block() -> None:
    text = "```python\nsolve()\n```\nOutput:\n```\n42\n```"
    assert extract_code(text, GYM).code == "42"
    assert extract_code(text).code == "solve()"


def _gym_rollouts(fixtures_dir) -> list[dict]:
    path = fixtures_dir / "nemo_gym" / "code_gen_example_rollouts.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _output_text(rollout: dict) -> str:
    return "".join(
        part["text"]
        for item in rollout["response"]["output"]
        if item.get("type") == "message"
        for part in item["content"]
        if part.get("type") == "output_text"
    )


def test_gym_mode_reproduces_gym_extracted_code(fixtures_dir) -> None:
    rollouts = _gym_rollouts(fixtures_dir)
    assert len(rollouts) == 5
    for rollout in rollouts:
        text = _output_text(rollout)
        assert text == rollout["extracted_model_output"]
        assert extract_code(text, GYM).code == rollout["extracted_model_code"]


def test_default_mode_agrees_with_gym_on_gym_rollouts(fixtures_dir) -> None:
    for rollout in _gym_rollouts(fixtures_dir):
        assert extract_code(_output_text(rollout)).code == rollout["extracted_model_code"]
