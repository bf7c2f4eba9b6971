"""Entry point of a worker process, started fresh (never forked) by an ``ExecutionPool``.

The worker sets up the namespaces all its executions share, forks its template (the init of a
new PID namespace, or a child subreaper in a container) before reading any job, and then becomes
the supervisor that answers the pool on its pipes (see ``supervisor`` and ``template``).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from nemo_code_rl.engine import cgroups, sandbox, supervisor, template, wire


def main() -> int:
    settings = json.loads(sys.argv[1])
    fields: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in settings["sandbox"].items()
    }
    config = sandbox.SandboxConfig(**fields)
    try:  # the cgroup tree is opened now: the sandbox's own root does not show it
        cgroup = cgroups.CgroupHandle(settings["cgroup"]) if settings.get("cgroup") else None
    except OSError as exc:
        wire.write_frame(
            1, {"ok": False, "level": config.level, "error": f"cannot open the program cgroup: {exc}"}
        )
        return 1
    supervisor.open_host_proc()
    try:  # opened now, like the cgroup tree: the minimal root does not show it
        folder = settings.get("binaries")
        binaries = os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC) if folder else None
    except OSError as exc:
        wire.write_frame(
            1, {"ok": False, "level": config.level, "error": f"cannot open the binaries folder: {exc}"}
        )
        return 1
    try:
        report = sandbox.isolate_worker(config)
    except sandbox.IsolationUnavailable as exc:
        wire.write_frame(1, {"ok": False, "level": config.level, "error": str(exc)})
        return 1
    handle = template.start(config, settings["preload"])
    try:
        loaded = handle.ready()
    except (RuntimeError, ValueError) as exc:
        wire.write_frame(1, {"ok": False, "level": config.level, "error": f"{exc} (see its stderr)"})
        return 1
    if cgroup is not None:
        report["cgroup"] = f"v{cgroup.version}: memory and process count of each program's processes together"
    handshake = {"ok": True, **report, **loaded}
    supervisor.serve(config, handle, cgroup, handshake, binaries, settings["quiet_chains"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
