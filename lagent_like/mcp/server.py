"""Serve an executor's tools over MCP, so any MCP host can call lagent_like tools.

The server is the SDK's low-level ``Server``, not a decorator-based one: its tool list
is exactly :meth:`~lagent_like.ActionExecutor.to_mcp_tools` (our JSON Schemas, read
again on every ``tools/list`` so enabling, disabling or adding tools shows at once),
and every ``tools/call`` goes through the executor, so argument validation, aliases,
hooks, policies and timeouts apply as they do in-process. A tool never crashes the
server: failures come back as results with ``isError`` set, and requests the server
cannot route (unknown or disabled tools) as MCP errors.
"""

from __future__ import annotations

import functools
import itertools
import json
import socket
import sys
import threading
import weakref
from typing import TYPE_CHECKING, Any, Optional, Union

from ._sdk import require_mcp

require_mcp()

import anyio  # noqa: E402 - only after the check above, which explains a missing SDK
import mcp_types as types  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # noqa: E402

from .. import __version__  # noqa: E402
from .._private.executor_messages import mark_native  # noqa: E402
from ..actions.async_executor import AsyncActionExecutor  # noqa: E402
from ..exceptions import ToolNotFoundError  # noqa: E402
from ..schema import ActionReturn, ActionStatusCode  # noqa: E402

if TYPE_CHECKING:
    from typing import Union

    from mcp.server.context import ServerRequestContext

    from ..actions.action_executor import ActionExecutor as _SyncExecutor

    # Either executor (siblings since the runtime was unified).
    ActionExecutor = Union[_SyncExecutor, AsyncActionExecutor]

__all__ = ["DEFAULT_MAX_ARGUMENT_CHARS", "build_mcp_server", "serve_mcp"]

#: Arguments longer than this (as JSON text) are refused before reaching a tool.
DEFAULT_MAX_ARGUMENT_CHARS = 1_000_000

#: Transports :func:`serve_mcp` speaks.
TRANSPORTS = ("stdio", "http")


def _tool_list(executor: ActionExecutor) -> types.ListToolsResult:
    """The executor's enabled tools as an MCP ``tools/list`` answer, schemas untouched."""
    return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in executor.to_mcp_tools()])


def _callable(executor: ActionExecutor, name: str) -> bool:
    """Whether ``name`` is an enabled API of ``executor`` (a toolkit's own name is not)."""
    try:
        executor.canonical_name(name)
    except ToolNotFoundError:
        return False
    return executor.is_valid(name)


def _error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def _to_result(ret: ActionReturn) -> types.CallToolResult:
    """An ``ActionReturn`` as MCP content; every state but ``SUCCESS`` is an error result."""
    failed = ret.state != ActionStatusCode.SUCCESS
    text = (ret.errmsg or ret.format_result()) if failed else ret.format_result()
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=failed)


def _oversized(arguments: dict[str, Any], limit: Optional[int]) -> Optional[str]:
    """Why ``arguments`` are refused for their size, or ``None`` when they fit."""
    if limit is None:
        return None
    size = len(json.dumps(arguments, ensure_ascii=False, default=str))
    if size <= limit:
        return None
    return f"the arguments are {size} characters of JSON; this server accepts at most {limit}"


class _Sessions:
    """One executor session per MCP connection, so each client has its own ``ToolContext.state``.

    The state is dropped when the SDK discards the connection's session object.
    """

    def __init__(self, executor: ActionExecutor) -> None:
        self._executor = executor
        self._ids: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._count = itertools.count(1)
        self._lock = threading.Lock()

    def id_of(self, connection: Any) -> Optional[str]:
        """The session id of ``connection`` (``None``, the default session, if it cannot be tracked)."""
        if connection is None:
            return None
        with self._lock:
            try:
                return self._ids[connection]
            except KeyError:
                pass
            except TypeError:  # not weakly referenceable: share the default session
                return None
            session_id = f"mcp-{next(self._count)}"
            self._ids[connection] = session_id
            weakref.finalize(connection, self._executor.end_session, session_id)
            return session_id


def _connection_of(ctx: ServerRequestContext[Any]) -> Any:
    """The object that stands for the client behind a request, or ``None`` if there is none.

    Handlers get a per-request ``ServerSession``; the per-client connection behind it
    is private in mcp 2.x (hence ``getattr``). Requests of the 2026-07-28 protocol are
    self-contained, each with a connection of its own: there is no client to key on.
    """
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return None
    return getattr(ctx.session, "_connection", None)


