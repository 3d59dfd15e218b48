"""What an executor answers, before any tool runs, to calls it cannot take.

These records are written for the model, in the names the model was given: a model
calling natively was given the function-calling aliases (``Rich__literal``), so the
list of tools it gets back names those, and every other message of its calls is
rewritten (:func:`alias_renamer`) from the dotted names to those; and a call whose argument string is larger
than the executor accepts is refused at once, before any parsing, so that one huge
(often runaway) argument cannot hold a thread or an event loop for seconds.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..schema import ActionReturn, ActionStatusCode, ActionValidCode

if TYPE_CHECKING:
    from contextvars import ContextVar

#: The flag set while a call comes through native function calling (run_tool_calls,
#: MCP), made by the first such call: ``contextvars`` costs import time, and a program
#: that never calls natively never needs it (until then, no call is native).
_NATIVE: list[ContextVar[bool]] = []
_MAKING = threading.Lock()


def _native() -> ContextVar[bool]:
    """The native-calls flag, made on first use (once, whichever thread comes first)."""
    if not _NATIVE:
        with _MAKING:
            if not _NATIVE:
                import contextvars

                _NATIVE.append(contextvars.ContextVar("lagent_like_native_calls", default=False))
    return _NATIVE[0]


@contextlib.contextmanager
def native_calls() -> Iterator[None]:
    """Within this block, messages name tools by the function-calling aliases."""
    flag = _native()
    token = flag.set(True)
    try:
        yield
    finally:
        flag.reset(token)


def mark_native() -> None:
    """Name tools by their aliases for the rest of the current task (one serving native calls)."""
    _native().set(True)


def is_native() -> bool:
    """Whether the current task serves native calls (the model was given the aliases)."""
    return bool(_NATIVE) and _NATIVE[0].get()


def names_the_model_saw(api_names: list[str], aliases: dict[str, str]) -> list[str]:
    """The callable names to list to the model, as it was given them.

    A model calling natively (OpenAI, Anthropic, MCP) was given the legal aliases
    (``Rich__literal``); a model reading a prompt, the ``Rich.literal`` names.
    """
    return [aliases.get(n, n) for n in api_names] if is_native() else api_names


def alias_renamer(aliases: Mapping[str, str]) -> Optional[Callable[[str], str]]:
    """A function that renames, in a message, each dotted name to its alias.

    The parsers, the runtime and the tools write their messages with the names of the
    prompt (``Rich.literal``); a model calling natively knows only the aliases
    (``Rich__literal``) and could not act on the others. A name is replaced only
    where it stands alone (not inside a longer name).

    Args:
        aliases: canonical name -> its function-calling alias.

    Returns:
        The renaming function, or ``None`` when every name is its own alias.
    """
    renamed = {name: alias for name, alias in aliases.items() if name != alias}
    if not renamed:
        return None
    # Longest first, so that 'Kit.ab' is not taken for the start of 'Kit.abc'.
    names = "|".join(re.escape(name) for name in sorted(renamed, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w.])(?:{names})(?!\w)")

    def rename(text: str) -> str:
        return pattern.sub(lambda found: renamed[found.group()], text)

    return rename


def too_long_record(name: Any, label: str, tool: Optional[str], command: str, limit: int) -> ActionReturn:
    """The ``ARGS_ERROR`` record of a call whose arguments exceed ``limit`` characters."""
    return ActionReturn(
        args={"inputs": command, "name": name},
        type=tool,
        errmsg=(
            f"{label}: the arguments are {len(command):,} characters long, more than the "
            f"{limit:,} this executor accepts; send shorter arguments"
        ),
        state=ActionStatusCode.ARGS_ERROR,
        valid=ActionValidCode.OPEN if tool is not None else ActionValidCode.INVALID,
    )
