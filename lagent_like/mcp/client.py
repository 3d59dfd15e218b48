"""``MCPToolkit``: another MCP server's tools as one toolkit an executor can hold.

MCP servers publish tools as name + description + JSON Schema; agents here call tools
through an :class:`~lagent_like.ActionExecutor`. ``MCPToolkit`` connects to a server
(a command spoken to over stdio, or a streamable-HTTP URL), lists its tools and
becomes a toolkit whose APIs are those tools: ``executor('MCP.search', '{...}')``
works, and ``get_actions_info()``, the function-calling exports and ReAct prompts
include them. Each API is checked against the server's own schema (as for
:class:`~lagent_like.SchemaTool`, so ``$ref``/``$defs``, enums and nested objects
are honoured) before anything is sent.

Why a toolkit and not a list of simple tools: one object owns one connection, its
tools share a name prefix (two servers never clash) and one ``close()`` ends it all.

The SDK is asynchronous and executors call tools synchronously, so a background
thread runs an event loop that owns the MCP session; calls are forwarded to it. A
call never raises: a server that went away gives an ``HTTP_ERROR`` record, and the
next call starts a new connection (or a new server process).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import sys
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Callable, Optional, TextIO, Union

from ._sdk import require_mcp

require_mcp()

import mcp_types as types  # noqa: E402 - only after the check above, which explains a missing SDK
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from .._private.log import logger  # noqa: E402
from ..context import DEFAULT_SESSION, ToolContext  # noqa: E402
from ..exceptions import ToolDefinitionError  # noqa: E402
from ..parsers import BaseParser, JsonParser  # noqa: E402
from ..schema import ActionReturn, ActionStatusCode  # noqa: E402
from ..spec._describe import ApiSpec, copy_description  # noqa: E402
from ..toolkits._base_action import BaseAction, state_of  # noqa: E402
from ..toolkits._schema_tool import schema_spec  # noqa: E402
from ..toolkits._tool_state import Enable  # noqa: E402
from ..types._families import check_mode  # noqa: E402
from ._link import MCPConnectionError, ServerLink, SessionLinks, drop_all  # noqa: E402
from ._pipe import UpstreamPipe, piped_stdio_client  # noqa: E402
from ._wire import (  # noqa: E402
    CLOSE_GRACE,
    BadResult,
    LoopThread,
    Progress,
    all_tools,
    definitions,
    error_text,
    reason,
    result_items,
    tool_extras,
)

__all__ = ["MCPConnectionError", "MCPToolkit"]


def _client_factory(factory: Optional[Callable[..., Any]], url: Optional[str]) -> Callable[..., Any]:
    """``MCPToolkit``'s ``http_client_factory`` checked; the SDK's own when none is given.

    Raises:
        TypeError: ``factory`` is not callable, or cannot be called with ``headers=``.
        ValueError: ``factory`` is given for a stdio server (no ``url``).
    """
    if factory is None:
        return create_mcp_http_client
    if not callable(factory):
        raise TypeError(
            f"MCPToolkit's http_client_factory must be callable (headers=...) -> httpx.AsyncClient, "
            f"got {type(factory).__name__}"
        )
    if url is None:
        raise ValueError(
            "MCPToolkit's http_client_factory= is used only with url= (a streamable-HTTP server)"
        )
    try:
        signature: Optional[inspect.Signature] = inspect.signature(factory)
    except (TypeError, ValueError):  # a callable that shows no signature is taken on trust
        signature = None
    if signature is not None:
        try:
            signature.bind(headers={})
        except TypeError:
            raise TypeError(
                f"MCPToolkit's http_client_factory must take headers= (it is called as "
                f"factory(headers=...)); {getattr(factory, '__qualname__', type(factory).__name__)}"
                f"({', '.join(signature.parameters)}) does not"
            ) from None
    return factory


def _opened(client: Any) -> Any:
    """The client an ``http_client_factory`` returned, checked before the connection uses it.

    Raises:
        TypeError: it is not an async context manager (an ``httpx.AsyncClient``).
    """
    if not hasattr(client, "__aenter__"):
        raise TypeError(
            f"MCPToolkit's http_client_factory returned {type(client).__name__}, not an httpx.AsyncClient"
        )
    return client


class MCPToolkit(BaseAction, register=False):
    """The tools of an MCP server as one toolkit: ``executor('MCP.<tool>', args)``.

    Give either ``command`` (the server is started as a subprocess and spoken to over
    its stdin/stdout) or ``url`` (a streamable-HTTP endpoint such as
    ``http://127.0.0.1:8000/mcp``). The constructor connects and lists the tools; each
    becomes an API named as the server names it, checked against the server's JSON
    Schema before the call is sent, and exported again with that schema by the
    executor's ``to_openai_tools()`` / ``to_mcp_tools()``.

    The tool list is read again on every (re)connection and when the server announces
    a change (``notifications/tools/list_changed``); the APIs then follow it, and
    listeners given to :meth:`on_tools_changed` (e.g. ``executor.refresh``) are told.
    Each executor session has an MCP session of its own (opened on its first call, ended
    by ``executor.end_session(id)``), so conversations never share the server's state.
    Calls are forwarded by a background thread; when the server dies, the call gives
    ``HTTP_ERROR`` and the next call reconnects (starting the command again). A result
    whose structured content breaks the tool's own output schema is an ``API_ERROR``
    record; the connection stays. ``close()`` (or ``with MCPToolkit(...) as mcp:``)
    ends every session and server process.

    Args:
        command: the program that runs a stdio MCP server, e.g. ``'python'``.
        args: its arguments, e.g. ``('-m', 'my_server')``.
        env: environment variables for the server process, on top of a safe default set.
        url: the streamable-HTTP endpoint of a running server (instead of ``command``).
        token: the bearer token the HTTP server requires (sent as ``Authorization:
            Bearer <token>``), e.g. the one ``serve-mcp --transport http`` printed.
        headers: more HTTP headers to send with every request.
        http_client_factory: builds the ``httpx`` client of each HTTP connection, as the
            MCP SDK's ``McpHttpClientFactory`` does: it is called as
            ``factory(headers=...)`` (the toolkit's headers, the token's included) and
            returns an ``httpx.AsyncClient`` (``httpx2`` in SDK 2), which the toolkit
            closes when the connection ends. Use it to route, pin, proxy or watch the
            connections; default: the SDK's ``create_mcp_http_client``. Only with ``url``.
        name: the toolkit name, the prefix of every call (``'MCP.<tool>'``).
        description: the toolkit description for the model (default: the server's
            instructions, or a sentence naming the server).
        timeout: seconds to wait for the answer to one call; a call that runs out gives
            a ``TIMEOUT`` record. ``None`` waits forever. This is not the executor's
            per-tool ``timeout`` setting (which also applies, if set).
        connect_timeout: seconds to wait for the server to start and finish the
            handshake (and, the first time, list its tools); ``None`` waits forever.
        include: only these tools of the server (default: all).
        errlog: where a stdio server's stderr goes (default ``sys.stderr``).
        parser: the parser that reads a model's arguments.
        enable: whether the executor offers and runs this toolkit.
        shared_session: one MCP session for every executor session, never ended by
            ``end_session`` (a stateless server: one connection, one process).
        validation: how arguments are checked before they are sent: ``"strict"`` (the
            default) refuses a value of the wrong JSON type instead of converting it, as
            the servers' own validators do (a ``"20"`` sent for an integer is the
            server's error, not a call made with ``20``); ``"coerce"`` converts as for a
            local tool; ``"off"`` sends the arguments as written, for the server to check.

    Raises:
        ValueError: neither or both of ``command`` and ``url`` are given, or
            ``http_client_factory`` is given without ``url``.
        TypeError: ``http_client_factory`` is not callable, or cannot be called with
            ``headers=``.
        MCPConnectionError: the server cannot be started or reached, or does not list its tools.
    """

    def __init__(
        self,
        command: Optional[str] = None,
        args: Sequence[str] = (),
        env: Optional[Mapping[str, str]] = None,
        url: Optional[str] = None,
        *,
        token: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        http_client_factory: Optional[Callable[..., Any]] = None,
        name: str = "MCP",
        description: Optional[str] = None,
        timeout: Optional[float] = 30.0,
        connect_timeout: Optional[float] = 60.0,
        include: Optional[Sequence[str]] = None,
        errlog: Optional[TextIO] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        validation: str = "strict",
        shared_session: bool = False,
    ) -> None:
        if (command is None) == (url is None):
            raise ValueError(
                "MCPToolkit needs exactly one of command= (a stdio server) or url= (streamable HTTP)"
            )
        self._http_client_factory = _client_factory(http_client_factory, url)
        self._command = command
        self._args = [str(a) for a in args]
        self._env = dict(env) if env is not None else None
        self._url = url
        self._headers = dict(headers or {})
        if token is not None:
            self._headers["Authorization"] = f"Bearer {token}"
        self._request_timeout = timeout
        self._connect_timeout = connect_timeout
        self._errlog = errlog
        self._target = url if url is not None else " ".join([str(command), *self._args])
        self._links = SessionLinks(
            self._transport, self._target, connect_timeout, self._on_message, self._on_connect, shared_session
        )
        self._closed = False
        self._wanted = set(include) if include is not None else None
        self._parser_class = parser
        self._validation = check_mode(validation, "MCPToolkit")  # before any server starts
        self._listeners: list[Callable[[], None]] = []
        self._background: set[asyncio.Task[None]] = set()
        self._listing: list[types.Tool] = []
        self._built = False
        self._loop = LoopThread(f"lagent-like-mcp-{name}")
        try:
            info, instructions = self._loop.run(self._first_listing(), self._wait(connect=True))
        except BaseException as exc:
            self._loop.stop()
            if isinstance(exc, MCPConnectionError):
                raise
            raise MCPConnectionError(
                f"cannot list the tools of the MCP server {self._target}: {reason(exc)}"
            ) from exc
        self.server_info: Optional[types.Implementation] = info
        self._toolkit_name = name
        self._toolkit_text = description or instructions or f"Tools of the MCP server {self._server_label()}."
        try:
            self._build(self._listing, enable)
        except BaseException:
            self.close()
            raise
        self._built = True

    # -- construction ------------------------------------------------------------

    def _wait(self, connect: bool = True, call: bool = False) -> Optional[float]:
        """How long a caller may wait for a (re)connection and a call (``None``: forever).

        The loop enforces the real limits; this only keeps a caller from hanging if
        the loop itself is stuck.
        """
        limits = ([self._connect_timeout] if connect else []) + ([self._request_timeout] if call else [])
        if any(limit is None for limit in limits):
            return None
        return sum(limit for limit in limits if limit is not None) + CLOSE_GRACE

    def _server_label(self) -> str:
        info = self.server_info
        return f"{info.name!r}" if info is not None and info.name else self._target

    def _build(self, tools: list[types.Tool], enable: Any) -> None:
        """Make the server's ``tools`` this toolkit's APIs (again, after a change).

        Each piece is built aside and swapped in whole, so a call running meanwhile
        sees the old toolkit or the new one, never a mix.
        """
        apis: dict[str, ApiSpec] = {}
        extras: dict[str, dict[str, Any]] = {}
        skipped: dict[str, str] = {}
        for tool in tools:
            if self._wanted is not None and tool.name not in self._wanted:
                continue
            definition = {
                "name": tool.name,
                "description": tool.description or "",
                "inputSchema": tool.input_schema,
            }
            try:
                # The server applies its schema's defaults: arguments go as the model sent them.
                spec = schema_spec(
                    definition, self._forwarder(tool.name), fill_defaults=False, validation=self._validation
                )
            except ToolDefinitionError as exc:
                logger().warning("MCP tool %r left out: %s", tool.name, exc)
                skipped[tool.name] = str(exc)
                continue
            # Exported exactly as the server gave it, so that a tool passed on (to a model,
            # or served again over MCP) keeps every keyword; arguments are still checked
            # locally, and a schema that does not say additionalProperties allows none.
            apis[tool.name] = dataclasses.replace(spec, schema=copy_description(tool.input_schema))
            extras[tool.name] = tool_extras(tool)
        toolkit = {"name": self._toolkit_name, "description": self._toolkit_text}
        self._apis, self._extras, self.skipped = apis, extras, skipped
        super().__init__(
            toolkit, self._parser_class, enable, apis=list(apis.values()), validation=self._validation
        )

    def _forwarder(self, tool: str) -> Callable[..., ActionReturn]:
        def forward(_lagent_like_context: ToolContext, **arguments: Any) -> ActionReturn:
            context = _lagent_like_context
            return self.call_tool(
                tool, arguments, session_id=context.session_id, on_progress=context.on_progress
            )

        forward.__name__ = f"mcp_{tool}"
        return forward

    # -- the connection (runs on the background loop) ----------------------------

    def _transport(self) -> AbstractAsyncContextManager[Any]:
        if self._url is not None:
            return self._http_transport(self._url)
        params = StdioServerParameters(command=str(self._command), args=self._args, env=self._env)
        errlog = self._errlog if self._errlog is not None else sys.stderr
        if sys.platform == "win32":
            return stdio_client(params, errlog=errlog)
        # The SDK's transport but for its line pumps: the pipe also carries a proxy's raw lines.
        return piped_stdio_client(params, errlog=errlog)

    @contextlib.asynccontextmanager
    async def _http_transport(self, url: str) -> AsyncIterator[Any]:
        # The SDK's transport leaves a client it is given open: close it here.
        # Nested, not parenthesized: the package must still compile on Python 3.9.
        async with _opened(self._http_client_factory(headers=self._headers)) as client:  # noqa: SIM117
            async with streamable_http_client(url, http_client=client) as streams:
                yield streams

    async def _on_connect(self, session: ClientSession) -> None:
        # A new server process may offer other tools; listing also lets the SDK
        # check results against their output schemas without a tools/list per call.
        await self._relist(session)

    async def _relist(self, session: ClientSession) -> None:
        """Read the server's tool list again; rebuild the APIs when it changed."""
        try:
            tools = await asyncio.wait_for(all_tools(session), self._connect_timeout)
        except Exception as exc:
            raise MCPConnectionError(
                f"the MCP server {self._target} did not list its tools: {reason(exc)}"
            ) from exc
        if self._built and definitions(tools) != definitions(self._listing):
            try:
                self._build(tools, state_of(self).enable)  # a callable enable stays one
            except ToolDefinitionError as exc:  # the old APIs stay: they still describe most tools
                logger().warning("MCP toolkit %s: the new tool list cannot be used: %s", self.name, exc)
                return
            self._listing = tools
            for listener in list(self._listeners):
                try:
                    listener()
                except Exception as exc:  # noqa: BLE001 - a listener's bug must not break the toolkit
                    logger().warning("MCP toolkit %s: a tools-changed listener failed: %s", self.name, exc)
        self._listing = tools

    async def _on_message(self, link: ServerLink, message: Any) -> None:
        """A session's notifications: a changed tool list is read again, in the background."""
        if isinstance(message, types.ToolListChangedNotification):
            conn = link.connection
            if conn is None:
                return
            # Not awaited here: the listing's answer arrives through the loop that is
            # delivering this notification.
            task = asyncio.get_running_loop().create_task(self._relist_quietly(conn.session))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _relist_quietly(self, session: ClientSession) -> None:
        try:
            await self._relist(session)
        except Exception as exc:  # noqa: BLE001 - the next call reconnects and lists again
            logger().info("MCP toolkit %s: re-reading the tool list failed: %s", self._target, reason(exc))

    async def _first_listing(self) -> tuple[Optional[types.Implementation], Optional[str]]:
        """``(server info, instructions)`` of a fresh connection; the tools land in ``_listing``."""
        try:
            session = await self._links.get(DEFAULT_SESSION).session()
        except Exception as exc:
            if isinstance(exc, MCPConnectionError):
                raise
            raise MCPConnectionError(
                f"cannot connect to the MCP server {self._target}: {reason(exc)}"
            ) from exc
        return session.server_info, session.instructions

    async def _exchange(
        self,
        tool: str,
        arguments: dict[str, Any],
        link: ServerLink,
        on_progress: Optional[Callable[[Any], Any]] = None,
    ) -> Union[types.CallToolResult, ActionReturn]:
        """Send one call over ``link``: the server's result, or a record of why there is none."""
        try:
            session = await link.session()
        except Exception as exc:  # noqa: BLE001 - an unreachable server is a result for the model
            return self._failure(arguments, f"cannot reach the MCP server {self._target}: {reason(exc)}")
        relay = None if on_progress is None else _ProgressRelay(on_progress)
        try:
            try:
                return await session.call_tool(
                    tool, arguments, read_timeout_seconds=self._request_timeout, progress_callback=relay
                )
            finally:
                if relay is not None:
                    await relay.drain()
        except BadResult as exc:
            # The server answered, wrongly: the connection is fine.
            return self._record(
                arguments,
                f"the MCP server's structured result breaks the tool's output schema {exc}",
                ActionStatusCode.API_ERROR,
            )
        except MCPError as exc:
            if exc.code == types.REQUEST_TIMEOUT:
                return self._record(arguments, self._timeout_answer(), ActionStatusCode.TIMEOUT)
            if exc.code == types.CONNECTION_CLOSED:
                await link.drop(session)
                return self._failure(arguments, self._lost_answer())
            return self._record(
                arguments, f"the MCP server refused the call: {exc.message}", ActionStatusCode.API_ERROR
            )
        except Exception as exc:  # noqa: BLE001 - transport errors take many forms
            await link.drop(session)
            return self._failure(arguments, f"the MCP call failed: {reason(exc)}")

    async def _acall(
        self,
        tool: str,
        arguments: dict[str, Any],
        link: ServerLink,
        on_progress: Optional[Callable[[Any], Any]] = None,
    ) -> ActionReturn:
        """Forward one call over ``link``; every outcome, transport failures included, is a record."""
        result = await self._exchange(tool, arguments, link, on_progress)
        if isinstance(result, ActionReturn):
            return result
        if result.is_error:
            return self._record(arguments, error_text(result), ActionStatusCode.API_ERROR)
        items = result_items(result)
        if isinstance(result.structured_content, dict):
            # Rides along (format_result shows only the content), so that serving this
            # tool again passes the server's structured content on unchanged.
            items[0]["structured"] = result.structured_content
        return ActionReturn(args=arguments, type=self.name, result=items)

    def _record(self, arguments: dict[str, Any], errmsg: str, state: ActionStatusCode) -> ActionReturn:
        return ActionReturn(args=arguments, type=self.name, errmsg=errmsg, state=state)

    def _failure(self, arguments: dict[str, Any], errmsg: str) -> ActionReturn:
        return self._record(arguments, errmsg, ActionStatusCode.HTTP_ERROR)

    # -- public ------------------------------------------------------------------

    def rename(self, name: str) -> None:
        """Call the toolkit ``name`` (the prefix of its calls), before an executor holds it.

        For a caller that names toolkits after their servers (:attr:`server_info`),
        which is known only once connected.
        """
        self._toolkit_name = name
        self._build(self._listing, state_of(self).enable)

    @property
    def tool_names(self) -> list[str]:
        """The server tools this toolkit offers, in the server's order."""
        return list(self._apis)

    def on_tools_changed(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` whenever the server's tool list changed and the APIs were rebuilt.

        Pass ``executor.refresh`` so that an executor holding this toolkit routes calls
        to tools the server added (and stops routing to those it removed).
        """
        self._listeners.append(listener)

    def mcp_extras(self, name: str) -> dict[str, Any]:
        """The server's ``title``, ``annotations`` and ``outputSchema`` of tool ``name`` (a copy)."""
        extras: dict[str, Any] = copy_description(self._extras.get(name, {}))
        return extras

    @property
    def connected(self) -> bool:
        """Whether the default session is open right now (it is reopened on the next call if not)."""
        return self._links.get(DEFAULT_SESSION).connected

    @property
    def open_sessions(self) -> list[str]:
        """The executor sessions whose MCP session is open right now, sorted (``[""]``: the shared one)."""
        return self._links.connected()

    def call_tool(
        self,
        tool: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        session_id: str = DEFAULT_SESSION,
        on_progress: Optional[Callable[[Any], Any]] = None,
    ) -> ActionReturn:
        """Call server tool ``tool`` with ``arguments`` as given (no local checks); never raises.

        The call goes over ``session_id``'s MCP session. The executor goes through the
        APIs instead, which check the arguments first (and hand on the call's
        ``on_progress``).

        Args:
            tool: the server's name of the tool.
            arguments: the arguments, sent as they are.
            session_id: the executor session whose MCP session carries the call.
            on_progress: called with a :class:`~lagent_like.mcp._wire.Progress` for each
                progress notification the server sends during the call (in a worker
                thread, in order, before the call returns).

        Returns:
            The call's record.
        """
        args = dict(arguments or {})
        if self._closed:
            return self._failure(args, f"the MCP toolkit {self.name!r} is closed")
        try:
            call = self._acall(tool, args, self._links.get(session_id), on_progress)
            ret: ActionReturn = self._loop.run(call, self._wait(connect=True, call=True))
            return ret
        except Exception as exc:  # noqa: BLE001 - e.g. the wait ran out: still a record
            return self._record(
                args, f"the MCP call did not complete: {reason(exc)}", ActionStatusCode.TIMEOUT
            )

    async def forward(
        self,
        tool: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        session_id: str = DEFAULT_SESSION,
        on_progress: Optional[Callable[[Any], Any]] = None,
    ) -> Union[types.CallToolResult, ActionReturn]:
        """Call server tool ``tool`` from another event loop; the server's own result, as it came.

        For a server that serves this toolkit's tools again (``serve-mcp --mcp``): the
        server's ``CallToolResult`` is handed on untouched (content, structured content,
        ``isError`` results), and no worker thread waits for it, the awaiting loop does.
        As :meth:`call_tool`, it never raises: when there is no result (the server is
        unreachable, the connection was lost, the call timed out) the record says why.

        Args:
            tool: the server's name of the tool.
            arguments: the arguments, sent as they are.
            session_id: the executor session whose MCP session carries the call.
            on_progress: as for :meth:`call_tool`.

        Returns:
            The server's result, or the record of a call that got none.
        """
        args = dict(arguments or {})
        if self._closed:
            return self._failure(args, f"the MCP toolkit {self.name!r} is closed")
        call = self._exchange(tool, args, self._links.get(session_id), on_progress)
        if asyncio.get_running_loop() is self._loop.loop:
            return await call  # a server hosted here (see host): no hand-off at all
        try:
            done = asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call, self._loop.loop))
            result: Union[types.CallToolResult, ActionReturn] = await asyncio.wait_for(
                done, self._wait(connect=True, call=True)
            )
            return result
        except Exception as exc:  # noqa: BLE001 - e.g. the wait ran out: still a record
            return self._record(
                args, f"the MCP call did not complete: {reason(exc)}", ActionStatusCode.TIMEOUT
            )

    def _upstream_pipe(
        self, session_id: str = DEFAULT_SESSION, any_loop: bool = False
    ) -> Optional[UpstreamPipe]:
        """The raw pipe of ``session_id``'s open connection to a stdio server, else ``None``.

        For a server hosted on this toolkit's loop (see :meth:`host`) that passes calls
        through as JSON-RPC lines (:mod:`~lagent_like.mcp._passthrough`); ``None`` when
        called from another loop (unless ``any_loop``: the pipe is then used only through
        hops to this toolkit's loop), when the session is not open (the first call opens
        it through the SDK session) or when the server is not a stdio one.
        """
        if self._closed:
            return None
        try:
            if asyncio.get_running_loop() is not self._loop.loop and not any_loop:
                return None
        except RuntimeError:
            return None
        conn = self._links.get(session_id).connection
        if conn is None or not conn.alive or conn.pipe is None or conn.pipe.closed.is_set():
            return None
        pipe: UpstreamPipe = conn.pipe
        return pipe

    def _watch_http(self, watch: Callable[[Any], None]) -> bool:
        """Hand each HTTP client the toolkit builds from now on to ``watch``; reopen its sessions so.

        For a proxy that posts calls on the toolkit's own session itself
        (:mod:`~lagent_like.mcp._http_passthrough`): ``watch`` reads the session id
        the SDK's transport sends. The open sessions end; a shared one is opened again
        at once, others on their next call. ``False`` (nothing done) for a stdio server
        or a closed toolkit.
        """
        if self._url is None or self._closed:
            return False
        build = self._http_client_factory

        def watched(**kwargs: Any) -> Any:
            client = build(**kwargs)
            watch(client)
            return client

        self._http_client_factory = watched
        self._end_links(self._links.pop_all())
        if self._shares_session():
            # Reopened now, not by the first call: the proxy's calls pass from the start.
            try:
                self._loop.run(self._links.get(DEFAULT_SESSION).session(), self._wait(connect=True))
            except Exception as exc:  # noqa: BLE001 - the next call reconnects, as after any loss
                logger().info("reopening the MCP session with %s: %s", self._target, reason(exc))
        return True

    def _shares_session(self) -> bool:
        """Whether one MCP session serves every executor session (``shared_session``)."""
        return bool(self._links._shared)

    def _lost_answer(self) -> str:
        """The error text of a call whose connection was lost, as a forwarded call gives it."""
        return f"the connection to the MCP server {self._target} was lost"

    def _timeout_answer(self) -> str:
        """The error text of a call the server did not answer in time, as a forwarded call gives it."""
        return f"the MCP server did not answer within {self._request_timeout}s"

    def host(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coro`` on this toolkit's own event loop (its sessions' loop) and wait for it.

        For a server that serves these tools again: hosted here, its :meth:`forward`
        calls run on the loop that talks to the MCP server, with no thread hand-off.
        The hosted code must not call the toolkit's blocking methods (:meth:`call_tool`,
        :meth:`end_session`, :meth:`close`) on the loop itself, only from other threads.
        An exception in the waiting thread (Ctrl-C) cancels ``coro`` and is raised again.

        Returns:
            What ``coro`` returned.
        """
        future = asyncio.run_coroutine_threadsafe(coro, self._loop.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def end_session(self, session_id: str) -> None:
        """End executor session ``session_id``'s MCP session (its stdio server stops), if any.

        A call running in it gets an ``HTTP_ERROR`` record; a later call opens a fresh one.
        """
        link = self._links.pop(session_id)
        if link is not None and not self._closed:
            self._end_links([link])

    def close(self) -> None:
        """End every session (stopping stdio servers) and the background thread. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._end_links(self._links.pop_all())
        self._loop.stop()

    def _end_links(self, links: list[ServerLink]) -> None:
        try:
            self._loop.run(drop_all(links), CLOSE_GRACE * 2)
        except Exception as exc:  # noqa: BLE001 - ending must not fail
            logger().info("ending MCP sessions of %s: %s", self._target, reason(exc))

    def __enter__(self) -> MCPToolkit:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _ProgressRelay:
    """The SDK's ``progress_callback`` for one call: each notification to ``on_progress``.

    The SDK runs the callback as a task per notification, so a notification may still
    be on its way when the call's result arrives: :meth:`drain` waits for them all, and
    a lock keeps them in order. ``on_progress`` runs in a worker thread (it may block:
    a server serving this call again sends the notification on its own loop first).
    """

    def __init__(self, on_progress: Callable[[Any], Any]) -> None:
        self._on_progress = on_progress
        self._lock = asyncio.Lock()
        self._pending: set[asyncio.Future[None]] = set()

    async def __call__(self, progress: float, total: Optional[float], message: Optional[str]) -> None:
        future = asyncio.ensure_future(self._deliver(Progress(progress, total, message)))
        self._pending.add(future)
        try:
            await future
        finally:
            self._pending.discard(future)

    async def _deliver(self, chunk: Progress) -> None:
        async with self._lock:  # FIFO: notifications go on in the order they came
            try:
                answer = await asyncio.to_thread(self._on_progress, chunk)
                if answer is not None and inspect.isawaitable(answer):
                    await answer
            except Exception as exc:  # noqa: BLE001 - a faulty progress callback must not fail the call
                logger().warning("MCP progress callback failed: %s", reason(exc))

    async def drain(self) -> None:
        """Wait until every notification received so far has been handed on."""
        while self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
