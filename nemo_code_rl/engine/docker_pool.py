"""The execution engine's Docker backend: warm workers inside long-lived containers.

Each worker is one container, started once and reused for every execution it runs: the
container's command is the engine's worker entry point (this package is bind-mounted read-only),
and the pool speaks the same frame protocol as with a process, over the container's attached
stdin/stdout (``docker`` Python SDK). The worker is the container's PID 1 and its supervisor
(isolation level ``container``): it keeps only the capabilities needed to change uid, to kill
and to empty the work directory, and every program runs as an unprivileged uid without any.

Each container runs with ``--network none``, a read-only root, a tmpfs ``/tmp``, memory and pids
limits, all other capabilities dropped and ``no-new-privileges``. A container that dies is
replaced like a dead worker process: its program is re-run once, then reported ``worker_lost``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import struct
from collections.abc import Sequence
from typing import Any

from nemo_code_rl.engine import sandbox, wire
from nemo_code_rl.engine.limits import Limits, MiB
from nemo_code_rl.engine.pool import DEFAULT_PRELOAD, WorkerPool, quiet_chains, sandbox_uid_base, worker_count
from nemo_code_rl.engine.sandbox import SandboxConfig

DEFAULT_IMAGE = "nemo-code-rl-test:latest"
_MOUNT_ROOT = "/opt/nemo-code-rl"
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Needed by the worker and its template only: setuid/setgid into the sandbox uid, kill leftovers,
# drop the bounding set, and hand over and empty the tmpfs. Programs lose all of them at setuid.
_WORKER_CAPABILITIES = ("SETUID", "SETGID", "KILL", "SETPCAP", "CHOWN", "DAC_OVERRIDE", "FOWNER")
_WORKER_MEMORY = 256 * MiB
_WORKER_PIDS = 16
_BOOT = (
    f"import sys; sys.path.insert(0, {_MOUNT_ROOT!r}); "
    "from nemo_code_rl.engine.worker import main; raise SystemExit(main())"
)
_MUX_HEADER = struct.Struct(">BxxxL")
_STDOUT = 1
_LOG_LINES = 20


class DockerUnavailable(RuntimeError):
    """The Docker engine cannot be reached, or the image cannot run the engine's worker."""


def docker_client() -> Any:
    """A client of the Docker engine named by the environment (``DOCKER_HOST``, or the local socket)."""
    import docker

    try:
        client = docker.from_env()
        client.ping()
    except docker.errors.DockerException as exc:
        raise DockerUnavailable(
            f"the Docker engine is unreachable ({exc}). Start dockerd (CI: .ci/docker_setup.sh), or "
            "point DOCKER_HOST at it, or use ExecutionPool (the process backend) instead."
        ) from exc
    return client


class _Demultiplexer:
    """Docker's non-TTY attach stream: frames of an 8-byte header (stream, size) and a payload."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> bytes:
        """The stdout bytes carried by ``data`` (and what was left over from earlier calls)."""
        self._buffer += data
        out = bytearray()
        while len(self._buffer) >= _MUX_HEADER.size:
            stream, size = _MUX_HEADER.unpack_from(self._buffer)
            end = _MUX_HEADER.size + size
            if len(self._buffer) < end:
                break
            if stream == _STDOUT:
                out += self._buffer[_MUX_HEADER.size : end]
            del self._buffer[:end]
        return bytes(out)


class _ContainerWorker:
    """The pool's handle on one worker container: the interface of a worker process, over a socket."""

    def __init__(self, index: int, settings: dict, client: Any, image: str, options: dict[str, Any]) -> None:
        import docker

        self.index = index
        self.image = image
        self.reader = wire.FrameReader()
        self.report: dict | None = None
        self._demux = _Demultiplexer()
        command = ["python3", "-s", "-E", "-c", _BOOT, json.dumps(settings)]
        try:
            created = client.api.create_container(
                image,
                command,
                host_config=client.api.create_host_config(**options["host"]),
                **options["container"],
            )
        except docker.errors.ImageNotFound as exc:
            raise DockerUnavailable(
                f"Docker image {image!r} not found: build it (CI: .ci/docker_setup.sh) or pick another"
            ) from exc
        self.container = client.containers.get(created["Id"])
        # Kept: the SDK's wrapper holds the HTTP response whose collection would close the socket.
        self._attached = self.container.attach_socket(params={"stdin": 1, "stdout": 1, "stream": 1})
        self._socket: socket.socket = getattr(self._attached, "_sock", self._attached)
        self._socket.setblocking(True)
        try:
            self.container.start()
        except docker.errors.APIError as exc:
            self.kill()
            hint = " (the image has no python3)" if "python3" in str(exc) else ""
            raise DockerUnavailable(
                f"worker container of image {image!r} failed to start{hint}: {exc}"
            ) from exc
        self.container.reload()

    @property
    def out_fd(self) -> int:
        return self._socket.fileno()

    @property
    def pid(self) -> int:
        """The host pid of the container's init: the worker (its supervisor)."""
        return int(self.container.attrs["State"]["Pid"])

    def exit_status(self) -> int | None:
        try:
            self.container.reload()
        except Exception:  # noqa: BLE001 - a container already removed has no status to report
            return None
        return self.container.attrs["State"].get("ExitCode")

    def startup_failure(self) -> str:
        try:
            logs = self.container.logs(stdout=False, stderr=True, tail=_LOG_LINES).decode(errors="replace")
        except Exception:  # noqa: BLE001 - the message is still useful without the logs
            logs = ""
        if "No module named" in logs or "SyntaxError" in logs or "ImportError" in logs:
            logs += f"\n(the image {self.image!r} needs Python >= 3.11 as python3 to run the engine's worker)"
        return (
            f"worker container {self.index} of image {self.image!r} exited during start-up:\n{logs.strip()}"
        )

    def read_frames(self) -> list | None:
        """Frames now available, or ``None`` when the container has gone."""
        try:
            chunk = self._socket.recv(wire.READ_BYTES)
        except OSError:
            return None
        return self.reader.feed(self._demux.feed(chunk)) if chunk else None

    def send(self, frame: bytes) -> bool:
        try:
            self._socket.sendall(frame)
        except OSError:
            return False
        return True

    def cancel(self, job: int) -> None:
        with contextlib.suppress(OSError):
            self._socket.sendall(wire.encode({"cancel": job}))

    def kill(self) -> None:
        self.close_pipes()
        try:  # noqa: SIM105 - engine code keeps to try/except
            self.container.remove(force=True)
        except Exception:  # noqa: BLE001 - already gone (killed from outside, or auto-removed)
            pass

    def close_pipes(self) -> None:
        """Close the container's stdin: its supervisor sees end-of-file and exits."""
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_WR)

    def wait(self, timeout_s: float) -> bool:
        try:
            self.container.wait(timeout=max(timeout_s, 0.1))
        except Exception:  # noqa: BLE001 - a timeout (requests' ReadTimeout/ConnectionError) or already removed
            return False
        self.kill()
        return True


