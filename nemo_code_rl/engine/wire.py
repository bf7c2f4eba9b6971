"""Length-prefixed pickle frames between a pool and its trusted workers.

Only the pool and the worker's init speak this protocol; programs never see these pipes, and
nothing a program writes is ever unpickled.
"""

from __future__ import annotations

import os
import pickle
import struct
from typing import Any

_HEADER = struct.Struct("!Q")
# How much one read of a frame pipe asks for. Below malloc's mmap threshold (128 KiB): CPython
# allocates the whole size before reading, and a larger buffer is mapped and unmapped on every
# read, which cost 15 us against 1 us for the read itself (a frame arrives in several reads).
READ_BYTES = 1 << 16


def encode(obj: Any) -> bytes:
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(body)) + body


def write_frame(fd: int, obj: Any) -> None:
    write_bytes(fd, encode(obj))


def write_bytes(fd: int, frame: bytes) -> None:
    """Write an encoded frame whole (a pipe may take it in parts)."""
    view = memoryview(frame)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class FrameReader:
    """Reassembles frames from non-blocking reads."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[Any]:
        self._buffer += data
        frames = []
        while len(self._buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._buffer)
            if len(self._buffer) < _HEADER.size + size:
                break
            body = bytes(self._buffer[_HEADER.size : _HEADER.size + size])
            del self._buffer[: _HEADER.size + size]
            frames.append(pickle.loads(body))
        return frames
