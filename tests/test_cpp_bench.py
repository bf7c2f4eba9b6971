"""The benchmark's C++ rows: every row's answers are right (a row that mismatched would time
nothing worth reporting)."""

from __future__ import annotations

import shutil

import pytest

from nemo_code_rl.benchmarking.cpp_rows import CPP_ROW_KEYS, cpp_workload, measure_cpp

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="the C++ rows need g++ on the host")


def test_the_workload_is_distinct_sources_with_answers() -> None:
    items = cpp_workload(3, 4, seed=1)
    assert len({item.source for item in items}) == 3 and all(len(item.expected) == 4 for item in items)
    assert items == cpp_workload(3, 4, seed=1)


def test_cpp_rows_agree_with_the_expected_answers() -> None:
    rows = measure_cpp(1, 3, workers=1, timeout_s=5.0, isolation="full", seed=0, emit=print)
    assert [row["key"] for row in rows] == list(CPP_ROW_KEYS)
    assert [(row["tests"], row["mismatches"]) for row in rows] == [(3, 0)] * 3
