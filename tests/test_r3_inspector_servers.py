"""The inspector's Servers panel: connect, reconnect and disconnect MCP servers, and its refusals.

Real servers only: ``r3_inspector_mcp_server.py`` started over stdio by the panel, and
over streamable HTTP on 127.0.0.1 (an ephemeral port) by the tests. The state is
checked directly, then the HTTP API the page uses, the way an attacker would try it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
import requests
from _servers import serving
from net_guard import Guard

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")
pytest.importorskip("uvicorn", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

import lagent_like
from lagent_like import ActionExecutor
from lagent_like.cli.commands import main
from lagent_like.web import InspectorError, InspectorServer, InspectorState
from lagent_like.web._servers import COMMANDS_NOT_ALLOWED
from lagent_like.web.app import SERVERS_TOKEN_IN_HEADER, TOKEN_REQUIRED

HERE = Path(__file__).parent
SERVER = str(HERE / "r3_inspector_mcp_server.py")
ROOT = Path(lagent_like.__file__).parent.parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
HTTP_TOKEN = "r3-inspector-token"


def command(name: str, tools: str) -> str:
    """The command line of the test server announcing ``name`` with ``tools`` (a count or a file)."""
    return subprocess.list2cmdline([sys.executable, SERVER, name, tools])


def r3_tools(folder: Path, *names: str) -> str:
    """A tools file (one name a line) in ``folder``; write it again to change the list."""
    path = folder / "tools.txt"
    path.write_text("\n".join(names) + "\n")
    return str(path)


def http_server(name: str, tools: str) -> AbstractContextManager[str]:
    """The test server over streamable HTTP on 127.0.0.1; yields its URL, stops it after."""
    return serving([sys.executable, SERVER, name, tools, "--http", HTTP_TOKEN], ENV, what="the test server")


@pytest.fixture
def state() -> Iterator[InspectorState]:
    """An inspector state over no tools whose page may start commands."""
    made = InspectorState(ActionExecutor([]), allow_connect_commands=True)
    yield made
    made.servers.close()


def names(state: InspectorState) -> list[str]:
    """The API names of the catalogue, as the page lists them."""
    return [entry["name"] for entry in state.catalogue()]


def test_a_command_connects_as_a_toolkit_named_after_its_server(
    state: InspectorState, tmp_path: Path
) -> None:
    target = command("desk.tools", r3_tools(tmp_path, "alpha", "beta"))
    entry = state.servers.connect(target)
    assert entry == {
        "id": "1",
        "name": "desk_tools",
        "target": target,
        "kind": "command",
        "status": "connected",
        "error": None,
        "tools": ["alpha", "beta"],
        "at_start": False,
    }
    assert names(state) == ["desk_tools.alpha", "desk_tools.beta"]
    answer = state.call("desk_tools.alpha", '{"text": "hi", "times": 2}')
    assert answer["record"]["result"] == [{"type": "text", "content": "alpha: hi alpha: hi"}]


def test_reconnect_lists_the_tools_again(state: InspectorState, tmp_path: Path) -> None:
    tools = r3_tools(tmp_path, "alpha", "beta")
    server_id = state.servers.connect(command("desk", tools))["id"]
    state.index_json()  # built before the change: it must not be served after it
    r3_tools(tmp_path, "alpha", "gamma")
    entry = state.servers.reconnect(server_id)
    assert (entry["status"], entry["name"], entry["tools"]) == ("connected", "desk", ["alpha", "gamma"])
    assert names(state) == ["desk.alpha", "desk.gamma"]
    assert '"desk.gamma"' in state.index_json()


def test_disconnect_removes_the_tools_from_catalogue_exports_and_search(
    state: InspectorState, tmp_path: Path
) -> None:
    state.executor.add_action(lambda_free_tool)
    server_id = state.servers.connect(command("desk", r3_tools(tmp_path, "alpha")))["id"]
    assert "desk.alpha" in state.index_json()
    entry = state.servers.disconnect(server_id)
    assert (entry["status"], entry["name"], entry["tools"], entry["error"]) == (
        "disconnected",
        "desk",
        [],
        None,
    )
    assert names(state) == ["lambda_free_tool"]
    assert "desk" not in state.index_json()
    assert [tool["function"]["name"] for tool in state.executor.to_openai_tools()] == ["lambda_free_tool"]
    with pytest.raises(InspectorError, match=r"^no enabled API is named 'desk.alpha'"):
        state.call("desk.alpha", '{"text": "hi"}')
    assert state.servers.servers() == [entry]


def lambda_free_tool(text: str) -> str:
    """Say a text back.

    Args:
        text: the text.
    """
    return text


def test_servers_with_one_name_and_a_local_tool_of_that_name_get_unique_names(
    state: InspectorState, tmp_path: Path
) -> None:
    state.executor.add_action(lambda_free_tool)
    tools = r3_tools(tmp_path, "alpha")
    first = state.servers.connect(command("lambda_free_tool", tools))
    second = state.servers.connect(command("lambda_free_tool", tools))
    assert (first["name"], second["name"]) == ("lambda_free_tool_2", "lambda_free_tool_3")
    assert names(state) == ["lambda_free_tool", "lambda_free_tool_2.alpha", "lambda_free_tool_3.alpha"]


def test_a_reconnected_server_keeps_its_name(state: InspectorState, tmp_path: Path) -> None:
    tools = r3_tools(tmp_path, "alpha")
    first = state.servers.connect(command("twin", tools))
    state.servers.connect(command("twin", tools))
    assert state.servers.reconnect(first["id"])["name"] == "twin"
    assert names(state) == ["twin_2.alpha", "twin.alpha"]


def test_an_http_server_connects_with_its_token_and_fails_without_it(state: InspectorState) -> None:
    with http_server("web.desk", "2") as url:
        refused = state.servers.connect(url)
        entry = state.servers.connect(url, HTTP_TOKEN)
        assert (refused["status"], refused["tools"]) == ("failed", [])
        assert refused["error"].startswith(f"cannot connect to the MCP server {url}: ")
        assert "401" in refused["error"]
        assert (entry["kind"], entry["status"], entry["name"]) == ("url", "connected", "web_desk")
        assert names(state) == ["web_desk.tool_1", "web_desk.tool_2"]
        assert state.call("web_desk.tool_2", {"text": "x"})["record"]["result"][0]["content"] == "tool_2: x"
        assert state.servers.reconnect(entry["id"])["status"] == "connected"  # the token is kept
    entry = state.servers.reconnect(entry["id"])
    assert (entry["status"], entry["tools"]) == ("failed", [])
    assert entry["error"].startswith(f"cannot connect to the MCP server {url}: ")
    assert names(state) == []


NOT_FOUND = "r3-no-such-program-anywhere"


@pytest.mark.parametrize(
    ("target", "error"),
    [
        pytest.param(
            NOT_FOUND,
            f"cannot connect to the MCP server {NOT_FOUND}: FileNotFoundError: "
            f"[Errno 2] No such file or directory: '{NOT_FOUND}'",
            id="command-not-found",
        ),
        pytest.param(
            subprocess.list2cmdline([sys.executable, "-c", "import sys; sys.exit('no tools today')"]),
            "MCPError: Connection closed\nthe server wrote on stderr:\nno tools today",
            id="server-that-exits",
        ),
        pytest.param(
            "http://127.0.0.1:9/mcp",
            "cannot connect to the MCP server http://127.0.0.1:9/mcp: ConnectError: All connection attempts failed",
            id="nothing-listening",
        ),
    ],
)
def test_a_server_that_cannot_connect_is_listed_as_failed_with_the_reason(
    state: InspectorState, target: str, error: str
) -> None:
    entry = state.servers.connect(target)
    assert (entry["status"], entry["name"], entry["tools"]) == ("failed", None, [])
    assert entry["error"].endswith(error)
    assert names(state) == []


@pytest.mark.parametrize(
    ("target", "token", "status", "message"),
    [
        pytest.param(
            "", None, 400, r"^'target' is required: a URL \(http://\.\.\.\) or a command line$", id="empty"
        ),
        pytest.param(["python"], None, 400, r"^'target' is required", id="not-text"),
        pytest.param("http://127.0.0.1:9/mcp", 7, 400, r"^'token' must be a string", id="token-not-text"),
        pytest.param(
            "python 'unclosed",
            None,
            400,
            r"^the command line cannot be read: No closing quotation$",
            id="quotes",
        ),
        pytest.param("http:///mcp", None, 400, r"^the URL 'http:///mcp' names no host", id="no-host"),
        pytest.param(
            "http://10.1.2.3:8000/mcp",
            None,
            403,
            r"^10\.1\.2\.3 is a private or local address; not opened: the page connects to public and "
            r"loopback servers only; give a private server with --mcp URL when starting the inspector$",
            id="private-address",
        ),
        pytest.param(
            "http://169.254.169.254/mcp",
            None,
            403,
            r"^169\.254\.169\.254 is a private",
            id="metadata-address",
        ),
    ],
)
def test_a_request_the_panel_cannot_take_is_refused_before_anything_starts(
    guard: Guard, state: InspectorState, target: Any, token: Any, status: int, message: str
) -> None:
    with pytest.raises(InspectorError, match=message) as refused:
        state.servers.connect(target, token)
    assert refused.value.status == status
    assert state.servers.servers() == []
    assert guard.refused() == []  # refused by the address rule, before any connection attempt


def test_a_command_is_refused_without_the_operators_flag(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    state = InspectorState(ActionExecutor([]))
    target = subprocess.list2cmdline([sys.executable, "-c", f"open({str(marker)!r}, 'w')"])
    with pytest.raises(InspectorError, match=f"^{re.escape(COMMANDS_NOT_ALLOWED)}$") as refused:
        state.servers.connect(target)
    assert refused.value.status == 403
    assert not marker.exists()
    assert state.servers.servers() == []


def test_servers_given_at_start_are_listed_and_can_be_disconnected_and_reconnected(tmp_path: Path) -> None:
    from lagent_like.mcp._targets import open_target

    target = command("started", r3_tools(tmp_path, "alpha"))
    toolkit = open_target(target)
    toolkit.rename("started")
    state = InspectorState(ActionExecutor([toolkit]), mcp_servers=[(toolkit, target)])
    try:
        (entry,) = state.servers.servers()
        assert (entry["name"], entry["status"], entry["tools"], entry["at_start"]) == (
            "started",
            "connected",
            ["alpha"],
            True,
        )
        state.servers.disconnect(entry["id"])
        assert names(state) == []
        assert toolkit.call_tool("alpha", {"text": "x"}).errmsg == "the MCP toolkit 'started' is closed"
        r3_tools(tmp_path, "beta")
        # Without --allow-connect-commands: the operator gave this command at start.
        assert state.servers.reconnect(entry["id"])["tools"] == ["beta"]
        assert names(state) == ["started.beta"]
    finally:
        state.servers.close()
    assert names(state) == []


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The options ``inspect`` hands to :func:`lagent_like.web.inspect`, and the servers' tools."""
    import lagent_like.web as web_package

    kept: list[dict[str, Any]] = []

    def keep(executor: Any, **options: Any) -> None:
        servers = [(toolkit.name, target) for toolkit, target in options.pop("mcp_servers")]
        kept.append({**options, "mcp_servers": servers, "apis": executor.api_names()})

    monkeypatch.setattr(web_package, "inspect", keep)
    return kept


