"""A live run reaches the page in headless Chromium by push (Server-Sent Events), not by polling.

The browser helpers are those of ``test_web_browser`` (which skips, with its reason,
where Playwright or Chromium is missing); the held model and the server are those of
``test_r3_inspector_events``.
"""

from __future__ import annotations

from typing import Any

import test_web_browser as web_browser
from test_r3_inspector_events import HeldModel, held, wait_until

from lagent_like.web import InspectorServer

# The shared fixtures (pytest finds fixtures by module name).
browser = web_browser.browser
page = web_browser.page
expect = web_browser.expect
__all__ = ["held"]


def test_the_page_shows_a_live_turn_pushed_without_asking_again(
    page: Any, held: tuple[InspectorServer, HeldModel]
) -> None:
    server, model = held
    trace_id = server.state.ask("How heavy?")
    wait_until(server.state, trace_id, lambda trace: len(trace["turns"]) == 1)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url.split("?")[0].replace(server.base_url, "")))
    page.goto(server.url)
    page.get_by_role("tab", name="Traces").click()
    page.get_by_role("button", name="1. How heavy?").click()
    expect(page.locator("#turn-position")).to_have_text("Turn 1 of 1")
    model.second_turn.set()
    expect(page.locator("#turn-position")).to_have_text("Turn 2 of 2", timeout=30_000)
    # One read of the trace, one stream: the second turn was pushed, never asked for.
    assert asked.count(f"/api/traces/{trace_id}") == 1
    assert asked.count(f"/api/traces/{trace_id}/events") == 1
