"""The ``PythonInterpreter`` worker: a zygote that forks one fresh process per job.

Runs inside the sandbox (see the package docstring). The zygote never holds user code
or answers. Once it is ready, and again after each job's clean-up, it forks the next
job's process, which sets itself up while the sandbox is idle (a fresh uid and IPC
namespace, its limits, the system-call filter), rehearses an empty job and waits. Per job the parent hands the
zygote the two ends of fresh pipes (over the control socket, as ``SCM_RIGHTS``); the
zygote passes them on to the waiting process, which alone reads the job from one and
writes the reply to the other. So no job can recover an earlier job's data from
inherited memory, and a late or forged reply lands in a pipe nobody reads again. The
modules jobs use are imported by the zygote before it forks (``PRELOADED`` names them).

When the job ends or its time is up the zygote kills every other process of the
sandbox (it is PID 1 of the sandbox's PID namespace, so ``kill(-1)`` reaches exactly
those, and ``setsid()`` escapes nothing) and empties the writable directories, forks the
next job's process, then reports the job's exit status. The job closes its reply pipe
as soon as it has written its answer, so the parent has the answer before that clean-up
(and reads the report before it sends the next job). In the unsafe
``isolation="process"`` mode (no namespaces) the zygote kills the job's session instead
and the job works in a fresh directory.
"""

from __future__ import annotations

# The modules marked ``noqa: F401`` are imported once in the zygote, so that each forked
# job finds them ready.
import collections  # noqa: F401
import contextlib
import datetime  # noqa: F401
import decimal  # noqa: F401
import errno
import fractions  # noqa: F401
import functools  # noqa: F401
import gc
import io
import itertools  # noqa: F401
import json
import linecache
import math  # noqa: F401
import os
import random  # noqa: F401
import re  # noqa: F401
import secrets
import signal
import socket
import stat
import sys
import tempfile
import time
import traceback

from . import syscall_filter
from .common import Capture, apply_limits, become, prctl, send_frame, undumpable

# Annotations only (postponed): importing ``typing`` would slow every sandbox's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

#: The directories the code may write to inside the sandbox, emptied after every job.
SCRATCH = ("/mnt/data", "/dev/shm")

#: ``prctl(PR_SET_PDEATHSIG)`` (linux/prctl.h): a signal this process gets when its parent dies.
_PR_SET_PDEATHSIG = 1

#: The modules loaded when the zygote became ready (shared by every job it forks).
PRELOADED: frozenset[str] = frozenset()


def cut(text: str, limit: int, total: int | None = None) -> str:
    total = len(text) if total is None else total
    if total <= limit:
        return text
    return text[:limit] + f"\n... [output truncated: {total} characters, showing the first {limit}]"


