"""``PythonInterpreter``: run a model's Python code in a separate, limited process.

Why a separate process: code written by a model may loop forever, allocate all memory,
fork without end, call ``os._exit``, close its streams or print gigabytes. None of that
may touch the agent's own process, so the code never runs in it.

How: a *worker* (a warm ``python -I`` started once, in its own session, with a minimal
environment and a fresh working directory) reads one JSON job per line on its stdin.
For every job it forks a child that puts itself in a new process group, applies the
resource limits (``RLIMIT_AS``, ``RLIMIT_CPU``, ``RLIMIT_NPROC``, ``RLIMIT_FSIZE``),
moves to a fresh temporary directory, redirects the file descriptors 0-2 to
``/dev/null``, captures ``print`` output in a capped buffer and runs the code. The child
sends its answer to the worker over a private pipe; the worker kills the child's whole
process group when the wall-clock timeout expires (and after every job, so nothing the
code started survives), reaps it and answers the caller with one JSON line on its
stdout. Forking from a warm worker makes a short call cost a ``fork`` instead of an
interpreter start, and every call starts from the same clean state.

When the worker itself fails to answer in time (it should not: it runs no user code),
the caller kills the worker's and the job's process groups and starts a new worker.

Running as root: ``RLIMIT_NPROC`` does not apply to root, so the child switches to the
user ``nobody`` before running the code (keeping only the capability to read files when
the Python installation is not readable by other users); a fork bomb then stops at
``max_processes``. Where switching is not possible, the wall-clock timeout and the
``killpg`` of the job's group still contain it.

Linux (or another POSIX system with ``fork``) is required.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
import weakref
from typing import Any, Optional

from .._private.sandbox_source import PRIVILEGES
from ..exceptions import ToolError
from .base_action import BaseAction
from .parser import BaseParser, JsonParser

__all__ = ["PythonInterpreter"]

#: Extra seconds the caller waits for a worker's answer beyond the code's timeout
#: before it decides the worker itself is stuck.
_GRACE = 1.5

#: The environment of the worker: nothing of the caller's, so no keys or tokens.
_BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}

WORKER_SOURCE = (
    r"""
import ctypes, json, os, resource, select, signal, sys, tempfile, shutil, time, traceback, linecache
import math, re, itertools, functools, collections, fractions, decimal, random, datetime, io
"""
    + PRIVILEGES
    + r'''

IS_ROOT = os.geteuid() == 0


NEEDS_READ_CAP = IS_ROOT and needs_read_capability()


class Capture:
    """A text stream keeping the first ``limit`` characters and counting the rest."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, limit):
        self.limit = limit
        self.parts = []
        self.kept = 0
        self.total = 0

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.total += len(text)
        room = self.limit - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(text)

    def flush(self):
        pass

    def close(self):
        pass

    def isatty(self):
        return False

    def writable(self):
        return True

    def readable(self):
        return False

    @property
    def closed(self):
        return False

    def value(self):
        return "".join(self.parts)


def cut(text, limit, total=None):
    total = len(text) if total is None else total
    if total <= limit:
        return text
    return text[:limit] + f"\n... [output truncated: {total} characters, showing the first {limit}]"


def short_traceback(exc):
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<code>"]
    lines = traceback.format_list(frames[-3:]) if frames else []
    text = "".join(lines) + "".join(traceback.format_exception_only(type(exc), exc))
    return text.strip()


def describe_error(exc, job):
    text = short_traceback(exc)
    if isinstance(exc, MemoryError):
        text += f"\n(the memory limit is {job['memory_mb']} MB)"
    elif isinstance(exc, BlockingIOError) and exc.errno == 11:
        text += f"\n(the process limit is {job['max_processes']})"
    elif isinstance(exc, OSError) and exc.errno == 27:
        text += f"\n(the file size limit is {job['max_file_mb']} MB)"
    elif isinstance(exc, RecursionError):
        text += "\n(the recursion is too deep)"
    elif (
        isinstance(exc, NameError)
        and job["mode"] == "expr"
        and getattr(exc, "name", None) is not None
        and job["expr"].startswith(exc.name)
    ):
        text += f"\n(the code must define `def {exc.name}():` returning the answer)"
    return text


