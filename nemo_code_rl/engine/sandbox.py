"""OS isolation for untrusted programs, set up in three places.

* ``isolate_worker`` runs once in each fresh worker process: private mount, network, IPC and UTS
  namespaces (no network device but a downed loopback), home directories hidden behind empty
  tmpfs with the Python installation bound back in, and the whole tree read-only.
* ``prepare_init`` runs once in the worker's PID-namespace init: a private ``/proc``, an empty
  capability bounding set and locked securebits, which every forked program inherits.
* ``rlimits`` (computed in the fork server) and ``drop_privileges`` apply in each forked
  program: rlimits, then an unprivileged identity with no capabilities.

The ``container`` level is for a worker that is the init of a locked-down container (see
``docker_pool``): the container gives the namespaces, read-only root, tmpfs and limits; inside,
the worker keeps only the capabilities it needs to change uid and to kill, and each program runs
as an unprivileged uid that keeps none.

Isolation comes from the kernel, never from hiding Python names.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import site
import sys
import tempfile
from dataclasses import asdict, dataclass, field

from nemo_code_rl.engine import syscalls
from nemo_code_rl.engine.limits import Limits

FULL = "full"  # namespaces, and a cgroup bounding the sum of each program's processes
NAMESPACES = "namespaces"  # namespaces without that cgroup: asked for where cgroups cannot be made
NONE = "none"
CONTAINER = "container"
LEVELS = (FULL, NAMESPACES, NONE, CONTAINER)
USER_LEVELS = (FULL, NAMESPACES, NONE)  # what callers choose; ``container`` is the Docker pool's own
NAMESPACED = (FULL, NAMESPACES)  # levels where the worker makes its own namespaces
SUPERVISED = (FULL, NAMESPACES, CONTAINER)  # levels where the template is the init of the programs
DEFAULT_HIDDEN_PATHS = ("/root", "/home")
WORKDIR = "/tmp"
_SHM = "/dev/shm"


class IsolationUnavailable(RuntimeError):
    """The host does not permit the configured isolation level."""


@dataclass(frozen=True)
class SandboxConfig:
    """How a worker isolates the programs it runs; travels to the worker as JSON."""

    level: str = FULL
    uid: int = 60000
    hidden_paths: tuple[str, ...] = DEFAULT_HIDDEN_PATHS
    exposed_paths: tuple[str, ...] = ()
    userns: bool = field(default_factory=lambda: os.geteuid() != 0)

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"isolation must be one of {LEVELS}, got {self.level!r}")

    def to_json_dict(self) -> dict:
        return asdict(self)


def python_runtime_paths() -> tuple[str, ...]:
    """Folders the sandboxed interpreter must still read: its prefixes, site-packages and this package.

    Nothing else of the caller's ``sys.path`` (its script folder, its project) is made visible.
    """
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages()}
    candidates.add(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    real = sorted({os.path.realpath(p) for p in candidates if os.path.isdir(p)})
    return tuple(p for p in real if not any(p != q and p.startswith(q + os.sep) for q in real))


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _enter_user_namespace() -> None:
    uid, gid = os.geteuid(), os.getegid()
    syscalls.unshare(syscalls.CLONE_NEWUSER)
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"0 {uid} 1")
    _write("/proc/self/gid_map", f"0 {gid} 1")


def _hide_paths(hidden: tuple[str, ...], exposed: tuple[str, ...]) -> None:
    """Cover each hidden folder with an empty tmpfs, binding back the exposed folders inside it.

    The exposed folders are first bound to a staging tmpfs, because once their parent is covered
    they can no longer be reached by path.
    """
    covered = _outermost([h for h in hidden if os.path.isdir(h)] + _untraversable_ancestors(exposed))
    if not covered:
        return
    base = _staging_point(covered + list(exposed))
    stage = os.path.join(base, ".nemo-code-rl-stage")
    syscalls.mount("tmpfs", base, "tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, "mode=0755,size=1m")
    os.mkdir(stage)
    staged: list[tuple[str, str]] = []
    for index, path in enumerate(exposed):
        if any(path == h or path.startswith(h.rstrip("/") + "/") for h in covered):
            slot = os.path.join(stage, str(index))
            os.mkdir(slot)
            syscalls.mount(path, slot, None, syscalls.MS_BIND | syscalls.MS_REC)
            staged.append((slot, path))
    for path in covered:
        syscalls.mount("tmpfs", path, "tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, "mode=0755,size=1m")
    for slot, path in staged:
        os.makedirs(path, mode=0o755, exist_ok=True)
        syscalls.mount(slot, path, None, syscalls.MS_BIND | syscalls.MS_REC)
        syscalls.umount(slot)
    syscalls.umount(base)


def _staging_point(keep: list[str]) -> str:
    """A folder to mount a scratch tmpfs on without covering anything in ``keep``."""
    for candidate in ("/mnt", "/media", "/srv", "/opt", "/var/tmp", "/tmp", "/run"):
        inside = [
            p
            for p in keep
            if p == candidate or p.startswith(candidate + "/") or candidate.startswith(p + "/")
        ]
        if os.path.isdir(candidate) and not inside:
            return candidate
    raise OSError(f"no folder to stage bind mounts in: every candidate holds one of {keep}")


def _untraversable_ancestors(paths: tuple[str, ...]) -> list[str]:
    """Folders above ``paths`` that other users cannot enter (a 0700 home, a private CI folder).

    Hiding them and binding ``paths`` back is what lets the sandbox user reach the interpreter.
    """
    found = []
    for path in paths:
        parent = os.path.dirname(path)
        while parent not in ("/", ""):
            if not os.stat(parent).st_mode & 0o001:
                found.append(parent)
            parent = os.path.dirname(parent)
    return found


def _outermost(paths: list[str]) -> list[str]:
    unique = sorted(set(paths), key=len)
    return [p for i, p in enumerate(unique) if not any(p.startswith(q.rstrip("/") + "/") for q in unique[:i])]


def _remount_each_read_only() -> None:
    """Fallback for kernels without mount_setattr: remount every mount point read-only."""
    with open("/proc/self/mountinfo") as handle:
        points = [line.split()[4] for line in handle]
    for point in sorted(set(points), key=len):
        with open("/proc/self/mountinfo") as handle:
            options = next((ln.split()[5] for ln in handle if ln.split()[4] == point), "")
        flags = syscalls.MS_REMOUNT | syscalls.MS_BIND | syscalls.MS_RDONLY | syscalls.MS_NOSUID
        flags |= syscalls.MS_NODEV if "nodev" in options.split(",") else 0
        flags |= syscalls.MS_NOEXEC if "noexec" in options.split(",") else 0
        syscalls.mount(None, point, None, flags)


def isolate_worker(config: SandboxConfig) -> dict:
    """Set up what all of a worker's executions share; return what was obtained.

    Raises IsolationUnavailable naming the refused step when the full level was asked for.
    """
    if config.level == NONE:
        return {"level": NONE, "identity": f"uid {os.geteuid()} (unchanged)", "namespaces": []}
    if config.level == CONTAINER:
        if os.getpid() != 1 or os.geteuid() != 0:
            raise IsolationUnavailable(
                "the 'container' level runs only as root and PID 1 of a container (DockerExecutionPool)"
            )
        return {"level": CONTAINER, "identity": f"uid {config.uid}", "namespaces": ["container"]}
    step = "user namespace"
    try:
        if config.userns:
            _enter_user_namespace()
        step = "mount/network/IPC/UTS namespaces"
        syscalls.unshare(
            syscalls.CLONE_NEWNS | syscalls.CLONE_NEWNET | syscalls.CLONE_NEWIPC | syscalls.CLONE_NEWUTS
        )
        step = "private mount propagation"
        syscalls.mount(None, "/", None, syscalls.MS_REC | syscalls.MS_PRIVATE)
        step = "hiding home directories"
        _hide_paths(config.hidden_paths, config.exposed_paths)
        step = "read-only root"
        try:
            syscalls.make_tree_read_only("/")
        except OSError:
            _remount_each_read_only()
        step = "PID namespace"
        syscalls.unshare(syscalls.CLONE_NEWPID)
    except OSError as exc:
        raise IsolationUnavailable(f"isolation set-up failed at '{step}': {exc}") from exc
    identity = "user namespace, all capabilities dropped" if config.userns else f"uid {config.uid}"
    return {
        "level": config.level,
        "identity": identity,
        "namespaces": ["user"] * config.userns + ["mount", "network", "ipc", "uts", "pid"],
        "hidden_paths": [p for p in config.hidden_paths if os.path.isdir(p)],
    }


def prepare_init(config: SandboxConfig) -> None:
    """In the PID-namespace init: a /proc that shows only this namespace, and no way back to privilege.

    The init keeps its own effective capabilities (it mounts and kills), but ``no_new_privs``, an
    empty bounding set and locked securebits, all inherited, mean no descendant can regain a
    capability by exec or by becoming uid 0.
    """
    syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1)
    if config.level not in SUPERVISED:
        return
    if config.level in NAMESPACED:  # a container already has the /proc of its own PID namespace
        flags = syscalls.MS_NOSUID | syscalls.MS_NODEV | syscalls.MS_NOEXEC
        syscalls.mount("proc", "/proc", "proc", flags)
    for cap in range(syscalls.LAST_CAPABILITY + 1):
        syscalls.prctl(syscalls.PR_CAPBSET_DROP, cap)
    syscalls.prctl(
        syscalls.PR_SET_SECUREBITS,
        syscalls.SECBIT_NOROOT
        | syscalls.SECBIT_NOROOT_LOCKED
        | syscalls.SECBIT_NO_SETUID_FIXUP_LOCKED
        | syscalls.SECBIT_KEEP_CAPS_LOCKED
        | syscalls.SECBIT_NO_CAP_AMBIENT_RAISE
        | syscalls.SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
    )


class Workdir:
    """The private /tmp (and /dev/shm) of executions: one tmpfs per worker, emptied after each.

    Only one execution runs in a worker at a time, and every process of the previous one is dead
    before the next starts, so an emptied tmpfs is as private as a new one, and cheaper. In a
    container the tmpfs is the container's own (sized when it was created; RLIMIT_FSIZE still
    bounds each file), handed to the sandbox uid once.
    """

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.size = 0

    def open(self, limits: Limits) -> str:
        if self.config.level == NONE:
            return tempfile.mkdtemp(prefix="nemo-code-rl-")
        if self.config.level == CONTAINER:
            if not self.size:
                os.chown(WORKDIR, self.config.uid, self.config.uid)
                os.chmod(WORKDIR, 0o700)
                os.chdir(WORKDIR)
                self.size = limits.file_bytes
            return WORKDIR
        if self.size != limits.file_bytes:
            owner = 0 if self.config.userns else self.config.uid
            options = f"mode=0700,uid={owner},gid={owner},size={limits.file_bytes}"
            flags = syscalls.MS_NOSUID | syscalls.MS_NODEV | (syscalls.MS_REMOUNT if self.size else 0)
            for path in self._paths():
                syscalls.mount("tmpfs", path, "tmpfs", flags, options)
            self.size = limits.file_bytes
            os.chdir(WORKDIR)  # every child starts there, in the new tmpfs
        return WORKDIR

    def close(self, path: str) -> None:
        if self.config.level == NONE:
            shutil.rmtree(path, ignore_errors=True)
            return
        for folder in self._paths():
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    else:
                        os.unlink(entry.path)

    @staticmethod
    def _paths() -> list[str]:
        return [WORKDIR] + [_SHM] * os.path.isdir(_SHM)


@functools.lru_cache(maxsize=64)
def rlimits(limits: Limits, cpu_budget_s: int) -> list[tuple[int, tuple[int, int]]]:
    """The rlimits of a program's child, computed once in the fork server (within its hard limits).

    The per-input CPU soft limit is then moved by the runner; ``RLIMIT_CORE`` is 0 already, set
    by the fork server for itself and inherited.
    """
    wanted = (
        (resource.RLIMIT_AS, limits.memory_bytes),
        (resource.RLIMIT_FSIZE, limits.file_bytes),
        (resource.RLIMIT_NPROC, limits.processes),
        (resource.RLIMIT_STACK, limits.memory_bytes),
        (resource.RLIMIT_CPU, int(cpu_budget_s) + 1),
    )
    result = []
    for kind, value in wanted:
        _, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        result.append((kind, (value, value if kind != resource.RLIMIT_STACK else hard)))
    return result


def drop_privileges(config: SandboxConfig) -> None:
    """Become unprivileged for good (``no_new_privs`` is inherited from the init).

    As root, switching every uid to the sandbox user clears all capabilities (the init locked
    the securebits that would keep them). In a user namespace the uid stays 0 there, so the
    capabilities are cleared explicitly.
    """
    if config.level not in SUPERVISED:
        return
    if config.userns:
        syscalls.clear_capabilities()
        return
    os.setgroups([])
    os.setresgid(config.uid, config.uid, config.uid)
    os.setresuid(config.uid, config.uid, config.uid)
    syscalls.prctl(syscalls.PR_SET_DUMPABLE, 1)
