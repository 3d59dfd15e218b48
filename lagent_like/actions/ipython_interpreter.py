"""``IPythonInterpreter``: a stateful Python session per conversation, like a notebook.

Lagent's ``IPythonInterpreter`` drives a Jupyter kernel. A kernel is a heavy dependency
for what a model needs: code that runs in a process of its own (so a crash or an
endless loop cannot take the agent down), names that survive from one call to the
next, and the value of the last expression shown as a notebook shows it
(``import math;math.sqrt(100)`` -> ``10.0``). This module gives exactly that with the
standard library only.

Each session (``ToolContext.session_id``, ``'default'`` for direct calls) owns one
worker process, started with ``python -c`` in a process group of its own. The parent
sends one JSON job per line on the worker's stdin and reads one JSON reply per line
from a dedicated pipe, so whatever the user's code prints (it is captured in the
worker) can never be mistaken for a reply. A call that runs past its timeout kills the
whole process group (children the code started included) and a fresh worker takes its
place; the model is told plainly that the session's state was lost, as it is when the
worker dies on its own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import sys
import threading
import time
import weakref
from typing import Any, Optional

from .._private.sandbox_source import PRIVILEGES
from ..context import DEFAULT_SESSION, ToolContext
from ..exceptions import ToolError
from .base_action import BaseAction, tool_api
from .parser import BaseParser, JsonParser

__all__ = ["WORKER_SOURCE", "IPythonInterpreter"]

#: The longest printed output (in characters) a call returns; the rest is cut with a notice.
MAX_OUTPUT = 100_000

#: The program each worker process runs (``python -c``). It reads jobs (``{"code": ...}``)
#: from its stdin, one JSON object per line, and answers each on the file descriptor
#: given as its first argument: ``{"ok": bool, "text": str}``.
WORKER_SOURCE = (
    r"""
