"""The Servers tab in headless Chromium: connect, reconnect and disconnect MCP servers from the page.

The browser, page and screenshot helpers are those of ``test_web_browser`` (which
skips, with its reason, where Playwright or Chromium is missing); the servers are
the real test server of ``test_r3_inspector_servers``, over stdio and HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import test_web_browser as web_browser
from net_guard import Guard
from test_r3_inspector_servers import HTTP_TOKEN, command, http_server, lambda_free_tool, r3_tools

from lagent_like import ActionExecutor
from lagent_like.mcp._targets import open_target
from lagent_like.web import InspectorServer
from lagent_like.web._servers import COMMANDS_NOT_ALLOWED

# The browser test module's fixtures, shared (pytest finds fixtures by module name).
browser = web_browser.browser
shoot = web_browser.shoot
expect = web_browser.expect


#: What Chromium logs for each answer 403 (a refusal the page then shows in words).
FORBIDDEN = "Failed to load resource: the server responded with a status of 403 (Forbidden)"


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A new page; a test takes the console errors it expects from ``page.console_errors``."""
    opened = browser.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    opened.console_errors = errors
    yield opened
    opened.close()
    assert errors == []


def _take_console_errors(page: Any) -> list[str]:
    taken = list(page.console_errors)
    page.console_errors.clear()
    return taken


@pytest.fixture
def server() -> Iterator[InspectorServer]:
    with InspectorServer(ActionExecutor([lambda_free_tool]), allow_connect_commands=True) as running:
        yield running


def _connect(page: Any, target: str, token: str = "") -> None:
    page.get_by_role("tab", name="Servers").click()
    page.get_by_label("URL or command line").fill(target)
    page.get_by_label("Bearer token (an HTTP server's, optional)").fill(token)
    page.get_by_role("button", name="Connect", exact=True).click()


def _tool_list(page: Any) -> list[str]:
    page.get_by_role("tab", name="Tools").click()
    return list(page.locator("#tool-list button").evaluate_all("buttons => buttons.map(b => b.dataset.name)"))


def test_a_server_connected_from_the_page_shows_its_tools_and_is_searchable(
    page: Any, server: InspectorServer, tmp_path: Path
) -> None:
    page.goto(server.url)
    _connect(page, command("desk.tools", r3_tools(tmp_path, "alpha", "beta")))
    expect(page.locator("#server-status")).to_have_text("Connected: desk_tools, 2 tools.")
    card = page.get_by_role("listitem", name="desk_tools: connected")
    expect(card.locator("dd").nth(1)).to_have_text("alpha, beta")
    shoot(page, tmp_path / "inspector-servers.png")
    assert _tool_list(page) == ["lambda_free_tool", "desk_tools.alpha", "desk_tools.beta"]
    page.get_by_label("Search tools").fill("beta")
    expect(page.locator("#tool-list button")).to_have_count(1)
    assert _tool_list(page) == ["desk_tools.beta"]
    expect(page.locator("#search-count")).to_have_text("1 of 3 APIs")
    page.get_by_role("button", name="desk_tools.beta").click()
    page.get_by_label("Arguments as a model would write them").fill('{"text": "hi"}')
    page.get_by_role("button", name="Call with raw arguments").click()
    expect(page.get_by_role("region", name="Result").locator(".items pre")).to_have_text("beta: hi")


def test_reconnect_shows_a_changed_tool_list_and_disconnect_removes_the_tools(
    page: Any, server: InspectorServer, tmp_path: Path
) -> None:
    page.goto(server.url)
    _connect(page, command("desk", r3_tools(tmp_path, "alpha")))
    expect(page.locator("#server-status")).to_have_text("Connected: desk, 1 tools.")
    page.get_by_role("tab", name="Tools").click()
    page.locator('[data-name="desk.alpha"]').click()  # opened: it must close when it goes away
    expect(page.locator("#tool-title")).to_contain_text("desk.alpha")
    r3_tools(tmp_path, "gamma")
    page.get_by_role("tab", name="Servers").click()
    page.get_by_role("listitem", name="desk: connected").get_by_role("button", name="Reconnect").click()
    expect(page.locator("#server-status")).to_have_text("desk: connected")
    expect(page.get_by_role("listitem", name="desk: connected").locator("dd").nth(1)).to_have_text("gamma")
    assert _tool_list(page) == ["lambda_free_tool", "desk.gamma"]
    expect(page.locator("#tool-detail")).to_have_text("Choose a tool on the left.")
    page.get_by_role("tab", name="Servers").click()
    page.get_by_role("listitem", name="desk: connected").get_by_role("button", name="Disconnect").click()
    expect(page.get_by_role("listitem", name="desk: disconnected")).to_be_visible()
    assert _tool_list(page) == ["lambda_free_tool"]
    page.get_by_role("tab", name="Servers").click()
    page.get_by_role("listitem", name="desk: disconnected").get_by_role("button", name="Remove").click()
    expect(page.locator("#server-status")).to_have_text("desk: removed")
    expect(page.locator("#server-list li")).to_have_count(0)
    expect(page.locator("#servers-empty")).to_be_visible()


