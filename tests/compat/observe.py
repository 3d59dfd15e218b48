"""What the compatibility suite compares: descriptions, prompt pieces and call records.

:func:`observe` runs the suite's toolkits (``lagent_style``) on one library, Lagent or
lagent_like, and returns plain JSON data; ``record_lagent_fixtures.py`` saves Lagent's,
``tests/test_lagent_compat.py`` compares lagent_like's with them.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from .lagent_style import CALLS, EXECUTORS, build


def record(ret: Any) -> dict[str, Any]:
    """The observable fields of an ``ActionReturn``, as JSON data."""
    return {
        "args": ret.args,
        "type": ret.type,
        "result": ret.result,
        "errmsg": ret.errmsg,
        "state": int(ret.state),
        "valid": int(ret.valid),
        "format_result": ret.format_result(),
    }


def observe(lib: SimpleNamespace) -> dict[str, Any]:
    """Everything the suite compares, observed on ``lib``.

    Args:
        lib: the library's ``BaseAction``, ``tool_api``, ``ActionReturn``,
            ``ActionExecutor``, ``JsonParser``, ``TupleParser``, ``InvalidAction``,
            ``NoAction``, ``FinishAction``, ``class_options`` and ``shipped`` (name ->
            class of the tools both ship).
    """
    classes = build(lib.BaseAction, lib.tool_api, lib.ActionReturn, lib.class_options)
    parsers = {"json": lib.JsonParser, "tuple": lib.TupleParser}
    observed: dict[str, Any] = {
        "class_descriptions": {name: cls.__tool_description__ for name, cls in classes.items()},
        "builtins": {
            cls.__name__: {"description": action.description, "enable": action.enable}
            for cls in (lib.InvalidAction, lib.NoAction, lib.FinishAction)
            for action in [cls()]
        },
        "shipped_tools": {name: cls.__tool_description__ for name, cls in lib.shipped.items()},
        "executors": {},
    }
    for key, members in EXECUTORS.items():
        actions = [classes[name](parser=parsers[parser]) for name, parser in members]
        executor = lib.ActionExecutor(actions=actions)
        info = executor.get_actions_info()
        observed["executors"][key] = {
            "actions_info": info,
            # What Lagent's ReAct protocol formats into its system prompt.
            "prompt_tool_description": str(info),
            "prompt_action_names": str(executor.action_names()),
            "calls": {call_id: record(executor(name, command)) for call_id, name, command in CALLS[key]},
        }
    return observed
