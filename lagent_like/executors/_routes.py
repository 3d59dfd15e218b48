"""An executor's route table: every name a call may use, mapped to its resolved route.

A model calls a simple tool ``'Tool'`` (Lagent also spells it ``'Tool.run'``) and a
toolkit's API ``'Tool.api'``; a model calling natively uses an alias legal for
function-calling APIs. The table holds all of those names, built whole from the
executor's actions when the settings or the hooks change, so a call is one dict
lookup and never sees a half-built table. Adding or removing one tool resolves only
that tool's routes, in place (a catalogue may hold thousands; copying its dicts made
each change cost as much as the whole catalogue): a new tool's names are routed once
the rest of the table knows them, a removed one's are unrouted first.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Callable, NamedTuple, Optional

from .._private.aliases import LEGAL_NAME, assign_aliases, hashed_alias, readable_alias
from ..exceptions import ToolDefinitionError
from ..runtime._invoke import Route
from ..toolkits._base_action import BaseAction, routes_of
from ..toolkits._tool_state import NO_SETTINGS

__all__ = [
    "KeptRoutes",
    "RouteTable",
    "ToolRoutes",
    "add_tool",
    "call_names",
    "remove_tool",
    "route_table",
    "tool_routes",
]


class ToolRoutes(NamedTuple):
    """One tool's part of a route table, resolved for an executor (tools keep it per profile).

    Attributes:
        rows: ``(call name, the route the executor runs)`` of each API that can run.
        long_name: ``'Tool.run'`` for a simple tool (Lagent's other spelling), else ``None``.
        legal: every call name is legal for function calling (its own alias).
    """

    rows: list[tuple[str, Route]]
    long_name: Optional[str]
    legal: bool


#: ``resolve(action, state)``: ``action``'s part of the table (``state``: its state if already read).
Resolve = Callable[[BaseAction, Any], ToolRoutes]


class KeptRoutes(NamedTuple):
    """What a build compares with the routes a tool keeps, to take them without resolving.

    A tool keeps its resolved routes per executor profile (``ExecutorBase._tool_routes``);
    a catalogue rebuilt into a new executor of the same profile takes them as they are.

    Attributes:
        key: the hash of the executor's profile (what the routes are kept under).
        profile: the profile itself (interned: compared by identity).
        finish: the executor's finish action (its routes are resolved apart).
        plain: no tool sets runtime settings of its own (none is asked).
    """

    key: int
    profile: Any
    finish: BaseAction
    plain: bool


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


def call_names(action: BaseAction) -> list[tuple[str, Route]]:
    """``(call name, direct route)`` of each API of ``action`` that can run."""
    tool = action.name
    if not action.is_toolkit:
        return [(tool, own) for own in routes_of(action).values()]
    return [(f"{tool}.{key}", own) for key, own in routes_of(action).items()]


def tool_routes(action: BaseAction, rows: list[tuple[str, Route]]) -> ToolRoutes:
    """``action``'s part of a route table, given its resolved ``rows``."""
    long_name = f"{rows[0][0]}.run" if rows and _is_simple(action, rows) else None
    return ToolRoutes(rows, long_name, all(LEGAL_NAME.fullmatch(name) for name, _ in rows))


def _is_simple(action: BaseAction, rows: list[tuple[str, Route]]) -> bool:
    """Whether ``rows`` (not empty) are a simple tool's, read from its route before asking the tool."""
    name, route = rows[0]
    if len(rows) == 1 and route.key == "run" and name == route.tool:  # a toolkit's names are 'Tool.api'
        return True
    return not action.is_toolkit


def route_table(
    actions: Collection[tuple[BaseAction, Any]], resolve: Resolve, kept: Optional[KeptRoutes] = None
) -> RouteTable:
    """The table of the routes of ``actions`` (``(action, state)``), each tool's made by ``resolve``.

    ``kept``: given, a tool's routes kept for that profile are taken as they are, unless
    the tool sets its own settings or is the finish action (then ``resolve`` decides).

    Raises:
        ToolDefinitionError: two tools would answer the same call name.
    """
    names: dict[str, Route] = {}
    long_names: list[str] = []  # 'Tool.run' of each simple tool ...
    long_rows: list[tuple[str, Route]] = []  # ... and its row ('Tool', route)
    legal = True
    size = 0
    key, profile, finish, plain = kept if kept is not None else (None, None, None, False)
    for action, state in actions:
        found = state.resolved.get(key) if key is not None else None
        if (
            found is not None
            and found[0] is state.routes
            and found[1] is state.parser
            and found[2] is profile
            and action is not finish
            and (plain or getattr(action, "__tool_settings__", NO_SETTINGS) is NO_SETTINGS)
        ):
            rows, long_name, own_legal = found[3]
        else:
            rows, long_name, own_legal = resolve(action, state)
        names.update(rows)
        size += len(rows)
        if len(names) != size:  # a name taken twice
            raise _clashes(actions, resolve)
        if long_name is not None:
            long_names.append(long_name)
            long_rows.append(rows[0])
        legal = legal and own_legal
    return _table(names, legal, long_names, long_rows)


def _table(
    names: dict[str, Route], legal: bool, long_names: list[str], long_rows: list[tuple[str, Route]]
) -> RouteTable:
    """The table of ``names``, with their aliases and each simple tool's ``'Tool.run'`` spelling."""
    if legal:  # every name its own alias (the usual catalogue): built in C
        aliases = dict(zip(names, names))
        table = RouteTable(names, aliases, dict(aliases), dict(names))
    else:
        aliases = assign_aliases(names)
        table = RouteTable(names, aliases, {alias: name for name, alias in aliases.items()}, dict(names))
        for name, alias in aliases.items():
            if alias != name:  # a legal name is its own alias, routed already
                table.routes.setdefault(alias, names[name])
    routes = table.routes
    canonical = table.canonical
    if routes.keys().isdisjoint(long_names):  # the usual case: added in C, after the names
        tools, long_routes = zip(*long_rows) if long_rows else ((), ())
        routes.update(zip(long_names, long_routes))
        canonical.update(zip(long_names, tools))
        return table
    for long_name, (tool, route) in zip(long_names, long_rows):
        if long_name not in routes:  # a name of its own wins over another tool's 'Tool.run'
            routes[long_name] = route
            canonical[long_name] = tool
    return table


def _clashes(actions: Collection[tuple[BaseAction, Any]], resolve: Resolve) -> ToolDefinitionError:
    """The error naming every call name two of ``actions`` would answer (resolved again: rare)."""
    owners: dict[str, str] = {}
    clashes = []
    for action, state in actions:
        for name, _ in resolve(action, state).rows:
            if name in owners:
                clashes.append(f"call name {name!r} is both {owners[name]}'s and {action.name}'s")
            owners[name] = action.name
    return ToolDefinitionError("ActionExecutor", clashes)


def _alias_beside(table: RouteTable, name: str, planned: set[str]) -> Optional[str]:
    """The alias new call name ``name`` gets beside the table's names, as :func:`assign_aliases` gives it.

    ``planned``: the aliases of the names being added with it. ``None`` when only a
    rebuild can give it: ``name`` is legal but already another name's alias, which a
    whole assignment would hand back to it.
    """
    if LEGAL_NAME.fullmatch(name):
        return None if name in table.canonical or name in planned else name
    alias = readable_alias(name)
    if alias in table.canonical or alias in table.names or alias in planned:
        alias = hashed_alias(alias, name)
    return alias


def add_tool(table: RouteTable, action: BaseAction, resolve: Resolve) -> bool:
    """Put new tool ``action`` in ``table``, in place, resolving only its routes.

    Nothing changes when it returns ``False`` (only a rebuild can give its aliases) or
    raises. The names are routed last, so that a call running meanwhile finds a
    name only once it is whole.

    Raises:
        ToolDefinitionError: one of ``action``'s call names is another tool's.
    """
    added, long_name, _ = resolve(action, None)
    clashes = [
        f"{n!r} is both {table.names[n].action.name}'s and {action.name}'s"
        for n, _ in added
        if n in table.names
    ]
    if clashes:
        raise ToolDefinitionError("ActionExecutor", [f"call name {c}" for c in clashes])
    planned: dict[str, str] = {}
    for name, _ in added:
        alias = _alias_beside(table, name, set(planned.values()))
        if alias is None:
            return False
        planned[name] = alias
    for name, route in added:
        alias = planned[name]
        table.aliases[name] = alias
        table.canonical[alias] = name
        table.names[name] = route
        table.routes[name] = route
        table.routes.setdefault(alias, route)
    if long_name is not None and long_name not in table.routes:
        table.routes[long_name] = table.names[added[0][0]]
        table.canonical[long_name] = added[0][0]
    return True


def remove_tool(table: RouteTable, action: BaseAction) -> list[tuple[str, str]]:
    """Take ``action``'s call names out of ``table``, in place; ``(name, alias)`` of each removed.

    The other names keep their routes and aliases. Routes go first, so that a call
    running meanwhile finds a name whole or not at all.
    """
    tool = action.name
    gone = [tool] if not action.is_toolkit else [f"{tool}.{key}" for key in routes_of(action)]
    removed = []
    for name in gone:
        route = table.names.get(name)
        if route is None or route.action is not action:
            continue
        alias = table.aliases[name]
        for spelling in (name, alias, f"{name}.run"):
            if table.routes.get(spelling) is route:
                del table.routes[spelling]
        del table.names[name]
        del table.aliases[name]
        for spelling in (name, alias, f"{name}.run"):
            if table.canonical.get(spelling) == name:
                del table.canonical[spelling]
        removed.append((name, alias))
    return removed
