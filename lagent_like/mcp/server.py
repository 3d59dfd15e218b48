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
import json
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from ._sdk import require_mcp

require_mcp()

import anyio  # noqa: E402 - only after the check above, which explains a missing SDK
import mcp_types as types  # noqa: E402
from mcp.server.lowlevel import NotificationOptions, Server  # noqa: E402
from mcp.server.models import InitializationOptions  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS  # noqa: E402

from .._private.connection_gate import (  # noqa: E402
    DEFAULT_HEAD_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_PER_PEER,
    ConnectionGate,
)
from .._private.text import preview  # noqa: E402
from .._private.version import __version__  # noqa: E402
from ..executors._async_executor import AsyncActionExecutor  # noqa: E402
from ..executors._exports import mcp_extras  # noqa: E402
from ..runtime._messages import mark_native  # noqa: E402
from ..runtime._streaming import on_loop  # noqa: E402
from ..schema import ActionReturn, ActionStatusCode  # noqa: E402
from ._http import HttpGuard, allowed_hosts_for, listen, resolve_token  # noqa: E402
from ._http_passthrough import HttpPassThrough  # noqa: E402
from ._passthrough import PassRules, PassThrough  # noqa: E402
from ._proxy import ProxyNames  # noqa: E402
from ._sessions import ClientLimits, Sessions, ToolListNotices, _connection_of, client_key  # noqa: E402
from ._stdio import pipe_streams  # noqa: E402
from ._wire import Progress  # noqa: E402

if TYPE_CHECKING:
    from typing import Union

    from mcp.server.context import ServerRequestContext

    from ..executors._action_executor import ActionExecutor as _SyncExecutor

    # Either executor (siblings since the runtime was unified).
    ActionExecutor = Union[_SyncExecutor, AsyncActionExecutor]

__all__ = [
    "DEFAULT_MAX_CLIENT_CALLS",
    "DEFAULT_QUEUE_TIMEOUT",
    "build_mcp_server",
    "serve_mcp",
    "valid_text",
]

#: ``build_mcp_server``'s default ``max_argument_chars``: the executor's own limit.
EXECUTORS_LIMIT: Any = object()

#: Calls of one client that run at once (below the executor's smallest default pool, 5).
DEFAULT_MAX_CLIENT_CALLS = 4

#: Seconds a call beyond a client's share waits for its turn.
DEFAULT_QUEUE_TIMEOUT = 60.0

#: Transports :func:`serve_mcp` speaks.
TRANSPORTS = ("stdio", "http")


def _tool_list(executor: ActionExecutor, names: Optional[ProxyNames] = None) -> types.ListToolsResult:
    """The executor's enabled tools as an MCP ``tools/list`` answer, schemas untouched.

    Only made valid Unicode: a docstring read with ``surrogateescape`` must not end the
    server either. With ``names``, proxied tools are listed under their own names.
    """
    tools = executor.to_mcp_tools()
    if names is not None:
        tools = names.served(tools)
    return types.ListToolsResult(tools=[types.Tool.model_validate(_valid_json(t)) for t in tools])


def _error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=valid_text(text))], is_error=True)


def _to_result(ret: ActionReturn, structured: bool = False) -> types.CallToolResult:
    """An ``ActionReturn`` as MCP content; every state but ``SUCCESS`` is an error result.

    With ``structured`` (the tool has an ``outputSchema``) the result, JSON text of an
    object, is also sent as structured content. Every string is made valid Unicode
    here, before any transport encodes it.
    """
    failed = ret.state != ActionStatusCode.SUCCESS
    text = (ret.errmsg or ret.format_result()) if failed else ret.format_result()
    if failed or not structured:
        return types.CallToolResult(content=[types.TextContent(text=valid_text(text))], is_error=failed)
    # An MCPToolkit's record carries its server's structured content; a tool's own
    # result is the JSON text of the object it returned (uncut, when an output cap
    # shortened the text shown).
    items = ret.full_result if ret.full_result is not None else ret.result or []
    carried = [item["structured"] for item in items if "structured" in item]
    if carried:
        data = carried[0]
    else:
        try:
            data = json.loads(ActionReturn(result=items).format_result())
        except ValueError:
            data = None
    if not isinstance(data, dict):
        return _error_result(
            f"{ret.type} declares an object result (its outputSchema), but its result is not a JSON "
            f"object: {preview(text)}"
        )
    return types.CallToolResult(
        content=[types.TextContent(text=valid_text(text))],
        structured_content=_valid_json(data),
        is_error=False,
    )


