"""The sandboxes of one ``PythonInterpreter``: a pool of zygotes, and one job's round trip.

Why apart from the tool: this is the protocol, not the tool. Each sandbox's PID 1 is a
zygote (:mod:`lagent_like.tools.interpreters._worker.python_worker`). For every call the parent
makes two fresh pipes, hands their far ends to the zygote over a control socket, writes
the job into one and reads at most ``cap`` bytes of the reply from the other; the
zygote then cleans up and reports how the job's process ended. :meth:`Zygote.run` turns
all of that into one reply dict, ``{"ok": False, "kind": ...}`` when there is no proper
answer. A whole answer is returned as soon as it is read: the zygote's report (so its
clean-up) is awaited before the slot's next job instead (:meth:`Zygote.settle`), off
the caller's path. A zygote that does not report in time is replaced, with its whole
sandbox.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from typing import Any, Optional

from ...exceptions import ToolError
from ._sandbox import SandboxSpec, start_worker
from ._worker_io import wait_readable, write_all

#: Extra seconds the caller waits for the zygote beyond the code's timeout before it
#: decides the sandbox itself is stuck.
_GRACE = 2.0

#: Bytes a new pipe holds without a reader (Linux's default; a smaller write never blocks).
_PIPE_BUFFER = 65536

#: Seconds a new sandbox may take to report that its zygote is ready.
_START_TIMEOUT = 30.0


class Zygote:
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
        #: The deadline of the report the zygote owes for the last job, if it is unread.
        self.owed: Optional[float] = None

    def wait_ready(self, deadline: float) -> bool:
        if not self.ready:
            self.ready = self.message(deadline) is not None
        return self.ready

    def settle(self) -> bool:
        """Read the report owed for the last job, so that its clean-up is done.

        Returns:
            ``False`` when the zygote did not report by that job's deadline.
        """
        owed, self.owed = self.owed, None
        return owed is None or self.message(owed) is not None

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
        reply = None if over else _parse_frame(raw)
        if reply is not None:
            self.owed = deadline  # the clean-up report is read before the next job
            return reply
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
    """Why a job the zygote reported ``done`` has no answer (``raw`` was read, ``over`` the cap)."""
    if done.get("timed_out"):
        return {"ok": False, "kind": "timeout"}
    if over:
        return {"ok": False, "kind": "too_big"}
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


class Pool:
    """Sandboxes shared by the calls of one interpreter; at most ``size`` at once."""

    def __init__(self, size: int, spec: SandboxSpec, config: dict[str, Any]) -> None:
        self.size = max(1, size)
        self.spec = spec
        self.config = config
        self.idle: list[Zygote] = []
        self.count = 0
        #: Sandboxes started so far: a call that needed a new one (the first, or after a
        #: sandbox was lost) counts one.
        self.started = 0
        self.closed = False
        self.cond = threading.Condition()

    def acquire(self) -> Zygote:
        """An idle sandbox whose last job is cleaned up, or a new one."""
        while True:
            worker = self._take()
            if worker is None:
                return self._start()
            if worker.settle() and worker.alive():
                return worker
            self._discard(worker)

    def _take(self) -> Optional[Zygote]:
        """Wait for an idle sandbox or a free slot; ``None`` reserves a slot for a new one."""
        with self.cond:
            while not self.idle and self.count >= self.size and not self.closed:
                self.cond.wait()
            if self.closed:
                raise ToolError("the Python interpreter is closed")
            if self.idle:
                return self.idle.pop()
            self.count += 1
            self.started += 1
            return None

    def _start(self) -> Zygote:
        try:
            return Zygote(self.spec, self.config)
        except BaseException:
            with self.cond:
                self.count -= 1
                self.cond.notify()
            raise

    def _discard(self, worker: Zygote) -> None:
        """Kill a sandbox that cannot serve and free its slot."""
        worker.kill()
        with self.cond:
            self.count -= 1
            self.cond.notify()

    def release(self, worker: Zygote, healthy: bool) -> None:
        if healthy and worker.alive():
            with self.cond:
                if not self.closed:
                    self.idle.append(worker)
                    self.cond.notify()
                    return
            worker.settle()  # closed meanwhile: its last clean-up is done before it is killed
        self._discard(worker)

    def close(self) -> None:
        with self.cond:
            self.closed = True
            idle, self.idle = self.idle, []
            self.count -= len(idle)
            self.cond.notify_all()
        for worker in idle:
            worker.settle()  # its last clean-up (a work directory outside a sandbox) is done
            worker.kill()
