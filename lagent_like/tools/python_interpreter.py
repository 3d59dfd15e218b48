"""``PythonInterpreter``: run a model's Python code in a sandbox, one fresh process per call.

Why a sandbox: code written by a model may loop forever, allocate all memory, fork
without end, read the agent's keys or files, open sockets or try to leave processes
behind. None of that may touch the agent or another call, so the code runs in a
bubblewrap sandbox (:mod:`lagent_like.tools.sandbox`, docs/isolation.rst): its own
PID, mount, network and IPC namespaces, a read-only view of the Python installation,
a sized ``tmpfs`` as its only writable place, kernel-enforced rlimits.

How: each slot of the pool is one sandbox whose PID 1 is a *zygote*
(:mod:`lagent_like.tools._worker.python_worker`) that never sees user code. For every call
the parent makes two fresh pipes, hands their far ends to the zygote over a control
socket, writes the job into one and reads the reply from the other. The zygote forks a
child that alone reads the job, drops to a fresh uid, runs the code and replies; when
it ends (or its time is up) the zygote kills every other process of the sandbox,
empties ``/mnt/data`` and ``/dev/shm`` and reports. A call then costs a ``fork``, and no call
can see another's memory, files or processes. The parent reads at most
:attr:`PythonInterpreter.max_reply_bytes` of a reply, so the cap holds whatever the code
writes.

When the zygote itself does not answer in time (it runs no user code, but the code may
kill it), the caller kills the whole sandbox and starts a new one for the next call.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any, Optional

from ..actions.base_action import BaseAction
from ..actions.parser import BaseParser, JsonParser
from ..exceptions import ToolError
from .sandbox import SandboxSpec, make_spec, start_worker
from .worker_io import wait_readable, write_all

__all__ = ["PythonInterpreter"]

#: Extra seconds the caller waits for the zygote beyond the code's timeout before it
#: decides the sandbox itself is stuck.
_GRACE = 2.0

#: Bytes a new pipe holds without a reader (Linux's default; a smaller write never blocks).
_PIPE_BUFFER = 65536

#: Seconds a new sandbox may take to report that its zygote is ready.
_START_TIMEOUT = 30.0


class _Worker:
    """One sandbox with its zygote, and the parent's end of the control socket."""

    def __init__(self, spec: SandboxSpec, config: dict[str, Any]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = start_worker(
                "python_worker", dict(config, control_fd=theirs.fileno()), spec, [theirs.fileno()]
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.control = ours
        self.ready = False

    def wait_ready(self, deadline: float) -> bool:
        if not self.ready:
            self.ready = self.message(deadline) is not None
        return self.ready

    def message(self, deadline: float) -> Optional[dict[str, Any]]:
        """The zygote's next control message, or ``None`` when it ends or ``deadline`` passes."""
        if not wait_readable(self.control, deadline):
            return None
        try:
            data = self.control.recv(4096)
            message: Optional[dict[str, Any]] = json.loads(data) if data else None
        except (OSError, ValueError):
            return None
        return message

    def run(self, job: dict[str, Any], timeout: float, cap: int) -> dict[str, Any]:
        """Send ``job``; the reply, or ``{"ok": False, "kind": ...}`` when there is none."""
        if not self.wait_ready(time.monotonic() + _START_TIMEOUT):
            return {"ok": False, "kind": "worker"}
        deadline = time.monotonic() + timeout + _GRACE  # the sandbox's start is not the code's time
        job_r, job_w = os.pipe()
        reply_r, reply_w = os.pipe()
        try:
            socket.send_fds(self.control, [json.dumps({"timeout": timeout}).encode()], [job_r, reply_w])
        except OSError:
            for fd in (job_r, job_w, reply_r, reply_w):
                os.close(fd)
            return {"ok": False, "kind": "worker"}
        os.close(job_r)
        os.close(reply_w)
        data = json.dumps(job).encode()
        writer = None
        if len(data) <= _PIPE_BUFFER:
            _write_and_close(job_w, data)  # fits in the empty pipe: cannot block
        else:
            writer = threading.Thread(target=_write_and_close, args=(job_w, data))
            writer.start()
        try:
            raw, over = _read_capped(reply_r, deadline, cap)
        finally:
            os.close(reply_r)
        if writer is not None:
            writer.join()
        done = self.message(deadline)
        if done is None:
            # The zygote did not report: the sandbox is replaced (a late report must not
            # be read as the next call's).
            return {
                "ok": False,
                "kind": "timeout" if time.monotonic() >= deadline else "worker",
                "stuck": True,
            }
        return _outcome(done, raw, over)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """Kill the sandbox and everything in it; reap it."""
        self.control.close()
        self.proc.kill()


def _outcome(done: dict[str, Any], raw: bytes, over: bool) -> dict[str, Any]:
    """The reply of a job the zygote reported ``done``, read as ``raw`` (``over`` the cap)."""
    if done.get("timed_out"):
        return {"ok": False, "kind": "timeout"}
    if over:
        return {"ok": False, "kind": "too_big"}
    reply = _parse_frame(raw)
    if reply is not None:
        return reply
    status = int(done.get("status") or 0)
    if raw and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return {"ok": False, "kind": "garbled"}
    if os.WIFSIGNALED(status):
        return {"ok": False, "kind": "signal", "signal": os.WTERMSIG(status)}
    return {"ok": False, "kind": "exit", "status": os.WEXITSTATUS(status)}


def _write_and_close(fd: int, data: bytes) -> None:
    """Write the job into its pipe (the child may die first: then nothing is written)."""
    try:
        write_all(fd, data)
    except OSError:
        pass
    finally:
        os.close(fd)


def _read_capped(fd: int, deadline: float, cap: int) -> tuple[bytes, bool]:
    """Read ``fd`` to its end or ``deadline``; at most ``cap`` bytes (then ``True``)."""
    chunks: list[bytes] = []
    size = 0
    while size <= cap and wait_readable(fd, deadline):
        chunk = os.read(fd, min(1 << 16, cap + 1 - size))
        if not chunk:
            return b"".join(chunks), False
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), size > cap


def _parse_frame(raw: bytes) -> Optional[dict[str, Any]]:
    """The reply in one frame (a JSON header with ``length``, then that many bytes)."""
    head, newline, body = raw.partition(b"\n")
    try:
        length = int(json.loads(head)["length"])
        if not newline or length != len(body):
            return None
        reply: dict[str, Any] = json.loads(body.decode("utf-8", "surrogatepass"))
    except (ValueError, KeyError, TypeError):
        return None
    return reply if isinstance(reply, dict) and isinstance(reply.get("ok"), bool) else None


class _Pool:
    """Sandboxes shared by the calls of one interpreter; at most ``size`` at once."""

    def __init__(self, size: int, spec: SandboxSpec, config: dict[str, Any]) -> None:
        self.size = max(1, size)
        self.spec = spec
        self.config = config
        self.idle: list[_Worker] = []
        self.count = 0
        self.closed = False
        self.cond = threading.Condition()

    def acquire(self) -> _Worker:
        with self.cond:
            while not self.idle and self.count >= self.size and not self.closed:
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
            return _Worker(self.spec, self.config)
        except BaseException:
            with self.cond:
                self.count -= 1
                self.cond.notify()
            raise

    def release(self, worker: _Worker, healthy: bool) -> None:
        if healthy and worker.alive():
            with self.cond:
                if not self.closed:
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
    """Runs Python code in a sandbox, a fresh process per call.

    Args:
        answer_symbol: the name of a global variable holding the answer, if the answer
            is not computed by ``answer_expr``.
        answer_expr: the expression evaluated after the code to get the answer
            (``'solution()'``). When both ``answer_symbol`` and ``answer_expr`` are
            ``None``, the last line of the code is the answer.
        answer_from_stdout: use what the code prints as the answer.
        timeout: wall-clock seconds per call; every process the code started is killed
            when it expires.
        memory_mb: address-space limit of each of the code's processes, in MB.
        cpu_seconds: CPU-time limit of each of the code's processes, in seconds.
        max_processes: how many processes the code may have at once.
        max_file_mb: largest file the code may write, in MB.
        max_output_chars: the answer (or printed output) is cut to this many characters,
            with a notice.
        pool_size: how many sandboxes run calls at the same time.
        network: let the code use the network (off by default: connecting fails).
        isolation, disk_mb, read_only_paths: how the code is confined, as
            :class:`~lagent_like.tools.sandbox.SandboxSpec` says (see docs/isolation.rst).
        description, parser, enable: see :class:`BaseAction`.

    Raises:
        SandboxUnavailableError: ``isolation='sandbox'`` and no sandbox can start here;
            the message names what is missing.
    """

    #: Runs code a model wrote: ``serve-mcp`` and ``inspect`` offer it only when named.
    runs_code = True

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
        network: bool = False,
        isolation: str = "sandbox",
        disk_mb: int = 256,
        read_only_paths: Sequence[str] = (),
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
    ) -> None:
        super().__init__(description, parser, enable)
        spec = make_spec(type(self).__name__, isolation, network, disk_mb, read_only_paths)
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
        self.network = bool(network)
        #: The most bytes the parent reads of one reply (UTF-8 and JSON escapes included).
        self.max_reply_bytes = 6 * self.max_output_chars + 65536
        config = {
            "limits": {
                "memory_mb": self.memory_mb,
                "cpu_seconds": self.cpu_seconds,
                "max_processes": self.max_processes,
                "max_file_mb": self.max_file_mb,
            },
            "job": {
                "memory_mb": self.memory_mb,
                "max_processes": self.max_processes,
                "max_file_mb": self.max_file_mb,
                "max_output_chars": self.max_output_chars,
                "network": self.network,
            },
        }
        self._pool = _Pool(pool_size, spec, config)
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
        reply: dict[str, Any] = {"ok": False, "kind": "worker"}
        try:
            reply = worker.run(job, self.code_timeout, self.max_reply_bytes)
            return reply
        finally:
            self._pool.release(worker, reply.get("kind") != "worker" and not reply.get("stuck"))

    def _error_text(self, reply: dict[str, Any]) -> str:
        kind = reply.get("kind")
        if kind == "timeout":
            return f"the code did not finish within {self.code_timeout} s; the process was stopped"
        if kind == "too_big":
            return (
                f"the code wrote a reply of more than {self.max_reply_bytes} bytes; "
                "it was discarded and the process was stopped"
            )
        if kind == "garbled":
            return "the code wrote into the interpreter's reply channel; its answer was discarded"
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
            return "the interpreter's sandbox failed; it was replaced, please try again"
        return str(reply.get("error", "the code failed"))

    def close(self) -> None:
        """Stop every sandbox of this interpreter. Calls after this fail."""
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


# Lagent 0.5's awaitable twin: the same tool, its APIs awaited (run in a worker thread).
from .async_twin import async_twin  # noqa: E402 - only the twin needs it

AsyncPythonInterpreter = async_twin(PythonInterpreter, __name__)
__all__ += ["AsyncPythonInterpreter"]