@pytest.mark.parametrize(
    ("flags", "allowed"),
    [pytest.param([], False, id="default"), pytest.param(["--allow-connect-commands"], True, id="flag")],
)
def test_inspect_hands_its_mcp_servers_and_the_commands_flag_to_the_page(
    captured: list[dict[str, Any]], tmp_path: Path, flags: list[str], allowed: bool
) -> None:
    target = command("cli.desk", r3_tools(tmp_path, "alpha"))
    assert main(["inspect", "--mcp", target, *flags]) == 0
    (options,) = captured
    assert options["allow_connect_commands"] is allowed
    assert options["mcp_servers"] == [("cli_desk", target)]
    assert options["apis"] == ["cli_desk.alpha"]


# -- the HTTP API, as the page and as an attacker use it ------------------------------


@pytest.fixture
def page_server() -> Iterator[InspectorServer]:
    with InspectorServer(ActionExecutor([lambda_free_tool]), allow_connect_commands=True) as running:
        yield running


def _send(
    server: InspectorServer, method: str, path: str, body: Any = None, **headers: str
) -> requests.Response:
    sent = {"Authorization": f"Bearer {server.token}", **headers}
    sent = {key: value for key, value in sent.items() if value}
    return requests.request(method, server.base_url + path, json=body, headers=sent, timeout=60)