import ast, ctypes, io, json, linecache, os, resource, signal, sys, traceback
"""
    + PRIVILEGES
    + r'''

CONFIG = json.loads(sys.argv[2])
MAX_OUTPUT = CONFIG["max_output_chars"]
MAIN_PID = os.getpid()
jobs = os.fdopen(os.dup(0), "r", encoding="utf-8")
replies = os.fdopen(int(sys.argv[1]), "w", encoding="utf-8")
devnull = os.open(os.devnull, os.O_RDWR)
os.dup2(devnull, 0)
sys.stdin = open(os.devnull, encoding="utf-8")


def drop_to_nobody(workdir):
    os.chown(workdir, NOBODY, NOBODY)
    drop_privileges(needs_read_capability(), ambient=True)


def apply_limits():
    mb = 1024 * 1024
    limits = [
        (resource.RLIMIT_AS, CONFIG["memory_mb"] * mb if CONFIG["memory_mb"] else None),
        (resource.RLIMIT_CPU, CONFIG["cpu_seconds"]),
        (resource.RLIMIT_NPROC, CONFIG["max_processes"]),
        (resource.RLIMIT_FSIZE, CONFIG["max_file_mb"] * mb if CONFIG["max_file_mb"] else None),
    ]
    for which, value in limits:
        if value is None:
            continue
        hard = value + 1 if which == resource.RLIMIT_CPU else value
        try:
            resource.setrlimit(which, (value, hard))
        except (ValueError, OSError):
            pass
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if os.geteuid() == 0:
        try:
            drop_to_nobody(os.getcwd())
        except OSError:
            pass


apply_limits()


def hit_process_limit(exc):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno == 11:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


class Capture(io.TextIOBase):
    """A text stream that keeps the first MAX_OUTPUT characters written to it."""

    def __init__(self):
        self.parts = []
        self.size = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not " + type(text).__name__)
        room = MAX_OUTPUT - self.size
        if room <= 0:
            self.dropped += len(text)
            return len(text)
        if len(text) > room:
            self.dropped += len(text) - room
            text = text[:room]
        self.parts.append(text)
        self.size += len(text)
        return len(text)

    def text(self):
        out = "".join(self.parts)
        if self.dropped:
            out += "\n[output truncated: %d more characters]\n" % self.dropped
        return out


namespace = {"__name__": "__main__", "__builtins__": __builtins__}
count = 0


def cell_name(filename):
    return "Cell In[%s]" % filename[len("<cell-"):-1]


def short_traceback(exc):
    lines = []
    if not isinstance(exc, SyntaxError):
        lines.append("Traceback (most recent call last):\n")
        previous, repeated = None, 0
        for frame in traceback.extract_tb(exc.__traceback__):
            if not frame.filename.startswith("<cell-"):
                continue
            key = (frame.filename, frame.lineno, frame.name)
            if key == previous:
                repeated += 1
                if repeated >= 3:
                    continue
            else:
                if repeated > 2:
                    lines.append("  [Previous line repeated %d more times]\n" % (repeated - 2))
                previous, repeated = key, 0
            where = "  %s, line %s" % (cell_name(frame.filename), frame.lineno)
            if frame.name != "<module>":
                where += ", in " + frame.name
            lines.append(where + "\n")
            if frame.line:
                lines.append("    " + frame.line.strip() + "\n")
        if repeated > 2:
            lines.append("  [Previous line repeated %d more times]\n" % (repeated - 2))
    for line in traceback.format_exception_only(type(exc), exc):
        if line.startswith('  File "<cell-'):
            name, _, rest = line[len('  File "'):].partition('"')
            line = "  " + cell_name(name) + rest
        lines.append(line)
    return "".join(lines).rstrip("\n")


def run(code):
    global count
    count += 1
    filename = "<cell-%d>" % count
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    tree = ast.parse(code, filename, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), namespace)
    if last is not None:
        value = eval(compile(last, filename, "eval"), namespace)
        if value is not None:
            namespace["_"] = value
            return repr(value)
    return None


def describe(exc):
    """The traceback of ``exc`` with a note on the limit it hit; whether to restart."""
    text = short_traceback(exc)
    restart = False
    if isinstance(exc, SystemExit):
        text += "\n(the code called sys.exit(); the session was not ended and keeps its state)"
    elif isinstance(exc, MemoryError) and CONFIG["memory_mb"]:
        text += "\n(the memory limit is %d MB)" % CONFIG["memory_mb"]
    elif hit_process_limit(exc):
        text += "\n(the process limit is %d)" % CONFIG["max_processes"]
        restart = True
    elif isinstance(exc, OSError) and exc.errno == 27 and CONFIG["max_file_mb"]:
        text += "\n(the file size limit is %d MB)" % CONFIG["max_file_mb"]
    return text, restart


def capped(text):
    if len(text) <= MAX_OUTPUT:
        return text
    return text[:MAX_OUTPUT] + "\n[output truncated: %d more characters]\n" % (len(text) - MAX_OUTPUT)


for line in jobs:
    job = json.loads(line)
    capture = Capture()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = capture
    restart = False
    try:
        value = run(job["code"])
        ok = True
    except BaseException as exc:
        if os.getpid() != MAIN_PID:
            os._exit(1)
        try:
            value, restart = describe(exc)
        except BaseException as inner:
            value = "%s (its traceback could not be shown: %s)" % (type(exc).__name__, type(inner).__name__)
        ok = False
    finally:
        if os.getpid() != MAIN_PID:
            os._exit(0)
        try:
            sys.stdout.flush()
        except BaseException:
            pass
        sys.stdout, sys.stderr = saved
    text = capture.text()
    if value is not None:
        if text and not text.endswith("\n"):
            text += "\n"
        text += capped(value)
    replies.write(json.dumps({"ok": ok, "text": text, "restart": restart}) + "\n")
    replies.flush()
'''
)


class _Crashed(Exception):
    """The worker died or its reply was unreadable."""


#: The variables of the worker's environment besides ``HOME`` and ``TMPDIR`` (its session
#: directory), with their values when the caller has none. Nothing else of the caller's
#: environment (keys, tokens) reaches the code.
_ENV_DEFAULTS = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


@dataclasses.dataclass(frozen=True)
class _Limits:
    """The limits applied to a worker process (see :class:`IPythonInterpreter`)."""

    memory_mb: Optional[int]
    cpu_seconds: Optional[int]
    max_processes: Optional[int]
    max_file_mb: Optional[int]
    max_output_chars: int


class _Worker:
    """One Python process holding one session's names, in a fresh temporary directory.

    Args:
        name: the session id, for messages.
        limits: the limits the worker applies to itself before running any code.
    """

    def __init__(self, name: str, limits: _Limits) -> None:
        import subprocess
        import tempfile

        self.name = name
        self.lock = threading.Lock()
        self.workdir = tempfile.mkdtemp(prefix="lagent_like_ipython_")
        env = {key: os.environ.get(key) or default for key, default in _ENV_DEFAULTS.items()}
        env["HOME"] = env["TMPDIR"] = self.workdir
        read_fd, write_fd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", WORKER_SOURCE, str(write_fd), json.dumps(dataclasses.asdict(limits))],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(write_fd,),
                start_new_session=True,
                cwd=self.workdir,
                env=env,
            )
        except BaseException:
            os.close(read_fd)
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise
        finally:
            os.close(write_fd)
        self.replies = read_fd
        self.buffer = b""

    def execute(self, code: str, timeout: float) -> tuple[bool, str, bool]:
        """Run ``code`` and return ``(ok, text, restart)``.

        ``restart`` is true when the code hit the process limit: whatever it forked (a
        fork bomb, or the zombies left of one, which still count) must then be stopped.

        Raises:
            TimeoutError: no reply within ``timeout`` seconds (the worker is left running).
            _Crashed: the worker died before replying.
        """
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps({"code": code}) + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except OSError as exc:
            raise _Crashed from exc
        line = self._read_line(time.monotonic() + timeout)
        try:
            reply = json.loads(line)
            return bool(reply["ok"]), str(reply["text"]), bool(reply.get("restart"))
        except (ValueError, KeyError, TypeError) as exc:
            raise _Crashed from exc

    def _read_line(self, deadline: float) -> bytes:
        import select

        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.replies], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.replies, 1 << 16)
            if not chunk:
                raise _Crashed
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def exit_code(self) -> Optional[int]:
        """The worker's exit status once it has died (waiting briefly), else ``None``."""
        import subprocess

        try:
            return self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        """Kill the worker's process group, reap the worker and remove its directory."""

        group = self.proc.pid
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            if self.proc.poll() is None:
                self.proc.kill()
        self.proc.wait()
        # A process forking at the moment of the first kill may have added a member.
        for _ in range(3):
            try:
                os.killpg(group, signal.SIGKILL)
            except OSError:
                break
            time.sleep(0.005)
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        with contextlib.suppress(OSError):
            os.close(self.replies)
        shutil.rmtree(self.workdir, ignore_errors=True)


