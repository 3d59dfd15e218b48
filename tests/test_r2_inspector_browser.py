"""The inspector for a working day, in headless Chromium: Gemini pane, nested search, call history.

The browser, page and screenshot helpers are those of ``test_web_browser`` (which
skips, with its reason, where Playwright or Chromium is missing).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_web_browser as web_browser
from test_r2_inspector_catalogue import r2_ship, r2_weigh

from lagent_like import ActionExecutor
from lagent_like.web import InspectorServer

# The browser test module's fixtures, shared (pytest finds fixtures by module name).
browser = web_browser.browser
page = web_browser.page
shoot = web_browser.shoot


@pytest.fixture
def server() -> Iterator[InspectorServer]:
    with InspectorServer(ActionExecutor([r2_ship, r2_weigh])) as running:
        yield running


def test_the_gemini_export_is_shown_beside_the_others(
    page: Any,
    server: InspectorServer,
    tmp_path: Path,
) -> None:
    page.goto(server.url)
    page.get_by_role("button", name="r2_weigh").click()
    pane = page.get_by_role("region", name="Gemini", exact=True)
    (declaration,) = server.state.executor.to_gemini_tools()[0]["functionDeclarations"][1:]
    assert json.loads(pane.locator("pre").inner_text()) == declaration
    assert page.locator(".export h4").all_inner_texts()[-2:] == ["Gemini", "MCP"]
    shoot(page, tmp_path / "inspector-gemini.png")


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        pytest.param("postcode", ["r2_ship"], id="key-two-levels-down"),
        pytest.param("weight_kg", ["r2_ship"], id="key-of-an-array-item"),
        pytest.param("grams", ["r2_weigh"], id="top-level-parameter"),
        pytest.param("postcode grams", [], id="every-word-must-match"),
    ],
)
def test_search_finds_a_tool_by_a_nested_parameter_name(
    page: Any,
    server: InspectorServer,
    query: str,
    shown: list[str],
) -> None:
    page.goto(server.url)
    page.get_by_label("Search tools").fill(query)
    assert page.locator("#tool-list button").all_inner_texts() == shown
    assert page.locator("#search-count").inner_text() == f"{len(shown)} of 2 APIs"
