"""Helpers for the interpreter tests: find, from the host, processes that sandboxed code started,
and check that a test module leaves nothing behind.

Code in a sandbox sees its own PID namespace, so the pids it reports mean nothing here.
It starts its processes with a unique marker in their command line instead, and the
test looks for the marker in every host process's ``/proc/<pid>/cmdline``.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

from lagent_like import ActionReturn, ActionStatusCode


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


def gone_within(marker: str, seconds: float = 30.0) -> set[int]:
    """Wait until no host process carries ``marker``; those left after ``seconds``.

    ``seconds`` only guards against a hang (a loaded machine reaps slowly); callers
    assert the set left, which is empty at once when the kill worked.
    """
    end = time.monotonic() + seconds
    left = host_pids_with(marker)
    while left and time.monotonic() < end:
        time.sleep(0.02)
        left = host_pids_with(marker)
    return left


def appeared_within(marker: str, seconds: float = 30.0) -> set[int]:
    """Wait until some host process carries ``marker`` (it may not have exec'd yet)."""
    end = time.monotonic() + seconds
    found = host_pids_with(marker)
    while not found and time.monotonic() < end:
        time.sleep(0.01)
        found = host_pids_with(marker)
    return found


def sysv_objects() -> list[str]:
    """The host's SysV shared-memory segments, message queues and semaphore sets."""
    rows = []
    for kind in ("shm", "msg", "sem"):
        with open(f"/proc/sysvipc/{kind}", encoding="ascii") as f:
            rows += f.read().splitlines()[1:]
    return rows


def _children() -> set[int]:
    """The pids whose parent is this process."""
    children = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    if int(f.read().rsplit(b")", 1)[1].split()[1]) == os.getpid():
                        children.add(int(entry))
            except OSError:
                continue
    return children


def _left_over(tmp: set[str], shm: set[str], children: set[int], objects: list[str]) -> dict[str, Any]:
    """What is there now and was not in the snapshot: files, children and SysV objects."""
    return {
        "tmp": {name for name in set(os.listdir("/tmp")) - tmp if name.startswith("lagent_like")},
        "shm": set(os.listdir("/dev/shm")) - shm,
        "children": _children() - children,
        "sysv": [row for row in sysv_objects() if row not in objects],
    }


@contextlib.contextmanager
def nothing_left_behind(settle: float = 30.0) -> Iterator[None]:
    """Assert that the block leaves no child process, no file and no SysV object behind.

    ``/tmp``, ``/dev/shm`` and the SysV tables are the machine's: another pytest worker
    (``pytest -n``) may hold a file there for a moment (a semaphore, a browser's shared
    memory). A leak stays, so the check waits up to ``settle`` seconds for the difference
    to clear before it fails; with nothing left over it returns at once.
    """
    tmp, shm, children, objects = (
        set(os.listdir("/tmp")),
        set(os.listdir("/dev/shm")),
        _children(),
        sysv_objects(),
    )
    yield
    end = time.monotonic() + settle
    left = _left_over(tmp, shm, children, objects)
    while any(left.values()) and time.monotonic() < end:
        time.sleep(0.1)
        left = _left_over(tmp, shm, children, objects)
    assert left == {"tmp": set(), "shm": set(), "children": set(), "sysv": []}


def run_py(tool: Any, code: str) -> ActionReturn:
    """``tool``'s record of running ``code`` (a ``PythonInterpreter`` call)."""
    ret: ActionReturn = tool(json.dumps({"command": code}))
    return ret


def text(ret: ActionReturn) -> Any:
    """The text of a successful record's first item (the test fails on any other record)."""
    assert ret.state == ActionStatusCode.SUCCESS, ret.errmsg
    assert ret.result is not None
    return ret.result[0]["content"]


def last_line(ret: ActionReturn) -> str:
    """The last line of an ``API_ERROR`` record's message (the test fails on any other record)."""
    assert ret.state == ActionStatusCode.API_ERROR and ret.errmsg is not None, ret
    return ret.errmsg.splitlines()[-1]