def test_the_page_api_connects_reconnects_disconnects_and_removes(
    page_server: InspectorServer, tmp_path: Path
) -> None:
    tools = r3_tools(tmp_path, "alpha")
    origin = page_server.base_url  # the page's own origin is allowed
    connected = _send(page_server, "POST", "/api/servers", {"target": command("api", tools)}, Origin=origin)
    assert (connected.status_code, connected.json()["status"]) == (201, "connected")
    index = _send(page_server, "GET", "/api/tools?index=1").json()
    assert [entry["name"] for entry in index] == ["lambda_free_tool", "api.alpha"]
    r3_tools(tmp_path, "beta")
    again = _send(page_server, "POST", "/api/servers/1/reconnect", {})
    assert (again.status_code, again.json()["tools"]) == (200, ["beta"])
    gone = _send(page_server, "POST", "/api/servers/1/disconnect", {})
    assert (gone.status_code, gone.json()["status"]) == (200, "disconnected")
    assert [entry["name"] for entry in _send(page_server, "GET", "/api/tools?index=1").json()] == [
        "lambda_free_tool"
    ]
    listing = _send(page_server, "GET", "/api/servers").json()
    assert (listing["commands"], [s["status"] for s in listing["servers"]]) == (True, ["disconnected"])
    removed = _send(page_server, "DELETE", "/api/servers/1")
    assert (removed.status_code, removed.json()) == (200, {"removed": "1"})
    assert _send(page_server, "GET", "/api/servers").json()["servers"] == []


