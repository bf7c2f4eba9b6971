"""One cgroup per worker, holding only the program it runs: limits on the sum of its processes.

``RLIMIT_AS`` bounds each process, so a program with four children could use five times its
memory limit, and on a training node the kernel's OOM killer would then pick the trainer. Each
child joins its worker's cgroup before it becomes unprivileged, so the program and everything it
starts share one memory limit and one process count, and an out-of-memory kill stays inside.

Both hierarchies are supported: cgroup v2 (the unified tree, ``memory.max``, ``pids.max``,
``memory.events``) and v1 (the ``memory`` and ``pids`` controllers' own trees). The pool, on the
host, creates and removes the cgroups; a worker opens them before it leaves the host's
filesystem, and each child receives only write access to ``cgroup.procs``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from nemo_code_rl.engine.mounts import mount_table

_CONTROLLERS = ("memory", "pids")
PREFIX = "nemo-code-rl-"  # then the owning pool's pid and a number
_REMOVE_WAIT_S = 2.0


class CgroupsUnavailable(RuntimeError):
    """This process cannot create cgroups with the memory and pids controllers."""


def _own_cgroups() -> dict[str, str]:
    """Our cgroup path per hierarchy: controller name (``""`` for v2) -> path."""
    paths = {}
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                paths[name] = path
    return paths


def _mounts() -> dict[str, str]:
    """Mount points of cgroup hierarchies: controller name (``""`` for v2) -> folder."""
    found: dict[str, str] = {}
    for mount in mount_table():
        if mount.fstype == "cgroup2":
            found.setdefault("", mount.point)
        elif mount.fstype == "cgroup":
            for name in _CONTROLLERS:
                if name in mount.super_options:
                    found.setdefault(name, mount.point)
    return found


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


@dataclass(frozen=True)
class ProgramCgroup:
    """The cgroup (one folder per hierarchy) of one worker's programs."""

    version: int
    folders: dict[str, str]  # controller -> folder; v2 has one folder for both

    @classmethod
    def create(cls, name: str) -> ProgramCgroup:
        """Create the cgroup below this process's own; raise ``CgroupsUnavailable`` saying why."""
        own, mounts = _own_cgroups(), _mounts()
        try:
            if all(c in mounts and c in own for c in _CONTROLLERS):
                folders = {c: os.path.join(mounts[c], own[c].lstrip("/"), name) for c in _CONTROLLERS}
                for folder in set(folders.values()):
                    _remove_orphans(os.path.dirname(folder))
                    os.mkdir(folder, 0o700)
                return cls(1, folders)
            if "" in mounts and "" in own:
                parent = os.path.join(mounts[""], own[""].lstrip("/"))
                available = _read(os.path.join(parent, "cgroup.controllers")).split()
                missing = [c for c in _CONTROLLERS if c not in available]
                if missing:
                    raise CgroupsUnavailable(f"the controllers {missing} are not delegated to {parent}")
                enabled = _read(os.path.join(parent, "cgroup.subtree_control")).split()
                if any(c not in enabled for c in _CONTROLLERS):
                    _write(
                        os.path.join(parent, "cgroup.subtree_control"),
                        " ".join(f"+{c}" for c in _CONTROLLERS),
                    )
                folder = os.path.join(parent, name)
                _remove_orphans(parent)
                os.mkdir(folder, 0o700)
                return cls(2, dict.fromkeys(_CONTROLLERS, folder))
        except OSError as exc:
            raise CgroupsUnavailable(f"cannot create a cgroup for the sandbox: {exc}") from exc
        raise CgroupsUnavailable("no cgroup hierarchy with the memory and pids controllers is mounted")

    def remove(self) -> None:
        """Remove the folders once every process inside has gone (they die with their worker)."""
        deadline = time.monotonic() + _REMOVE_WAIT_S
        for folder in sorted(set(self.folders.values())):
            while True:
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.02)

    def to_json_dict(self) -> dict:
        return {"version": self.version, "folders": self.folders}


def _remove_orphans(parent: str) -> None:
    """Remove the empty cgroups of pools whose process has died without closing them (a killed
    Ray actor, say): their names carry the owner's pid."""
    for entry in os.listdir(parent):
        if not entry.startswith(PREFIX):
            continue
        owner = entry[len(PREFIX) :].split("-", 1)[0]
        if owner.isdecimal() and not os.path.exists(f"/proc/{owner}"):
            try:  # noqa: SIM105 - engine code keeps to try/except
                os.rmdir(os.path.join(parent, entry))
            except OSError:
                pass  # processes still inside, or another pool removed it first


class CgroupHandle:
    """A worker's hold on its program cgroup, through folder descriptors opened while the host's
    filesystem was still visible (the sandbox's own root has no cgroup tree)."""

    def __init__(self, spec: dict) -> None:
        self.version = spec["version"]
        folders = spec["folders"]
        self._dirs = {c: os.open(folders[c], os.O_RDONLY | os.O_DIRECTORY) for c in _CONTROLLERS}
        self._limits: tuple[int, int] | None = None

    def _write(self, controller: str, name: str, text: str) -> None:
        fd = os.open(name, os.O_WRONLY, dir_fd=self._dirs[controller])
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)

    def set_limits(self, memory_bytes: int, processes: int) -> None:
        """Bound the sum of the memory and the number of processes of the program inside."""
        if self._limits == (memory_bytes, processes):
            return
        if self.version == 2:
            self._write("memory", "memory.max", str(memory_bytes))
            if _exists_at(self._dirs["memory"], "memory.swap.max"):
                self._write("memory", "memory.swap.max", "0")
        else:
            names = ["memory.limit_in_bytes"]
            if _exists_at(self._dirs["memory"], "memory.memsw.limit_in_bytes"):
                names.append("memory.memsw.limit_in_bytes")
            try:  # memory+swap may never be below memory alone: which goes first depends on the direction
                for name in names:
                    self._write("memory", name, str(memory_bytes))
            except OSError:
                for name in reversed(names):
                    self._write("memory", name, str(memory_bytes))
        self._write("pids", "pids.max", str(processes))
        self._limits = (memory_bytes, processes)

    def open_procs(self) -> list[int]:
        """Write-only descriptors of ``cgroup.procs``, one per hierarchy: a child joins by writing 0."""
        controllers = ["memory"] if self.version == 2 else list(_CONTROLLERS)
        return [os.open("cgroup.procs", os.O_WRONLY, dir_fd=self._dirs[c]) for c in controllers]

    def oom_kills(self) -> int:
        """How many processes the kernel has killed in the cgroup for lack of memory, so far."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        fd = os.open(name, os.O_RDONLY, dir_fd=self._dirs["memory"])
        try:
            text = os.read(fd, 4096).decode()
        finally:
            os.close(fd)
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0


def _exists_at(dir_fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return False
    return True


def join(procs_fds: list[int]) -> None:
    """In a freshly forked child, before it drops privileges: enter the program cgroup."""
    for fd in procs_fds:
        os.write(fd, b"0")
        os.close(fd)
