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
from importlib import resources
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from .state import InspectorError, InspectorState, code_names

__all__ = ["LOOPBACK_HOSTS", "MAX_BODY_BYTES", "build_app"]

#: Host header values the server answers: a page must have been opened on loopback.
LOOPBACK_HOSTS = ["127.0.0.1", "localhost"]
#: The largest request body read (a trace upload or a call's arguments).
MAX_BODY_BYTES = 20_000_000

_WRONG_TOKEN = "missing or wrong token: open the URL that lagent-like inspect printed (it ends in ?token=...)"


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
        "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
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


def _authorized(request: Request, token: str) -> bool:
    given = request.query_params.get("token", "")
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        given = header[7:].strip()
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


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


def _guarded(handler: Handler, token: str, page: bool = False) -> Handler:
    """``handler`` behind the token check, with ``InspectorError`` turned into a JSON error."""

    async def endpoint(request: Request) -> Response:
        if not _authorized(request, token):
            if page:
                return HTMLResponse(f"<!doctype html><title>401</title><p>{_WRONG_TOKEN}</p>", 401)
            return _error(401, _WRONG_TOKEN)
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
        text = await run_in_threadpool(self.state.catalogue_json)
        return Response(text, media_type="application/json")

    async def tool(self, request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(self.state.entry, request.path_params["name"]))

    async def call(self, request: Request) -> Response:
        data = await _json_body(request)
        answer = await run_in_threadpool(
            self.state.call, data.get("name"), data.get("arguments"), data.get("session_id")
        )
        return JSONResponse(answer)

    async def traces(self, request: Request) -> Response:
        if request.method == "POST":
            data = await _json_body(request)
            return JSONResponse({"id": self.state.add_trace_data(data.get("trace"), data.get("title"))}, 201)
        return JSONResponse(self.state.traces())

    async def trace(self, request: Request) -> Response:
        return JSONResponse(self.state.trace(request.path_params["trace_id"]))

    async def ask(self, request: Request) -> Response:
        data = await _json_body(request)
        return JSONResponse({"id": self.state.ask(data.get("question"))}, 202)

    async def files(self, request: Request) -> Response:
        return FileResponse(self.state.file(request.path_params["key"]))


def build_app(state: InspectorState, token: str, title: str = "lagent-like inspector") -> Starlette:
    """The ASGI application serving ``state`` to whoever holds ``token``.

    Routes (all need the token): ``GET /`` the page (with the short catalogue of
    :meth:`InspectorState.index_json`); ``GET /api/tools`` the whole catalogue; ``GET
    /api/tools/{name}`` one API's entry;
    ``POST /api/call`` ``{name, arguments, session_id?}``; ``GET /api/traces`` and
    ``GET /api/traces/{id}``; ``POST /api/traces`` a trace file's JSON ``{trace,
    title?}``; ``POST /api/ask`` ``{question}`` (with an agent); ``GET
    /api/files/{n}`` a file a result named. Errors are ``{"error": text, "status":
    code}`` with that HTTP status.
    """
    endpoints = _Endpoints(state, _page_template(title))
    routes = [
        Route("/", _guarded(endpoints.page, token, page=True)),
        Route("/api/tools", _guarded(endpoints.tools, token)),
        Route("/api/tools/{name}", _guarded(endpoints.tool, token)),
        Route("/api/call", _guarded(endpoints.call, token), methods=["POST"]),
        Route("/api/traces", _guarded(endpoints.traces, token), methods=["GET", "POST"]),
        Route("/api/traces/{trace_id}", _guarded(endpoints.trace, token)),
        Route("/api/ask", _guarded(endpoints.ask, token), methods=["POST"]),
        Route("/api/files/{key}", _guarded(endpoints.files, token)),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_HOSTS, www_redirect=False)]
    return Starlette(routes=routes, middleware=middleware)
