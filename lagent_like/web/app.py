"""The inspector's web routes: a token-guarded page and a small JSON API.

The page and every API route need the token the server printed (``?token=`` in the
URL, as Jupyter does; the page's script then sends it as ``Authorization: Bearer``),
and requests must name a loopback host, so another site open in the same browser
can neither read the tools nor call them (nor reach the server by DNS rebinding).
The page is plain HTML, CSS and JavaScript from the package, in one response with
the catalogue inside, so it shows without a build step or a second request.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import AsyncIterator, Iterator
from importlib import resources
from typing import IO, Any, Callable, Optional
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from .state import InspectorError, InspectorState, code_names

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_BODY_BYTES",
    "SERVERS_TOKEN_IN_HEADER",
    "TOKEN_NOT_VALID",
    "TOKEN_REQUIRED",
    "build_app",
    "cross_origin",
]

#: Host header values the server answers: a page must have been opened on loopback.
LOOPBACK_HOSTS = ["127.0.0.1", "localhost"]
#: Seconds between two comments on a quiet event stream (it notices a page gone meanwhile).
EVENTS_KEEPALIVE = 15.0
#: The largest request body read (a trace upload or a call's arguments).
MAX_BODY_BYTES = 20_000_000

_OPEN_THE_URL = "open the URL that lagent-like inspect printed (it ends in ?token=...)"
#: The 401 answers: no token at all, or one that is not this server's.
TOKEN_REQUIRED = f"a bearer token is required: {_OPEN_THE_URL}"
TOKEN_NOT_VALID = f"the bearer token is not valid: {_OPEN_THE_URL}"
#: The 401 answer of a file route given the token in its URL only.
FILE_TOKEN_IN_HEADER = (
    "a bearer token is required in the Authorization header: files are sent to the page only, "
    "never to a link that carries the token"
)
#: The 401 answer of a server route given the token in its URL only.
SERVERS_TOKEN_IN_HEADER = (
    "a bearer token is required in the Authorization header: servers are connected by the page "
    "only, never by a link or a form that carries the token"
)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def _script_json(value: Any) -> str:
    # Inside <script>, '<' must not start '</script>' or '<!--': escape it in JSON.
    return json.dumps(value, ensure_ascii=False, default=str).replace("<", "\\u003c")


def _page_headers(nonce: str) -> dict[str, str]:
    # Only this page's own script runs, it talks only to this server, and no other
    # site may frame it: text from tools that slipped into the page would stay inert.
    policy = (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; "
        "img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
        "form-action 'none'"
    )
    return {
        "Content-Security-Policy": policy,
        "Cache-Control": "no-store",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "status": status}, status_code=status)


def cross_origin(request: Request) -> Optional[str]:
    """Why a request that changes something comes from another site (``None`` if it does not).

    A browser names the page that sent a request in ``Origin``; the inspector's own page
    is at ``http://<the Host it asked>``. A request without ``Origin`` is not from a
    page (a script or ``curl``): the token alone decides.
    """
    origin = request.headers.get("origin")
    if origin is None or origin == f"http://{request.headers.get('host', '')}":
        return None
    return f"a request from another site (Origin: {origin}) may not change the inspector; use its own page"


def _refusal(
    request: Request, token: str, in_url: bool = True, header_only: str = FILE_TOKEN_IN_HEADER
) -> Optional[str]:
    """Why ``request`` may not pass (``None`` when it carries ``token``).

    The page's own URL carries the token (``in_url``); the page's script sends it as
    ``Authorization: Bearer``, the only form the file and server routes take (a token
    in their URL only gets ``header_only``).
    """
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        given = request.query_params.get("token", "") if in_url else ""
        if not given:
            return TOKEN_REQUIRED if in_url or "token" not in request.query_params else header_only
    if hmac.compare_digest(given.strip().encode("utf-8", "replace"), token.encode("utf-8")):
        return None
    return TOKEN_NOT_VALID


async def _json_body(request: Request) -> dict[str, Any]:
    if int(request.headers.get("content-length") or 0) > MAX_BODY_BYTES:
        raise InspectorError(413, f"the request body is larger than {MAX_BODY_BYTES} bytes")
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise InspectorError(413, f"the request body is larger than {MAX_BODY_BYTES} bytes")
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise InspectorError(400, f"the request body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InspectorError(400, f"the request body must be a JSON object, not {type(data).__name__}")
    return data


Handler = Callable[[Request], Any]


def _guarded(
    handler: Handler,
    token: str,
    page: bool = False,
    in_url: bool = True,
    header_only: str = FILE_TOKEN_IN_HEADER,
) -> Handler:
    """``handler`` behind the token check, with ``InspectorError`` turned into a JSON error.

    A request that changes something (any method but ``GET``) from another site's page
    is refused (403) even with the token, as a second lock after it.
    """

    async def endpoint(request: Request) -> Response:
        refusal = _refusal(request, token, in_url, header_only)
        if refusal is not None:
            if page:
                return HTMLResponse(f"<!doctype html><title>401</title><p>{refusal}</p>", 401)
            return _error(401, refusal)
        foreign = cross_origin(request) if request.method != "GET" else None
        if foreign is not None:
            return _error(403, foreign)
        try:
            response: Response = await handler(request)
            return response
        except InspectorError as exc:
            return _error(exc.status, str(exc))

    return endpoint


def _page_template(title: str) -> str:
    """The page with its style, script and title in place; the per-request markers stay."""
    template = _asset("index.html")
    page_parts = {
        "__STYLE__": _asset("inspector.css"),
        "__SCRIPT__": _asset("inspector.js"),
        "__TITLE__": title.replace("&", "&amp;").replace("<", "&lt;"),
    }
    for marker, text in page_parts.items():
        template = template.replace(marker, text)
    return template


def _file_headers(name: str) -> dict[str, str]:
    # A download, never a document of this origin: no sniffing into HTML, and a
    # sandbox (no script, no same-origin) should a browser render it all the same.
    return {
        "Content-Disposition": f"attachment; filename*=utf-8''{quote(name, safe='')}",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox",
        "Cache-Control": "no-store",
        "Referrer-Policy": "no-referrer",
    }


def _chunks(opened: IO[bytes], size: int) -> Iterator[bytes]:
    # The file opened and checked once: what is sent is what was checked, and no more
    # than the Content-Length announced, should the file grow meanwhile.
    with opened:
        while size > 0 and (chunk := opened.read(min(size, 65536))):
            size -= len(chunk)
            yield chunk


class _Endpoints:
    """The handlers of the routes, each a thin adapter from a request to ``state``."""

    def __init__(self, state: InspectorState, template: str) -> None:
        self.state = state
        self.template = template
        self.settings = {"codes": code_names(), "agent": state.agent is not None}

    async def page(self, request: Request) -> Response:
        catalogue = await run_in_threadpool(self.state.index_json)
        nonce = secrets.token_urlsafe(16)
        # The catalogue goes in last: tool text can never become a marker replaced later.
        html = (
            self.template.replace("__NONCE__", nonce)
            .replace("__SETTINGS__", _script_json(self.settings))
            .replace("__CATALOGUE__", catalogue.replace("<", "\\u003c"))
        )
        return HTMLResponse(html, headers=_page_headers(nonce))

    async def tools(self, request: Request) -> Response:
        if request.query_params.get("refresh") == "1":
            self.state.refresh()
        short = request.query_params.get("index") == "1"
        text = await run_in_threadpool(self.state.index_json if short else self.state.catalogue_json)
        return Response(text, media_type="application/json")

    async def tool(self, request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(self.state.entry, request.path_params["name"]))

    async def call(self, request: Request) -> Response:
        data = await _json_body(request)
        answer = await run_in_threadpool(
            self.state.call, data.get("name"), data.get("arguments"), data.get("session_id")
        )
        return JSONResponse(answer)

    async def history(self, request: Request) -> Response:
        return JSONResponse(self.state.history())

    async def traces(self, request: Request) -> Response:
        if request.method == "POST":
            data = await _json_body(request)
            return JSONResponse({"id": self.state.add_trace_data(data.get("trace"), data.get("title"))}, 201)
        return JSONResponse(self.state.traces())

    async def trace(self, request: Request) -> Response:
        return JSONResponse(self.state.trace(request.path_params["trace_id"]))

    async def trace_events(self, request: Request) -> Response:
        trace_id = request.path_params["trace_id"]
        self.state.trace(trace_id)  # an unknown trace is a 404 before the stream starts
        return StreamingResponse(
            self._trace_stream(request, trace_id),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def _trace_stream(self, request: Request, trace_id: str) -> AsyncIterator[str]:
        """The trace now, then again at each change, until the run ends (Server-Sent Events)."""
        seen = -1
        while True:
            seen, trace = await run_in_threadpool(self.state.follow, trace_id, seen, EVENTS_KEEPALIVE)
            if trace is None:
                if self.state.closing or await request.is_disconnected():
                    return
                yield ": still running\n\n"  # a comment: keeps the connection, and finds a closed one
                continue
            yield f"data: {json.dumps(trace, ensure_ascii=False, default=str)}\n\n"
            if not trace["running"]:
                yield "event: end\ndata: {}\n\n"
                return

    async def ask(self, request: Request) -> Response:
        data = await _json_body(request)
        return JSONResponse({"id": self.state.ask(data.get("question"))}, 202)

    async def servers(self, request: Request) -> Response:
        panel = self.state.servers
        if request.method == "POST":
            data = await _json_body(request)
            entry = await run_in_threadpool(panel.connect, data.get("target"), data.get("token"))
            await run_in_threadpool(self.state.index_json)  # the page asks for it next
            return JSONResponse(entry, 201)
        return JSONResponse({"servers": panel.servers(), "commands": panel.allow_commands})

    async def server(self, request: Request) -> Response:
        server_id, panel = request.path_params["server_id"], self.state.servers
        if request.method == "DELETE":
            await run_in_threadpool(panel.remove, server_id)
            return JSONResponse({"removed": server_id})
        actions = {"reconnect": panel.reconnect, "disconnect": panel.disconnect}
        action = actions.get(request.path_params["action"])
        if action is None:
            raise InspectorError(404, "a server's actions are reconnect and disconnect")
        entry = await run_in_threadpool(action, server_id)
        await run_in_threadpool(self.state.index_json)  # the page asks for it next
        return JSONResponse(entry)

    async def files(self, request: Request) -> Response:
        opened, name, size, media = self.state.files.open(request.path_params["key"])
        return StreamingResponse(
            _chunks(opened, size),
            media_type=media,
            headers={**_file_headers(name), "Content-Length": str(size)},
        )


def _servers_route(handler: Handler, token: str) -> Handler:
    """A server route: starting servers is the page's alone, so the token only in the header."""
    return _guarded(handler, token, in_url=False, header_only=SERVERS_TOKEN_IN_HEADER)


