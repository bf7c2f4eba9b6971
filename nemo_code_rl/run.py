"""``python -m nemo_code_rl.run``: train with NeMo RL's GRPO on our environments, or check a config.

    python -m nemo_code_rl.run --config grpo_code_8gpu.yaml [key=value ...]            # train
    python -m nemo_code_rl.run --config grpo_code_8gpu.yaml --dry-run [key=value ...]  # check only
    python -m nemo_code_rl.run --script RL/examples/run_grpo.py --config grpo_code_2gpu.yaml  # theirs
    python -m nemo_code_rl.run --config ... --policy-factory my.module:MyPolicy   # NeMo RL's setup hook

A bare config name is one of the shipped configs (``configs/``); a path works too. The config is
loaded with NeMo RL's semantics (``nemo_code_rl.config_loading``). Training registers our
components with NeMo RL, then runs what NeMo RL's ``examples/run_grpo.py`` runs; ``--script``
registers them and then runs that script itself, unchanged, with the same arguments.

Exit status: 0 success; 1 the config is invalid (or the dry run found errors); 2 usage error;
3 NeMo RL is not usable in this Python environment.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import runpy
import sys
from pathlib import Path
from typing import Any

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.config_loading import load_resolved, packaged_configs

EXIT_INVALID_CONFIG = 1
EXIT_USAGE = 2
EXIT_NO_NEMO_RL = 3
PROG = "python -m nemo_code_rl.run"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="GRPO training on code with NeMo RL, using nemo_code_rl's environments and data.",
        epilog="Overrides use Hydra's syntax: a.b=1 changes a key, +a.b=1 adds one, ++a.b=1 adds or changes, "
        f"~a.b deletes. Shipped configs: {', '.join(packaged_configs())}.",
    )
    parser.add_argument(
        "--config",
        default="grpo_code_2gpu.yaml",
        help="a shipped config name or a YAML path (default: %(default)s)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="check the config, a few data rows, the processor and the environment, and print the plan; "
        "needs neither NeMo RL nor a GPU",
    )
    parser.add_argument(
        "--rows", type=int, default=5, help="data rows per dataset for --dry-run (default: %(default)s)"
    )
    parser.add_argument(
        "--script",
        type=Path,
        help="run this NeMo RL launcher (e.g. RL/examples/run_grpo.py) unchanged, after registering "
        "our components",
    )
    parser.add_argument(
        "--policy-factory",
        metavar="MODULE:NAME",
        help="build the policy with this callable instead of NeMo RL's Policy (NeMo RL's setup() hook "
        "policy_factory, called with Policy's arguments)",
    )
    parser.add_argument("overrides", nargs="*", help="config overrides, key=value")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_intermixed_args(sys.argv[1:] if argv is None else argv)
    if args.rows < 1:
        parser.error("--rows must be at least 1")
    if args.dry_run and args.script:
        parser.error("--dry-run checks our own launch; leave out --script")
    if args.policy_factory and (args.dry_run or args.script):
        parser.error("--policy-factory applies to our own launch only; leave out --dry-run and --script")
    if args.script and not args.script.is_file():
        parser.error(f"--script {args.script}: no such file")
    try:
        path, config = load_resolved(args.config, args.overrides)
        if args.dry_run:
            from nemo_code_rl.dry_run import DryRun

            return DryRun(path, args.overrides, config, args.rows, sys.stdout).run()
        problem = nemo_rl_problem()
        if problem is not None:
            sys.stderr.write(install_message(problem, args.config) + "\n")
            return EXIT_NO_NEMO_RL
        _check_before_training(config)
        if args.script:
            return _run_script(args.script, path, args.overrides, config["logger"]["log_dir"])
        from nemo_code_rl.nemo_rl_glue import train

        train(config, policy_factory=_import_callable(args.policy_factory) if args.policy_factory else None)
    except ConfigError as error:
        sys.stderr.write(f"{PROG}: invalid config: {error}\n")
        return EXIT_INVALID_CONFIG
    return 0


def nemo_rl_problem() -> str | None:
    """Why NeMo RL's GRPO cannot run in this Python environment, or ``None`` when it can."""
    if importlib.util.find_spec("nemo_rl") is None:
        return f"NeMo RL is not installed in this Python environment ({sys.executable})"
    try:
        importlib.import_module("nemo_rl.algorithms.grpo")
    except Exception as error:  # noqa: BLE001 - any failure to import is reported, with its cause
        return (
            f"NeMo RL is installed, but its GRPO module does not import with {sys.executable} "
            f"(Python {sys.version.split()[0]}): {type(error).__name__}: {error}"
        )
    return None


def install_message(problem: str, config: str) -> str:
    """One paragraph: what is missing and how to get a working setup."""
    return (
        f"{PROG}: {problem}. Training runs inside NeMo RL, which is not on PyPI: clone "
        "https://github.com/NVIDIA-NeMo/RL, create its environment there as its README says (uv venv; "
        "it needs Python 3.13 and a GPU machine), install this package into that environment with "
        "`uv pip install -e /path/to/nemo-code-rl`, and start training from the NeMo RL checkout with "
        f"`uv run python -m nemo_code_rl.run --config {config}`. To check the config here without NeMo RL "
        "or GPUs, add --dry-run."
    )


def _check_before_training(config: dict) -> None:
    """The dry run's config checks and a sandbox probe, so that no GPU time goes to a run they reject."""
    from nemo_code_rl.dry_run import check_config, nemo_rl_names
    from nemo_code_rl.sandbox_probe import sandbox_problems

    try:
        names, reason = nemo_rl_names()
    except ValueError as error:
        raise ConfigError(str(error)) from error
    if names is None:
        raise ConfigError(f"cannot check the config's names against NeMo RL's registries: {reason}")
    errors = [str(f) for f in check_config(config, names) if f.level == "error"]
    if errors:
        raise ConfigError("\n  ".join(["the config does not pass the dry run's checks:", *errors]))
    if problems := sandbox_problems(config):
        raise ConfigError("\n  ".join(["the sandbox cannot run here:", *problems]))


def _import_callable(reference: str) -> Any:
    """``module:name`` imported; a reference that does not resolve is a config error naming it."""
    module_name, _, name = reference.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), name) if name else None
    except (ImportError, AttributeError) as error:
        raise ConfigError(f"--policy-factory {reference}: {error}") from error
    if not callable(found):
        raise ConfigError(f"--policy-factory {reference}: expected MODULE:NAME naming a callable")
    return found


def _run_script(script: Path, config_path: Path, overrides: list[str], log_dir: str) -> int:
    """Register our components, copy the package where NeMo RL's actors find it (``export_package_to_actors``
    into ``log_dir``), then run a NeMo RL launcher as ``python script --config ... overrides``."""
    from nemo_code_rl.registration import register

    register()
    from nemo_code_rl.nemo_rl_glue import EXPORT_FOLDER, export_package_to_actors

    export_package_to_actors(Path(log_dir) / EXPORT_FOLDER)
    sys.argv = [str(script), "--config", str(config_path), *overrides]
    runpy.run_path(str(script), run_name="__main__")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
