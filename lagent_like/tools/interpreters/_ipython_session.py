"""One ``IPythonInterpreter`` session seen from the agent: its sandbox, its pipes, its replies.

Why apart from the tool: this is the protocol, not the tool. The parent sends one framed
job per call (a JSON header line with a fresh ``nonce``, ``length`` and ``timeout``,
then the code) and reads framed replies from a dedicated pipe, dropping any frame
without that nonce and reading at most :attr:`SessionWorker.cap` bytes for one; so what
the code prints or writes cannot pass for a later answer. When no proper reply comes,
:meth:`SessionWorker.failure` says why in the words the model is shown.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any, Optional

from ...exceptions import LagentLikeError
from ._sandbox import SandboxSpec, start_worker
from ._worker_io import wait_readable, write_all

#: What every failure that replaced a session's worker ends with.
LOST = "the session was restarted and its state was lost"


#: How a reply that was read broke the protocol (the ``Crashed`` reasons).
_BAD_REPLIES = {"too_big": "a reply of more than {cap} bytes", "garbled": "an unreadable reply"}


class Crashed(LagentLikeError):
    """The worker died, or its reply was unreadable (``'garbled'``) or too big (``'too_big'``)."""


@dataclasses.dataclass(frozen=True)
class Limits:
    """The limits applied to a worker process (see ``IPythonInterpreter``)."""

    memory_mb: Optional[int]
    cpu_seconds: Optional[int]
    max_processes: Optional[int]
    max_file_mb: Optional[int]
    max_output_chars: int


class SessionWorker:
    """One session's sandbox and worker process, and the parent's ends of its pipes.

    Args:
        limits: the limits the worker applies to itself before running any code.
        spec: how the worker is confined.
        module: the :mod:`lagent_like.tools.interpreters._worker` module to run.
        extra: more configuration for that module.
    """

    def __init__(self, limits: Limits, spec: SandboxSpec, module: str, extra: dict[str, Any]) -> None:
        self.limits = limits
        self.sandboxed = spec.isolation == "sandbox"
        self.lock = threading.Lock()
        self.workdir = None if self.sandboxed else tempfile.mkdtemp(prefix="lagent_like_ipython_")
        jobs_r, jobs_w = os.pipe()
        replies_r, replies_w = os.pipe()
        config = dict(
            extra,
            **dataclasses.asdict(limits),
            network=spec.network,
            jobs_fd=jobs_r,
            replies_fd=replies_w,
            # A fresh uid for the session (used only by a root worker inside a sandbox).
            uid=1_000_000 + secrets.randbelow(2_000_000_000) if self.sandboxed else None,
        )
        try:
            self.proc = start_worker(module, config, spec, [jobs_r, replies_w], cwd=self.workdir or "/")
        except BaseException:
            for fd in (jobs_w, replies_r):
                os.close(fd)
            self._remove_workdir()
            raise
        finally:
            os.close(jobs_r)
            os.close(replies_w)
        self.jobs = jobs_w
        self.replies = replies_r
        self.buffer = b""
        #: The most bytes read for one reply: UTF-8 text of the capped output, and a header.
        self.cap = 4 * limits.max_output_chars + 4 * 4096

    def execute(self, code: str, timeout: float, grace: float = 0.0) -> tuple[bool, str, bool]:
        """Run ``code`` and return ``(ok, text, restart)``.

        ``restart`` is true when the code hit the process limit: whatever it forked (a
        fork bomb, or the zombies left of one, which still count) must then be stopped.

        Raises:
            TimeoutError: no reply within ``timeout`` seconds (the worker is left running).
            Crashed: the worker died before replying, or replied beyond the cap.
        """
        nonce = secrets.token_hex(16)
        payload = code.encode("utf-8", "surrogatepass")
        head = json.dumps({"nonce": nonce, "length": len(payload), "timeout": timeout}).encode() + b"\n"
        deadline = time.monotonic() + timeout + grace
        writer = threading.Thread(target=self._write, args=(head + payload,), daemon=True)
        writer.start()
        while True:
            header = self._read_header(deadline)
            body = self._read_exact(int(header["length"]), deadline)
            if header.get("nonce") == nonce:
                writer.join()
                if self.write_error is not None:
                    raise Crashed from self.write_error
                text = body.decode("utf-8", "replace")
                return bool(header["ok"]), text, bool(header.get("restart"))

    write_error: Optional[OSError] = None

    def _write(self, data: bytes) -> None:
        try:
            write_all(self.jobs, data)
        except OSError as exc:
            self.write_error = exc

    def _fill(self, deadline: float) -> None:
        if not wait_readable(self.replies, deadline):
            raise TimeoutError
        chunk = os.read(self.replies, 1 << 16)
        if not chunk:
            raise Crashed
        self.buffer += chunk

    def _read_header(self, deadline: float) -> dict[str, Any]:
        while b"\n" not in self.buffer:
            if len(self.buffer) > 4096:
                raise Crashed("garbled")
            self._fill(deadline)
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            header: dict[str, Any] = json.loads(line)
            if not isinstance(header, dict):
                raise Crashed("garbled")
            if not 0 <= int(header["length"]) <= self.cap:
                raise Crashed("too_big")
        except (ValueError, KeyError, TypeError) as exc:
            raise Crashed("garbled") from exc
        return header

    def _read_exact(self, size: int, deadline: float) -> bytes:
        while len(self.buffer) < size:
            self._fill(deadline)
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def failure(self, error: Exception, timeout: float) -> str:
        """What the model is told when :meth:`execute` raised ``error`` (before the restart).

        A worker that died is given a second to report how.
        """
        if isinstance(error, TimeoutError):
            return f"the code did not finish within {_seconds(timeout)} s; {LOST}"
        if error.args:
            what = _BAD_REPLIES[error.args[0]].format(cap=self.cap)
            return f"the code wrote {what} into the interpreter's reply channel; {LOST}"
        return f"the Python process {self._how_it_ended()}; {LOST}"

    def _how_it_ended(self) -> str:
        try:
            status = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "crashed"
        if status > 128 and self.sandboxed:
            status = 128 - status  # bubblewrap exits with 128 + the signal that killed the worker
        if status >= 0:
            return f"exited with code {status}"
        how = f"was killed by signal {-status}"
        if -status == signal.SIGXCPU and self.limits.cpu_seconds is not None:
            how += f" (it used its CPU time limit of {self.limits.cpu_seconds} s)"
        return how

    def stop(self) -> None:
        """Kill the sandbox (every process in it), close the pipes, remove any directory."""
        self.proc.kill()
        for fd in (self.jobs, self.replies):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._remove_workdir()

    def _remove_workdir(self) -> None:
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)


def stop_all(workers: dict[str, SessionWorker], lock: threading.Lock) -> None:
    """Stop the workers of a tool's sessions (``workers``, guarded by ``lock``); forget them."""
    with lock:
        doomed = list(workers.values())
        workers.clear()
    for worker in doomed:
        worker.stop()


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