def short_traceback(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<code>"]
    lines = traceback.format_list(frames[-3:]) if frames else []
    text = "".join(lines) + "".join(traceback.format_exception_only(type(exc), exc))
    return text.strip()


def describe_error(exc: BaseException, job: dict[str, Any]) -> str:
    text = short_traceback(exc)
    if isinstance(exc, MemoryError):
        text += f"\n(the memory limit is {job['memory_mb']} MB)"
    elif isinstance(exc, BlockingIOError) and exc.errno == errno.EAGAIN:
        text += f"\n(the process limit is {job['max_processes']})"
    elif isinstance(exc, OSError) and exc.errno == errno.EFBIG:
        text += f"\n(the file size limit is {job['max_file_mb']} MB)"
    elif isinstance(exc, OSError) and exc.errno == errno.EMFILE:
        from .common import MAX_DESCRIPTORS

        text += f"\n(the open-file limit is {MAX_DESCRIPTORS})"
    elif isinstance(exc, OSError) and exc.errno in (errno.ENETUNREACH, errno.ECONNREFUSED):
        if not job["network"]:
            text += "\n(network access is disabled for this tool)"
    elif isinstance(exc, RecursionError):
        text += "\n(the recursion is too deep)"
    elif isinstance(exc, NameError) and job["mode"] == "expr":
        # NameError.name is new in Python 3.10; before, only the message names it.
        name = getattr(exc, "name", None) or str(exc).partition("'")[2].partition("'")[0]
        if name and job["expr"].startswith(name):
            text += f"\n(the code must define `def {name}():` returning the answer)"
    return text


def execute(job: dict[str, Any]) -> Any:
    code = job["code"]
    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    scope: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
    mode = job["mode"]
    if mode == "last":
        lines = code.rstrip().splitlines()
        body, last = "\n".join(lines[:-1]), (lines[-1] if lines else "None")
        exec(compile(body, "<code>", "exec"), scope)
        return eval(compile(last, "<code>", "eval"), scope)
    exec(compile(code, "<code>", "exec"), scope)
    if mode == "stdout":
        return None
    if mode == "symbol":
        return scope[job["symbol"]]
    return eval(compile(job["expr"], "<answer>", "eval"), scope)


def answer(job: dict[str, Any]) -> dict[str, Any]:
    """Run the job's code; the reply to send (never raises)."""
    limit = job["max_output_chars"]
    out = Capture(limit)
    sys.stdout = sys.stderr = out
    sys.stdin = io.StringIO()
    try:
        value = execute(job)
        if job["mode"] == "stdout":
            return {"ok": True, "answer": cut(out.value(), limit, out.total)}
        return {"ok": True, "answer": cut(str(value), limit)}
    except SystemExit as exc:
        call = "sys.exit()" if exc.code is None else f"sys.exit({exc.code!r})"
        return {"ok": False, "error": f"the code called {call} before producing an answer"}
    except BaseException as exc:
        try:
            return {"ok": False, "error": cut(describe_error(exc, job), 4000)}
        except BaseException as inner:
            return {"ok": False, "error": f"{type(exc).__name__} (unprintable: {type(inner).__name__})"}


def prepare(config: dict[str, Any], control: socket.socket) -> tuple[int, socket.socket]:
    """Fork the next job's process, which sets itself up and waits for its job.

    Returns its pid and the zygote's end of the socket that will hand it the job's pipes.
    Called once the previous job is cleaned up, so the set-up (the fork itself, the fresh
    uid and IPC namespace, the limits, the system-call filter) is done while the sandbox
    is idle, not while a caller waits.
    """
    uid: int | None = None
    if config["sandboxed"] and os.geteuid() == 0:
        uid = 1_000_000 + secrets.randbelow(2_000_000_000)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    zygote = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            control.close()
            ours.close()
            spare(config, theirs, uid, zygote)
        finally:
            os._exit(71)
    theirs.close()
    return pid, ours


def spare(config: dict[str, Any], hand: socket.socket, uid: int | None, zygote: int) -> None:
    """The forked job process: set up, wait for the job, serve it.

    Everything that does not depend on the job is done before it comes; then the process
    waits for the job's pipes and serves it (see :func:`serve`), or exits when none comes.
    """
    if not config["sandboxed"]:
        os.setsid()
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))  # not left waiting when the zygote dies
        if os.getppid() != zygote:
            os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, hand.fileno())
    os.closerange(hand.fileno() + 1, 65536)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    confine_ipc(config, uid)
    apply_limits(config["limits"])
    if uid is not None:
        # This job's own directory: an earlier job's uid or mode bits do not carry over.
        os.chown(SCRATCH[0], uid, uid)
        os.chmod(SCRATCH[0], 0o700)
    become(uid, config.get("syscall_filter"))
    rehearse(config)
    try:
        message, fds, _, _ = socket.recv_fds(hand, 4096, 2)
    except OSError:
        os._exit(0)
    hand.close()
    if len(fds) != 2:
        os._exit(0)  # the zygote is stopping
    serve(config, fds[0], fds[1], message.decode())


