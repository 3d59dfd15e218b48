"""One cgroup v2 per sandbox, where the machine lets the package make one.

Why: ``RLIMIT_AS`` bounds each process's address space, not what a sandbox pins in
the kernel's memory: ``memfd_create`` files, SysV and POSIX shared memory and the
``tmpfs`` mounts are counted by no rlimit. A cgroup's ``memory.max`` counts all of
them, and its ``pids.max`` counts every process and thread of the sandbox.

Where: ``LAGENT_LIKE_CGROUP`` names a cgroup v2 directory delegated to the agent (it
must hold no process, its ``cgroup.subtree_control`` writable); otherwise, for root on
a machine whose cgroup v2 hierarchy is mounted (``cgroup2`` in ``/proc/self/mountinfo``),
``<mount>/lagent_like``. Nothing is written to a cgroup v1 hierarchy, ever. Where
neither works, :func:`support` says why, the first sandbox logs it once, and the
rlimits (with the caps of docs/isolation.rst) are the bound.

Each sandbox's ``bwrap`` joins its cgroup before it runs (it writes ``0`` to
``cgroup.procs`` between ``fork`` and ``exec``), so everything it starts is inside.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import threading
import time
from dataclasses import dataclass
from typing import Callable, Optional

from ._worker.common import MAX_DESCRIPTORS

__all__ = ["Cgroup", "CgroupSupport", "describe_bound", "notice", "sandbox_cgroup", "support"]

#: The environment variable naming a delegated cgroup v2 directory.
ENV = "LAGENT_LIKE_CGROUP"

#: The controllers each sandbox's cgroup needs.
CONTROLLERS = ("memory", "pids")

#: Processes of a sandbox that are not the code's (``bwrap``, its init, the worker).
OWN_PROCESSES = 4

#: Memory of those processes, in MB, so that the code keeps all of ``memory_mb``.
OWN_MEMORY_MB = 64

_MB = 1024 * 1024

#: ``os.rmdir``, a seam for tests on a plain directory laid out as a cgroup tree
#: (a real cgroup's control files go with its directory; a plain one's do not).
_rmdir: Callable[[str], None] = os.rmdir


def _warn(message: str, *args: object) -> None:
    """Log a warning on ``lagent_like.sandbox``, for the application's logging to show.

    As a library should, it adds a ``NullHandler``: without a logging configuration
    nothing is printed (a command's stderr stays its own); :attr:`memory_bound` of each
    interpreter says the same. ``logging`` is imported only when there is something to say.
    """
    import logging

    logger = logging.getLogger("lagent_like.sandbox")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
    logger.warning(message, *args)


@dataclass(frozen=True)
class CgroupSupport:
    """Whether sandboxes get a cgroup here.

    Attributes:
        parent: the directory under which each sandbox gets its cgroup, or ``None``.
        reason: why not, when ``parent`` is ``None``.
    """

    parent: Optional[str]
    reason: Optional[str] = None


def cgroup2_mounts(mountinfo: str = "/proc/self/mountinfo") -> list[str]:
    """The mount points of the cgroup v2 hierarchy in ``mountinfo`` (none on a v1-only host)."""
    found = []
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    for line in lines:
        fields, _, rest = line.partition(" - ")
        parts = fields.split()
        if rest.split()[:1] == ["cgroup2"] and len(parts) > 4:
            found.append(parts[4].replace("\\040", " "))
    return found


def _read(path: str) -> str:
    with open(path, encoding="ascii") as f:
        return f.read()


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


def _enable(directory: str) -> None:
    """Make ``directory``'s children get the memory and pids controllers (kernel errors raise)."""
    wanted = [
        name
        for name in CONTROLLERS
        if name not in _read(os.path.join(directory, "cgroup.subtree_control")).split()
    ]
    if wanted:
        _write(os.path.join(directory, "cgroup.subtree_control"), " ".join("+" + name for name in wanted))


def prepare(root: str, parent: Optional[str] = None) -> CgroupSupport:
    """Check the cgroup v2 tree at ``root`` and make ``parent`` (``<root>/lagent_like``) ready.

    Args:
        root: the top of a cgroup v2 hierarchy (or of a delegated subtree, then ``parent``
            is ``root`` itself).
        parent: where the sandboxes' cgroups go; ``None`` for ``<root>/lagent_like``.
    """
    try:
        available = _read(os.path.join(root, "cgroup.controllers")).split()
    except OSError as exc:
        return CgroupSupport(None, f"{root} is not a cgroup v2 directory ({exc.strerror})")
    missing = [name for name in CONTROLLERS if name not in available]
    if missing:
        names = " and ".join(missing) + (" controllers" if len(missing) > 1 else " controller")
        return CgroupSupport(None, f"the cgroup v2 tree at {root} lacks the {names}")
    try:
        if parent is None:
            parent = os.path.join(root, "lagent_like")
            _enable(root)
            os.makedirs(parent, exist_ok=True)
        _enable(parent)
    except OSError as exc:
        return CgroupSupport(None, f"cannot set up a cgroup under {parent or root} ({exc.strerror})")
    return CgroupSupport(parent)


@functools.cache
def support() -> CgroupSupport:
    """Whether this machine gives each sandbox a cgroup (checked once per process)."""
    delegated = os.environ.get(ENV)
    if delegated:
        return prepare(delegated, delegated)
    mounts = cgroup2_mounts()
    if not mounts:
        return CgroupSupport(None, "no cgroup v2 hierarchy is mounted (a cgroup v1 host)")
    if os.geteuid() != 0:
        return CgroupSupport(None, f"not root, and {ENV} names no delegated cgroup v2 directory")
    return prepare(mounts[0])


_notice = threading.Lock()
_noticed: list[bool] = []


def notice() -> CgroupSupport:
    """:func:`support`, logging once per process a warning when sandboxes get no cgroup."""
    found = support()
    with _notice:
        if found.parent is None and not _noticed:
            _noticed.append(True)
            _warn(
                "lagent_like: no cgroup per sandbox: %s. Memory is bounded per process "
                "(RLIMIT_AS) and by the caps of docs/isolation.rst, not per sandbox.",
                found.reason,
            )
    return found


class Cgroup:
    """One sandbox's cgroup: made with its limits, joined by ``bwrap``, removed after it.

    Args:
        path: the cgroup's directory (made here).
        memory_bytes: its ``memory.max`` (``None``: ``max``).
        pids: its ``pids.max`` (``None``: ``max``).
    """

    def __init__(self, path: str, memory_bytes: Optional[int], pids: Optional[int]) -> None:
        os.mkdir(path)
        self.path = path
        try:
            _write(os.path.join(path, "memory.max"), _value(memory_bytes))
            swap = os.path.join(path, "memory.swap.max")
            if os.path.exists(swap):
                _write(swap, "0")  # swap would let the sandbox hold more than memory.max
            _write(os.path.join(path, "pids.max"), _value(pids))
        except OSError:
            self.remove()
            raise
        self.procs = os.path.join(path, "cgroup.procs").encode()

    def join(self) -> None:
        """Move the calling process into the cgroup (run in the child, before ``exec``)."""
        fd = os.open(self.procs, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)

    def remove(self, tries: int = 200) -> None:
        """Kill what is left in the cgroup and remove it (its processes may take a moment)."""
        kill = os.path.join(self.path, "cgroup.kill")
        if os.path.exists(kill):
            with contextlib.suppress(OSError):
                _write(kill, "1")
        for _ in range(tries):
            try:
                _rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                if exc.errno != errno.EBUSY:
                    break
            time.sleep(0.005)
        _warn("lagent_like: could not remove the sandbox cgroup %s", self.path)


def _value(limit: Optional[int]) -> str:
    return "max" if limit is None else str(limit)


#: Numbers the sandboxes of this process (``next`` on it is atomic under the GIL).
_counter = itertools.count(1)


def sandbox_memory_mb(memory_mb: int, disk_mb: int) -> int:
    """A sandbox's ``memory.max`` in MB: the code's, both ``tmpfs`` mounts, the sandbox's own."""
    return memory_mb + 2 * disk_mb + OWN_MEMORY_MB


def sandbox_cgroup(memory_mb: Optional[int], max_processes: Optional[int], disk_mb: int) -> Optional[Cgroup]:
    """A new cgroup for one sandbox, or ``None`` where sandboxes get none.

    Its ``memory.max`` is ``memory_mb`` plus both ``tmpfs`` mounts (``2 * disk_mb``) plus
    :data:`OWN_MEMORY_MB`: the sandbox's whole memory, files in ``/mnt/data`` and
    ``/dev/shm``, ``memfd`` files and SysV segments included. ``pids.max`` is
    ``max_processes`` plus the sandbox's own.
    """
    parent = notice().parent
    if parent is None:
        return None
    memory = None if memory_mb is None else sandbox_memory_mb(memory_mb, disk_mb) * _MB
    pids = None if max_processes is None else max_processes + OWN_PROCESSES
    problem: Optional[OSError] = None
    for _ in range(3):
        path = os.path.join(parent, f"{os.getpid()}-{next(_counter)}")
        try:
            return Cgroup(path, memory, pids)
        except FileExistsError as exc:
            problem = exc  # left by an earlier process of the same pid (a container's restart)
        except OSError as exc:
            problem = exc
            break
    _warn("lagent_like: no cgroup for this sandbox (%s): %s", parent, problem)
    return None


def describe_bound(
    isolation: str, memory_mb: Optional[int], max_processes: Optional[int], disk_mb: int
) -> str:
    """The memory bound that holds for a tool's code on this machine, in one sentence."""
    if isolation != "sandbox":
        per_process = "no limit" if memory_mb is None else f"{memory_mb} MB of address space"
        return f"no sandbox: {per_process} per process (RLIMIT_AS), nothing per call"
    found = support()
    if found.parent is not None:
        memory = (
            "no memory limit"
            if memory_mb is None
            else f"memory.max {sandbox_memory_mb(memory_mb, disk_mb)} MB"
        )
        pids = "no process limit" if max_processes is None else f"pids.max {max_processes + OWN_PROCESSES}"
        return (
            f"a cgroup per sandbox under {found.parent}: {memory} (its processes, the files in "
            f"/mnt/data and /dev/shm, memfd files and shared memory together), {pids}"
        )
    per_process = "no limit" if memory_mb is None else f"{memory_mb} MB of address space"
    processes = "any number of" if max_processes is None else f"at most {max_processes}"
    return (
        f"no cgroup per sandbox ({found.reason}): {per_process} per process (RLIMIT_AS), "
        f"{processes} processes, /mnt/data and /dev/shm of {disk_mb} MB each, "
        f"{MAX_DESCRIPTORS} open files per process"
    )
