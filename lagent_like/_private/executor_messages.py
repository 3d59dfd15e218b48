"""What an executor answers, before any tool runs, to calls it cannot take.

These records are written for the model, in the names the model was given: a call
whose argument string is larger than the executor accepts is refused at once, before
any parsing, so that one huge (often runaway) argument cannot hold a thread or an
event loop for seconds.
"""

from __future__ import annotations

from typing import Any, Optional

from ..schema import ActionReturn, ActionStatusCode, ActionValidCode


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
