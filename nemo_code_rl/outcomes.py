"""The one outcome vocabulary of the package: every verdict and attempt status, in one place.

An execution of a program on one input ends with an engine verdict (``ok`` ... ``not_run``); a
unit test adds the judge's ``passed`` / ``wrong_answer``; a row the caller could not judge gets
``unknown_problem`` or ``bad_input``; a program that attacked the sandbox gets
``sandbox_violation``. Every adapter (NeMo RL, TRL, NeMo Gym, the CLI, ARC) projects these to its
own shape and never spells a parallel vocabulary: a new verdict or status goes here.

``worker_lost`` is the only verdict that describes the infrastructure rather than the program:
callers count it as an infrastructure fault and never score it as a model failure.
"""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """How one execution, or one test, ended."""

    # What the engine measures of one execution.
    OK = "ok"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    SIGNAL = "signal"
    SYNTAX_ERROR = "syntax_error"
    COMPILE_ERROR = (
        "compile_error"  # a compiled language's source did not compile (the compiler's first lines)
    )
    SANDBOX_VIOLATION = "sandbox_violation"
    WORKER_LOST = "worker_lost"
    NOT_RUN = "not_run"
    # What a harness reads in a program's failure: an import of a module the sandbox lacks.
    MISSING_MODULE = "missing_module"
    # What a judge adds for a test.
    PASSED = "passed"
    WRONG_ANSWER = "wrong_answer"
    INVALID_OUTPUT = "invalid_output"  # the program's answer is not of the required kind (an ARC grid)
    UNJUDGED = "unjudged"  # an answer was produced, but the expected one is unknown
    # What a test gets when its row could not be judged at all.
    UNKNOWN_PROBLEM = "unknown_problem"
    BAD_INPUT = "bad_input"


class AttemptStatus(StrEnum):
    """What became of one attempt (a completion for a problem) as a whole."""

    JUDGED = "judged"
    NO_CODE = "no_code"
    INFRA_FAULT = "infra_fault"
    BAD_INPUT = "bad_input"
    UNKNOWN_PROBLEM = "unknown_problem"


class FinishReason(StrEnum):
    """Why a model's generation ended (``nemo-code-rl eval``'s completions; OpenAI's words)."""

    STOP = "stop"  # a stop text or the end-of-turn token
    LENGTH = "length"  # the token budget ran out first
