"""``IPythonInterpreter``: a stateful Python session per conversation, like a notebook.

Lagent's ``IPythonInterpreter`` drives a Jupyter kernel. A kernel is a heavy dependency
for what a model needs: code that runs in a process of its own (so a crash or an
endless loop cannot take the agent down), names that survive from one call to the
next, and the value of the last expression shown as a notebook shows it
(``import math;math.sqrt(100)`` -> ``10.0``). This module gives exactly that with the
standard library only.

Each session (``ToolContext.session_id``, ``'default'`` for direct calls) owns one
sandbox (:mod:`lagent_like.tools.sandbox`, docs/isolation.rst) running one worker
(:mod:`lagent_like.tools._worker.ipython_worker`) as a fresh uid: sessions see neither each
other's files nor processes, and each has its own process count. The parent sends one
framed job per call with a fresh nonce and reads framed replies from a dedicated pipe,
dropping any frame without that nonce and reading at most ``max_reply_bytes``; so what
the code prints or writes cannot pass for a later answer. A call that runs past its
timeout kills the whole sandbox (every process the code started included) and a fresh
one takes its place; the model is told plainly that the session's state was lost, as it
is when the worker dies on its own. :meth:`IPythonInterpreter.end_session` reclaims a
session when its conversation ends.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any, Optional

from ..actions.base_action import BaseAction, tool_api
from ..actions.parser import BaseParser, JsonParser
from ..exceptions import ToolError
from ..runtime.context import DEFAULT_SESSION, ToolContext
from .sandbox import SandboxSpec, check_spec, start_worker

__all__ = ["IPythonInterpreter"]

#: The longest printed output (in characters) a call returns; the rest is cut with a notice.
MAX_OUTPUT = 100_000

#: Lagent's sentence about the network, and what replaces it when the operator enables it.
_NO_NETWORK = (
    "Internet access for this session is disabled. "
    "Do not make external web requests or API calls as they will fail."
)
_NETWORK = "Internet access for this session is enabled."


class _Crashed(Exception):
    """The worker died or its reply was unreadable."""


@dataclasses.dataclass(frozen=True)
class _Limits:
    """The limits applied to a worker process (see :class:`IPythonInterpreter`)."""

    memory_mb: Optional[int]
    cpu_seconds: Optional[int]
    max_processes: Optional[int]
    max_file_mb: Optional[int]
    max_output_chars: int


class _Worker:
    """One session's sandbox and worker process, and the parent's ends of its pipes.

    Args:
        name: the session id, for messages.
        limits: the limits the worker applies to itself before running any code.
        spec: how the worker is confined.
        module: the :mod:`lagent_like.tools._worker` module to run.
        extra: more configuration for that module.
    """

    def __init__(
        self, name: str, limits: _Limits, spec: SandboxSpec, module: str, extra: dict[str, Any]
    ) -> None:
        self.name = name
        self.lock = threading.Lock()
        self.workdir = (
            tempfile.mkdtemp(prefix="lagent_like_ipython_") if spec.isolation == "process" else None
        )
        jobs_r, jobs_w = os.pipe()
        replies_r, replies_w = os.pipe()
        config = dict(
            extra,
            **dataclasses.asdict(limits),
            network=spec.network,
            jobs_fd=jobs_r,
            replies_fd=replies_w,
            # A fresh uid for the session (used only by a root worker inside a sandbox).
            uid=1_000_000 + secrets.randbelow(2_000_000_000) if spec.isolation == "sandbox" else None,
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
            _Crashed: the worker died before replying, or replied beyond the cap.
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
                    raise _Crashed from self.write_error
                text = body.decode("utf-8", "replace")
                return bool(header["ok"]), text, bool(header.get("restart"))

    write_error: Optional[OSError] = None

    def _write(self, data: bytes) -> None:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.jobs, view) :]
        except OSError as exc:
            self.write_error = exc

    def _fill(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        ready, _, _ = select.select([self.replies], [], [], left)
        if not ready:
            raise TimeoutError
        chunk = os.read(self.replies, 1 << 16)
        if not chunk:
            raise _Crashed
        self.buffer += chunk

    def _read_header(self, deadline: float) -> dict[str, Any]:
        while b"\n" not in self.buffer:
            if len(self.buffer) > 4096:
                raise _Crashed("garbled")
            self._fill(deadline)
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            header: dict[str, Any] = json.loads(line)
            if not isinstance(header, dict):
                raise _Crashed("garbled")
            if not 0 <= int(header["length"]) <= self.cap:
                raise _Crashed("too_big")
        except (ValueError, KeyError, TypeError) as exc:
            raise _Crashed("garbled") from exc
        return header

    def _read_exact(self, size: int, deadline: float) -> bytes:
        while len(self.buffer) < size:
            self._fill(deadline)
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def exit_code(self) -> Optional[int]:
        """The worker's exit status once it has died (waiting briefly), else ``None``."""
        try:
            return self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return None

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