@pytest.mark.parametrize(
    ("method", "path", "status", "error"),
    [
        pytest.param(
            "POST",
            "/api/servers/9/reconnect",
            404,
            "no MCP server number 9; the page lists the ones there are",
            id="unknown-server",
        ),
        pytest.param(
            "DELETE",
            "/api/servers/9",
            404,
            "no MCP server number 9; the page lists the ones there are",
            id="remove-unknown",
        ),
        pytest.param(
            "POST",
            "/api/servers/9/restart",
            404,
            "a server's actions are reconnect and disconnect",
            id="unknown-action",
        ),
    ],
)
def test_the_page_api_answers_a_wrong_server_route_with_the_reason(
    page_server: InspectorServer, method: str, path: str, status: int, error: str
) -> None:
    response = _send(page_server, method, path, {} if method == "POST" else None)
    assert (response.status_code, response.json()) == (status, {"error": error, "status": status})


def _attack(server: InspectorServer, marker: Path, **headers: str) -> requests.Response:
    """Ask ``server`` to start a command that would create ``marker``."""
    target = subprocess.list2cmdline([sys.executable, "-c", f"open({str(marker)!r}, 'w')"])
    return _send(server, "POST", "/api/servers", {"target": target}, **headers)


CROSS_ORIGIN = (
    "a request from another site (Origin: http://evil.example) may not change the inspector; use its own page"
)


