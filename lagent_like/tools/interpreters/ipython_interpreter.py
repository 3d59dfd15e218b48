"""``IPythonInterpreter``: a stateful Python session per conversation, like a notebook.

Lagent's ``IPythonInterpreter`` drives a Jupyter kernel. A kernel is a heavy dependency
for what a model needs: code that runs in a process of its own (so a crash or an
endless loop cannot take the agent down), names that survive from one call to the
next, and the value of the last expression shown as a notebook shows it
(``import math;math.sqrt(100)`` -> ``10.0``). This module gives exactly that with the
standard library only.

Each session (``ToolContext.session_id``, ``'default'`` for direct calls) owns one
sandbox (:mod:`lagent_like.tools.interpreters._sandbox`, docs/isolation.rst) running one worker
(:mod:`lagent_like.tools.interpreters._worker.ipython_worker`) as a fresh uid: sessions see neither each
other's files nor processes, and each has its own process count. The parent sends one
framed job per call and reads the framed reply bearing that job's nonce
(:mod:`lagent_like.tools.interpreters._ipython_session`), so what the code prints or writes cannot pass
for a later answer. A call that runs past its timeout kills the whole sandbox (every
process the code started included) and a fresh one takes its place; the model is told
plainly that the session's state was lost, as it is when the worker dies on its own.
:meth:`IPythonInterpreter.end_session` reclaims a session when its conversation ends
(``executor.end_session(id)`` calls it, as the MCP server does when a client leaves).
"""

from __future__ import annotations

import copy
import threading
import weakref
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from ...context import DEFAULT_SESSION, ToolContext
from ...exceptions import ToolError
from ...parsers import BaseParser, JsonParser
from ...toolkits._base_action import BaseAction, tool_api
from ...toolkits._tool_state import Enable
from .._settings import SANDBOX_DEFAULTS, with_defaults
from ._ipython_session import LOST, Crashed, Limits, SessionWorker, stop_all
from ._sandbox import make_spec

__all__ = ["IPythonInterpreter"]

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._settings import SandboxSettings


#: The longest printed output (in characters) a call returns; the rest is cut with a notice.
MAX_OUTPUT = 100_000

#: Lagent's sentence about the network, and what replaces it when the operator enables it.
_NO_NETWORK = (
    "Internet access for this session is disabled. "
    "Do not make external web requests or API calls as they will fail."
)
_NETWORK = "Internet access for this session is enabled."


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
        description, parser, enable: keyword-only (see :class:`BaseAction`): Lagent's
            ``user_data_dir`` and ``work_dir`` come before them, which have no meaning
            in a sandbox, so a positional call made for Lagent fails rather than
            putting a path into ``description``.

    The sandbox and its limits are keyword-only settings
    (:class:`~lagent_like.tools._settings.SandboxSettings`, defaults in
    :attr:`~lagent_like.IPythonInterpreter.sandbox_defaults`):

    Keyword Args:
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
        isolation: ``'sandbox'`` (the default) or ``'process'``, as
            :class:`~lagent_like.tools.interpreters._sandbox.SandboxSpec` says (see docs/isolation.rst).
        disk_mb: size of each session's writable disk, in MB.
        read_only_paths: host directories a session may read besides the Python
            installation; absolute paths.

    Raises:
        TypeError: a keyword that is not one of these settings.
        SandboxUnavailableError: ``isolation='sandbox'`` and no sandbox can start here;
            the message names what is missing.
    """

    #: The module of :mod:`lagent_like.tools.interpreters._worker` a session runs.
    _worker_module = "ipython_worker"
    #: Runs code a model wrote, so ``serve-mcp`` and ``inspect`` offer it only when named.
    runs_code = True

    #: The defaults of the sandbox settings, without a CPU-time limit over a session's whole life
    #: (the per-call ``timeout`` bounds each call).
    sandbox_defaults: ClassVar[SandboxSettings] = {**SANDBOX_DEFAULTS, "cpu_seconds": None}

    def __init__(
        self,
        timeout: float = 60.0,
        *,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        **sandbox: Unpack[SandboxSettings],
    ) -> None:
        settings = with_defaults(type(self).__name__, self.sandbox_defaults, sandbox)
        if settings["network"] and description is None:
            # Lagent's description says internet access is disabled: it must say the truth.
            description = copy.deepcopy(type(self).__tool_description__)
            if isinstance(description.get("description"), str):
                description["description"] = description["description"].replace(_NO_NETWORK, _NETWORK)
        super().__init__(description, parser, enable)
        self._spec = make_spec(type(self).__name__, settings)
        self._session_timeout = float(timeout)
        self._limits = Limits(
            memory_mb=_positive_or_none("memory_mb", settings["memory_mb"]),
            cpu_seconds=_positive_or_none("cpu_seconds", settings["cpu_seconds"]),
            max_processes=_positive_or_none("max_processes", settings["max_processes"]),
            max_file_mb=_positive_or_none("max_file_mb", settings["max_file_mb"]),
            max_output_chars=_positive("max_output_chars", settings["max_output_chars"]),
        )
        #: More configuration for the worker module (see subclasses).
        self._worker_extra: dict[str, Any] = {}
        self._workers: dict[str, SessionWorker] = {}
        self._workers_lock = threading.Lock()
        self._finalizer = weakref.finalize(self, stop_all, self._workers, self._workers_lock)

    @tool_api
    def run(self, command: str, timeout: Optional[int] = None, context: Optional[ToolContext] = None) -> str:  # noqa: D417 - Lagent's Args; the context is not the model's
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
            except (TimeoutError, Crashed) as error:
                message = worker.failure(error, limit)
                self._restart(session, worker)
                raise ToolError(message) from None
            if restart:
                self._restart(session, worker)
                text += f"\nthe processes the code started were stopped; {LOST}"
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
        session was restarted; a later call with the same id starts a fresh session.
        ``executor.end_session(session_id)`` calls it (the tool's session hook).

        Args:
            session_id: the session to end; one that never ran is left alone.
        """
        with self._workers_lock:
            worker = self._workers.pop(session_id, None)
        if worker is not None:
            worker.proc.kill()  # now, even while a call holds the worker's lock
            with worker.lock:
                worker.stop()

    @property
    def memory_bound(self) -> str:
        """The memory bound that holds for a session's code on this machine (docs/isolation.rst)."""
        from ._cgroup import describe_bound

        limits, spec = self._limits, self._spec
        return describe_bound(spec.isolation, limits.memory_mb, limits.max_processes, spec.disk_mb)

    def close(self) -> None:
        """Stop every session's process. The tool stays usable: a later call starts afresh."""
        stop_all(self._workers, self._workers_lock)

    def _worker(self, session: str) -> SessionWorker:
        with self._workers_lock:
            worker = self._workers.get(session)
            if worker is None:
                worker = self._workers[session] = self._new_worker()
            return worker

    def _new_worker(self) -> SessionWorker:
        return SessionWorker(self._limits, self._spec, self._worker_module, self._worker_extra)

    def _restart(self, session: str, old: SessionWorker) -> None:
        """Replace ``old`` (kill its group) with a fresh worker for ``session``."""
        old.stop()
        with self._workers_lock:
            if self._workers.get(session) is old:
                self._workers[session] = self._new_worker()


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


# Lagent 0.5's awaitable twin: the same tool, its APIs awaited (run in a worker thread).
from .._async_twin import async_twin  # noqa: E402 - only the twin needs it

AsyncIPythonInterpreter = async_twin(IPythonInterpreter, __name__)
__all__ += ["AsyncIPythonInterpreter"]