def _stop_all(workers: dict[str, _Worker], lock: threading.Lock) -> None:
    with lock:
        doomed = list(workers.values())
        workers.clear()
    for worker in doomed:
        worker.stop()


class IPythonInterpreter(BaseAction):
    """A stateful Python session per conversation, each in a sandbox of its own.

    Each session's worker runs in its own bubblewrap sandbox (see docs/isolation.rst):
    it reads only the Python installation (and ``read_only_paths``), writes only its
    ``tmpfs`` work directory ``/mnt/data`` (also ``/tmp``, ``HOME`` and ``TMPDIR``; gone
    when the session ends), sees no other process and, unless ``network=True``, no
    network. Its environment holds only ``PATH`` and the locale. The limits are applied
    before any code runs and cannot be raised by it.

    Args:
        timeout: the seconds a call may run before the session is restarted; the
            model's ``timeout`` argument may lower it, never raise it. (This is the
            tool's own limit, not the executor's runtime ``timeout``.)
        memory_mb: address-space limit (``RLIMIT_AS``) of each of a session's processes,
            in MB; ``None`` for none. Going over it gives a ``MemoryError`` in the session.
        cpu_seconds: CPU-time limit (``RLIMIT_CPU``) of a session's process over its whole
            life, not per call; ``None`` (the default) for none, the per-call ``timeout``
            already bounds a call.
        max_processes: how many processes a session may have at once; ``None`` for
            none. Code that hits it is stopped and its session restarted, so that a fork bomb
            (or the zombies it leaves, which still count) cannot linger.
        max_file_mb: largest file a session may write (``RLIMIT_FSIZE``), in MB; ``None``
            for none.
        max_output_chars: the printed output (and the value shown) of a call is cut to this
            many characters, with a notice.
        network: let the code use the network; the description then says so.
        isolation: ``'sandbox'`` (the default) or ``'process'``: a plain child process
            with rlimits only, unsafe for untrusted code.
        disk_mb: size of a session's writable ``/mnt/data`` (and of ``/dev/shm``), in MB.
        read_only_paths: host directories the code may read besides the Python
            installation (packages the operator allows).
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.

    Raises:
        SandboxUnavailableError: ``isolation='sandbox'`` and no sandbox can start here;
            the message names what is missing.
    """

    #: The module of :mod:`lagent_like.tools._worker` a session runs.
    _worker_module = "ipython_worker"
    #: Runs code a model wrote: ``serve-mcp`` and ``inspect`` offer it only when named.
    runs_code = True

    def __init__(
        self,
        timeout: float = 60.0,
        memory_mb: Optional[int] = 1024,
        cpu_seconds: Optional[int] = None,
        max_processes: Optional[int] = 64,
        max_file_mb: Optional[int] = 64,
        max_output_chars: int = 100_000,
        network: bool = False,
        isolation: str = "sandbox",
        disk_mb: int = 256,
        read_only_paths: Sequence[str] = (),
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
    ) -> None:
        if network and description is None:
            # Lagent's description says internet access is disabled: it must say the truth.
            description = copy.deepcopy(type(self).__tool_description__)
            if isinstance(description.get("description"), str):
                description["description"] = description["description"].replace(_NO_NETWORK, _NETWORK)
        super().__init__(description, parser, enable)
        check_spec(type(self).__name__, isolation, disk_mb, read_only_paths)
        self._session_timeout = float(timeout)
        self._limits = _Limits(
            memory_mb=_positive_or_none("memory_mb", memory_mb),
            cpu_seconds=_positive_or_none("cpu_seconds", cpu_seconds),
            max_processes=_positive_or_none("max_processes", max_processes),
            max_file_mb=_positive_or_none("max_file_mb", max_file_mb),
            max_output_chars=_positive("max_output_chars", max_output_chars),
        )
        self._spec = SandboxSpec(isolation, bool(network), int(disk_mb), tuple(read_only_paths))
        #: More configuration for the worker module (see subclasses).
        self._worker_extra: dict[str, Any] = {}
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
        ok, text = self._run_cell(command, timeout, context)
        if not ok:
            raise ToolError(text)
        return text

    def _limit(self, timeout: Optional[float]) -> float:
        """The seconds a call may run: the model's ``timeout`` may only lower the operator's."""
        if timeout is None:
            return self._session_timeout
        if not float(timeout) > 0:
            raise ToolError(f"timeout must be a positive number of seconds, got {timeout}")
        return min(self._session_timeout, float(timeout))

    def _run_cell(
        self, code: str, timeout: Optional[float], context: Optional[ToolContext], grace: float = 0.0
    ) -> tuple[bool, str]:
        """Run ``code`` in the context's session: ``(ok, text)``.

        The worker is told the limit; the parent waits ``grace`` seconds longer before it
        restarts the session (a worker that stops the code itself keeps the session).

        Raises:
            ToolError: the session was restarted (timeout, crash, limit, abuse of the replies).
        """
        session = context.session_id if context is not None else DEFAULT_SESSION
        limit = self._limit(timeout)
        worker = self._worker(session)
        with worker.lock:
            try:
                ok, text, restart = worker.execute(code, limit, grace)
            except TimeoutError:
                self._restart(session, worker)
                raise ToolError(
                    f"the code did not finish within {_seconds(limit)} s; "
                    "the session was restarted and its state was lost"
                ) from None
            except _Crashed as crash:
                reason = crash.args[0] if crash.args else None
                if reason is not None:
                    self._restart(session, worker)
                    what = {
                        "too_big": f"a reply of more than {worker.cap} bytes",
                        "garbled": "an unreadable reply",
                    }[reason]
                    raise ToolError(
                        f"the code wrote {what} into the interpreter's reply channel; "
                        "the session was restarted and its state was lost"
                    ) from None
                status = worker.exit_code()
                if status is not None and status > 128 and self._spec.isolation == "sandbox":
                    status = 128 - status  # bubblewrap exits with 128 + the signal that killed the worker
                self._restart(session, worker)
                how = f"exited with code {status}" if status is not None and status >= 0 else "crashed"
                if status is not None and status < 0:
                    how = f"was killed by signal {-status}"
                    if -status == signal.SIGXCPU and self._limits.cpu_seconds is not None:
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
        return ok, text

    def reset(self, session_id: str = DEFAULT_SESSION) -> None:
        """Forget every name of session ``session_id`` (the same as :meth:`end_session`).

        Args:
            session_id: the session to restart; one that never ran is left alone.
        """
        self.end_session(session_id)

    def end_session(self, session_id: str) -> None:
        """Reclaim session ``session_id`` now: kill its sandbox and every process in it.

        Its files go with the sandbox. A call running in it ends with an error saying the
        session was restarted; a later call with the same id starts a fresh session. Call
        it when a conversation (an MCP session, say) ends.

        Args:
            session_id: the session to end; one that never ran is left alone.
        """
        with self._workers_lock:
            worker = self._workers.pop(session_id, None)
        if worker is not None:
            worker.proc.kill()  # now, even while a call holds the worker's lock
            with worker.lock:
                worker.stop()

    def close(self) -> None:
        """Stop every session's process. The tool stays usable: a later call starts afresh."""
        _stop_all(self._workers, self._workers_lock)

    def _worker(self, session: str) -> _Worker:
        with self._workers_lock:
            worker = self._workers.get(session)
            if worker is None:
                worker = self._workers[session] = self._new_worker(session)
            return worker

    def _new_worker(self, session: str) -> _Worker:
        return _Worker(session, self._limits, self._spec, self._worker_module, self._worker_extra)

    def _restart(self, session: str, old: _Worker) -> None:
        """Replace ``old`` (kill its group) with a fresh worker for ``session``."""
        old.stop()
        with self._workers_lock:
            if self._workers.get(session) is old:
                self._workers[session] = self._new_worker(session)


def _positive_or_none(name: str, value: Optional[int]) -> Optional[int]:
    """``value`` as an ``int``, checked to be positive (``None`` stays ``None``)."""
    if value is None:
        return None
    if isinstance(value, bool) or int(value) != value or value <= 0:
        raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
    return int(value)


def _positive(name: str, value: int) -> int:
    """``value`` as an ``int``, checked to be positive."""
    if value is None:
        raise ValueError(f"{name} must be a positive integer, got None")
    return int(_positive_or_none(name, value) or 0)


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


# Lagent 0.5's awaitable twin: the same tool, its APIs awaited (run in a worker thread).
from .async_twin import async_twin  # noqa: E402 - only the twin needs it

AsyncIPythonInterpreter = async_twin(IPythonInterpreter, __name__)
__all__ += ["AsyncIPythonInterpreter"]
