"""Entry point of a worker process, started fresh (never forked) by an ``ExecutionPool``.

The worker sets up the namespaces all its executions share, then forks the fork server, which
becomes PID 1 of a new PID namespace. The worker itself only waits: it lets go of the pool's
pipes so that the pool sees end-of-file the moment the fork server dies. In a container the
worker is PID 1 already, so it becomes the fork server itself.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import traceback

from nemo_code_rl.engine import forkserver, sandbox, syscalls, wire


def _preload(modules: list[str]) -> tuple[list[str], list[str]]:
    loaded, missing = [], []
    for name in modules:
        try:
            importlib.import_module(name)
            loaded.append(name)
        except Exception:  # noqa: BLE001 - an optional module that fails to import is only reported
            missing.append(name)
    return loaded, missing


def _fork_server(config: sandbox.SandboxConfig, report: dict, preload: list[str]) -> int:
    try:
        syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)
        sandbox.prepare_init(config)
    except OSError as exc:
        wire.write_frame(1, {"ok": False, "error": f"the host refused a private /proc: {exc}"})
        return 1
    loaded, missing = _preload(preload)
    try:
        forkserver.serve(config, {"ok": True, **report, "preloaded": loaded, "not_importable": missing})
    except Exception:  # noqa: BLE001 - the pool replaces a failed worker; leave a trace for its log
        traceback.print_exc()
        return 1
    return 0


def main() -> int:
    settings = json.loads(sys.argv[1])
    config = sandbox.SandboxConfig(
        **{k: tuple(v) if isinstance(v, list) else v for k, v in settings["sandbox"].items()}
    )
    try:
        report = sandbox.isolate_worker(config)
    except sandbox.IsolationUnavailable as exc:
        wire.write_frame(1, {"ok": False, "level": config.level, "error": str(exc)})
        return 1
    if config.level == sandbox.CONTAINER:
        return _fork_server(config, report, settings["preload"])
    pid = os.fork()
    if pid == 0:
        os._exit(_fork_server(config, report, settings["preload"]))
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) & 0xFF


if __name__ == "__main__":
    raise SystemExit(main())