def _stop_all(workers: dict[str, _Worker], lock: threading.Lock) -> None:
    with lock:
        doomed = list(workers.values())
        workers.clear()
    for worker in doomed:
        worker.stop()


class IPythonInterpreter(BaseAction):
    """A stateful Python session per conversation, run in a separate process.

    Each session's process runs in a fresh temporary working directory (also its
    ``HOME`` and ``TMPDIR``, removed when the session ends), with an environment holding
    only ``PATH`` and ``LANG`` besides, and limits it applies to itself before running any
    code. Run as root, the process switches to the user ``nobody`` (``RLIMIT_NPROC`` does
    not apply to root), keeping the capability to read files when the Python installation
    is not readable by other users.

    Args:
        timeout: the default seconds a call may run before the session is restarted.
            (This is the tool's own limit, not the executor's runtime ``timeout``.)
        memory_mb: address-space limit (``RLIMIT_AS``) of a session's process, in MB;
            ``None`` for none. Going over it gives a ``MemoryError`` in the session.
        cpu_seconds: CPU-time limit (``RLIMIT_CPU``) of a session's process over its whole
            life, not per call; ``None`` (the default) for none, the per-call ``timeout``
            already bounds a call.
        max_processes: process limit (``RLIMIT_NPROC``) of a session's user; ``None`` for
            none. Code that hits it is stopped and its session restarted, so that a fork bomb
            (or the zombies it leaves, which still count) cannot linger.
        max_file_mb: largest file a session may write (``RLIMIT_FSIZE``), in MB; ``None``
            for none.
        max_output_chars: the printed output (and the value shown) of a call is cut to this
            many characters, with a notice.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
    """

    #: Runs code a model wrote: ``serve-mcp`` offers it only when named.
    executes_code = True

    def __init__(
        self,
        timeout: float = 60.0,
        memory_mb: Optional[int] = 1024,
        cpu_seconds: Optional[int] = None,
        max_processes: Optional[int] = 64,
        max_file_mb: Optional[int] = 64,
        max_output_chars: int = 100_000,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
    ) -> None:
        super().__init__(description, parser, enable)
        self._session_timeout = float(timeout)
        self._limits = _Limits(
            memory_mb=_positive_or_none("memory_mb", memory_mb),
            cpu_seconds=_positive_or_none("cpu_seconds", cpu_seconds),
            max_processes=_positive_or_none("max_processes", max_processes),
            max_file_mb=_positive_or_none("max_file_mb", max_file_mb),
            max_output_chars=_positive("max_output_chars", max_output_chars),
        )
        self._workers: dict[str, _Worker] = {}
        self._workers_lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _stop_all, self._workers, self._workers_lock)

    @tool_api
    def run(self, command: str, timeout: Optional[int] = None, context: Optional[ToolContext] = None) -> str:
        """When you send a message containing Python code to python, it will be executed in a stateful Jupyter notebook environment. python will respond with the output of the execution or time out after 60.0 seconds. The drive at '/mnt/data' can be used to save and persist user files. Internet access for this session is disabled. Do not make external web requests or API calls as they will fail.

        Args:
            command (:class:`str`): Python code
            timeout (:class:`Optional[int]`): Upper bound of waiting time for Python script execution.
        """  # noqa: E501 - Lagent's description, word for word
        session = context.session_id if context is not None else DEFAULT_SESSION
        limit = self._session_timeout if timeout is None else float(timeout)
        if limit <= 0:
            raise ToolError(f"timeout must be a positive number of seconds, got {timeout}")
        worker = self._worker(session)
        with worker.lock:
            try:
                ok, text, restart = worker.execute(command, limit)
            except TimeoutError:
                self._restart(session, worker)
                raise ToolError(
                    f"the code did not finish within {_seconds(limit)} s; "
                    "the session was restarted and its state was lost"
                ) from None
            except _Crashed:
                code = worker.exit_code()
                self._restart(session, worker)
                how = f"exited with code {code}" if code is not None and code >= 0 else "crashed"
                if code is not None and code < 0:
                    how = f"was killed by signal {-code}"
                    if -code == signal.SIGXCPU and self._limits.cpu_seconds is not None:
                        how += f" (it used its CPU time limit of {self._limits.cpu_seconds} s)"
                raise ToolError(
                    f"the Python process {how}; the session was restarted and its state was lost"
                ) from None
            if restart:
                self._restart(session, worker)
                text += (
                    "\nthe processes the code started were stopped; "
                    "the session was restarted and its state was lost"
                )
        if not ok:
            raise ToolError(text)
        return text

    def reset(self, session_id: str = DEFAULT_SESSION) -> None:
        """Forget every name of session ``session_id`` by restarting its process.

        Args:
            session_id: the session to restart; one that never ran is left alone.
        """
        with self._workers_lock:
            worker = self._workers.pop(session_id, None)
        if worker is not None:
            with worker.lock:
                worker.stop()

    def close(self) -> None:
        """Stop every session's process. The tool stays usable: a later call starts afresh."""
        _stop_all(self._workers, self._workers_lock)

    def _worker(self, session: str) -> _Worker:
        with self._workers_lock:
            worker = self._workers.get(session)
            if worker is None:
                worker = self._workers[session] = _Worker(session, self._limits)
            return worker

    def _restart(self, session: str, old: _Worker) -> None:
        """Replace ``old`` (kill its group) with a fresh worker for ``session``."""
        old.stop()
        with self._workers_lock:
            if self._workers.get(session) is old:
                self._workers[session] = _Worker(session, self._limits)


def _positive_or_none(name: str, value: Optional[int]) -> Optional[int]:
    """``value`` as an ``int``, checked to be positive (``None`` stays ``None``)."""
    if value is None:
        return None
    if isinstance(value, bool) or int(value) != value or value <= 0:
        raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
    return int(value)


def _positive(name: str, value: int) -> int:
    """``value`` as an ``int``, checked to be positive."""
    checked = _positive_or_none(name, value)
    if checked is None:
        raise ValueError(f"{name} must be a positive integer, got None")
    return checked


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
