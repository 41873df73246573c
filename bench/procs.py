"""What the benchmarks and the reliability tests read about processes from /proc: a process's
children (gunicorn's workers), the TCP connections of the machine and the sockets a process
holds (which worker serves a client's connection)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator


def children(pid: int) -> set[int]:
    """The live child processes of ``pid`` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry.name))
    return found


def tcp_connections() -> Iterator[tuple[int, int, str, int]]:
    """(local port, remote port, state, socket inode) of each TCP socket on this machine, from
    /proc/net/tcp and tcp6 (state "01" is an established connection)."""
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            yield int(cols[1].rsplit(":", 1)[1], 16), int(cols[2].rsplit(":", 1)[1], 16), cols[3], int(cols[9])


def socket_inodes(pid: int) -> set[int]:
    """The inodes of the sockets process ``pid`` holds open (none when it is gone)."""
    inodes = set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes
