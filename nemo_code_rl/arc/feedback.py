"""What a failing ARC program is told in a feedback turn: which train pairs failed, and how.

Only the train pairs are reported (their outputs are in the prompt already); the test outputs
stay hidden. The first wrong grid is described precisely (its shape, or the first differing
cell), which is what a model needs to fix an off-by-one rule without seeing a diff of every cell.
"""

from __future__ import annotations

from nemo_code_rl.arc.verifier import ArcVerification, GridJudgement
from nemo_code_rl.outcomes import Verdict

_VERDICT_TEXT = {
    Verdict.TIMEOUT: "timed out",
    Verdict.RUNTIME_ERROR: "raised an error",
    Verdict.MISSING_MODULE: "imported a module that is not available",
    Verdict.INVALID_OUTPUT: "did not return a valid grid",
    Verdict.NOT_RUN: "was not run",
}


def feedback_text(verification: ArcVerification, function_name: str = "transform") -> str:
    """The report on a program's train pairs; ``""`` when it got every one right.

    >>> from nemo_code_rl.arc.verifier import GridJudgement
    >>> right = GridJudgement([[1]], True, 1.0, Verdict.PASSED)
    >>> wrong = GridJudgement([[1, 2]], False, 0.0, Verdict.WRONG_ANSWER, "expected a 1x1 grid, got 1x2")
    >>> print(feedback_text(ArcVerification("t", True, "...", True, "", (right, wrong), (), 5.5)))
    Your program got 1 of 2 training examples right.
    Example 1: correct.
    Example 2: wrong output.
    In example 2, expected a 1x1 grid, got 1x2.
    """
    if not verification.format_ok:
        return "No Python code block was found in your answer."
    if not verification.compiled:
        return f"Your program does not compile: {verification.error}"
    if verification.train_passed:
        return ""
    if verification.error:
        return f"Your program failed before `{function_name}` could be applied: {verification.error}"
    right = sum(bool(j.correct) for j in verification.train)
    lines = [f"Your program got {right} of {len(verification.train)} training examples right."]
    lines += [f"Example {number}: {_status(j)}." for number, j in enumerate(verification.train, start=1)]
    wrong = (n for n, j in enumerate(verification.train, start=1) if j.verdict is Verdict.WRONG_ANSWER)
    first_wrong = next(wrong, None)
    if first_wrong is not None:
        lines.append(f"In example {first_wrong}, {verification.train[first_wrong - 1].detail}.")
    return "\n".join(lines)


def _status(judgement: GridJudgement) -> str:
    if judgement.correct:
        return "correct"
    if judgement.verdict is Verdict.WRONG_ANSWER:
        return "wrong output"
    text = _VERDICT_TEXT.get(judgement.verdict, judgement.verdict.value)
    return f"{text} ({judgement.detail})" if judgement.detail else text