def build_app(state: InspectorState, token: str, title: str = "lagent-like inspector") -> Starlette:
    """The ASGI application serving ``state`` to whoever holds ``token``.

    Routes (all need the token): ``GET /`` the page (with the short catalogue of
    :meth:`InspectorState.index_json`); ``GET /api/tools`` the whole catalogue
    (``?index=1``: the short one); ``GET /api/tools/{name}`` one API's entry; ``POST
    /api/call`` ``{name, arguments, session_id?}``; ``GET /api/traces`` and ``GET
    /api/traces/{id}``; ``GET /api/traces/{id}/events`` (Server-Sent Events: the trace
    now and at each change of a live run, then ``event: end``); ``POST /api/traces`` a
    trace file's JSON ``{trace, title?}``; ``POST /api/ask`` ``{question}`` (with an
    agent); ``GET /api/files/{id}`` a file a result named, from a served directory, as
    a download; ``GET /api/servers`` the MCP servers, ``POST /api/servers`` ``{target,
    token?}`` connects one, ``POST /api/servers/{id}/reconnect`` or ``/disconnect``,
    ``DELETE /api/servers/{id}``. The file and server routes take the token only in
    the ``Authorization`` header. A request other than ``GET`` whose ``Origin`` is
    another site is refused (403). Errors are ``{"error": text, "status": code}`` with
    that HTTP status.
    """
    endpoints = _Endpoints(state, _page_template(title))
    routes = [
        Route("/", _guarded(endpoints.page, token, page=True)),
        Route("/api/tools", _guarded(endpoints.tools, token)),
        Route("/api/tools/{name}", _guarded(endpoints.tool, token)),
        Route("/api/call", _guarded(endpoints.call, token), methods=["POST"]),
        Route("/api/history", _guarded(endpoints.history, token)),
        Route("/api/traces", _guarded(endpoints.traces, token), methods=["GET", "POST"]),
        Route("/api/traces/{trace_id}", _guarded(endpoints.trace, token)),
        Route("/api/traces/{trace_id}/events", _guarded(endpoints.trace_events, token)),
        Route("/api/ask", _guarded(endpoints.ask, token), methods=["POST"]),
        Route("/api/files/{key}", _guarded(endpoints.files, token, in_url=False)),
        Route("/api/servers", _servers_route(endpoints.servers, token), methods=["GET", "POST"]),
        Route("/api/servers/{server_id}", _servers_route(endpoints.server, token), methods=["DELETE"]),
        Route("/api/servers/{server_id}/{action}", _servers_route(endpoints.server, token), methods=["POST"]),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_HOSTS, www_redirect=False)]
    return Starlette(routes=routes, middleware=middleware)
