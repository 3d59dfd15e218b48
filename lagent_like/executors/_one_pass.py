"""A catalogue of plain tools written into an executor's tables in one pass.

With thousands of tools (and as many tool classes), what a build costs is reaching
each tool's objects: every separate pass over the catalogue finds them out of the
CPU's caches again. The usual catalogue, rebuilt into each new executor, is plain:
``BaseAction`` instances that keep their routes for this executor's profile, set no
runtime settings of their own and have names legal for function calling. Their
names, aliases and routes are then all written while each tool's objects are at
hand. Anything else makes :func:`one_pass` answer ``None``, and the general build
(with its checks and messages) takes over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from ..toolkits._base_action import BaseAction
from ..toolkits._tool_state import STATE_ATTR, class_settings_edits
from ..toolkits._unread_settings import SETTING_NAMES
from ._routes import KeptRoutes, RouteTable

__all__ = ["Built", "one_pass"]

#: Instance attributes that send a tool to the general build: its own settings, or
#: attributes named like settings (which the general build warns of).
_NOT_PLAIN = frozenset({*SETTING_NAMES, "__tool_settings__"})

#: A tool's instance dict, read without looking ``__dict__`` up on its class (a lookup
#: that misses Python's type cache with thousands of tool classes); ``TypeError`` for
#: anything but a ``BaseAction``.
_instance_dict = BaseAction.__dict__["__dict__"].__get__

#: What :func:`one_pass` builds: name -> action, name -> ``(action, state)``, the routes.
Built = tuple[dict[str, BaseAction], dict[str, tuple[BaseAction, Any]], RouteTable]


def one_pass(items: Sequence[Any], kept: KeptRoutes) -> Optional[Built]:
    """The tables of ``items`` when they are a plain catalogue (see the module), else ``None``."""
    key, profile, finish, _ = kept
    edits = class_settings_edits()
    named: dict[str, BaseAction] = {}
    tools: dict[str, tuple[BaseAction, Any]] = {}
    table = RouteTable({}, {}, {}, {})
    names, aliases, canonical, routes = table
    for item in items:
        try:
            values = _instance_dict(item)
        except TypeError:  # not an action
            return None
        state = values.get(STATE_ATTR)
        if state is None or state.plain_at != edits or item is finish:
            return None  # not set up, its class may set settings now, or the finish action
        if len(values) > 1 and not _NOT_PLAIN.isdisjoint(values):
            return None
        simple = state.simple
        if simple is None or simple[0] != key or simple[1] is not profile:  # a toolkit, or not yet resolved
            if not _put_kept(table, item, state, kept, named):
                return None
            tools[state.name] = (item, state)
            continue
        _, _, name, route, long_name = simple  # a simple tool's routes, read in one tuple
        if name in named or name in names:
            return None  # a name given twice, or another tool's call name
        named[name] = item
        tools[name] = (item, state)
        aliases[name] = canonical[name] = name
        names[name] = routes[name] = routes[long_name] = route
        canonical[long_name] = name  # 'Tool.run': dotted, so never another tool's legal call name
    return named, tools, table


def _put_kept(
    table: RouteTable, item: BaseAction, state: Any, kept: KeptRoutes, named: dict[str, Any]
) -> bool:
    """Put the call names of ``item`` (``state``'s) from the routes it keeps for ``kept``'s profile.

    ``False`` (the table then partly written) when it keeps none, a name is taken, or
    a name needs an alias.
    """
    found = state.resolved.get(kept.key)
    if found is None or found[0] is not state.routes or found[1] is not state.parser:
        return False  # routes not resolved for this profile yet
    name = state.name
    if found[2] is not kept.profile or not found[3].legal or name in named:
        return False  # another profile, names needing aliases, or a name given twice
    named[name] = item
    rows, long_name, _ = found[3]
    for call, route in rows:
        if call in table.names:
            return False  # a name two tools would answer: the general build says which
        table.aliases[call] = table.canonical[call] = call  # legal: its own alias
        table.names[call] = table.routes[call] = route
    if long_name is not None:  # 'Tool.run': dotted, so never another tool's legal call name
        table.routes[long_name] = rows[0][1]
        table.canonical[long_name] = rows[0][0]
    return True


def _plain(items: Sequence[Any]) -> bool:
    """Whether none of ``items`` (actions) holds settings of its own or attributes named like them."""
    for values in map(_instance_dict, items):
        if len(values) > 1 and not _NOT_PLAIN.isdisjoint(values):
            return False
    return True