def _oversized(arguments: dict[str, Any], limit: Optional[int]) -> Optional[str]:
    """Why ``arguments`` are refused for their size, or ``None`` when they fit."""
    if limit is None:
        return None
    size = len(json.dumps(arguments, ensure_ascii=False, default=str))
    if size <= limit:
        return None
    return f"the arguments are {size} characters of JSON; this server accepts at most {limit}"


_SURROGATES = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    r"""``text`` as valid Unicode: surrogate pairs joined, each unpaired one U+FFFD.

    A Python ``str`` may hold surrogates (from ``surrogateescape``, JSON ``\ud800``
    escapes or careless slicing) that no transport can encode as UTF-8; one of them in
    a result used to end the stdio server.
    """
    if text.isascii() or _SURROGATES.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _valid_json(value: Any) -> Any:
    """``value`` (JSON data) with every string made :func:`valid_text`."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        return {valid_text(str(k)): _valid_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_valid_json(v) for v in value]
    return value


async def _run_call(
    executor: ActionExecutor,
    name: str,
    arguments: dict[str, Any],
    session_id: Optional[str],
    call_id: Optional[str],
    on_progress: Optional[Callable[[Any], Any]] = None,
) -> ActionReturn:
    """Run one call through the executor without blocking the event loop."""
    mark_native()  # this task serves a client that sees the aliases: messages name them
    if isinstance(executor, AsyncActionExecutor):
        ret = await executor(name, arguments, session_id, call_id, on_progress=on_progress)
    else:
        # A sync executor blocks while its tool runs: give it a worker thread.
        call = functools.partial(executor, name, arguments, session_id, call_id, on_progress=on_progress)
        ret = await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
    executor._named_as_given([ret])
    return ret


async def _forward(
    upstream: tuple[Any, str], arguments: dict[str, Any], session_id: str, on_progress: Callable[[Any], Any]
) -> types.CallToolResult:
    """Send a proxied call to its server as the client wrote it; its result as the server gave it.

    Not through the executor: the server checks the arguments itself, so a client gets
    the server's own answers (its validation messages, under its tool names, its
    structured content). Only a call that got no result (a lost connection) is
    answered here, as an error result saying why.
    """
    toolkit, tool = upstream
    result = await toolkit.forward(tool, arguments, session_id=session_id, on_progress=on_progress)
    if isinstance(result, ActionReturn):
        return _to_result(result)
    return _valid_result(result)


def _valid_result(result: types.CallToolResult) -> types.CallToolResult:
    """``result`` with its strings made :func:`valid_text` (a copy only when one was not)."""
    content = list(result.content)
    changed = False
    for index, block in enumerate(content):
        if isinstance(block, types.TextContent):
            text = valid_text(block.text)
            if text is not block.text:
                content[index], changed = block.model_copy(update={"text": text}), True
    structured = result.structured_content
    if structured is not None:
        fixed = _valid_json(structured)
        structured, changed = fixed, changed or fixed != structured
    if not changed:
        return result
    return result.model_copy(update={"content": content, "structured_content": structured})


def _progress_reporter(ctx: ServerRequestContext[Any]) -> Callable[[Any], Any]:
    """The ``on_progress`` of one ``tools/call``: each chunk a progress notification.

    MCP's ``notifications/progress`` for the request's ``progressToken`` (none is sent
    when the client asked for none), numbered from 1, the chunk as its ``message``,
    sent on this loop whichever thread the chunk comes from (a sync executor's), each
    before the next chunk and all before the result.
    """
    import asyncio

    count = 0

    async def send(chunk: Any) -> None:
        nonlocal count
        if isinstance(chunk, Progress):
            # Another MCP server's notification, served again: its own values.
            message = None if chunk.message is None else valid_text(chunk.message)
            await ctx.session.report_progress(chunk.progress, chunk.total, message)
            return
        count += 1
        text = chunk if isinstance(chunk, str) else json.dumps(chunk, ensure_ascii=False, default=str)
        await ctx.session.report_progress(count, None, valid_text(text))

    return on_loop(send, asyncio.get_running_loop())


class _ChangingServer(Server[Any]):
    """A proxy's server: its tool list changes while clients are connected, and it says so.

    It announces ``tools.listChanged`` in its capabilities to every client, also those
    of the HTTP transport (which asks the server for its options itself). Served over
    stdio, its ``pass_through`` passes proxied tools' calls to their stdio servers as
    lines (:class:`~lagent_like.mcp._passthrough.PassThrough`); served over HTTP, its
    ``http_pass_through`` passes them to their HTTP servers as POSTs
    (:class:`~lagent_like.mcp._http_passthrough.HttpPassThrough`).
    """

    pass_through: Optional[PassThrough] = None
    http_pass_through: Optional[HttpPassThrough] = None

    def create_initialization_options(
        self,
        notification_options: Optional[NotificationOptions] = None,
        experimental_capabilities: Optional[dict[str, dict[str, Any]]] = None,
        extensions: Optional[dict[str, dict[str, Any]]] = None,
    ) -> InitializationOptions:
        """The SDK's options, with ``tools_changed`` on unless ``notification_options`` say otherwise."""
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


def _tell_of_changes(
    executor: ActionExecutor,
    names: ProxyNames,
    server: Server[Any],
    sessions: Sessions,
    passing: PassThrough,
    http_passing: HttpPassThrough,
) -> None:
    """Tell ``server``'s clients whenever a proxied server's tool list changes.

    The toolkit has rebuilt its APIs when its listener runs (on the toolkit's own
    thread): the executor re-reads its routes, then each client is sent
    ``notifications/tools/list_changed`` and lists the tools again, under the names
    :class:`ProxyNames` gives them now; a client of the 2026-07-28 protocol is sent it
    on its ``subscriptions/listen`` stream. A client's handshake also opens the
    pass-through (``passing`` over stdio, ``http_passing`` for an HTTP session) to
    it, when it speaks a handshake protocol.
    """
    notices = ToolListNotices()

    async def on_initialized(ctx: ServerRequestContext[Any], params: Any) -> None:
        await notices.on_initialized(ctx, params)
        if ctx.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return
        session_id = sessions.id_of(ctx)
        if passing.attached:
            passing.bind(session_id, client_key(ctx, session_id))
        http_session = _http_session_id(ctx)
        if http_session is not None:
            http_passing.bind(http_session, session_id, client_key(ctx, session_id), _connection_of(ctx))

    server.add_notification_handler("notifications/initialized", types.NotificationParams, on_initialized)
    # The 2026-07-28 clients' way to be told (the SDK then announces tools.listChanged to them).
    server.add_request_handler(
        "subscriptions/listen", types.SubscriptionsListenRequestParams, notices.on_listen
    )

    def changed() -> None:
        executor.refresh()
        notices.announce()

    for toolkit in names.toolkits:
        toolkit.on_tools_changed(changed)


def _http_session_id(ctx: ServerRequestContext[Any]) -> Optional[str]:
    """The ``Mcp-Session-Id`` of the HTTP request behind ``ctx``; ``None`` over stdio."""
    headers = getattr(ctx.request, "headers", None)
    value = None if headers is None else headers.get(MCP_SESSION_ID_HEADER)
    return value if isinstance(value, str) else None


def build_mcp_server(
    executor: ActionExecutor,
    *,
    name: str = "lagent-like",
    instructions: Optional[str] = None,
    max_argument_chars: Any = EXECUTORS_LIMIT,
    max_client_calls: Optional[int] = DEFAULT_MAX_CLIENT_CALLS,
    queue_timeout: Optional[float] = DEFAULT_QUEUE_TIMEOUT,
    names: Optional[ProxyNames] = None,
) -> Server[Any]:
    """Build the low-level MCP server that offers ``executor``'s tools.

    Args:
        executor: the tools to offer; an :class:`~lagent_like.AsyncActionExecutor` runs
            calls on the server's loop, a sync executor runs each call in a worker thread.
        name: the server name announced to clients.
        instructions: text announced to clients on connection, if any.
        max_argument_chars: calls whose arguments exceed this many characters of JSON are
            refused with an error result; ``None`` for no limit. By default the
            executor's own ``max_argument_chars`` (the limit it puts on argument strings).
        max_client_calls: how many calls of one client run at once; later ones queue.
            Keep it below the executor's ``max_workers`` so that one busy client leaves
            threads for the others. ``None`` for no limit.
        queue_timeout: seconds a queued call waits for its turn before it is answered
            with an error result; ``None`` waits as long as it takes.
        names: for a proxy (``serve-mcp --mcp``): serves the tools of the executor's
            ``MCPToolkit`` s under their servers' own names (see
            :class:`~lagent_like.mcp._proxy.ProxyNames`), and sends their calls to their
            servers as the client wrote them, so that the servers' own checks answer.
            When such a server changes its tool list, the clients are told
            (``notifications/tools/list_changed``; the server announces
            ``tools.listChanged``).

    Each MCP connection is its own executor session: tools taking a
    :class:`~lagent_like.ToolContext` see one ``state`` dict per connected client and
    the MCP request id as ``call_id``; ``executor.end_session`` runs when the
    connection ends. A request without a session (the 2026-07-28 protocol) is a
    session of its own, ended with the request.

    A generator tool's chunks go to the client as they come, as progress
    notifications (``notifications/progress``, the chunk as ``message``) when the
    request carried a ``progressToken``; the result is the whole output.

    Returns:
        The SDK ``Server``; run it with ``server.run(read, write,
        server.create_initialization_options())`` or serve it with :func:`serve_mcp`.
    """
    sessions = Sessions(executor)
    limits = ClientLimits(max_client_calls, queue_timeout)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: Optional[types.PaginatedRequestParams]
    ) -> types.ListToolsResult:
        return _tool_list(executor, names)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name = params.name if names is None else names.inward(params.name)
        api = None if name is None else executor.api_of(name)
        if name is None or api is None:
            # The spec's rule: a tool that cannot be found is a protocol error, not a result.
            raise MCPError(
                types.INVALID_PARAMS,
                valid_text(f"unknown tool {params.name!r}; call tools/list for the tools"),
            )
        arguments = params.arguments or {}
        refused = _oversized(arguments, _limit(executor, max_argument_chars))
        if refused is not None:
            return _error_result(refused)
        session_id = sessions.id_of(ctx)
        call_id = None if ctx.request_id is None else str(ctx.request_id)
        async with limits.slot(client_key(ctx, session_id)) as busy:
            if busy is not None:
                return _error_result(busy)
            try:
                report = _progress_reporter(ctx)
                upstream = None if names is None else names.upstream(name)
                if upstream is not None:
                    return await _forward(upstream, arguments, session_id, report)
                ret = await _run_call(executor, name, arguments, session_id, call_id, report)
                return _to_result(ret, "outputSchema" in mcp_extras(*api))
            except Exception as exc:  # noqa: BLE001 - an executor bug must not take the server down
                return _error_result(f"the server failed to run {params.name!r}: {type(exc).__name__}: {exc}")

    server = (Server if names is None else _ChangingServer)(
        name,
        version=__version__,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    if names is None or not isinstance(server, _ChangingServer):
        return server
    proxy = server
    # The same rules for both transports' fast paths (and the slow path's limits).
    rules = PassRules(
        names,
        limits,
        lambda arguments: _oversized(arguments, _limit(executor, max_argument_chars)),
        _error_json,
    )
    proxy.pass_through = PassThrough(rules)
    proxy.http_pass_through = HttpPassThrough(rules)
    _tell_of_changes(executor, names, proxy, sessions, proxy.pass_through, proxy.http_pass_through)
    return proxy


def _limit(executor: ActionExecutor, max_argument_chars: Any) -> Optional[int]:
    """The argument size limit in force: ``max_argument_chars``, or the executor's own."""
    limit: Optional[int] = (
        executor.max_argument_chars if max_argument_chars is EXECUTORS_LIMIT else max_argument_chars
    )
    return limit


def _error_json(text: str) -> dict[str, Any]:
    """An error result saying ``text`` as the SDK writes it to a client of a handshake protocol.

    Those protocols' results carry no ``resultType`` (the SDK leaves it out for them);
    only their clients' calls are passed through.
    """
    dumped: dict[str, Any] = _error_result(text).model_dump(by_alias=True, mode="json", exclude_none=True)
    dumped.pop("resultType", None)
    return dumped


async def _serve_stdio(server: Server[Any]) -> None:
    async with pipe_streams() as pipes:
        stdin, stdout = pipes if pipes is not None else (None, None)
        passing = getattr(server, "pass_through", None)
        if pipes is not None and passing is not None:
            pipes[0].divert = passing.attach(pipes[1].send_line)
        async with stdio_server(stdin, stdout) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


def _serve_http(
    server: Server[Any],
    host: str,
    port: int,
    ready_message: bool,
    token: Optional[str],
    allowed_hosts: Sequence[str],
    gate: ConnectionGate,
) -> None:
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    required, generated = resolve_token(token)
    # The guard checks Host and Origin for any bind address; the SDK's own check
    # (of loopback names only) would repeat it.
    app = server.streamable_http_app(
        host=host, transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False)
    )
    passing = getattr(server, "http_pass_through", None)
    if passing is not None:
        # After the guard's checks, in front of the SDK's: see HttpPassThrough.
        passing.watch_upstreams()
        app = passing.wrap(app, server._session_manager)
    guarded = HttpGuard(app, required, allowed_hosts_for(host, allowed_hosts))
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    if ready_message:
        # Stdout may be the data channel of a caller: announce on stderr.
        print(f"serving MCP on http://{shown}:{bound}/mcp", file=sys.stderr, flush=True)
        if generated:
            # As Jupyter does: the operator copies it into the client's configuration.
            print(f"bearer token: {required}", file=sys.stderr, flush=True)
    # The gate is outermost: a connection is counted and timed before any check runs.
    config = uvicorn.Config(**gate.uvicorn_options(guarded), log_level="warning", lifespan="on")
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
    token: Optional[str] = None,
    allowed_hosts: Sequence[str] = (),
    max_client_calls: Optional[int] = DEFAULT_MAX_CLIENT_CALLS,
    queue_timeout: Optional[float] = DEFAULT_QUEUE_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    max_connections_per_peer: int = DEFAULT_MAX_PER_PEER,
    head_timeout: float = DEFAULT_HEAD_TIMEOUT,
    names: Optional[ProxyNames] = None,
) -> None:
    """Serve ``executor``'s tools over MCP until the client leaves (stdio) or the process stops.

    Args:
        executor: the tools to serve (or a server made by :func:`build_mcp_server`).
        transport: ``'stdio'`` (the process's stdin and stdout carry the protocol, as
            MCP hosts launch servers) or ``'http'`` (streamable HTTP at ``/mcp``).
        host: the address to listen on (``http``). Requests must name it (or one of
            ``allowed_hosts``) in ``Host`` and in ``Origin`` when they send one.
        port: the port to listen on (``http``); ``0`` picks a free one.
        name: the server name announced to clients.
        ready_message: for ``http``, print ``serving MCP on <url>`` to stderr once
            listening, and then ``bearer token: <token>`` when the token was generated.
        token: the bearer token every HTTP request must carry; by default read from
            ``$LAGENT_LIKE_MCP_TOKEN`` or the file named by ``$LAGENT_LIKE_MCP_TOKEN_FILE``,
            else generated.
        allowed_hosts: more names clients may use in ``Host``/``Origin`` (a DNS name or a
            proxy's), besides the bind address (and ``localhost`` for loopback addresses).
        max_client_calls: see :func:`build_mcp_server`.
        queue_timeout: see :func:`build_mcp_server`.
        max_connections: HTTP connections open at once; more are answered 503 and closed
            before anything is read.
        max_connections_per_peer: HTTP connections open at once from one address; more
            are answered 429 and closed.
        head_timeout: seconds an HTTP connection has to send each request head (from
            opening, or from its previous answer); a slower one is answered 408 and closed.
        names: see :func:`build_mcp_server`.

    Raises:
        ValueError: ``transport`` is not ``'stdio'`` or ``'http'``, a given token is empty,
            or a connection limit is not positive.
        OSError: the HTTP address cannot be bound, or a token file cannot be read.
    """
    if transport not in TRANSPORTS:
        raise ValueError(f"transport must be one of {list(TRANSPORTS)}, got {transport!r}")
    gate = ConnectionGate(max_connections, max_connections_per_peer, head_timeout)
    if isinstance(executor, Server):
        server = executor
    else:
        server = build_mcp_server(
            executor, name=name, max_client_calls=max_client_calls, queue_timeout=queue_timeout, names=names
        )
    if transport == "stdio":
        owner = None if names is None else names.host
        if owner is None:
            anyio.run(_serve_stdio, server)
        else:
            # On the loop of a proxied server's session: its calls go on without a
            # thread hand-off each way.
            owner.host(_serve_stdio(server))
    else:
        # Not hosted on a proxied server's loop as stdio is: measured, uvicorn serves
        # slower there (benchmarks/bench_mcp_proxy.py).
        _serve_http(server, host, port, ready_message, token, allowed_hosts, gate)