def rehearse(config: dict[str, Any]) -> None:
    """Run an empty job's steps once, so that the real job finds their pages already copied."""
    job = dict(json.loads(b'{"code": "", "mode": "stdout", "expr": null, "symbol": null}'), **config["job"])
    json.dumps(answer(job), ensure_ascii=False).encode("utf-8", "surrogatepass")


def serve(config: dict[str, Any], job_fd: int, reply_fd: int, workdir: str) -> None:
    """Read the job, run it in ``workdir``, reply, exit."""
    me = os.getpid()
    chunks: list[bytes] = []
    while True:
        chunk = os.read(job_fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(job_fd)
    job = dict(json.loads(b"".join(chunks)), **config["job"])
    os.chdir(workdir)
    os.environ["HOME"] = os.environ["TMPDIR"] = workdir
    tempfile.tempdir = workdir
    reply = answer(job)
    if os.getpid() != me:  # a fork of the code returned here
        os._exit(0)
    try:
        data = json.dumps(reply, ensure_ascii=False).encode("utf-8", "surrogatepass")
    except BaseException:
        data = json.dumps({"ok": False, "error": "the answer could not be encoded"}).encode()
    try:
        send_frame(reply_fd, {}, data)
        # Closed now, not at exit: the caller has its answer as soon as it reads the end.
        os.close(reply_fd)
    except BaseException:
        os._exit(70)
    os._exit(0)


def confine_ipc(config: dict[str, Any], uid: int | None) -> None:
    """Make the job the kernel's first victim when memory runs out.

    As root (``uid`` set), also give it an IPC namespace of its own (see :mod:`.ipc`).
    """
    from . import ipc  # loaded by the zygote's ``main``: this is a dictionary lookup

    ipc.prefer_oom_kill()
    if uid is not None:
        ipc.fresh_namespace(config["limits"]["memory_mb"])


def kill_rest(config: dict[str, Any], pid: int) -> None:
    """Kill every process the job started, then reap them (they are all ours to reap)."""
    for _ in range(1000):
        try:
            if config["sandboxed"]:
                os.kill(-1, signal.SIGKILL)  # PID 1: everything in the namespace but us
            else:
                os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            break
        except PermissionError:
            break
        reap(block=False)
        time.sleep(0.0005)
    reap(block=False)


def reap(block: bool) -> None:
    while True:
        try:
            done, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if done == 0:
            return


def empty(path: str) -> None:
    """Remove everything inside ``path`` (all writers are dead by now); never raises.

    Iterative, walking by ``chdir`` rather than by path or descriptor: a job may leave a
    tree deeper than Python's recursion limit, longer than ``PATH_MAX`` or than the
    descriptors the zygote may hold, directories of mode ``000`` and entries it cannot
    remove; none of that may stop the zygote that serves the next call.
    """
    # The job may have taken its own rights on the directory away (mode 000), which
    # stops its owner when the sandbox runs in a user namespace (no capabilities).
    with contextlib.suppress(OSError):
        os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) | stat.S_IRWXU)
    try:
        os.chdir(path)
    except OSError:
        return
    try:
        stack: list[tuple[Iterator[str], str]] = [(iter(listing()), "")]
        while stack:
            names, own = stack[-1]
            for name in names:
                if remove_or_enter(name):
                    stack.append((iter(listing()), name))
                    break
            else:
                stack.pop()
                if stack:
                    os.chdir("..")
                    with contextlib.suppress(OSError):
                        os.rmdir(own)
    except OSError:
        pass  # a directory changed under us (cannot happen: its writers are dead)
    finally:
        os.chdir("/")


def listing() -> list[str]:
    try:
        return os.listdir(".")
    except OSError:
        return []


