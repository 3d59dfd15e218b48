"""The inspector's MCP servers: connected, reconnected and disconnected from the page.

A working day with the inspector open means servers come and go: one is restarted
with a new tool, another is added for a while. Each server is one toolkit of the
executor, named after the server as ``--mcp`` names it; this module keeps the list
(with each server's status and its error text) and changes the executor, so that
the catalogue, the exports and search follow. Starting a command is code execution,
so a command line is refused unless the operator allowed it; a URL may name only a
public or a loopback address (the package's egress rule, loopback allowed).
"""

from __future__ import annotations

import asyncio
import ipaddress
import tempfile
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Callable, Optional, TextIO
from urllib.parse import urlsplit

from ..executors._action_executor import ActionExecutor
from ..mcp._targets import is_url, open_target, target_words, toolkit_name
from ._errors import InspectorError

if TYPE_CHECKING:
    from .._net.egress import AddressRule

__all__ = ["COMMANDS_NOT_ALLOWED", "CONNECT_TIMEOUT", "MCPServers"]

#: Seconds the page waits for a server to start and list its tools (never a hung page).
CONNECT_TIMEOUT = 20.0

#: The 403 answer to a command line when the operator did not allow them.
COMMANDS_NOT_ALLOWED = (
    "starting a command from the page runs it on this machine: the operator must start the "
    "inspector with --allow-connect-commands (or inspect(..., allow_connect_commands=True)); "
    "a URL (http://...) needs no flag"
)

#: How much of a failed server's stderr the page shows (its end, where the error is).
_STDERR_SHOWN = 2000

#: Not public, but where a developer's own servers run: allowed to the page.
_LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


def _page_rule() -> AddressRule:
    """The addresses a server given on the page may have: public ones and loopback."""
    # Imported here: the egress module needs requests, and only a URL from the page needs it.
    from .._net.egress import AddressRule

    return AddressRule(allowed=_LOOPBACK)


def check_url(url: str) -> None:
    """Refuse a URL the page may not connect to: not http(s), or a private address.

    Raises:
        InspectorError: 400 for a URL without a host or port that can be read, 403 for
            a host that resolves to a private (not loopback) address.
    """
    from .._net.egress import AddressRefused

    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise InspectorError(400, f"the URL {url!r} cannot be read: {exc}") from None
    if not host:
        raise InspectorError(400, f"the URL {url!r} names no host, e.g. http://127.0.0.1:8000/mcp")
    try:
        _page_rule().addresses(host, port)
    except AddressRefused as exc:
        raise InspectorError(
            403,
            f"{exc}: the page connects to public and loopback servers only; "
            "give a private server with --mcp URL when starting the inspector",
        ) from None
    except (OSError, UnicodeError):
        pass  # a host that does not resolve fails to connect, and the page says so


class _Server:
    """One server of the list: where it is, its toolkit while connected, what went wrong."""

    def __init__(self, server_id: str, target: str, token: Optional[str], at_start: bool) -> None:
        self.id = server_id
        self.target = target
        self.token = token
        self.at_start = at_start
        self.toolkit: Any = None
        self.name: Optional[str] = None
        self.status = "disconnected"
        self.error: Optional[str] = None
        #: The stderr of a started command, so that its last words can be shown.
        self.errlog: Optional[TextIO] = None
        #: Whether the panel opened ``toolkit`` (and so closes it when the server stops).
        self.owned = False
        #: Held while the server is connected or dropped: two clicks never open two toolkits.
        self.busy = threading.Lock()

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "target": self.target,
            "kind": "url" if is_url(self.target) else "command",
            "status": self.status,
            "error": self.error,
            "tools": list(self.toolkit.tool_names) if self.toolkit is not None else [],
            "at_start": self.at_start,
        }

    def stderr_tail(self) -> str:
        """The end of what a started command wrote on stderr ('' if nothing)."""
        if self.errlog is None:
            return ""
        self.errlog.flush()
        self.errlog.seek(0)
        return self.errlog.read()[-_STDERR_SHOWN:].strip()

    def release(self) -> None:
        """Close the toolkit (if the panel opened it) and the stderr file."""
        if self.toolkit is not None and self.owned:
            self.toolkit.close()
        if self.errlog is not None:
            self.errlog.close()
        self.toolkit, self.errlog, self.owned = None, None, False


