"""OS isolation for untrusted programs, set up in three places.

* ``isolate_worker`` runs once in each fresh worker process: private mount, network, IPC and UTS
  namespaces (no network device but a downed loopback) and a minimal root: a new, read-only
  root holding only what a program needs (``RootPlan``), entered with ``pivot_root``.
* ``prepare_init`` runs once in the worker's PID-namespace init: a private ``/proc``, an empty
  capability bounding set and locked securebits, which every forked program inherits.
* ``rlimits`` (computed in the supervisor) and ``drop_privileges`` apply in each forked
  program: rlimits, then an unprivileged identity with no capabilities.

The ``container`` level is for a worker that is the init of a locked-down container (see
``docker_pool``): the container gives the namespaces, read-only root, tmpfs and limits; inside,
the worker keeps only the capabilities it needs to change uid and to kill, and each program runs
as an unprivileged uid that keeps none.

Isolation comes from the kernel, never from hiding Python names.
"""

from __future__ import annotations

import errno
import functools
import os
import resource
import site
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from nemo_code_rl.engine import syscalls
from nemo_code_rl.engine.limits import Limits
from nemo_code_rl.engine.mounts import mount_table

FULL = "full"  # namespaces, and a cgroup bounding the sum of each program's processes
NAMESPACES = "namespaces"  # namespaces without that cgroup: asked for where cgroups cannot be made
NONE = "none"
CONTAINER = "container"
LEVELS = (FULL, NAMESPACES, NONE, CONTAINER)
USER_LEVELS = (FULL, NAMESPACES, NONE)  # what callers choose; ``container`` is the Docker pool's own
NAMESPACED = (FULL, NAMESPACES)  # levels where the worker makes its own namespaces
SUPERVISED = (FULL, NAMESPACES, CONTAINER)  # levels where the template is the init of the programs
WORKDIR = "/tmp"
_EMPTYING_TIMEOUT_S = 10.0
_PRIVATE = (WORKDIR, "/dev/shm")  # the writable folders: a tmpfs each, as new for every program (``Workdir``)

# What the minimal root shows of the host besides the Python installation (see ``RootPlan``):
# the system's programs and shared libraries, and the few /etc files the dynamic loader and the
# C library read. Debian's /lib, /bin, /sbin are symlinks into /usr: they are recreated as such.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
HOST_ETC_PATHS = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/alternatives",
)
DEVICES = ("null", "zero", "full", "random", "urandom")
_DEVICE_LINKS = (
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
)
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
# The host folder the new root is built over: its tmpfs becomes the root at the first pivot,
# which uncovers the host's folder again, so a Python installation in it stays reachable.
_STAGE = "/tmp"
_SCRATCH_TMPFS = "mode=0755,size=1m"


class IsolationUnavailable(RuntimeError):
    """The host does not permit the configured isolation level."""


@dataclass(frozen=True)
class SandboxConfig:
    """How a worker isolates the programs it runs; travels to the worker as JSON.

    ``exposed_paths`` are host folders or files a caller wants programs to read (a judge's data,
    a model file), bound read-only into the minimal root at the same path.
    """

    level: str = FULL
    uid: int = 60000
    exposed_paths: tuple[str, ...] = ()
    userns: bool = field(default_factory=lambda: os.geteuid() != 0)

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"isolation must be one of {LEVELS}, got {self.level!r}")
        for path in self.exposed_paths:
            if not os.path.isabs(path) or not os.path.exists(path):
                raise ValueError(f"exposed_paths must name existing absolute paths, got {path!r}")
            real = os.path.realpath(path)
            if real == "/" or real == "/proc" or real.startswith("/proc/"):
                raise ValueError(f"exposed_paths cannot expose the whole root or /proc, got {path!r}")

    def to_json_dict(self) -> dict:
        return asdict(self)


