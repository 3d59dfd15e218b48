"""``IPythonInteractive``: Lagent 0.5's IPython shell tool, run in a sandbox per session.

Lagent runs IPython's ``InteractiveShell`` inside the agent's own process, where the
model's code can read and change everything the agent holds, and its timeout needs the
main thread's signals. Here the shell runs in the worker of each session's sandbox
(:class:`~lagent_like.IPythonInterpreter`'s machinery, see
docs/isolation.rst), and :mod:`lagent_like.tools.interpreters._worker.ipython_shell` reports results as
Lagent's tool does. It needs IPython: ``pip install 'lagent-like[ipython]'`` (from a clone
``pip install '.[ipython]'``).
"""

from __future__ import annotations

import importlib.util
import re
from typing import TYPE_CHECKING, Any, Optional

import json5

from ..._private.install import install_hint
from ...context import ToolContext
from ...exceptions import ToolError
from ...parsers import BaseParser, JsonParser
from ...toolkits._base_action import tool_api
from ...toolkits._tool_state import Enable
from .ipython_interpreter import IPythonInterpreter

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._settings import SandboxSettings

__all__ = ["IPythonInteractive"]

#: Seconds the parent waits beyond the timeout the shell enforces itself.
_GRACE = 2.0

_FENCED = re.compile(r"```[^\n]*\n(.+?)```", re.DOTALL)
_INLINE = re.compile(r"`([^`]*)`", re.DOTALL)


class IPythonInteractive(IPythonInterpreter):
    """An interactive IPython shell per session, in a sandbox (Lagent 0.5's tool).

    Args:
        timeout: seconds a cell may run; then it gets a ``TimeoutError`` and the tool
            answers "The code interpreter encountered a timeout error." The model's
            ``timeout`` may only lower it.
        max_out_len: the answer is cut to this many characters; negative for no cut
            (the output read is still capped at ``max_output_chars``).
        use_signals: accepted for Lagent compatibility; the timeout always works, since
            the shell runs in the main thread of its own process.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction` (Lagent 0.2.4's last parameter).
        **isolation: the sandbox and limit settings of :class:`IPythonInterpreter`
            (``memory_mb``, ``max_processes``, ``network``, ``isolation``...), by keyword.

    Raises:
        ImportError: IPython is not installed.
    """

    _worker_module = "ipython_shell"

    def __init__(
        self,
        timeout: int = 30,
        max_out_len: int = 8192,
        use_signals: bool = True,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        **isolation: Unpack[SandboxSettings],
    ) -> None:
        if importlib.util.find_spec("IPython") is None:
            raise ImportError(f"IPythonInteractive needs IPython: {install_hint('ipython')}")
        super().__init__(timeout, description=description, parser=parser, enable=enable, **isolation)
        self.use_signals = use_signals
        self._worker_extra = {"max_out_len": max_out_len if max_out_len >= 0 else None}

    @tool_api
    def run(self, command: str, timeout: Optional[int] = None, context: Optional[ToolContext] = None) -> str:  # noqa: D417 - Lagent's Args; the context is not the model's
        """Launch an IPython Interactive Shell to execute code.

        Args:
            command (:class:`str`): Python code snippet
            timeout (:class:`Optional[int]`): timeout for execution.
                This argument only works in the main thread. Defaults to ``None``.
        """
        ok, text = self._run_cell(extract_code(command), timeout, context, grace=_GRACE)
        if not ok:
            raise ToolError(text)
        return text


def extract_code(text: str) -> str:
    """The code in ``text``: a fenced block, else an inline one, else JSON's ``code``, else all."""
    fenced = _FENCED.search(text)
    if fenced:
        return fenced.group(1)
    inline = _INLINE.search(text)
    if inline:
        return inline.group(1)
    try:
        data = json5.loads(text)
    except ValueError:
        return text
    code = data.get("code") if isinstance(data, dict) else None
    return code if isinstance(code, str) else text


# Lagent 0.5's awaitable twin: the same tool, its APIs awaited (run in a worker thread).
from .._async_twin import async_twin  # noqa: E402 - only the twin needs it

AsyncIPythonInteractive = async_twin(IPythonInteractive, __name__)
__all__ += ["AsyncIPythonInteractive"]
