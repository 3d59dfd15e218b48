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
import json
import os
import sys
import threading
import time
import weakref
from typing import Any, Optional

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
WORKER_SOURCE = r'''
import ast, io, json, linecache, os, sys, traceback

MAX_OUTPUT = int(sys.argv[2])
jobs = os.fdopen(os.dup(0), "r", encoding="utf-8")
replies = os.fdopen(int(sys.argv[1]), "w", encoding="utf-8")
devnull = os.open(os.devnull, os.O_RDWR)
os.dup2(devnull, 0)
sys.stdin = open(os.devnull, encoding="utf-8")


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
        if len(text) > room:
            self.dropped += len(text) - max(room, 0)
            text = text[: max(room, 0)]
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
        for frame in traceback.extract_tb(exc.__traceback__):
            if not frame.filename.startswith("<cell-"):
                continue
            where = "  %s, line %s" % (cell_name(frame.filename), frame.lineno)
            if frame.name != "<module>":
                where += ", in " + frame.name
            lines.append(where + "\n")
            if frame.line:
                lines.append("    " + frame.line.strip() + "\n")
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


for line in jobs:
    job = json.loads(line)
    capture = Capture()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = capture
    try:
        value = run(job["code"])
        ok = True
    except BaseException as exc:
        value = short_traceback(exc)
        ok = False
    finally:
        try:
            sys.stdout.flush()
        except BaseException:
            pass
        sys.stdout, sys.stderr = saved
    text = capture.text()
    if value is not None:
        if text and not text.endswith("\n"):
            text += "\n"
        text += value
    replies.write(json.dumps({"ok": ok, "text": text}) + "\n")
    replies.flush()
'''


class _Crashed(Exception):
    """The worker died or its reply was unreadable."""


class _Worker:
    """One Python process holding one session's names.

    Args:
        name: the session id, for messages.
    """

    def __init__(self, name: str) -> None:
        import subprocess

        self.name = name
        self.lock = threading.Lock()
        read_fd, write_fd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", WORKER_SOURCE, str(write_fd), str(MAX_OUTPUT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(write_fd,),
                start_new_session=True,
            )
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        self.replies = read_fd
        self.buffer = b""

    def execute(self, code: str, timeout: float) -> tuple[bool, str]:
        """Run ``code`` and return ``(ok, text)``.

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
            return bool(reply["ok"]), str(reply["text"])
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
        """Kill the worker's process group and reap the worker."""
        import signal

        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        self.proc.wait()
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        with contextlib.suppress(OSError):
            os.close(self.replies)


def _stop_all(workers: dict[str, _Worker], lock: threading.Lock) -> None:
    with lock:
        doomed = list(workers.values())
        workers.clear()
    for worker in doomed:
        worker.stop()


class IPythonInterpreter(BaseAction):
    """A stateful Python session per conversation, run in a separate process.

    Args:
        timeout: the default seconds a call may run before the session is restarted.
            (This is the tool's own limit, not the executor's runtime ``timeout``.)
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
    """

    def __init__(
        self,
        timeout: float = 60.0,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
    ) -> None:
        super().__init__(description, parser, enable)
        self._session_timeout = float(timeout)
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
                ok, text = worker.execute(command, limit)
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
                raise ToolError(
                    f"the Python process {how}; the session was restarted and its state was lost"
                ) from None
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
                worker = self._workers[session] = _Worker(session)
            return worker

    def _restart(self, session: str, old: _Worker) -> None:
        """Replace ``old`` (kill its group) with a fresh worker for ``session``."""
        old.stop()
        with self._workers_lock:
            if self._workers.get(session) is old:
                self._workers[session] = _Worker(session)


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
