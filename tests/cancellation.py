"""``run_batch(cancelled=...)`` through a real backend: what the backends' tests share."""

from __future__ import annotations

import dataclasses
import time

from nemo_code_rl import Program, Verdict
from nemo_code_rl.engine.results import CANCELLED_ERROR

# Answers its first input, then loops on its second until its (long) time limit.
LOOPS_ON_ITS_SECOND_INPUT = "x = input()\nwhile x == 'loop':\n    pass\nprint(x)"
# Long enough for the first input to be answered on a loaded machine; far below the time limit.
CANCEL_AFTER_S = 4.0
LONG_LIMIT_S = 60.0


def check_cancelled_programs(pool) -> None:
    """A looping program is cancelled while it runs its second input, and a waiting program is
    cancelled before it starts: the first input's answer stands, the looping input and the
    waiting program get ``not_run`` (not ``timeout``, which only the 60 s limit would give), and
    a program nobody cancelled still runs. Without a working cancellation the batch lasts the
    whole limit and the looping input gets ``timeout``."""
    limits = dataclasses.replace(pool.limits, timeout_s=LONG_LIMIT_S)
    programs = [
        Program(LOOPS_ON_ITS_SECOND_INPUT, ["first", "loop"], limits=limits),  # longest: handed out first
        Program("print(input())", ["never"], limits=limits),
        Program("print(input())", ["kept"], limits=limits),
    ]
    started = time.monotonic()

    def cancelled(program: int) -> bool:
        return program == 1 or (program == 0 and time.monotonic() - started > CANCEL_AFTER_S)

    looping, waiting, kept = pool.run_batch(programs, cancelled=cancelled)
    assert [(r.verdict, r.stdout) for r in looping] == [(Verdict.OK, "first\n"), (Verdict.NOT_RUN, "")]
    assert looping[1].error == CANCELLED_ERROR
    assert [(r.verdict, r.error) for r in waiting] == [(Verdict.NOT_RUN, CANCELLED_ERROR)]
    assert [(r.verdict, r.stdout) for r in kept] == [(Verdict.OK, "kept\n")]
