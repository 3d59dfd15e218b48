"""The ``IPythonInteractive`` worker: IPython's ``InteractiveShell`` for one session.

Runs inside the session's sandbox (see the package docstring), framed like
:mod:`.ipython_worker`. The reply text follows Lagent 0.5's ``IPythonInteractive``:
the value of the cell if it has one, else the last line printed, else, when the output
shows an error, the output from the first error line on (ANSI colours removed). The
job's ``timeout`` is enforced here with ``SIGALRM`` (a ``TimeoutError`` in the cell,
the session kept); the parent kills the sandbox only if that fails.
"""

from __future__ import annotations

import importlib
import os
import re
import signal
import sys
from contextlib import redirect_stdout

from .common import Capture, enter_session, serve_session

# Annotations only (postponed): importing ``typing`` would slow every sandbox's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any, Optional

#: ANSI escape sequences (IPython colours its tracebacks).
ANSI = re.compile(r"(?:\x1B[@-_]|[\x80-\x9F])[0-?]*[ -/]*[@-~]")
TIMEOUT_MESSAGE = "The code interpreter encountered a timeout error."


def on_alarm(signum: int, frame: Optional[FrameType]) -> None:
    raise TimeoutError


def cut(text: str, limit: Optional[int]) -> str:
    return text if limit is None else text[:limit]


def answer(shell: Any, code: str, timeout: float, config: dict[str, Any]) -> tuple[bool, str]:
    """Run one cell; ``(ok, text)`` as Lagent's ``IPythonInteractive.exec`` reports it."""
    limit = config["max_out_len"]
    out = Capture(config["max_output_chars"])
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with redirect_stdout(out):
            result = shell.run_cell(code).result
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if result is not None:
        return True, cut(str(result), limit)
    lines = out.value().strip().split("\n")
    for index, line in enumerate(lines):
        if re.search("Error|Traceback", line, re.S):
            if "TimeoutError" in line:
                return False, TIMEOUT_MESSAGE
            text = ANSI.sub("", cut("\n".join(lines[index:]), limit))
            if not config["network"] and re.search(r"\[Errno (101|111)\]", lines[-1]):
                text += "\n(network access is disabled for this tool)"
            return False, text
    return True, cut(lines[-1].strip(), limit)


def main(config: dict[str, Any]) -> None:
    """Serve cells until the parent closes the job pipe."""
    enter_session(config)
    os.environ["IPYTHONDIR"] = os.path.join(os.getcwd(), ".ipython")
    # Imported by name: IPython is an optional extra (and untyped).
    shell_module = importlib.import_module("IPython.core.interactiveshell")
    settings = importlib.import_module("traitlets.config").Config()
    settings.HistoryManager.enabled = False
    settings.HistoryManager.hist_file = ":memory:"
    shell = shell_module.InteractiveShell(config=settings)
    signal.signal(signal.SIGALRM, on_alarm)

    def cell(code: str, timeout: float) -> tuple[bool, str, bool]:
        try:
            ok, text = answer(shell, code, timeout, config)
        except BaseException as exc:
            ok, text = False, f"{type(exc).__name__}: {exc}"
        sys.stdout = sys.__stdout__
        return ok, text, False

    serve_session(config, cell)