def test_an_http_server_connects_with_the_token_typed_on_the_page(
    page: Any, server: InspectorServer, tmp_path: Path
) -> None:
    with http_server("web.desk", "2") as url:
        page.goto(server.url)
        _connect(page, url, HTTP_TOKEN)
        expect(page.locator("#server-status")).to_have_text("Connected: web_desk, 2 tools.")
        expect(page.get_by_label("Bearer token (an HTTP server's, optional)")).to_have_value("")
        assert _tool_list(page) == ["lambda_free_tool", "web_desk.tool_1", "web_desk.tool_2"]


NOT_FOUND = "r3-no-such-program-anywhere"


def test_a_failure_is_shown_on_the_page_without_a_traceback(
    guard: Guard, page: Any, server: InspectorServer, tmp_path: Path
) -> None:
    page.goto(server.url)
    _connect(page, NOT_FOUND)
    expect(page.locator("#server-status")).to_have_text("Could not connect: see the server's error below.")
    card = page.get_by_role("listitem", name=f"{NOT_FOUND}: failed")
    expect(card.get_by_role("alert")).to_have_text(
        f"cannot connect to the MCP server {NOT_FOUND}: FileNotFoundError: "
        f"[Errno 2] No such file or directory: '{NOT_FOUND}'"
    )
    shoot(page, tmp_path / "inspector-servers-failed.png")
    _connect(page, "http://10.1.2.3/mcp")
    expect(page.locator("#server-status")).to_have_text(
        "Error: 10.1.2.3 is a private or local address; not opened: the page connects to public and "
        "loopback servers only; give a private server with --mcp URL when starting the inspector"
    )
    expect(page.locator("#server-list li")).to_have_count(1)
    assert "Traceback" not in page.content()
    assert _take_console_errors(page) == [FORBIDDEN]
    assert guard.refused() == []  # the private address was refused before any connection attempt


def test_without_the_flag_the_page_says_a_command_needs_it(page: Any, tmp_path: Path) -> None:
    with InspectorServer(ActionExecutor([lambda_free_tool])) as plain:
        page.goto(plain.url)
        _connect(page, command("desk", r3_tools(tmp_path, "alpha")))
        expect(page.locator("#server-status")).to_have_text("Error: " + COMMANDS_NOT_ALLOWED)
        expect(page.locator("#server-target-hint")).to_have_text(
            "An http(s) URL (streamable HTTP). Command lines need the inspector started with "
            "--allow-connect-commands."
        )
        expect(page.locator("#server-list li")).to_have_count(0)
        assert _tool_list(page) == ["lambda_free_tool"]
        assert _take_console_errors(page) == [FORBIDDEN]


def test_a_server_given_at_start_is_listed_and_can_be_reconnected(page: Any, tmp_path: Path) -> None:
    target = command("started", r3_tools(tmp_path, "alpha"))
    toolkit = open_target(target)
    toolkit.rename("started")
    executor = ActionExecutor([toolkit])
    try:
        with InspectorServer(executor, mcp_servers=[(toolkit, target)]) as running:
            page.goto(running.url)
            page.get_by_role("tab", name="Servers").click()
            card = page.get_by_role("listitem", name="started: connected")
            expect(card.locator("dd").nth(2)).to_have_text("at start (--mcp)")
            r3_tools(tmp_path, "beta")
            card.get_by_role("button", name="Reconnect").click()
            expect(card.locator("dd").nth(1)).to_have_text("beta")
            assert _tool_list(page) == ["started.beta"]
    finally:
        toolkit.close()