def execute(job, out):
    code = job["code"]
    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    scope = {"__name__": "__main__", "__builtins__": __builtins__}
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


def child(job, write_fd, workdir):
    me = os.getpid()
    os.setpgid(0, 0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, write_fd)
    os.closerange(write_fd + 1, 65536)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    mb = 1024 * 1024
    limits = [
        (resource.RLIMIT_AS, job["memory_mb"] * mb),
        (resource.RLIMIT_CPU, job["cpu_seconds"]),
        (resource.RLIMIT_NPROC, job["max_processes"]),
        (resource.RLIMIT_FSIZE, job["max_file_mb"] * mb),
    ]
    for which, value in limits:
        hard = value + 1 if which == resource.RLIMIT_CPU else value
        try:
            resource.setrlimit(which, (value, hard))
        except (ValueError, OSError):
            pass
    if IS_ROOT:
        try:
            os.chown(workdir, NOBODY, NOBODY)
            drop_privileges(NEEDS_READ_CAP, ambient=False)
        except OSError:
            pass
    os.chdir(workdir)
    os.environ["HOME"] = workdir
    os.environ["TMPDIR"] = workdir
    tempfile.tempdir = workdir
    out = Capture(job["max_output_chars"])
    sys.stdout = sys.stderr = out
    sys.stdin = io.StringIO()
    try:
        answer = execute(job, out)
        if job["mode"] == "stdout":
            reply = {"ok": True, "answer": cut(out.value(), out.limit, out.total)}
        else:
            reply = {"ok": True, "answer": cut(str(answer), job["max_output_chars"])}
    except SystemExit as exc:
        call = "sys.exit()" if exc.code is None else f"sys.exit({exc.code!r})"
        reply = {"ok": False, "error": f"the code called {call} before producing an answer"}
    except BaseException as exc:
        try:
            reply = {"ok": False, "error": cut(describe_error(exc, job), 4000)}
        except BaseException as inner:
            reply = {"ok": False, "error": f"{type(exc).__name__} (unprintable: {type(inner).__name__})"}
    if os.getpid() != me:
        os._exit(0)
    try:
        data = json.dumps(reply).encode()
    except BaseException:
        data = json.dumps({"ok": False, "error": "the answer could not be encoded"}).encode()
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view):]
    except BaseException:
        os._exit(70)
    os._exit(0)


def reap_all(limit=0.5):
    """Reap what the job left (its killed descendants come to us as the subreaper)."""
    end = time.monotonic() + limit
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if time.monotonic() > end:
                return
            time.sleep(0.001)


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def run_job(job):
    workdir = tempfile.mkdtemp(prefix="lagent_like_py_")
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            child(job, write_fd, workdir)
        finally:
            os._exit(71)
    os.close(write_fd)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    send({"started": pid})
    deadline = time.monotonic() + job["timeout"]
    chunks, status, timed_out = [], None, False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            kill_group(pid)
            break
        ready, _, _ = select.select([read_fd], [], [], min(left, 0.05))
        if ready:
            data = os.read(read_fd, 65536)
            if not data:
                break
            chunks.append(data)
            continue
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        status = None
    kill_group(pid)
    if status is None:
        _, status = os.waitpid(pid, 0)
    os.set_blocking(read_fd, False)
    try:
        while True:
            data = os.read(read_fd, 65536)
            if not data:
                break
            chunks.append(data)
    except BlockingIOError:
        pass
    os.close(read_fd)
    reap_all()
    shutil.rmtree(workdir, ignore_errors=True)
    if timed_out:
        return {"ok": False, "kind": "timeout"}
    raw = b"".join(chunks)
    if raw:
        try:
            return json.loads(raw)
        except ValueError:
            pass
    if os.WIFSIGNALED(status):
        return {"ok": False, "kind": "signal", "signal": os.WTERMSIG(status)}
    return {"ok": False, "kind": "exit", "status": os.WEXITSTATUS(status)}