def remove_or_enter(name: str) -> bool:
    """Remove the entry ``name`` of the current directory.

    Returns:
        ``True`` when it is a directory still holding entries, now the current directory.
    """
    try:
        if not stat.S_ISDIR(os.lstat(name).st_mode):
            os.unlink(name)
            return False
    except OSError:
        return False  # not ours to remove (nothing of the job's can be)
    try:
        os.rmdir(name)
        return False
    except OSError:
        pass  # not empty, or not ours
    with contextlib.suppress(OSError):
        os.chmod(name, 0o700)  # a directory left at mode 000 (a real directory: checked above)
    try:
        os.chdir(name)
    except OSError:
        return False
    return True


def wait_for(pid: int, timeout: float) -> tuple[int | None, bool]:
    """The job's wait status, and whether its time ran out (then it is killed)."""
    pidfd = os.pidfd_open(pid)
    try:
        import select

        ready, _, _ = select.select([pidfd], [], [], max(0.0, timeout))
    finally:
        os.close(pidfd)
    if not ready:
        return None, True
    _, status = os.waitpid(pid, 0)
    return status, False


def hand_over(hand: socket.socket, workdir: str, job_fd: int, reply_fd: int) -> bool:
    """Send the job's pipes to the waiting job process; ``False`` when it is gone."""
    try:
        socket.send_fds(hand, [workdir.encode()], [job_fd, reply_fd])
    except OSError:
        return False
    return True


def start(
    config: dict[str, Any],
    control: socket.socket,
    ready: tuple[int, socket.socket],
    job_fd: int,
    reply_fd: int,
) -> tuple[int, str]:
    """Hand the job to the waiting job process (a fresh one if it died waiting).

    Returns:
        The job process's pid and the job's work directory.
    """
    workdir = SCRATCH[0] if config["sandboxed"] else tempfile.mkdtemp(prefix="lagent_like_py_")
    pid, hand = ready
    if not hand_over(hand, workdir, job_fd, reply_fd):
        hand.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        pid, hand = prepare(config, control)
        hand_over(hand, workdir, job_fd, reply_fd)  # if this one died too, its status says how
    hand.close()
    os.close(job_fd)
    os.close(reply_fd)
    return pid, workdir


def run_job(
    config: dict[str, Any],
    control: socket.socket,
    ready: tuple[int, socket.socket],
    job_fd: int,
    reply_fd: int,
    timeout: float,
) -> tuple[int, socket.socket]:
    """Run one job, clean up after it, fork the next job's process (returned), report."""
    pid, workdir = start(config, control, ready, job_fd, reply_fd)
    status, timed_out = wait_for(pid, timeout)
    kill_rest(config, pid)
    if status is None:
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            status = 0
    clean(config, workdir)
    following = prepare(config, control)
    done = {"timed_out": timed_out, "status": status}
    control.sendall(json.dumps(done).encode())
    return following


def clean(config: dict[str, Any], workdir: str) -> None:
    """Empty what the job could write (all its processes are dead by now)."""
    if config["sandboxed"]:
        from . import ipc

        for path in SCRATCH:
            empty(path)
        ipc.remove_objects()
    else:
        empty(workdir)
        with contextlib.suppress(OSError):
            os.rmdir(workdir)


def main(config: dict[str, Any]) -> None:
    """Serve jobs until the parent closes the control socket."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    undumpable()
    from . import ipc

    ipc.libc()  # loaded once here rather than in every job
    if not config["sandboxed"]:
        prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: the job's orphans come to us to reap
    control = socket.socket(fileno=config["control_fd"])
    if config.get("syscall_filter"):
        syscall_filter.prepare(config["syscall_filter"])
    global PRELOADED
    PRELOADED = frozenset(sys.modules)
    # What the zygote holds now is shared by every job: keep the collector from touching
    # (and so copying) those pages in each forked child.
    gc.freeze()
    ready = prepare(config, control)
    control.sendall(b'{"ready": true}')
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 4096, 2)
        except OSError:
            return
        if not message or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            return
        ready = run_job(config, control, ready, fds[0], fds[1], float(json.loads(message)["timeout"]))
