"""Helpers for the interpreter tests: find, from the host, processes that sandboxed code started.

Code in a sandbox sees its own PID namespace, so the pids it reports mean nothing here.
It starts its processes with a unique marker in their command line instead, and the
test looks for the marker in every host process's ``/proc/<pid>/cmdline``.
"""

from __future__ import annotations

import os
import time
import uuid


def new_marker() -> str:
    """A string no other process has in its command line."""
    return f"lagent-like-test-{uuid.uuid4().hex}"


def sleeper(marker: str) -> str:
    """Python code for a process that sleeps long, with ``marker`` in its command line."""
    return f"[sys.executable, '-c', 'import time; time.sleep(1000)', {marker!r}]"


def host_pids_with(marker: str) -> set[int]:
    """The live (not zombie) host processes whose command line contains ``marker``."""
    found = set()
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{entry}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in cmdline and state not in (b"Z", b"X"):
            found.add(int(entry))
    return found


def gone_within(marker: str, seconds: float = 3.0) -> set[int]:
    """Wait until no host process carries ``marker``; those left after ``seconds``."""
    end = time.monotonic() + seconds
    left = host_pids_with(marker)
    while left and time.monotonic() < end:
        time.sleep(0.02)
        left = host_pids_with(marker)
    return left


def appeared_within(marker: str, seconds: float = 5.0) -> set[int]:
    """Wait until some host process carries ``marker`` (it may not have exec'd yet)."""
    end = time.monotonic() + seconds
    found = host_pids_with(marker)
    while not found and time.monotonic() < end:
        time.sleep(0.01)
        found = host_pids_with(marker)
    return found