class MCPServers:
    """The MCP servers of an inspected executor, each one toolkit of it.

    Args:
        executor: the executor the toolkits are added to and removed from.
        on_change: called after the executor's tools changed (the catalogue rebuilds).
        allow_commands: whether the page may start a command (a stdio server).
        connect_timeout: seconds a server has to start and list its tools.
    """

    def __init__(
        self,
        executor: ActionExecutor,
        on_change: Callable[[], None],
        allow_commands: bool = False,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        self.executor = executor
        self.on_change = on_change
        self.allow_commands = allow_commands
        self.connect_timeout = connect_timeout
        self._servers: dict[str, _Server] = {}
        self._count = 0
        self._lock = threading.Lock()

    def adopt(self, servers: Iterable[tuple[Any, str]], token: Optional[str] = None) -> None:
        """List toolkits the executor already holds, each with the URL or command it was opened from.

        Args:
            servers: ``(MCPToolkit, target)`` pairs, e.g. the ``--mcp`` servers.
            token: the bearer token their URLs need when they are reconnected.
        """
        for toolkit, target in servers:
            server = self._new(target, token if is_url(target) else None, at_start=True)
            server.toolkit, server.name, server.status = toolkit, toolkit.name, "connected"

    def _new(self, target: str, token: Optional[str], at_start: bool) -> _Server:
        with self._lock:
            self._count += 1
            server = _Server(str(self._count), target, token, at_start)
            self._servers[server.id] = server
        return server

    def _get(self, server_id: str) -> _Server:
        server = self._servers.get(server_id)
        if server is None:
            raise InspectorError(404, f"no MCP server number {server_id}; the page lists the ones there are")
        return server

    def servers(self) -> list[dict[str, Any]]:
        """Every server of the list, oldest first, as the page shows it.

        Returns:
            Dicts with ``id``, ``name`` (the toolkit's, ``None`` before it ever
            connected), ``target``, ``kind`` (``url`` or ``command``), ``status``
            (``connected``, ``failed`` or ``disconnected``), ``error`` (the reason of a
            failure), ``tools`` (the server's tool names while connected) and ``at_start``
            (given when the inspector started).
        """
        with self._lock:
            return [server.summary() for server in self._servers.values()]

    def connect(self, target: Any, token: Any = None) -> dict[str, Any]:
        """Connect to a new server and add its toolkit; a failure is listed with its reason.

        Args:
            target: an ``http(s)://`` URL of a streamable-HTTP server, or a command line
                that starts a stdio server.
            token: the bearer token an HTTP server needs (optional).

        Returns:
            The server's entry (see :meth:`servers`), ``connected`` or ``failed``.

        Raises:
            InspectorError: a malformed request (400), a command without
                ``allow_commands`` or a private address (403).
        """
        if not isinstance(target, str) or not target.strip():
            raise InspectorError(400, "'target' is required: a URL (http://...) or a command line")
        if token is not None and not isinstance(token, str):
            raise InspectorError(400, "'token' must be a string (the HTTP server's bearer token)")
        target = target.strip()
        if is_url(target):
            check_url(target)
        elif not self.allow_commands:
            raise InspectorError(403, COMMANDS_NOT_ALLOWED)
        else:
            try:
                target_words(target)
            except ValueError as exc:
                raise InspectorError(400, str(exc)) from None
        server = self._new(target, token or None, at_start=False)
        with server.busy:
            self._open(server)
            return server.summary()

    def reconnect(self, server_id: str) -> dict[str, Any]:
        """Close a server's connection (if any) and connect again: its tools are listed anew.

        A command given at start (``--mcp``) may be restarted without
        ``allow_commands``: the operator chose it; the page only lists commands it may run.

        Raises:
            InspectorError: no such server (404).
        """
        server = self._get(server_id)
        with server.busy:
            self._drop(server, "disconnected")
            self._open(server)
            return server.summary()

    def disconnect(self, server_id: str) -> dict[str, Any]:
        """Close a server's connection and remove its tools; it stays listed to reconnect.

        Raises:
            InspectorError: no such server (404).
        """
        server = self._get(server_id)
        with server.busy:
            self._drop(server, "disconnected")
            return server.summary()

    def remove(self, server_id: str) -> None:
        """Disconnect a server and take it off the list.

        Raises:
            InspectorError: no such server (404).
        """
        server = self._get(server_id)
        with server.busy:
            self._drop(server, "disconnected")
            with self._lock:
                self._servers.pop(server_id, None)

    def close(self) -> None:
        """Close every connection the panel opened (toolkits given at start stay open)."""
        with self._lock:
            servers = list(self._servers.values())
        for server in servers:
            with server.busy:
                if server.owned:
                    self._drop(server, "disconnected")

    def _open(self, server: _Server) -> None:
        """Connect ``server`` and add its toolkit, or mark it failed with the reason."""
        # Kept open while the server runs (closed by release()): its stderr goes there.
        errlog = None if is_url(server.target) else tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        server.errlog = errlog
        try:
            toolkit = self._toolkit(server, errlog)
        except Exception as exc:  # noqa: BLE001 - any failure is shown on the page, not raised
            said = server.stderr_tail()
            server.release()
            server.status = "failed"
            server.error = self._failure(exc) + (f"\nthe server wrote on stderr:\n{said}" if said else "")
            return
        with self._lock:
            taken = set(self.executor.actions) - ({server.name} if server.name else set())
            info = toolkit.server_info
            name = toolkit_name(info.name if info is not None else None, taken)
            if name != toolkit.name:
                toolkit.rename(name)
            self.executor.add_action(toolkit)
            server.toolkit, server.name, server.owned = toolkit, name, True
            server.status, server.error = "connected", None
        toolkit.on_tools_changed(self._tools_changed)
        self.on_change()

    def _toolkit(self, server: _Server, errlog: Optional[TextIO]) -> Any:
        """Open ``server``'s toolkit: a URL given on the page over connections pinned to checked addresses.

        A server given at start (``--mcp``) was the operator's choice and may be private:
        it is opened as the command line opens it.
        """
        if server.at_start or not is_url(server.target):
            return open_target(
                server.target, server.token, connect_timeout=self.connect_timeout, errlog=errlog
            )
        from ._pinned_mcp import PinnedMCPToolkit

        return PinnedMCPToolkit(
            server.target.strip(), _page_rule(), server.token, connect_timeout=self.connect_timeout
        )

    def _failure(self, exc: Exception) -> str:
        """What the page says about a failed connection: the error, and a timeout in seconds."""
        text = str(exc)
        cause: Optional[BaseException] = exc
        while cause is not None and not isinstance(cause, (TimeoutError, asyncio.TimeoutError)):
            cause = cause.__cause__
        if cause is not None:
            text += f" (no answer and no tool list within {self.connect_timeout:g} s)"
        return text

    def _tools_changed(self) -> None:
        """A server announced a new tool list: route calls to it and rebuild the catalogue."""
        self.executor.refresh()
        self.on_change()

    def _drop(self, server: _Server, status: str) -> None:
        """Remove ``server``'s toolkit from the executor and close it."""
        with self._lock:
            toolkit = server.toolkit
            name = toolkit.name if toolkit is not None else None
            if name is not None and self.executor.actions.get(name) is toolkit:
                self.executor.del_action(name)
            if toolkit is not None and not server.owned:
                toolkit.close()  # given at start: nobody else uses it once it is off the page
            server.release()
            server.status, server.error = status, None
        if toolkit is not None:
            self.on_change()
