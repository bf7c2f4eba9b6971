"""Before training starts: one real isolated execution for each isolation level the config asks for.

A node that cannot isolate (inside an enroot/pyxis or Docker container, unprivileged user
namespaces or ``unshare`` are often refused) would otherwise fail at the first environment step,
after vLLM and the policy have loaded. The probe starts a one-worker backend as configured
(``backend`` and ``isolation``) and runs one program; when the sandbox refuses, the message names
the kernel feature the node lacks and the setting that works without it. The environment actors
may land on other nodes of the Ray cluster; those run the same container image, so the launching
node stands in for them (and for the ``ray`` backend's engine actors, whose pools are worker processes there).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nemo_code_rl.engine import Program, Verdict
from nemo_code_rl.engine.backend import BackendConfig, backend_config, make_backend
from nemo_code_rl.engine.sandbox import FULL, NAMESPACES, IsolationUnavailable
from nemo_code_rl.families import family_named

# The set-up step the sandbox names when it fails (``sandbox.isolate_worker``), and what it needs.
_FEATURES = {
    "user namespace": "unprivileged user namespaces (sysctl user.max_user_namespaces > 0; "
    "containers started without them refuse nested ones)",
    "mount/network/IPC/UTS namespaces": "new mount, network, IPC and UTS namespaces (the unshare "
    "system call, which container seccomp profiles such as Docker's default deny)",
    "private mount propagation": "mounts inside a mount namespace (denied by the container's "
    "seccomp or AppArmor profile)",
    "hiding home directories": "bind mounts inside a mount namespace (denied by the container's "
    "seccomp or AppArmor profile)",
    "read-only root": "read-only remounts inside a mount namespace (denied by the container's "
    "seccomp or AppArmor profile)",
    "PID namespace": "PID namespaces (the unshare system call with CLONE_NEWPID)",
}
_PROBE = Program("print(6 * 7)", [""])


def sandbox_problems(config: Mapping[str, Any]) -> list[str]:
    """Why the sandbox cannot run each of our environments the config uses here; empty when it can."""
    from nemo_code_rl.dry_run import dataset_entries

    by_setting: dict[tuple[str, str, str | None], tuple[BackendConfig, list[str]]] = {}
    env_sections = config.get("env") or {}
    for _, entry in dataset_entries(config):
        name = entry.get("env_name") if isinstance(entry, Mapping) else None
        section = env_sections.get(name)
        if not isinstance(name, str) or family_named(name) is None or not isinstance(section, Mapping):
            continue
        level = str(section.get("isolation") or FULL)
        backend = backend_config(section.get("backend"), f"env.{name}.backend")
        _, names = by_setting.setdefault((level, backend.kind, backend.image), (backend, []))
        if name not in names:
            names.append(name)
    return [
        problem
        for (level, _, _), (backend, names) in by_setting.items()
        if (problem := environments_problem(level, names, backend))
    ]


def environments_problem(level: str, names: list[str], backend: BackendConfig | None = None) -> str | None:
    """``probe(level, backend)`` for the environments ``names``, with the setting that works without
    isolation (Docker's containers have no isolation setting: their problem is told as it is)."""
    problem = probe(level, backend)
    if problem is None or (backend is not None and backend.kind == "docker"):
        return problem
    if level == FULL and probe(NAMESPACES) is None:
        settings = ", ".join(f"env.{name}.isolation=namespaces" for name in names)
        return (
            f"{problem}. Namespaces work here: set {settings} (the same sandbox without the cgroup "
            "that bounds the sum of a program's processes; each process keeps its memory limit)"
        )
    settings = ", ".join(f"env.{name}.isolation=none" for name in names)
    return (
        f"{problem}. Run where the kernel allows it, or lower the sandbox with {settings} "
        "(programs then run with resource limits only, unisolated)"
    )


def probe(isolation: str, backend: BackendConfig | None = None) -> str | None:
    """Run one program at ``isolation`` (in a container with the ``docker`` backend, else in a
    worker process); ``None`` when it ran, else what the node lacks."""
    docker = backend is not None and backend.kind == "docker"
    setting = "backend: docker" if docker else f"isolation: {isolation}"
    where = f"on this node ({setting})"
    try:
        with make_backend(backend if docker else None, workers=1, isolation=isolation) as pool:
            result = pool.run(_PROBE)[0]
    except IsolationUnavailable as error:
        step = str(error).partition("failed at '")[2].partition("'")[0]
        feature = _FEATURES.get(step, "a kernel feature the sandbox needs")
        return f"the sandbox cannot isolate programs {where}: it lacks {feature} ({error})"
    except (OSError, RuntimeError) as error:
        return f"the sandbox did not start {where}: {type(error).__name__}: {error}"
    if result.verdict is not Verdict.OK or result.stdout != "42\n":
        return (
            f"a probe program in the sandbox ({setting}) ended {result.verdict.value} "
            f"instead of printing 42: {result.error or result.stderr}"
        )
    return None