def send(message):
    os.write(1, (json.dumps(message) + "\n").encode())


try:
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come to us
except Exception:
    pass
for line in sys.stdin.buffer:
    try:
        job = json.loads(line)
    except ValueError:
        continue
    send(run_job(job))
'''
)


class _Worker:
    """One warm worker process and its pipes; used by one call at a time."""

    def __init__(self) -> None:
        import subprocess

        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-c", WORKER_SOURCE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd="/",
            env=dict(_BASE_ENV),
            close_fds=True,
        )
        self.buffer = b""
        self.job_pid: Optional[int] = None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, job: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(job) + "\n").encode())
        self.proc.stdin.flush()

    def read_message(self, deadline: float) -> Optional[dict[str, Any]]:
        """The worker's next JSON line, or ``None`` when it ends or ``deadline`` passes."""
        import select

        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            data = os.read(fd, 65536)
            if not data:
                return None
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def kill(self) -> None:
        """Kill the worker, the job it runs and everything in their groups; reap it."""
        for pgid in (self.job_pid, self.proc.pid):
            if pgid is not None:
                with contextlib.suppress(OSError):
                    os.killpg(pgid, signal.SIGKILL)
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


class _Pool:
    """Warm workers shared by the calls of one interpreter; at most ``size`` at once."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self.idle: list[_Worker] = []
        self.count = 0
        self.closed = False
        self.cond = threading.Condition()

    def acquire(self) -> _Worker:
        with self.cond:
            while not self.idle and self.count >= self.size:
                self.cond.wait()
            if self.closed:
                raise ToolError("the Python interpreter is closed")
            while self.idle:
                worker = self.idle.pop()
                if worker.alive():
                    return worker
                worker.kill()
                self.count -= 1
            self.count += 1
        try:
            return _Worker()
        except BaseException:
            with self.cond:
                self.count -= 1
                self.cond.notify()
            raise

    def release(self, worker: _Worker, healthy: bool) -> None:
        if healthy and worker.alive() and not self.closed:
            with self.cond:
                self.idle.append(worker)
                self.cond.notify()
            return
        worker.kill()
        with self.cond:
            self.count -= 1
            self.cond.notify()

    def close(self) -> None:

        with self.cond:
            self.closed = True
            idle, self.idle = self.idle, []
            self.count -= len(idle)
            self.cond.notify_all()
        for worker in idle:
            worker.kill()


_SIGNAL_NAMES: dict[int, str] = {
    int(signal.SIGXCPU): "the code used more than its CPU time limit of {cpu} s; the process was stopped",
    int(signal.SIGKILL): "the code's process was killed (SIGKILL), perhaps for using too much memory",
}


class PythonInterpreter(BaseAction):
    """Runs Python code in a separate, resource-limited process.

    Args:
        answer_symbol: the name of a global variable holding the answer, if the answer
            is not computed by ``answer_expr``.
        answer_expr: the expression evaluated after the code to get the answer
            (``'solution()'``). When both ``answer_symbol`` and ``answer_expr`` are
            ``None``, the last line of the code is the answer.
        answer_from_stdout: use what the code prints as the answer.
        timeout: wall-clock seconds per call; the code's whole process group is killed
            when it expires.
        memory_mb: address-space limit of the code's process, in MB.
        cpu_seconds: CPU-time limit of the code's process, in seconds.
        max_processes: process limit (``RLIMIT_NPROC``) of the code's user.
        max_file_mb: largest file the code may write, in MB.
        max_output_chars: the answer (or printed output) is cut to this many characters,
            with a notice.
        pool_size: how many warm workers run calls at the same time.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
    """

    #: Runs code a model wrote: ``serve-mcp`` offers it only when named.
    executes_code = True

    def __init__(
        self,
        answer_symbol: Optional[str] = None,
        answer_expr: Optional[str] = "solution()",
        answer_from_stdout: bool = False,
        timeout: float = 20.0,
        memory_mb: int = 1024,
        cpu_seconds: int = 30,
        max_processes: int = 64,
        max_file_mb: int = 64,
        max_output_chars: int = 100_000,
        pool_size: int = 1,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
    ) -> None:
        super().__init__(description, parser, enable)
        self.answer_symbol = answer_symbol
        self.answer_expr = answer_expr
        self.answer_from_stdout = answer_from_stdout
        # Not ``self.timeout``: that name is the executor's runtime setting.
        self.code_timeout = float(timeout)
        self.memory_mb = int(memory_mb)
        self.cpu_seconds = int(cpu_seconds)
        self.max_processes = int(max_processes)
        self.max_file_mb = int(max_file_mb)
        self.max_output_chars = int(max_output_chars)
        self._pool = _Pool(pool_size)
        self._finalizer = weakref.finalize(self, self._pool.close)

    def run(self, command: str) -> str:
        """This tool is a Python interpreter: it runs the code and returns the answer.

        By default the code must define a function ``def solution():`` that returns the
        answer; the tool calls it and returns the result as text. The code may be given
        plain or in a fenced ``python`` code block. Each call starts from a clean state
        in a fresh working directory, with limits on time, memory and processes.

        Args:
            command: Python code to run. In the default mode it must define
                ``def solution():`` returning the answer.
        """
        if self._finalizer.alive is False:
            raise ToolError("the Python interpreter is closed")
        job = {
            "code": _extract_code(command),
            "mode": self._mode(),
            "expr": self.answer_expr,
            "symbol": self.answer_symbol,
            "timeout": self.code_timeout,
            "memory_mb": self.memory_mb,
            "cpu_seconds": self.cpu_seconds,
            "max_processes": self.max_processes,
            "max_file_mb": self.max_file_mb,
            "max_output_chars": self.max_output_chars,
        }
        reply = self._execute(job)
        if reply.get("ok"):
            return str(reply.get("answer", ""))
        raise ToolError(self._error_text(reply))

    def _mode(self) -> str:
        if self.answer_from_stdout:
            return "stdout"
        if self.answer_symbol:
            return "symbol"
        if self.answer_expr:
            return "expr"
        return "last"

    def _execute(self, job: dict[str, Any]) -> dict[str, Any]:
        worker = self._pool.acquire()
        healthy = False
        try:
            deadline = time.monotonic() + self.code_timeout + _GRACE
            try:
                worker.send(job)
                started = worker.read_message(deadline)
                if started is not None:
                    worker.job_pid = started.get("started")
                    reply = worker.read_message(deadline)
                else:
                    reply = None
            except (OSError, ValueError):
                reply = None
            if reply is None:
                if time.monotonic() >= deadline:
                    return {"ok": False, "kind": "timeout"}
                return {"ok": False, "kind": "worker"}
            healthy = True
            worker.job_pid = None
            return reply
        finally:
            self._pool.release(worker, healthy)

    def _error_text(self, reply: dict[str, Any]) -> str:
        kind = reply.get("kind")
        if kind == "timeout":
            return f"the code did not finish within {self.code_timeout} s; the process was stopped"
        if kind == "signal":
            number = int(reply.get("signal", 0))
            template = _SIGNAL_NAMES.get(number)
            if template is not None:
                return template.format(cpu=self.cpu_seconds)
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            return f"the process running the code crashed ({name}) before producing an answer"
        if kind == "exit":
            return (
                f"the process running the code ended (exit status {reply.get('status')}) "
                "before producing an answer"
            )
        if kind == "worker":
            return "the interpreter's worker process failed; it was replaced, please try again"
        return str(reply.get("error", "the code failed"))

    def close(self) -> None:
        """Stop every worker process of this interpreter. Calls after this fail."""
        self._finalizer()


def _extract_code(command: str) -> str:
    """The code inside the first fenced ``python`` block of ``command``, else all of it."""
    if "```python" in command:
        return command.split("```python", 1)[1].split("```", 1)[0]
    if "```py" in command:
        return command.split("```py", 1)[1].split("```", 1)[0]
    if command.count("```") >= 2:
        return command.split("```", 2)[1]
    return command
