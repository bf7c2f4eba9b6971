"""Driver for call-based tests (``fn_name``), shipped into the sandbox after the codec.

The input of each test is a JSON array of arguments. The candidate is executed as a module, the
function (or the method of ``class Solution``) is called, and the return value is encoded with
the codec *inside the sandbox* and written as the last line of stdout after ``RESULT_MARKER``.
The comparison happens outside, on decoded plain data, so no object of the candidate's ever takes
part in it. The candidate's own prints go to stderr.
"""

RESULT_MARKER = "@@nemo-code-rl:result@@"


def run_call(candidate_source, fn_name):
    import os
    import sys

    arguments = json.loads(sys.stdin.read())
    keep = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    namespace = {"__name__": "solution", "__builtins__": __builtins__}
    exec(compile(candidate_source, "solution.py", "exec"), namespace)
    target = namespace.get(fn_name)
    solution = namespace.get("Solution")
    if isinstance(solution, type) and hasattr(solution, fn_name):
        target = getattr(solution(), fn_name)
    if not callable(target):
        raise NameError(f"the program defines no function {fn_name!r} (nor a method Solution.{fn_name})")
    encoded = dumps(target(*arguments))
    sys.stderr.flush()
    os.write(keep, (RESULT_MARKER + encoded + "\n").encode())
