"""How a proxy names the tools it serves: another server's tools under their own names.

An executor names a toolkit's API ``'Toolkit.api'`` and exports it as
``Toolkit__api``. A server that re-serves other MCP servers' tools (``serve-mcp
--mcp``) must not: a client that knew the original server calls ``get_current_time``,
not ``time__get_current_time``. :class:`ProxyNames` maps between the two. A proxied
tool keeps its own name unless another served tool has it too; then the proxied one
keeps the executor's prefixed name and the clash is stated once (through ``say``), so
the operator can tell clients. Local tools always keep their names.

The names are worked out again from the executor's tool list each time it is read,
so a server that adds, removes or renames tools (and says so with
``notifications/tools/list_changed``) is served as it is now, clashes included.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Callable, Optional

__all__ = ["ProxyNames"]


class ProxyNames:
    """The served name of each tool of an executor that holds proxied MCP toolkits.

    Args:
        executor: the executor being served.
        toolkits: the proxied toolkits' names, each with the server tools it may serve
            (``None``: all of them); other tools of those toolkits are neither listed
            nor callable.
        say: told, once per clash, which tool is served under its prefixed name and why.
        withhold: server tools never served by a toolkit whose tools are all served
            (``None`` in ``toolkits``), even when its server adds one later (the names
            of code-executing tools, unless the operator allowed them).
    """

    def __init__(
        self,
        executor: Any,
        toolkits: Mapping[str, Optional[Collection[str]]],
        say: Callable[[str], None] = lambda text: None,
        withhold: Collection[str] = (),
    ) -> None:
        self._executor = executor
        self._toolkits = {
            name: None if allowed is None else set(allowed) for name, allowed in toolkits.items()
        }
        self._withhold = set(withhold)
        self._say = say
        self._said: set[str] = set()
        self._outward: dict[str, str] = {}
        self._inward: dict[str, str] = {}
        self._upstream: dict[str, tuple[Any, str]] = {}

    def served(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``tools`` (the executor's ``to_mcp_tools()``) as served: renamed, the withheld left out."""
        self._rebuild(tools)
        return [
            {**tool, "name": self._outward[tool["name"]]} for tool in tools if tool["name"] in self._outward
        ]

    def inward(self, name: str) -> Optional[str]:
        """The executor's name for served name ``name``, or ``None`` when nothing is served so."""
        found = self._inward.get(name)
        if found is None:
            # The tool list may have changed since the last tools/list (a server added one).
            self._rebuild(self._executor.to_mcp_tools())
            found = self._inward.get(name)
        return found

    @property
    def toolkits(self) -> list[Any]:
        """The proxied toolkits (``MCPToolkit`` s) the executor holds."""
        return [self._executor.actions[name] for name in self._toolkits if name in self._executor.actions]

    @property
    def host(self) -> Optional[Any]:
        """The proxied toolkit whose loop should run the server (see ``MCPToolkit.host``), if any."""
        toolkits = self.toolkits
        return toolkits[0] if toolkits else None

    def upstream(self, alias: str) -> Optional[tuple[Any, str]]:
        """``(MCPToolkit, the server's tool name)`` when executor name ``alias`` is a proxied tool."""
        return self._upstream.get(alias)

    def proxied(self, name: str) -> Optional[tuple[Any, str]]:
        """``(MCPToolkit, the server's tool name)`` of served name ``name``, a proxied tool still held.

        What the pass-throughs ask of a call before taking it; ``None``: the SDK's path
        answers it (a local tool, a name not served, a tool removed since).
        """
        alias = self.inward(name)
        if alias is None or self._executor.api_of(alias) is None:
            return None
        return self.upstream(alias)

    def _claim(self, alias: str) -> Optional[tuple[str, Optional[str]]]:
        """``(wanted name, toolkit)`` of exported tool ``alias``; ``None`` when it is withheld."""
        api = self._executor.api_of(alias)
        if api is None or not api[0].is_toolkit or api[0].name not in self._toolkits:
            return alias, None
        toolkit, tool = api[0].name, api[1]
        allowed = self._toolkits[toolkit]
        if (tool in self._withhold) if allowed is None else (tool not in allowed):
            return None
        return tool, toolkit

    def _rebuild(self, tools: list[dict[str, Any]]) -> None:
        claims: dict[str, list[tuple[str, Optional[str]]]] = {}
        for tool in tools:
            claim = self._claim(tool["name"])
            if claim is not None:
                claims.setdefault(claim[0], []).append((tool["name"], claim[1]))
        outward: dict[str, str] = {}
        upstream: dict[str, tuple[Any, str]] = {}
        for wanted, claimants in claims.items():
            for alias, toolkit in claimants:
                if toolkit is not None:
                    found = self._executor.api_of(alias)
                    upstream[alias] = found if found is not None else (self._executor.actions[toolkit], alias)
                if toolkit is None or len(claimants) == 1:
                    outward[alias] = wanted
                    continue
                outward[alias] = alias
                self._state_clash(alias, wanted, toolkit, claimants)
        self._outward, self._upstream = outward, upstream
        self._inward = {served: alias for alias, served in outward.items()}

    def _state_clash(
        self, alias: str, wanted: str, toolkit: str, claimants: list[tuple[str, Optional[str]]]
    ) -> None:
        if alias in self._said:
            return
        self._said.add(alias)
        others = [
            f"{other!r}" if kit is None else f"server {kit!r}" for other, kit in claimants if other != alias
        ]
        self._say(
            f"serving tool {wanted!r} of server {toolkit!r} as {alias!r}: the name {wanted!r} is also "
            f"taken by {', '.join(others)}"
        )