def python_runtime_paths() -> tuple[str, ...]:
    """What this interpreter reads at run time: its prefixes, executable, every ``sys.path`` folder
    and the ``LD_LIBRARY_PATH`` folders its extensions may load libraries from.

    ``.pth`` files add folders (a venv reaching another one's site-packages): they are installations
    and are kept whole. The folder holding this package is kept only if it is not a project
    checkout (an editable install, the pool's boot line): of a checkout only the package folder
    is kept, so its tests, data and ``.git`` stay out. ``''`` (the worker's cwd) is not kept.
    """
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    checkout = os.path.realpath(os.path.dirname(package))
    is_checkout = any(os.path.lexists(os.path.join(checkout, m)) for m in _PROJECT_MARKERS)
    wanted = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, sys.executable]
    wanted += [*site.getsitepackages(), package]
    on_path = [p for p in sys.path if os.path.isabs(p)]
    wanted += [p for p in on_path if not (is_checkout and os.path.realpath(p) == checkout)]
    wanted += [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if os.path.isabs(p)]
    return tuple(p for p in dict.fromkeys(wanted) if os.path.exists(p) and os.path.realpath(p) != "/")


def _resolve(path: str, links: dict[str, str], depth: int = 0) -> str:
    """The real path of ``path``, recording in ``links`` each symlink met on the way to it."""
    if depth > 40:
        raise OSError(errno.ELOOP, f"too many levels of symbolic links under {path}")
    real = "/"
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            real = os.path.dirname(real)
            continue
        step = os.path.join(real, part)
        if os.path.islink(step):
            links[step] = os.readlink(step)
            real = _resolve(os.path.join(real, links[step]), links, depth + 1)
        else:
            real = step
    return real


@dataclass(frozen=True)
class RootPlan:
    """The host paths a minimal root binds read-only (at their own paths), and the symlinks leading there.

    Every wanted path is resolved on the host: its real folder or file is bound (only the outermost
    of nested ones), and each symlink on the way (``/lib -> usr/lib``, a venv's ``bin/python``, a
    symlinked home) is recreated in the new root, so the path works there as it is written.
    """

    binds: tuple[str, ...]
    links: tuple[tuple[str, str], ...]

    @classmethod
    def for_worker(cls, exposed: Sequence[str]) -> RootPlan:
        links: dict[str, str] = {}
        wanted = [p for p in (*SYSTEM_PATHS, *HOST_ETC_PATHS) if os.path.lexists(p)]
        wanted += [*python_runtime_paths(), *exposed]
        real = [r for r in (_resolve(p, links) for p in wanted) if os.path.exists(r) and r != "/"]
        binds = _outermost(real)
        kept = [(p, t) for p, t in sorted(links.items()) if not any(p.startswith(b + "/") for b in binds)]
        return cls(tuple(binds), tuple(kept))


def _outermost(paths: list[str]) -> list[str]:
    unique = sorted(set(paths), key=len)
    return [p for i, p in enumerate(unique) if not any(p.startswith(q.rstrip("/") + "/") for q in unique[:i])]


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _mount_point(path: str, like: str) -> None:
    """An empty folder or file at ``path`` to bind ``like`` (a folder or a file) on."""
    if os.path.isdir(like):
        os.makedirs(path, exist_ok=True)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))


def _identity_files(config: SandboxConfig) -> dict[str, str]:
    """/etc files written for the sandbox instead of the host's: its own users only, looked up in files.

    The host's user and group lists say nothing a program needs; the sandbox uid gets a name, so
    ``getpass.getuser()`` works.
    """
    users = ["root:x:0:0:root:/root:/usr/sbin/nologin"]
    groups = ["root:x:0:"]
    if not config.userns:
        users.append(f"sandbox:x:{config.uid}:{config.uid}:sandbox:/tmp:/usr/sbin/nologin")
        groups.append(f"sandbox:x:{config.uid}:")
    users.append("nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin")
    groups.append("nogroup:x:65534:")
    return {
        "/etc/passwd": "\n".join(users) + "\n",
        "/etc/group": "\n".join(groups) + "\n",
        "/etc/nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files\n",
    }


