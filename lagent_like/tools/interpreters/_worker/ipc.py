"""What a ``PythonInterpreter`` job may leave in the kernel's shared memory, bounded and removed.

Runs inside the sandbox (see the package docstring): standard library only.

Why: SysV shared memory segments and message queues belong to an IPC namespace, not to
a process, and the zygote's namespace outlives every job: a segment one job made would
pin memory after it and be readable by a later job. So, run as root, each job enters
a fresh IPC namespace (the kernel frees its objects when the job's last process dies)
whose SysV limits keep to the job's memory; the zygote also removes, after every job,
any object its own namespace holds (the only guard when the sandbox runs in a user
namespace, where the job cannot make a namespace of its own).
"""

from __future__ import annotations

import contextlib
import os

# Annotations only (postponed): importing ``typing`` would slow every sandbox's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``unshare`` flag (linux/sched.h) and the ``*ctl`` command that removes an object (linux/ipc.h).
_CLONE_NEWIPC = 0x08000000
_IPC_RMID = 0

#: Queues the job's namespace may have (each holds at most ``msgmnb``, 16 KiB by default).
_MESSAGE_QUEUES = 16

_PAGE = os.sysconf("SC_PAGE_SIZE")

_libc: list[Any] = []


def libc() -> Any:
    """The C library, loaded once (in the zygote, so that each forked job finds it loaded)."""
    if not _libc:
        import ctypes

        _libc.append(ctypes.CDLL(None, use_errno=True))
    return _libc[0]


def fresh_namespace(memory_mb: int | None) -> bool:
    """Enter a new IPC namespace, its SysV shared memory capped at ``memory_mb``; ``False`` if refused."""
    if libc().unshare(_CLONE_NEWIPC) != 0:
        return False
    settings = {"msgmni": str(_MESSAGE_QUEUES)}
    if memory_mb is not None:
        size = memory_mb * 1024 * 1024
        settings.update(shmmax=str(size), shmall=str(size // _PAGE))
    for name, value in settings.items():
        # A read-only /proc/sys leaves the kernel's defaults; the namespace still dies with the job.
        write_file(f"/proc/sys/kernel/{name}", value)
    return True


def read_file(path: str) -> str:
    """The text of a (``/proc``) file; ``""`` when it cannot be read (see :func:`write_file`)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return ""
    try:
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks).decode("ascii", "replace")
            chunks.append(chunk)
    except OSError:
        return ""
    finally:
        os.close(fd)


def write_file(path: str, text: str) -> None:
    """Write ``text`` to an existing (``/proc``) file, ignoring a refusal.

    With ``os`` calls, not ``open()``: a text stream would import a codec and touch many
    shared pages in the freshly forked process.
    """
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, text.encode("ascii"))
        finally:
            os.close(fd)


def remove_objects() -> int:
    """Remove every SysV segment, queue and semaphore set of this namespace; how many."""
    removed = 0
    for kind, call, after in (
        ("shm", "shmctl", (_IPC_RMID, None)),
        ("msg", "msgctl", (_IPC_RMID, None)),
        ("sem", "semctl", (0, _IPC_RMID)),
    ):
        remove = getattr(libc(), call)
        rows = read_file(f"/proc/sysvipc/{kind}").splitlines()[1:]
        for row in rows:
            fields = row.split()
            if len(fields) > 1 and fields[1].isdigit() and remove(int(fields[1]), *after) == 0:
                removed += 1
    return removed


def prefer_oom_kill() -> None:
    """Make this process (and what it starts) the kernel's first choice when memory runs out.

    The sandbox's cgroup (or the host) then kills the job, not the zygote that serves
    the next call.
    """
    write_file("/proc/self/oom_score_adj", "1000")