class DockerExecutionPool(WorkerPool[_ContainerWorker]):
    """A ``WorkerPool`` whose workers are long-lived, locked-down containers.

    Args:
        workers / limits / strict / preload: as for ``ExecutionPool``.
        image: the image the containers run; it needs ``python3`` (3.11 or newer) and whatever
            the programs import (numpy for the default preloads). Default
            ``$NEMO_CODE_RL_DOCKER_IMAGE`` or ``nemo-code-rl-test:latest``.
        client: a ``docker.DockerClient``; default: the engine named by the environment.
        sandbox_uid: first uid programs run as (one per container).

    The tmpfs ``/tmp`` of each container is sized by ``limits.file_bytes`` when it starts; a
    program's own ``Limits.file_bytes`` still caps each file it writes (RLIMIT_FSIZE).
    """

    def __init__(
        self,
        workers: int | None = None,
        limits: Limits | None = None,
        strict: bool = False,
        preload: Sequence[str] = DEFAULT_PRELOAD,
        image: str | None = None,
        client: Any = None,
        sandbox_uid: int | None = None,
    ) -> None:
        self.image = image or os.environ.get("NEMO_CODE_RL_DOCKER_IMAGE", DEFAULT_IMAGE)
        uid_base = sandbox_uid_base(sandbox_uid)
        options = _container_options(limits or Limits())
        count = worker_count(workers)
        spawner = _ContainerSpawner(
            client or docker_client(), self.image, options, preload, uid_base, quiet_chains(count)
        )
        super().__init__(spawner, count, limits, strict, sandbox.CONTAINER, uid_base)

    @property
    def container_ids(self) -> list[str]:
        """Ids of the worker containers (for monitoring; killing one is survivable)."""
        return [w.container.id for w in self.handles]


class _ContainerSpawner:
    """Starts the worker containers of a ``DockerExecutionPool``: it holds the client, image and options."""

    def __init__(
        self,
        client: Any,
        image: str,
        options: dict[str, Any],
        preload: Sequence[str],
        uid_base: int,
        quiet: bool,
    ) -> None:
        self.client = client
        self.image = image
        self.options = options
        self.preload = list(preload)
        self.uid_base = uid_base
        self.quiet = quiet

    def __call__(self, index: int) -> _ContainerWorker:
        config = SandboxConfig(level=sandbox.CONTAINER, uid=self.uid_base + index, userns=False)
        settings = {"sandbox": config.to_json_dict(), "preload": self.preload, "quiet_chains": self.quiet}
        return _ContainerWorker(index, settings, self.client, self.image, self.options)


def _container_options(limits: Limits) -> dict[str, Any]:
    """How every worker container runs: no network, read-only, tmpfs, limits, no capabilities.

    The low-level API is used because only it sets ``StdinOnce`` (``stdin_open`` without
    ``detach``): closing our end of the attach then closes the container's stdin, so a supervisor
    sees end-of-file and exits cleanly.
    """
    host = {
        "network_mode": "none",
        "read_only": True,
        "tmpfs": {"/tmp": f"rw,nosuid,nodev,size={limits.file_bytes}"},
        "mem_limit": limits.memory_bytes + _WORKER_MEMORY,
        "memswap_limit": limits.memory_bytes + _WORKER_MEMORY,
        "pids_limit": limits.processes + _WORKER_PIDS,
        "cap_drop": ["ALL"],
        "cap_add": list(_WORKER_CAPABILITIES),
        "security_opt": ["no-new-privileges"],
        "binds": {_PACKAGE: {"bind": f"{_MOUNT_ROOT}/nemo_code_rl", "mode": "ro"}},
    }
    container = {
        "stdin_open": True,
        "detach": False,
        "tty": False,
        "network_disabled": True,
        "working_dir": "/",
        "user": "0:0",
        "environment": {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        },
        "labels": {"nemo-code-rl": "engine-worker"},
    }
    return {"host": host, "container": container}
