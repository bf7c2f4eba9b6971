"""The unit-test family: coding problems judged by running their tests (``families.UNIT_TESTS``).

Everything this family owns lives here, as ARC's lives in ``nemo_code_rl.arc``; the framework
adapters (NeMo RL, TRL, NeMo Gym) reach it only through ``family.PIECES``:

- ``problems``: public data formats (NeMo Gym, APPS/TACO, CodeContests, LiveCodeBench, HumanEval,
  MBPP) into one ``Problem``; ``problem_codec`` carries a parsed problem between processes;
  ``problem_rows`` / ``problem_loading`` make dataset rows and load them for NeMo RL.
- ``verification``: completion -> program -> tests -> verdicts -> reward (``rewards``), with
  ``comparison`` / ``comparison_rules`` for outputs and ``time_limits`` for calibrated limits.
- ``harness``: what runs in the sandbox beside the program (call and assert drivers) and the
  workers' judge; ``checkers``: the special judges shipped with the package.
- ``scoring`` / ``default_job``: the ``score`` command and its embedded HumanEval default.

Importing this package loads nothing: sandbox workers import ``harness.judging`` without pydantic.
"""