def _populate(root: str, host: str, plan: RootPlan, config: SandboxConfig) -> None:
    """Fill the empty ``root``: a minimal /dev, /proc, the plan's binds and links, /etc identity files.

    ``host`` is where the host's root is mounted now. Binds are recursive, so that mounts below a
    bound folder come along (a user namespace refuses to bind a folder without them). /dev comes
    first, so that an installation under the host's /dev/shm (like one under /tmp) lands below
    the mount point of the private folder, where ``Workdir`` finds it.
    """
    rec_bind = syscalls.MS_BIND | syscalls.MS_REC
    dev = root + "/dev"
    os.makedirs(dev)
    syscalls.mount("tmpfs", dev, "tmpfs", syscalls.MS_NOSUID | syscalls.MS_NOEXEC, "mode=0755,size=64k")
    for name in DEVICES:
        _mount_point(f"{dev}/{name}", f"{host}/dev/{name}")
        syscalls.mount(f"{host}/dev/{name}", f"{dev}/{name}", None, syscalls.MS_BIND)
    for name, target in _DEVICE_LINKS:
        os.symlink(target, f"{dev}/{name}")
    for private in _PRIVATE:
        os.makedirs(root + private)  # Workdir mounts a private tmpfs here for each program
    # The PID-namespace init mounts a fresh proc here. In a user namespace the kernel allows that
    # only where a fully visible proc is already mounted in the mount namespace: the host's, below.
    os.makedirs(root + "/proc")
    syscalls.mount(host + "/proc", root + "/proc", None, rec_bind)
    for path in plan.binds:
        _mount_point(root + path, host + path)
        syscalls.mount(host + path, root + path, None, rec_bind)
    for path, target in plan.links:
        os.makedirs(os.path.dirname(root + path), exist_ok=True)
        os.symlink(target, root + path)
    for path, text in _identity_files(config).items():
        if not any(path.startswith(b + "/") for b in plan.binds):
            os.makedirs(os.path.dirname(root + path), exist_ok=True)
            _write(root + path, text)


def _enter_minimal_root(config: SandboxConfig) -> RootPlan:
    """Build the minimal root and make it this mount namespace's root; the host's root is detached.

    Two pivots, as bubblewrap does: first into a scratch tmpfs that holds the new root and the
    host's root side by side (so the host's folders, ``/tmp`` included, are reachable to bind),
    then into the new root, after which nothing of the host's tree is left in the namespace.
    """
    plan = RootPlan.for_worker(config.exposed_paths)  # resolved in the host's view
    umask = os.umask(0o022)  # the sandbox uid must traverse every folder made here
    try:
        syscalls.mount("tmpfs", _STAGE, "tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, _SCRATCH_TMPFS)
        for name in ("host", "root"):
            os.mkdir(f"{_STAGE}/{name}")
        flags = syscalls.MS_NOSUID | syscalls.MS_NODEV
        syscalls.mount("tmpfs", f"{_STAGE}/root", "tmpfs", flags, _SCRATCH_TMPFS)
        os.chdir(_STAGE)
        syscalls.pivot_root(".", "host")
        os.chdir("/")
        _populate("/root", "/host", plan, config)
        syscalls.umount("/host")
        os.chdir("/root")
        syscalls.pivot_root(".", ".")
        syscalls.umount(".")
        os.chdir("/")
    finally:
        os.umask(umask)
    return plan


def _enter_user_namespace() -> None:
    uid, gid = os.geteuid(), os.getegid()
    syscalls.unshare(syscalls.CLONE_NEWUSER)
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"0 {uid} 1")
    _write("/proc/self/gid_map", f"0 {gid} 1")


