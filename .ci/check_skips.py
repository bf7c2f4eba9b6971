"""Fail the NeMo RL lane when a test skipped that the checked-in allowance does not list.

Usage: python .ci/check_skips.py REPORT.xml ALLOWANCE.txt

REPORT is pytest's JUnit XML written with ``-o junit_family=xunit1`` (so every test case names its
file). ALLOWANCE lists one allowed skip per line as ``<pattern> | <reason>``: the pattern is matched
(``fnmatch``) against ``<file>::<test name>``, and the reason says why the skip cannot be avoided
here (only "needs a GPU" qualifies). Blank lines and ``#`` comments are ignored. Every skip must
match a pattern; an allowance line without a reason is an error.
"""

from __future__ import annotations

import fnmatch
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def allowance(path: Path) -> list[str]:
    """The allowed patterns; raises ``SystemExit`` on a line without a reason."""
    patterns = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, _, reason = line.partition("|")
        if not reason.strip():
            raise SystemExit(f"{path}:{number}: an allowed skip needs a reason after '|': {line!r}")
        patterns.append(pattern.strip())
    return patterns


def skipped(report: Path) -> list[tuple[str, str]]:
    """``(test id, skip message)`` of every skipped test case in the report."""
    found = []
    for case in ET.parse(report).iter("testcase"):
        skip = case.find("skipped")
        if skip is not None:
            test_id = f"{case.get('file', case.get('classname', ''))}::{case.get('name', '')}"
            found.append((test_id, skip.get("message", "")))
    return found


def main(argv: list[str]) -> int:
    report, allowed_file = Path(argv[0]), Path(argv[1])
    patterns = allowance(allowed_file)
    skips = skipped(report)
    unexpected = [(t, m) for t, m in skips if not any(fnmatch.fnmatchcase(t, p) for p in patterns)]
    allowed = len(skips) - len(unexpected)
    sys.stdout.write(f"check_skips: {len(skips)} skipped, {allowed} allowed by {allowed_file}\n")
    for test_id, message in unexpected:
        sys.stdout.write(f"check_skips: NOT ALLOWED: {test_id}: {message}\n")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