@pytest.mark.parametrize(
    ("headers", "status", "error"),
    [
        pytest.param({"Origin": "http://evil.example"}, 403, CROSS_ORIGIN, id="cross-origin-with-the-token"),
        pytest.param(
            {"Origin": "null"}, 403, CROSS_ORIGIN.replace("http://evil.example", "null"), id="opaque-origin"
        ),
        pytest.param({"Authorization": ""}, 401, TOKEN_REQUIRED, id="no-token"),
        pytest.param({"Authorization": "Bearer guessed"}, 401, None, id="wrong-token"),
    ],
)
def test_an_attackers_connect_request_is_refused_and_starts_nothing(
    page_server: InspectorServer, tmp_path: Path, headers: dict[str, str], status: int, error: Any
) -> None:
    marker = tmp_path / "started"
    response = _attack(page_server, marker, **headers)
    assert response.status_code == status
    if error is not None:
        assert response.json() == {"error": error, "status": status}
    assert not marker.exists()
    assert _send(page_server, "GET", "/api/servers").json()["servers"] == []


def test_a_token_in_the_url_does_not_open_the_server_routes(
    page_server: InspectorServer, tmp_path: Path
) -> None:
    marker = tmp_path / "started"
    target = subprocess.list2cmdline([sys.executable, "-c", f"open({str(marker)!r}, 'w')"])
    for method, body in (("GET", None), ("POST", {"target": target})):
        response = requests.request(
            method, f"{page_server.base_url}/api/servers?token={page_server.token}", json=body, timeout=10
        )
        assert (response.status_code, response.json()["error"]) == (401, SERVERS_TOKEN_IN_HEADER)
    assert not marker.exists()


def test_a_foreign_host_name_is_refused_by_the_server_routes(
    page_server: InspectorServer, tmp_path: Path
) -> None:
    marker = tmp_path / "started"
    response = _attack(page_server, marker, Host="evil.example")
    assert (response.status_code, response.text) == (400, "Invalid host header")
    assert not marker.exists()


def test_a_cross_origin_call_is_refused_too(page_server: InspectorServer) -> None:
    body = {"name": "lambda_free_tool", "arguments": {"text": "x"}}
    response = _send(page_server, "POST", "/api/call", body, Origin="http://evil.example")
    assert (response.status_code, response.json()["error"]) == (403, CROSS_ORIGIN)
    assert _send(page_server, "GET", "/api/history").json() == []


def test_a_command_through_the_api_without_the_flag_is_forbidden(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    with InspectorServer(ActionExecutor([lambda_free_tool])) as server:
        response = _attack(server, marker, Origin=server.base_url)
        assert (response.status_code, response.json()) == (
            403,
            {"error": COMMANDS_NOT_ALLOWED, "status": 403},
        )
        assert _send(server, "GET", "/api/servers").json() == {"servers": [], "commands": False}
    assert not marker.exists()


def test_two_reconnects_at_once_leave_one_open_toolkit(
    state: InspectorState, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lagent_like.web._servers as servers_module

    opened: list[Any] = []
    real = servers_module.open_target

    def recorded(*args: Any, **kwargs: Any) -> Any:
        toolkit = real(*args, **kwargs)
        opened.append(toolkit)
        return toolkit

    server_id = state.servers.connect(command("desk", r3_tools(tmp_path, "alpha")))["id"]
    monkeypatch.setattr(servers_module, "open_target", recorded)
    start = threading.Barrier(2)

    def reconnect() -> None:
        start.wait()
        state.servers.reconnect(server_id)

    threads = [threading.Thread(target=reconnect) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    still_open = [t for t in opened if not t.call_tool("alpha", {"text": "x"}).errmsg]
    assert still_open == [state.executor.actions["desk"]]
    assert list(state.executor.actions) == ["desk"]


def test_a_server_that_never_answers_fails_within_the_connect_limit_not_a_hung_page() -> None:
    from lagent_like.web._servers import MCPServers

    panel = MCPServers(ActionExecutor([]), lambda: None, allow_commands=True, connect_timeout=1)
    silent = subprocess.list2cmdline([sys.executable, "-c", "import sys; sys.stdin.read()"])
    try:
        entry = panel.connect(silent)
    finally:
        panel.close()
    assert (entry["status"], entry["tools"]) == ("failed", [])
    assert entry["error"] == (
        f"cannot connect to the MCP server {silent.replace(chr(34), '')}: TimeoutError "
        "(no answer and no tool list within 1 s)"
    )
