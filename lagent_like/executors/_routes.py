"""An executor's route table: every name a call may use, mapped to its resolved route.

A model calls a simple tool ``'Tool'`` (Lagent also spells it ``'Tool.run'``) and a
toolkit's API ``'Tool.api'``; a model calling natively uses an alias legal for
function-calling APIs. The table holds all of those names, built whole from the
executor's actions each time the tools, the settings or the hooks change, so a call
is one dict lookup and never sees a half-built table.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Callable, NamedTuple

from .._private.aliases import assign_aliases
from ..exceptions import ToolDefinitionError
from ..runtime._invoke import Route
from ..toolkits._base_action import BaseAction, routes_of

__all__ = ["RouteTable", "route_table"]


class RouteTable(NamedTuple):
    """The names of an executor's calls.

    Attributes:
        names: canonical name (``'Tool'``, ``'Tool.api'``) -> route, in tool order.
        aliases: canonical name -> its function-calling alias (itself when legal).
        canonical: alias or ``'Tool.run'`` -> canonical name.
        routes: every name a call may use -> route.
    """

    names: dict[str, Route]
    aliases: dict[str, str]
    canonical: dict[str, str]
    routes: dict[str, Route]


def route_table(
    actions: Iterable[BaseAction], resolve: Callable[[BaseAction, str, Route], Route]
) -> RouteTable:
    """The table of ``actions``' routes, each made by ``resolve(action, name, direct route)``.

    Raises:
        ToolDefinitionError: two tools would answer the same call name.
    """
    actions = list(actions)
    names: dict[str, Route] = {}
    clashes = []
    for action in actions:
        for key, own in routes_of(action).items():
            name = f"{action.name}.{key}" if action.is_toolkit else action.name
            if name in names:
                clashes.append(f"{name!r} is both {names[name].action.name}'s and {action.name}'s")
            names[name] = resolve(action, name, own)
    if clashes:
        raise ToolDefinitionError("ActionExecutor", [f"call name {c}" for c in clashes])
    aliases = assign_aliases(names)
    routes = dict(names)
    canonical = {alias: name for name, alias in aliases.items()}
    for name, alias in aliases.items():
        routes.setdefault(alias, names[name])
    for action in actions:
        # Lagent also spells a simple tool's call 'Tool.run'.
        if not action.is_toolkit and action.name in names:
            long_name = f"{action.name}.run"
            if long_name not in routes:
                routes[long_name] = names[action.name]
                canonical[long_name] = action.name
    return RouteTable(names, aliases, canonical, routes)
