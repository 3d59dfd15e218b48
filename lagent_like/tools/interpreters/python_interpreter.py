"""``PythonInterpreter``: run a model's Python code in a sandbox, one fresh process per call.

Why a sandbox: code written by a model may loop forever, allocate all memory, fork
without end, read the agent's keys or files, open sockets or try to leave processes
behind. None of that may touch the agent or another call, so the code runs in a
bubblewrap sandbox (:mod:`lagent_like.tools.interpreters._sandbox`, docs/isolation.rst): its own
PID, mount, network and IPC namespaces, a read-only view of the Python installation,
a sized ``tmpfs`` as its only writable place, kernel-enforced rlimits.

How: each slot of the pool (:mod:`lagent_like.tools.interpreters._python_pool`) is one sandbox whose
PID 1 is a *zygote* (:mod:`lagent_like.tools.interpreters._worker.python_worker`) that never sees user
code. Between calls the zygote has already forked the next call's process, which has
dropped to a fresh uid and waits. For every call the parent makes two fresh pipes, hands
their far ends to the zygote over a control socket, writes the job into one and reads
the reply from the other. The waiting process alone reads the job, runs the code and
replies; the answer is returned as soon as it is read. When the job ends (or its time
is up) the zygote kills every other process of the sandbox, empties ``/mnt/data`` and
``/dev/shm``, forks the next call's process and reports; the parent reads that report
before the slot's next call. A call then costs about what a bare fork-per-call worker
costs (benchmarks/bench_interpreter.py), and no call can see another's memory, files or
processes. The parent reads at most :attr:`PythonInterpreter.max_reply_bytes` of a
reply, so the cap holds whatever the code writes.

When the zygote itself does not answer in time (it runs no user code, but the code may
kill it), the caller kills the whole sandbox and starts a new one for the next call.
"""

from __future__ import annotations

import signal
import weakref
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from ...exceptions import ToolError
from ...parsers import BaseParser, JsonParser
from ...toolkits._base_action import BaseAction
from ...toolkits._tool_state import Enable
from .._settings import SANDBOX_DEFAULTS, with_defaults
from ._python_pool import Pool
from ._sandbox import make_spec

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._settings import SandboxSettings

__all__ = ["PythonInterpreter"]

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
        description, parser, enable: see :class:`BaseAction`.
        pool_size: keyword-only: how many sandboxes run calls at the same time.

    The sandbox and its limits are keyword-only settings
    (:class:`~lagent_like.tools._settings.SandboxSettings`, defaults in
    :attr:`~lagent_like.PythonInterpreter.sandbox_defaults`):

    Keyword Args:
        memory_mb: address-space limit of each of the code's processes, in MB.
        cpu_seconds: CPU-time limit of each of the code's processes, in seconds.
        max_processes: how many processes the code may have at once.
        max_file_mb: largest file the code may write, in MB.
        max_output_chars: the answer (or printed output) is cut to this many characters,
            with a notice.
        network: let the code use the network (off by default: connecting fails).
        isolation: ``'sandbox'`` (the default) or ``'process'``, as
            :class:`~lagent_like.tools.interpreters._sandbox.SandboxSpec` says (see docs/isolation.rst).
        disk_mb: size of the code's writable disk, in MB.
        read_only_paths: host directories the code may read besides the Python
            installation; absolute paths.

    Raises:
        TypeError: a keyword that is not one of these settings.
        ValueError: ``None`` for a limit (every limit applies here).
        SandboxUnavailableError: ``isolation='sandbox'`` and no sandbox can start here;
            the message names what is missing.
    """

    #: Runs code a model wrote, so ``serve-mcp`` and ``inspect`` offer it only when named.
    runs_code = True

    #: The defaults of the sandbox settings.
    sandbox_defaults: ClassVar[SandboxSettings] = SANDBOX_DEFAULTS

    def __init__(
        self,
        answer_symbol: Optional[str] = None,
        answer_expr: Optional[str] = "solution()",
        answer_from_stdout: bool = False,
        timeout: float = 20.0,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        *,
        pool_size: int = 1,
        **sandbox: Unpack[SandboxSettings],
    ) -> None:
        super().__init__(description, parser, enable)
        settings = with_defaults(type(self).__name__, self.sandbox_defaults, sandbox)
        spec = make_spec(type(self).__name__, settings)
        self.answer_symbol = answer_symbol
        self.answer_expr = answer_expr
        self.answer_from_stdout = answer_from_stdout
        # Not ``self.timeout``: that name is the executor's runtime setting.
        self.code_timeout = float(timeout)
        self.memory_mb = _limit("memory_mb", settings["memory_mb"])
        self.cpu_seconds = _limit("cpu_seconds", settings["cpu_seconds"])
        self.max_processes = _limit("max_processes", settings["max_processes"])
        self.max_file_mb = _limit("max_file_mb", settings["max_file_mb"])
        self.max_output_chars = int(settings["max_output_chars"])
        self.network = bool(settings["network"])
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
        self._pool = Pool(pool_size, spec, config)
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

    @property
    def memory_bound(self) -> str:
        """The memory bound that holds for the code on this machine (docs/isolation.rst)."""
        from ._cgroup import describe_bound

        spec = self._pool.spec
        return describe_bound(spec.isolation, self.memory_mb, self.max_processes, spec.disk_mb)

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


def _limit(name: str, value: Optional[int]) -> int:
    """``value`` as an ``int``; ``None`` (no limit, which ``IPythonInterpreter`` allows) is refused."""
    if value is None:
        raise ValueError(f"PythonInterpreter: {name} must be an integer, got None")
    return int(value)


# Lagent 0.5's awaitable twin: the same tool, its APIs awaited (run in a worker thread).
from .._async_twin import async_twin  # noqa: E402 - only the twin needs it

AsyncPythonInterpreter = async_twin(PythonInterpreter, __name__)
__all__ += ["AsyncPythonInterpreter"]
