"""Benchmarks of the execution engine against the process models RL frameworks use today.

They live in the package (not only under ``benchmarks/``) so ``nemo-code-rl bench`` can run them
from an installed wheel, on the machine whose throughput actually matters.
"""
