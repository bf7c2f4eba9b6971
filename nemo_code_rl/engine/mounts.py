"""This process's mount table, as ``/proc/self/mountinfo`` gives it: the one reader of that file
for the pool's cgroup discovery and the sandbox's set-up."""

from __future__ import annotations

from typing import NamedTuple


class Mount(NamedTuple):
    """One line of ``/proc/self/mountinfo``: the fifth field is the mount point, the sixth its
    per-mount options; after the ``-`` separator come the file system type, the source and the
    super block's options (where a cgroup v1 hierarchy names its controllers)."""

    point: str
    options: tuple[str, ...]
    fstype: str
    super_options: tuple[str, ...]


def mount_table() -> list[Mount]:
    with open("/proc/self/mountinfo") as handle:
        table = []
        for line in handle:
            fields = line.split()
            dash = fields.index("-")
            table.append(
                Mount(
                    fields[4],
                    tuple(fields[5].split(",")),
                    fields[dash + 1],
                    tuple(fields[dash + 3].split(",")) if len(fields) > dash + 3 else (),
                )
            )
    return table