async def _run_call(
    executor: ActionExecutor,
    name: str,
    arguments: dict[str, Any],
    session_id: Optional[str],
    call_id: Optional[str],
) -> ActionReturn:
    """Run one call through the executor without blocking the event loop."""
    mark_native()  # this task serves a client that sees the aliases: messages name them
    if isinstance(executor, AsyncActionExecutor):
        return await executor(name, arguments, session_id, call_id)
    # A sync executor blocks while its tool runs: give it a worker thread.
    call = functools.partial(executor, name, arguments, session_id, call_id)
    return await anyio.to_thread.run_sync(call, abandon_on_cancel=True)


def build_mcp_server(
    executor: ActionExecutor,
    *,
    name: str = "lagent-like",
    instructions: Optional[str] = None,
    max_argument_chars: Optional[int] = DEFAULT_MAX_ARGUMENT_CHARS,
) -> Server[Any]:
    """Build the low-level MCP server that offers ``executor``'s tools.

    Args:
        executor: the tools to offer; an :class:`~lagent_like.AsyncActionExecutor` runs
            calls on the server's loop, a sync executor runs each call in a worker thread.
        name: the server name announced to clients.
        instructions: text announced to clients on connection, if any.
        max_argument_chars: calls whose arguments exceed this many characters of JSON are
            refused with an error result; ``None`` for no limit.

    Each MCP connection is its own executor session: tools taking a
    :class:`~lagent_like.ToolContext` see one ``state`` dict per connected client
    (clients of the sessionless 2026-07-28 protocol share the default session), and
    the MCP request id as ``call_id``.

    Returns:
        The SDK ``Server``; run it with ``server.run(read, write,
        server.create_initialization_options())`` or serve it with :func:`serve_mcp`.
    """

    sessions = _Sessions(executor)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: Optional[types.PaginatedRequestParams]
    ) -> types.ListToolsResult:
        return _tool_list(executor)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if not _callable(executor, params.name):
            # The spec's rule: a tool that cannot be found is a protocol error, not a result.
            raise MCPError(
                types.INVALID_PARAMS, f"unknown tool {params.name!r}; call tools/list for the tools"
            )
        arguments = params.arguments or {}
        refused = _oversized(arguments, max_argument_chars)
        if refused is not None:
            return _error_result(refused)
        session_id = sessions.id_of(_connection_of(ctx))
        call_id = None if ctx.request_id is None else str(ctx.request_id)
        try:
            ret = await _run_call(executor, params.name, arguments, session_id, call_id)
        except Exception as exc:  # noqa: BLE001 - an executor bug must not take the server down
            return _error_result(f"the server failed to run {params.name!r}: {type(exc).__name__}: {exc}")
        return _to_result(ret)

    return Server(
        name,
        version=__version__,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _listen(host: str, port: int) -> socket.socket:
    """A bound socket, so that port 0 gets a free port known before serving starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        # Listening at once queues clients that connect before the app is up.
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def _serve_http(server: Server[Any], host: str, port: int, ready_message: bool) -> None:
    import uvicorn

    app = server.streamable_http_app(host=host)
    sock = _listen(host, port)
    bound = sock.getsockname()[1]
    if ready_message:
        # Stdout may be the data channel of a caller: announce on stderr.
        print(f"serving MCP on http://{host}:{bound}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


def serve_mcp(
    executor: Union[ActionExecutor, Server[Any]],
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    name: str = "lagent-like",
    ready_message: bool = True,
) -> None:
    """Serve ``executor``'s tools over MCP until the client leaves (stdio) or the process stops.

    Args:
        executor: the tools to serve (or a server made by :func:`build_mcp_server`).
        transport: ``'stdio'`` (the process's stdin and stdout carry the protocol, as
            MCP hosts launch servers) or ``'http'`` (streamable HTTP at ``/mcp``).
        host: the address to listen on (``http``). Loopback addresses also turn on the
            SDK's DNS-rebinding protection.
        port: the port to listen on (``http``); ``0`` picks a free one.
        name: the server name announced to clients.
        ready_message: for ``http``, print ``serving MCP on <url>`` to stderr once listening.

    Raises:
        ValueError: ``transport`` is not one of ``'stdio'``, ``'http'``.
        OSError: the HTTP address cannot be bound.
    """
    if transport not in TRANSPORTS:
        raise ValueError(f"transport must be one of {list(TRANSPORTS)}, got {transport!r}")
    server = executor if isinstance(executor, Server) else build_mcp_server(executor, name=name)
    if transport == "stdio":
        anyio.run(_serve_stdio, server)
    else:
        _serve_http(server, host, port, ready_message)