def _remount_each_read_only() -> None:
    """Fallback for kernels without mount_setattr: remount every mount point read-only."""
    for point in sorted({mount.point for mount in mount_table()}, key=len):
        options = next((mount.options for mount in mount_table() if mount.point == point), ())
        flags = syscalls.MS_REMOUNT | syscalls.MS_BIND | syscalls.MS_RDONLY | syscalls.MS_NOSUID
        flags |= syscalls.MS_NODEV if "nodev" in options else 0
        flags |= syscalls.MS_NOEXEC if "noexec" in options else 0
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
        step = "minimal root"
        plan = _enter_minimal_root(config)
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
        "root": "minimal",
        "bound": list(plan.binds),
        "devices": list(DEVICES),
        "writable": list(_PRIVATE),
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


def open_message_queues(config: SandboxConfig) -> int:
    """In the PID-namespace init (a supervised level): a descriptor of the folder that lists the
    worker's POSIX message queues, through which the template removes what each program left.

    In a worker's namespaces it is a mount of its own, detached at once, so no program sees it
    (the minimal root stays as it is); a container has one at ``/dev/mqueue`` already.
    """
    if config.level in NAMESPACED:
        flags = syscalls.MS_NOSUID | syscalls.MS_NODEV | syscalls.MS_NOEXEC
        syscalls.mount("mqueue", WORKDIR, "mqueue", flags)  # over /tmp for a moment: no folder to make
        try:
            return os.open(WORKDIR, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        finally:
            syscalls.umount(WORKDIR, syscalls.MNT_DETACH)
    if not any(m.point == _CONTAINER_MQUEUE and m.fstype == "mqueue" for m in mount_table()):
        raise OSError(f"no mqueue file system at {_CONTAINER_MQUEUE}: a program's queues would outlive it")
    return os.open(_CONTAINER_MQUEUE, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


_CONTAINER_MQUEUE = "/dev/mqueue"  # Docker mounts the container's message queues here


class Workdir:
    """The private /tmp and /dev/shm of executions: every program finds each as a new tmpfs is.

    Only one execution runs in a worker at a time, and every process of the previous one is dead
    before the next starts. After a program that changed either folder in any way (``_root_state``
    says what is compared), both are replaced: an unmount and a mount each, whatever it left there
    (a deep tree, a full tmpfs). After one that did not (most programs write no file), they stay
    as they were mounted. Replacing them after every program cost the template 0.2-0.25 ms of CPU
    and 0.8 ms of wall time per program on the development VM (each unmount waits for an expedited
    RCU grace period, which interrupts every CPU), and on the 16-core GPU host kept its CPUs idle
    while workers waited for it. They are mounted ``noatime``, so that listing one, as Python's
    import system does with the program's folder, changes nothing. Where a program makes and
    removes a file within the clock tick of the mount, on kernels older than 6.13 (before
    fine-grained change times), only a counter shows it, the inode number the next file gets: at
    most a count passes to the next program, as the PIDs of the worker's namespace already do.

    A Python installation under the host's /tmp or /dev/shm was bound into the minimal root below
    the private folder's mount point: each fresh tmpfs gets it back, read-only, as a mount point a
    program can neither remove nor rename.

    The template, which forks programs, does this between programs (``open`` and ``close`` move it
    into the new /tmp: a cwd in the previous tmpfs would keep it alive, detached); it is in the
    programs' PID namespace, so ``/proc/self`` is its own.

    In a container the tmpfs is the container's own (sized when it was created; RLIMIT_FSIZE
    still bounds each file), handed to the sandbox uid once and emptied after each execution.
    """

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.size = 0
        self._installed: list[tuple[str, int]] = []  # (path, O_PATH descriptor of what is bound there)
        self._roots: list[int] = []  # descriptors of the mounted folders' roots
        self._as_mounted: list[tuple] = []  # their ``_root_state`` right after the mount

    def open(self, file_bytes: int) -> str:
        if self.config.level == NONE:
            return tempfile.mkdtemp(prefix="nemo-code-rl-")
        if self.config.level == CONTAINER:
            if not self.size:
                os.chown(WORKDIR, self.config.uid, self.config.uid)
                os.chmod(WORKDIR, 0o700)
                os.chdir(WORKDIR)
                self.size = file_bytes
            return WORKDIR
        if self.size != file_bytes:
            self._fresh(file_bytes)
        return WORKDIR

    def close(self, path: str) -> None:
        """Empty the program's folders; raises ``OSError`` when that cannot be done in time."""
        if self.config.level == NONE:
            _empty_folder(path)
            os.rmdir(path)
        elif self.config.level == CONTAINER:
            for folder in [p for p in _PRIVATE if os.path.isdir(p)]:
                _empty_folder(folder, self.config.uid)
        elif [_root_state(fd) for fd in self._roots] != self._as_mounted:
            self._fresh(self.size)

    def _fresh(self, size: int) -> None:
        for fd in self._roots:  # an open descriptor would keep an unmounted tmpfs alive, detached
            os.close(fd)
        self._roots = []
        if self.size:
            for folder in _PRIVATE:
                syscalls.umount(folder)
        else:  # the first time, the folders are the minimal root's: they hold only bound installations
            self._installed = [
                (os.path.join(folder, name), os.open(os.path.join(folder, name), os.O_PATH | os.O_CLOEXEC))
                for folder in _PRIVATE
                for name in sorted(os.listdir(folder))
            ]
        owner = 0 if self.config.userns else self.config.uid
        options = f"mode=0700,uid={owner},gid={owner},size={size}"
        flags = syscalls.MS_NOSUID | syscalls.MS_NODEV | syscalls.MS_NOATIME
        for folder in _PRIVATE:
            syscalls.mount("tmpfs", folder, "tmpfs", flags, options)
        for path, handle in self._installed:
            _mount_point(path, f"/proc/self/fd/{handle}")
            syscalls.mount(f"/proc/self/fd/{handle}", path, None, syscalls.MS_BIND | syscalls.MS_REC)
        self.size = size
        os.chdir(WORKDIR)  # every child starts there, in the new tmpfs
        self._roots = [os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC) for folder in _PRIVATE]
        self._as_mounted = [_root_state(fd) for fd in self._roots]


def _root_state(fd: int) -> tuple:
    """What a program can change of an empty tmpfs, read from its root folder.

    Its entries (the folder's size and link count: tmpfs counts each entry in the size), its
    space and inodes (a file unlinked but still held, in flight on a socket, keeps both), and
    the root's own metadata: owner, mode, times, extended attributes (ACLs among them) and inode
    flags. Any change to those also moves the change time, but on kernels older than 6.13 that
    clock advances by ticks, and a program may make its change within the tick of the mount, so
    each is compared itself.
    """
    stat, space = os.fstat(fd), os.fstatvfs(fd)
    return (
        stat.st_mode, stat.st_uid, stat.st_gid, stat.st_size, stat.st_nlink,
        stat.st_atime_ns, stat.st_mtime_ns, stat.st_ctime_ns,
        space.f_bfree, space.f_ffree, os.listxattr(fd), syscalls.inode_flags(fd),
    )  # fmt: skip


def _empty_folder(folder: str, uid: int | None = None) -> None:
    """Remove everything in ``folder``, however deep, in bounded time (where no fresh tmpfs can be
    mounted): Python's own tree walks recurse, and a program can nest folders past any stack.

    ``find`` runs as ``uid``, the program's owner of what is there: the template's capabilities do
    not survive an exec (its bounding set is empty).
    """
    if not os.listdir(folder):
        return
    try:
        subprocess.run(
            ["find", folder, "-mindepth", "1", "-delete"],
            check=True,
            capture_output=True,
            timeout=_EMPTYING_TIMEOUT_S,
            user=uid,
            group=uid,
            extra_groups=[] if uid is not None else None,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        raise OSError(f"could not empty {folder}: {exc}") from exc


@functools.lru_cache(maxsize=64)
def rlimits(limits: Limits, cpu_budget_s: int) -> list[tuple[int, tuple[int, int]]]:
    """The rlimits of a program's child, computed once in the supervisor (within its hard limits).

    The per-input CPU soft limit is then moved by the runner; ``RLIMIT_CORE`` is 0 already, set
    by the template for itself and inherited.
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
