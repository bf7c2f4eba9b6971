"""One evaluation: generate N completions per problem, score them in the sandbox, write the tables.

Writes into the output folder:

- ``settings.json``: what was generated (model, problems, sampling, prompt settings); a
  ``--resume`` with other settings is refused, except a larger ``n`` (only the extra samples are
  generated);
- ``completions.jsonl``: streamed as generated (``completions_log``);
- ``results.jsonl``: ``score``'s RESULTS rows, streamed as judged and resumable (coding problems:
  ``results_files.ResultsFile``); ARC tasks are scored by ``score``'s ARC path (``arc.cli``) as a whole;
- ``summary.json`` and ``summary.md``: pass@k overall and per source / difficulty (coding
  problems), or arc25's table plus ``submission.json`` (ARC, as ``arc-submission`` writes it).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nemo_code_rl.engine.backend import BackendKind
from nemo_code_rl.engine.collector_pause import collector_paused_while_routing
from nemo_code_rl.engine.sandbox import FULL
from nemo_code_rl.evaluation.completions_log import CompletionsLog
from nemo_code_rl.evaluation.generators import (
    Generator,
    GeneratorKind,
    Sampling,
    TransformersGenerator,
    load_tokenizer,
    make_generator,
)
from nemo_code_rl.evaluation.problem_set import ProblemSet, load_problem_set
from nemo_code_rl.evaluation.prompts import Prompt, PromptSpec, build_prompts, stop_texts
from nemo_code_rl.evaluation.report import eval_summary, format_table
from nemo_code_rl.families import ARC
from nemo_code_rl.progress import progress_bar
from nemo_code_rl.results_files import INTERRUPTED

COMPLETIONS = "completions.jsonl"
RESULTS = "results.jsonl"
SETTINGS = "settings.json"


@dataclass(frozen=True)
class EvalSettings:
    """What decides the completions; a resumed evaluation must have the same (``n`` may grow)."""

    model: str
    tokenizer: str
    problems: str
    generator: GeneratorKind
    temperature: float
    max_new_tokens: int
    system_prompt: str | None
    prompt_template: str | None


@dataclass(frozen=True)
class EvalRun:
    """An evaluation's settings and how it runs.

    Attributes:
        settings: what decides the completions.
        n: completions per problem.
        ks: the k of pass@k (those up to ``n`` are reported).
        output: the output folder.
        base_url: the OpenAI-compatible server (``generator == "openai"``).
        backend / workers / isolation: where, on how many workers and how isolated programs run.
        resume: go on with what the folder holds.
        quiet: no progress bars.
    """

    settings: EvalSettings
    n: int
    ks: tuple[int, ...]
    output: Path
    base_url: str | None = None
    backend: BackendKind = "process"
    workers: int | None = None
    isolation: str = FULL
    resume: bool = False
    quiet: bool = False


def run_eval(run: EvalRun) -> int:
    """Generate, score and summarize (see the module doc); the exit status (130: interrupted)."""
    settings = run.settings
    problem_set = load_problem_set(settings.problems)
    run.output.mkdir(parents=True, exist_ok=True)
    _check_settings(run)
    log = CompletionsLog(run.output / COMPLETIONS, resume=run.resume)  # refuses to overwrite, first
    try:
        generator = make_generator(
            settings.generator, settings.model, tokenizer=settings.tokenizer, base_url=run.base_url
        )
        tokenizer = (
            generator.tokenizer
            if isinstance(generator, TransformersGenerator)
            else load_tokenizer(settings.tokenizer)
        )
        prompts = build_prompts(
            problem_set, tokenizer, PromptSpec(settings.system_prompt, settings.prompt_template)
        )
        sampling = Sampling(settings.temperature, settings.max_new_tokens, tuple(stop_texts(tokenizer)))
        (run.output / SETTINGS).write_text(json.dumps(asdict(settings), indent=2) + "\n", encoding="utf-8")
        _generate(problem_set, prompts, generator, sampling, log, run)
    except KeyboardInterrupt:
        sys.stderr.write(
            f"nemo-code-rl eval: interrupted; {log.written} completions are in {log.path} "
            "(add --resume to go on)\n"
        )
        return INTERRUPTED
    finally:
        log.close()
    if problem_set.family == ARC:
        return _score_arc(problem_set, run)
    return _score_problems(problem_set, run)


def _check_settings(run: EvalRun) -> None:
    """A resumed folder must hold completions of these settings; a fresh one none (``CompletionsLog``)."""
    path = run.output / SETTINGS
    if not (run.resume and path.exists()):
        return
    before = json.loads(path.read_text(encoding="utf-8"))
    now = asdict(run.settings)
    changed = [
        f"{key}: {before.get(key)!r} -> {value!r}" for key, value in now.items() if before.get(key) != value
    ]
    if changed:
        raise ValueError(
            f"{run.output} holds completions of other settings ({'; '.join(changed)}); "
            "choose another -o, or drop --resume to start over there"
        )


def _generate(
    problem_set: ProblemSet,
    prompts: dict[str, Prompt],
    generator: Generator,
    sampling: Sampling,
    log: CompletionsLog,
    run: EvalRun,
) -> None:
    """The missing samples of each problem, in the problems' order; greedy decoding is run once
    per problem (its samples are all the same)."""
    over = {i: count for i, count in log.counts.items() if count > run.n}
    if over:
        listed = ", ".join(f"{i}: {count}" for i, count in list(over.items())[:5])
        raise ValueError(f"{log.path} holds more than n={run.n} completions of some problems ({listed})")
    total = run.n * len(problem_set.ids)
    update, close = progress_bar("generating", enabled=not run.quiet)
    try:
        done = sum(min(log.counts[i], run.n) for i in problem_set.ids)
        update(done, total)
        for problem_id in problem_set.ids:
            missing = run.n - log.counts[problem_id]
            if missing <= 0:
                continue
            made = generator.generate(
                prompts[problem_id].token_ids, 1 if sampling.greedy else missing, sampling
            )
            for generation in made * missing if sampling.greedy else made:
                log.append(problem_id, generation)
            done += missing
            update(done, total)
    finally:
        close()


def _score_problems(problem_set: ProblemSet, run: EvalRun) -> int:
    """``score``'s path: RESULTS streamed and resumable, then the pass@k tables."""
    with collector_paused_while_routing(periodic=False):  # as ``score`` does
        summary = _judged_summary(problem_set, run)
    if summary is None:
        return INTERRUPTED
    table = format_table(summary)
    (run.output / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    header = f"{run.settings.model} on {problem_set.source}, {run.n} completion(s) per problem"
    (run.output / "summary.md").write_text(f"{header}\n\n{table}\n", encoding="utf-8")
    sys.stdout.write(f"{header}\n{table}\nresults: {run.output / RESULTS}\n")
    return 0


def _judged_summary(problem_set: ProblemSet, run: EvalRun) -> dict[str, Any] | None:
    """The completions judged into RESULTS, and their summary; ``None`` after Ctrl-C. Run with the
    collector paused, as ``score`` runs its own (``engine.collector_pause`` says why)."""
    from nemo_code_rl import results_files
    from nemo_code_rl.unit_tests import scoring
    from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

    completions_path = run.output / COMPLETIONS
    completions = results_files.read_completions(completions_path)
    results = results_files.ResultsFile(run.output / RESULTS, completions, resume=run.resume)

    def open_verifier() -> Verifier:
        return Verifier(VerifierConfig(), backend=run.backend, workers=run.workers, isolation=run.isolation)

    judged = scoring.score_to_file(
        results, open_verifier, problem_set.problems, completions, "eval", run.quiet
    )
    if judged is None:
        return None
    rows, _ = judged
    finish_reasons = [row["finish_reason"] for row in _read_rows(completions_path)]
    return eval_summary(rows, problem_set.groups, run.ks, finish_reasons)


def _score_arc(problem_set: ProblemSet, run: EvalRun) -> int:
    """``score``'s ARC path (its table printed, RESULTS written), then ``arc-submission``'s
    submission from the votes, covering every task of the problems."""
    from nemo_code_rl.arc import cli as arc_cli
    from nemo_code_rl.arc.data import load_arc_tasks
    from nemo_code_rl.arc.scoring import format_arc_summary, summarize_arc

    output = run.output / RESULTS
    status = arc_cli.score_rows_if_arc(
        problem_set.source,
        str(run.output / COMPLETIONS),
        str(output),
        workers=run.workers,
        isolation=run.isolation,
        backend=run.backend,
        quiet=run.quiet,
    )
    summary = summarize_arc(_read_rows(output), load_arc_tasks(problem_set.source))
    (run.output / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (run.output / "summary.md").write_text(format_arc_summary(summary) + "\n", encoding="utf-8")
    submission = argparse.Namespace(
        results=str(output),
        output=str(run.output / "submission.json"),
        validate=problem_set.source,
        force=True,
    )
    return arc_cli.run_submission(submission) or status or 0


def _read_rows(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
