"""``python -m nemo_code_rl.gym_server``: serve the standalone app with uvicorn.

``--config`` takes the same YAML that Gym takes (the three-level layout of
``configs/nemo_code_rl_code_gen.yaml``, or a server's own node); without it, that shipped file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import uvicorn
from pydantic import ValidationError

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.gym_server.app import create_app
from nemo_code_rl.gym_server.models import ServerOptions, config_error_line

DEFAULT_CONFIG = Path(__file__).parent / "configs" / "nemo_code_rl_code_gen.yaml"
# On SIGTERM, requests still open after this long are cancelled: their programs are stopped while
# they run (mid-test), and the sandbox workers are stopped.
GRACEFUL_SHUTDOWN_S = 5


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m nemo_code_rl.gym_server", description=__doc__)
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="Gym config YAML")
    parser.add_argument("--name", help="the resources server to take, when the config has several")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)
    try:
        import yaml
    except ImportError as error:
        raise SystemExit("reading --config needs PyYAML: pip install pyyaml") from error
    try:
        options = ServerOptions.from_gym_config(yaml.safe_load(args.config.read_text()) or {}, args.name)
    except (OSError, yaml.YAMLError, ConfigError, ValidationError) as error:
        parser.exit(2, f"{parser.prog}: error: --config {args.config}: {config_error_line(error)}\n")
    uvicorn.run(
        create_app(options),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )


if __name__ == "__main__":
    main()
