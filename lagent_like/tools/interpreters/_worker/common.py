"""Worker-side helpers shared by both interpreters' workers: limits, identity, framing.

Runs inside the sandbox (see the package docstring): standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal

# Annotations only (postponed): importing ``typing`` would slow every sandbox's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

    #: Runs one cell: ``(code, timeout)`` -> ``(ok, text, restart)``.
    Answer = Callable[[str, float], tuple[bool, str, bool]]

#: ``prctl`` options (linux/prctl.h).
_PR_SET_DUMPABLE = 4
_PR_SET_NO_NEW_PRIVS = 38

_MB = 1024 * 1024

#: Descriptors a worker process may hold (a common default soft limit), fixed as the hard
#: one too: each open pipe or socket pins kernel buffers that no memory limit counts.
MAX_DESCRIPTORS = 1024


#: The C library, loaded at the first :func:`prctl` (a forked job finds it loaded).
_LIBC: list[Any] = []


def prctl(option: int, value: int) -> None:
    """Call ``prctl(option, value)``; ignore failures (a best effort on top of the sandbox)."""
    with contextlib.suppress(OSError, AttributeError):
        if not _LIBC:
            import ctypes  # here: a sandbox that never needs it starts faster without it

            _LIBC.append(ctypes.CDLL(None))
        _LIBC[0].prctl(option, value, 0, 0, 0)


def undumpable() -> None:
    """Forbid ``ptrace`` and ``/proc/<pid>/mem`` access to this process by its own uid."""
    prctl(_PR_SET_DUMPABLE, 0)


def apply_limits(limits: dict[str, Optional[int]]) -> None:
    """Set soft and hard rlimits: the code (not root in the host) cannot raise them again.

    ``limits`` holds ``memory_mb``, ``cpu_seconds``, ``max_processes`` and ``max_file_mb``
    (``None`` for no limit); open descriptors are capped at :data:`MAX_DESCRIPTORS`.
    """
    table = [
        (resource.RLIMIT_AS, limits.get("memory_mb"), _MB),
        (resource.RLIMIT_CPU, limits.get("cpu_seconds"), 1),
        (resource.RLIMIT_NPROC, limits.get("max_processes"), 1),
        (resource.RLIMIT_FSIZE, limits.get("max_file_mb"), _MB),
        (resource.RLIMIT_CORE, 0, 1),
        (resource.RLIMIT_NOFILE, MAX_DESCRIPTORS, 1),
    ]
    for which, value, unit in table:
        if value is None:
            continue
        soft = value * unit
        # One second of grace between SIGXCPU (soft) and SIGKILL (hard).
        hard = soft + 1 if which == resource.RLIMIT_CPU else soft
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (soft, hard))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def become(uid: Optional[int], syscall_filter: Optional[str] = None) -> None:
    """Give up every privilege before user code runs.

    As root inside a privileged sandbox, switch to ``uid`` (a fresh one per job or
    session: distinct users share no process count, keyring or file); that clears every
    capability. Then ``no_new_privs``: no set-uid program can give any back. Last, the
    sandbox's system-call filter (hex, from the configuration), when there is one: a
    failure to load it raises, so no user code runs unfiltered.
    """
    if syscall_filter:
        # Imported while still root: the fresh uid may not traverse the worker's mount.
        from .syscall_filter import install
    if uid is not None and os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    if not _has_no_new_privs():  # bubblewrap has set it already
        prctl(_PR_SET_NO_NEW_PRIVS, 1)
    if syscall_filter:
        install(syscall_filter)


def _has_no_new_privs() -> bool:
    try:
        fd = os.open("/proc/self/status", os.O_RDONLY)
    except OSError:
        return False
    try:
        return b"NoNewPrivs:\t1" in os.read(fd, 1 << 16)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_exact(fd: int, size: int) -> bytes:
    """Read exactly ``size`` bytes from ``fd`` (fewer only at end of file)."""
    parts = []
    while size > 0:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def read_line(fd: int, limit: int = 4096) -> bytes:
    r"""Read one ``\n``-terminated line byte by byte (no read-ahead past it)."""
    line = bytearray()
    while len(line) < limit:
        byte = os.read(fd, 1)
        if not byte or byte == b"\n":
            break
        line += byte
    return bytes(line)


def send_frame(fd: int, header: dict[str, Any], payload: bytes) -> None:
    """Write one frame: a JSON header line carrying ``length``, then the payload."""
    head = dict(header, length=len(payload))
    write_all(fd, json.dumps(head).encode() + b"\n" + payload)


def receive_frame(fd: int) -> tuple[dict[str, Any], bytes]:
    """Read one frame written by :func:`send_frame` (raises ``EOFError`` at end of file)."""
    line = read_line(fd)
    if not line:
        raise EOFError
    header: dict[str, Any] = json.loads(line)
    return header, read_exact(fd, int(header["length"]))


def enter_session(config: dict[str, Any]) -> None:
    """Make this process a session worker: no standard streams, its limits, its own uid."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    apply_limits(config)
    become(config.get("uid"), config.get("syscall_filter"))


def serve_session(config: dict[str, Any], answer: Answer) -> None:
    """Answer framed cells until the parent closes the job pipe (``jobs_fd``).

    Each reply goes to ``replies_fd`` with the job's ``nonce``. A process the code forked
    that returns here exits at once: only the worker itself replies.
    """
    jobs, replies = config["jobs_fd"], config["replies_fd"]
    main_pid = os.getpid()
    while True:
        try:
            header, payload = receive_frame(jobs)
        except (EOFError, ValueError, OSError):
            return
        ok, text, restart = answer(payload.decode("utf-8", "surrogatepass"), float(header["timeout"]))
        if os.getpid() != main_pid:
            os._exit(0)
        data = text.encode("utf-8", "surrogatepass")
        send_frame(replies, {"nonce": header["nonce"], "ok": ok, "restart": restart}, data)


class Capture:
    """A text stream keeping the first ``limit`` characters written to it, counting the rest."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.total = 0

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.total += len(text)
        room = self.limit - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(text)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    @property
    def closed(self) -> bool:
        return False

    def value(self) -> str:
        return "".join(self.parts)

    @property
    def dropped(self) -> int:
        return self.total - self.kept
