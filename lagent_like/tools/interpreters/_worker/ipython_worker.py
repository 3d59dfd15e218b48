"""The ``IPythonInterpreter`` worker: one session's namespace, one job at a time.

Runs inside the session's own sandbox (see the package docstring). Jobs arrive on the
file descriptor ``jobs_fd`` and replies leave on ``replies_fd``, each a frame (a JSON
header line with ``length``, then the bytes). The reply header repeats the job's
``nonce``: the parent drops any frame without the current nonce, so output the code
writes to the reply pipe itself, or a reply that comes too late, cannot pass for the
answer of a later call.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import io
import linecache
import os
import sys
import traceback

from .common import enter_session, serve_session

# Annotations only (postponed): importing ``typing`` would slow every sandbox's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional

MAX_OUTPUT = 100_000
CONFIG: dict[str, Any] = {}


def hit_process_limit(exc: Optional[BaseException]) -> bool:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno == errno.EAGAIN:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def network_refused(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.ENETUNREACH, errno.ECONNREFUSED)


class Capture(io.TextIOBase):
    """A text stream that keeps the first MAX_OUTPUT characters written to it."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not " + type(text).__name__)
        room = MAX_OUTPUT - self.size
        if room <= 0:
            self.dropped += len(text)
            return len(text)
        if len(text) > room:
            self.dropped += len(text) - room
            text = text[:room]
        self.parts.append(text)
        self.size += len(text)
        return len(text)

    def text(self) -> str:
        out = "".join(self.parts)
        if self.dropped:
            out += f"\n[output truncated: {self.dropped} more characters]\n"
        return out


namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
count = 0


def cell_name(filename: str) -> str:
    return "Cell In[{}]".format(filename[len("<cell-") : -1])


def frame_lines(exc: BaseException) -> list[str]:
    """The traceback entries of the user's cells, a run of one repeated line cut short."""
    lines = ["Traceback (most recent call last):\n"]
    previous: Optional[tuple[str, Optional[int], str]] = None
    repeated = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if not frame.filename.startswith("<cell-"):
            continue
        key = (frame.filename, frame.lineno, frame.name)
        if key == previous:
            repeated += 1
            if repeated >= 3:
                continue
        else:
            if repeated > 2:
                lines.append(f"  [Previous line repeated {repeated - 2} more times]\n")
            previous, repeated = key, 0
        where = f"  {cell_name(frame.filename)}, line {frame.lineno}"
        if frame.name != "<module>":
            where += ", in " + frame.name
        lines.append(where + "\n")
        if frame.line:
            lines.append("    " + frame.line.strip() + "\n")
    if repeated > 2:
        lines.append(f"  [Previous line repeated {repeated - 2} more times]\n")
    return lines


def short_traceback(exc: BaseException) -> str:
    lines = [] if isinstance(exc, SyntaxError) else frame_lines(exc)
    for line in traceback.format_exception_only(type(exc), exc):
        if line.startswith('  File "<cell-'):
            name, _, rest = line[len('  File "') :].partition('"')
            line = "  " + cell_name(name) + rest
        lines.append(line)
    return "".join(lines).rstrip("\n")


def run(code: str) -> Optional[str]:
    global count
    count += 1
    filename = f"<cell-{count}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    tree = ast.parse(code, filename, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        expr = tree.body.pop()
        assert isinstance(expr, ast.Expr)
        last = ast.Expression(expr.value)
    exec(compile(tree, filename, "exec"), namespace)
    if last is not None:
        value = eval(compile(last, filename, "eval"), namespace)
        if value is not None:
            namespace["_"] = value
            return repr(value)
    return None


def describe(exc: BaseException) -> tuple[str, bool]:
    """The traceback of ``exc`` with a note on the limit it hit; whether to restart."""
    text = short_traceback(exc)
    restart = False
    if isinstance(exc, SystemExit):
        text += "\n(the code called sys.exit(); the session was not ended and keeps its state)"
    elif isinstance(exc, MemoryError) and CONFIG["memory_mb"]:
        text += "\n(the memory limit is {} MB)".format(CONFIG["memory_mb"])
    elif hit_process_limit(exc):
        text += "\n(the process limit is {})".format(CONFIG["max_processes"])
        restart = True
    elif isinstance(exc, OSError) and exc.errno == errno.EFBIG and CONFIG["max_file_mb"]:
        text += "\n(the file size limit is {} MB)".format(CONFIG["max_file_mb"])
    elif network_refused(exc) and not CONFIG["network"]:
        text += "\n(network access is disabled for this tool)"
    return text, restart


def capped(text: str) -> str:
    if len(text) <= MAX_OUTPUT:
        return text
    return text[:MAX_OUTPUT] + f"\n[output truncated: {len(text) - MAX_OUTPUT} more characters]\n"


def answer(code: str, main_pid: int) -> tuple[bool, str, bool]:
    """Run one cell; ``(ok, text, restart)``."""
    capture = Capture()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = capture
    restart = False
    value: Optional[str]
    try:
        value = run(code)
        ok = True
    except BaseException as exc:
        if os.getpid() != main_pid:
            os._exit(1)
        try:
            value, restart = describe(exc)
        except BaseException as inner:
            value = f"{type(exc).__name__} (its traceback could not be shown: {type(inner).__name__})"
        ok = False
    finally:
        if os.getpid() != main_pid:
            os._exit(0)
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
        sys.stdout, sys.stderr = saved
    text = capture.text()
    if value is not None:
        if text and not text.endswith("\n"):
            text += "\n"
        text += capped(value)
    return ok, text, restart


def main(config: dict[str, Any]) -> None:
    """Serve cells until the parent closes the job pipe."""
    global MAX_OUTPUT
    CONFIG.update(config)
    MAX_OUTPUT = config["max_output_chars"]
    enter_session(config)
    sys.stdin = io.StringIO()
    main_pid = os.getpid()
    serve_session(config, lambda code, timeout: answer(code, main_pid))
