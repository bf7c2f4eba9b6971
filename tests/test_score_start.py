"""``score`` starts its pool before the CLI's heavy imports (``backend_start``): what may start early,
when the full parse hands it over, and that no way out of the command leaves a worker behind."""

import json
import os
import subprocess
import sys

import pytest

from nemo_code_rl import backend_start
from nemo_code_rl.cli import main


def _descendants() -> set[tuple[int, str]]:
    """Live processes below this one, as (pid, start time) so that a reused pid is not mistaken."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                table[int(entry)] = (int(fields[1]), fields[19])
    found, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, (parent, _) in table.items() if parent in frontier}
        found |= {(pid, table[pid][1]) for pid in frontier}
    return found


def test_importing_the_command_line_leaves_the_config_system_for_later():
    code = (
        "import sys, nemo_code_rl.cli\n"
        "heavy = ('pydantic', 'nemo_code_rl.unit_tests.verification', 'nemo_code_rl.engine.backend')\n"
        "print([name for name in heavy if name in sys.modules])"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "argv",
    [
        ["plot", "runs"],
        ["score", "--help"],
        ["score", "p.jsonl", "c.jsonl", "--backend", "ray"],
        ["score", "p.jsonl", "c.jsonl", "--backend", "docker"],
        ["score", "--workers", "two"],
        ["score", "--workers", "0"],
        ["score", "--isolation", "container"],
        ["score", "--workers"],
    ],
)
def test_nothing_starts_early_where_the_full_parse_decides(argv):
    assert backend_start.start_early(argv) is None


def test_the_early_pool_is_handed_over_only_for_the_same_options():
    early = backend_start.start_early(["score", "p.jsonl", "c.jsonl", "--workers=1", "--isolation", "none"])
    assert early is not None
    first = early.starting
    handed = backend_start.backend(early, "process", 1, "none")
    assert handed is first and early.starting is None
    with handed.result() as pool:
        assert pool.size == 1 and pool.isolation == "none"

    early = backend_start.start_early(["score", "--workers", "1", "--isolation", "none"])
    assert early is not None
    guessed = early.starting
    assert guessed is not None
    other = backend_start.backend(early, "process", 2, "none")  # e.g. ``--work 2``: not read early
    assert other is not guessed and early.starting is None
    with other.result() as pool:
        assert pool.size == 2
    with pytest.raises(RuntimeError, match="closed"):
        guessed.result().run_batch([])


@pytest.mark.parametrize("error", ["bad option value", "missing file", "unwritable output", "bad pattern"])
def test_an_early_error_leaves_no_worker_behind(tmp_path, capsys, error):
    problems, completions = tmp_path / "p.jsonl", tmp_path / "c.jsonl"
    problems.write_text(json.dumps({"id": "a", "input_output": '{"inputs": ["1"], "outputs": ["1"]}'}) + "\n")
    completions.write_text(json.dumps({"id": "a", "completion": "```python\nprint(1)\n```"}) + "\n")
    argv = ["score", str(problems), str(completions), "--workers", "2", "--quiet"]
    before = _descendants()
    if error == "bad option value":
        with pytest.raises(SystemExit):
            main([*argv, "--timeout", "-1"])
    elif error == "missing file":
        assert main(["score", str(tmp_path / "none.jsonl"), *argv[2:]]) == 2
    elif error == "unwritable output":
        assert main([*argv, "-o", str(tmp_path / "no" / "such" / "out.jsonl")]) == 2
    else:
        assert main([*argv, "--format", "regex", "--pattern", "("]) == 2
    assert capsys.readouterr().err
    assert _descendants() - before == set()


def test_an_unrecognized_score_argument_is_reported_by_the_whole_command_line(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["score", "--workers", "1", "--no-such-option"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "unrecognized arguments: --no-such-option" in error
    assert "score,bench,plot" in error.replace("\n", "").replace(" ", "")  # every subcommand, as before
