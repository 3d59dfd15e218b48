"""``IPythonInteractiveManager``: Lagent 0.5's batch front end over sandboxed IPython shells.

Lagent's manager runs one command per session id in shells it keeps in worker
processes, called as ``manager(commands, session_ids)``, outside any executor. Here the
shells are those of one :class:`~lagent_like.tools.IPythonInteractive`
(one sandbox per session id): the manager only spreads a batch over threads and turns
each outcome into Lagent's :class:`~lagent_like.ActionReturn`. It needs IPython:
``pip install 'lagent-like[ipython]'`` (from a clone ``pip install '.[ipython]'``).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Optional, Union, overload

from ...context import ToolContext
from ...exceptions import ToolError
from ...parsers import BaseParser, JsonParser
from ...schema import ActionReturn, ActionStatusCode
from ...toolkits._base_action import BaseAction
from ...toolkits._tool_state import Enable
from .ipython_interactive import IPythonInteractive

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._settings import SandboxSettings

__all__ = ["IPythonInteractiveManager"]

SessionId = Union[int, str]

#: Lagent's message when ``session_ids`` does not pair one id with each command.
_SIZE_MISMATCH = "the size of `session_ids` must equal that of `commands`"


class IPythonInteractiveManager(BaseAction):
    """An interactive IPython shell manager for code execution

    Args:
        max_workers: how many commands of a batch run at once (in threads).
        timeout: seconds a command may run; then it answers "The code interpreter
            encountered a timeout error."
        ci_lock: accepted for Lagent compatibility and unused: Lagent locks this file
            around resetting its in-process shells, and here each shell has its own
            sandbox and process.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
        **isolation: the sandbox and limit settings of :class:`IPythonInteractive`
            (``memory_mb``, ``max_processes``, ``network``, ``isolation``...).

    Raises:
        ImportError: IPython is not installed.
        ValueError: ``max_workers`` is not a positive integer.
    """  # noqa: D415 - Lagent's description, byte for byte

    #: Runs code a model wrote, so ``serve-mcp`` and ``inspect`` offer it only when named.
    runs_code = True

    def __init__(
        self,
        max_workers: int = 50,
        timeout: int = 20,
        ci_lock: Optional[str] = None,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        **isolation: Unpack[SandboxSettings],
    ) -> None:
        if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers <= 0:
            raise ValueError(f"max_workers must be a positive integer, got {max_workers!r}")
        # Lagent's manager returns the whole output: no cut beyond max_output_chars.
        shell = IPythonInteractive(timeout=timeout, max_out_len=-1, **isolation)
        super().__init__(description, parser, enable)
        self.max_workers = max_workers
        self.timeout = timeout
        self.ci_lock = ci_lock
        self._shell = shell
        self._pool: Optional[ThreadPoolExecutor] = None
        self._pool_lock = threading.Lock()

    @overload
    def __call__(
        self, commands: str, session_ids: Union[SessionId, Sequence[SessionId], None] = None
    ) -> ActionReturn: ...

    @overload
    def __call__(
        self, commands: list[str], session_ids: Union[SessionId, Sequence[SessionId], None] = None
    ) -> list[ActionReturn]: ...

    # Lagent's signature, not BaseAction's: the manager is called directly, not by an executor.
    def __call__(
        self, commands: Union[str, list[str]], session_ids: Union[SessionId, Sequence[SessionId], None] = None
    ) -> Union[ActionReturn, list[ActionReturn]]:
        """Run each command in the shell of its session id, all at once.

        Each session id has its own sandboxed shell, which keeps its names from one
        command to the next until :meth:`reset` or :meth:`close`.

        Args:
            commands: one command, or a list of them (code, possibly in a Markdown fence).
            session_ids: the session of each command, all different; one id for a single
                command. Defaults to ``0, 1, ...``.

        Returns:
            One :class:`ActionReturn` for one command; a list, in order, for a list.

        Raises:
            ValueError: ``session_ids`` does not give one different id to each command.
        """
        batch = commands if isinstance(commands, list) else [commands]
        if session_ids is None:
            ids: list[SessionId] = list(range(len(batch)))
        elif isinstance(session_ids, (int, str)):
            ids = [session_ids]
        else:
            ids = list(session_ids)
        if len(ids) != len(batch):
            raise ValueError(f"{_SIZE_MISMATCH}: {len(batch)} commands, {len(ids)} session ids")
        # Sessions are named by str(id): 0 and "0" are the same session.
        repeated = sorted(key for key, n in Counter(str(i) for i in ids).items() if n > 1)
        if repeated:
            raise ValueError(f"{_SIZE_MISMATCH}, each id once: {', '.join(repeated)} repeated")
        returns = list(self._threads().map(self._run_one, batch, ids))
        return returns if isinstance(commands, list) else returns[0]

    def _run_one(self, command: str, session_id: SessionId) -> ActionReturn:
        """Lagent's record of ``command`` run in session ``session_id``."""
        ret = ActionReturn(args={"command": command}, type=self.name)
        try:
            output = self._shell.run(command, context=ToolContext(session_id=str(session_id)))
        except ToolError as exc:
            ret.errmsg, ret.state = str(exc), ActionStatusCode.API_ERROR
        except Exception as exc:  # noqa: BLE001 - a sandbox that cannot start fails its command, not the batch
            ret.errmsg, ret.state = f"{type(exc).__name__}: {exc}", ActionStatusCode.API_ERROR
        else:
            ret.result = [{"type": "text", "content": output}]
        return ret

    def _threads(self) -> ThreadPoolExecutor:
        # One pool for the manager's life, not one per call: a session's sandbox dies
        # with the thread that started it (bubblewrap's --die-with-parent follows the
        # thread), and a pool's threads live until it is shut down.
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.max_workers, thread_name_prefix="ipython-manager")
            return self._pool

    def end_session(self, session_id: str) -> None:
        """Stop the shell of session ``session_id`` (``str`` of the id calls gave); others run on.

        ``executor.end_session(session_id)`` calls it; a later command starts afresh.
        """
        self._shell.end_session(str(session_id))

    def reset(self) -> None:
        """Forget every session's names: their shells start afresh on their next command."""
        self.close()

    def clear(self) -> None:
        """Stop every session's shell (Lagent's name for :meth:`close`)."""
        self.close()

    def close(self) -> None:
        """Stop every session's shell. The manager stays usable: a later call starts afresh."""
        self._shell.close()
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
