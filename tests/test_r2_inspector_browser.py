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
from lagent_like.agents import ReAct
from lagent_like.web import InspectorServer

# The browser test module's fixtures, shared (pytest finds fixtures by module name).
browser = web_browser.browser
page = web_browser.page
shoot = web_browser.shoot
expect = web_browser.expect


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


def _call_raw(page: Any, name: str, text: str) -> Any:
    """Open ``name``, call it with ``text`` in the raw box; the result region once answered."""
    page.get_by_role("button", name=name, exact=True).first.click()
    page.get_by_label("Arguments as a model would write them").fill(text)
    page.get_by_role("button", name="Call with raw arguments").click()
    result = page.get_by_role("region", name="Result")
    result.locator(".result-title").wait_for()
    return result


def test_history_lists_the_calls_and_reopens_one_with_its_arguments(
    page: Any, server: InspectorServer, tmp_path: Path
) -> None:
    page.goto(server.url)
    history = page.locator("#history-list button")
    expect(page.locator("#history-empty")).to_be_visible()
    _call_raw(page, "r2_weigh", '{"grams": 250}')
    expect(history).to_have_count(1)
    _call_raw(page, "r2_weigh", "{'grams': 'lots'}")
    expect(history).to_have_count(2)
    assert history.all_inner_texts() == ["2. r2_weighARGS_ERROR", "1. r2_weighSUCCESS"]
    expect(page.locator("#history-empty")).to_be_hidden()
    page.evaluate("window.scrollTo(0, 0)")
    shoot(page, tmp_path / "inspector-history.png")
    page.get_by_role("button", name="r2_ship").click()
    page.get_by_role("button", name='Open call 1 again: r2_weigh {"grams": 250}, SUCCESS').click()
    expect(page.locator("#tool-title")).to_have_text("r2_weigh")
    raw = page.get_by_label("Arguments as a model would write them")
    expect(raw).to_have_value('{"grams": 250}')
    expect(raw).to_be_focused()
    raw.fill('{"grams": 300}')
    page.get_by_role("button", name="Call with raw arguments").click()
    expect(page.get_by_role("region", name="Result").locator(".items pre")).to_have_text("300 g")
    expect(history).to_have_count(3)


def test_a_call_from_the_form_reopens_as_json(page: Any, server: InspectorServer) -> None:
    page.goto(server.url)
    page.get_by_role("button", name="r2_weigh").click()
    page.get_by_label("grams (required)").fill("12")
    page.get_by_role("button", name="Call", exact=True).click()
    page.get_by_role("button", name='Open call 1 again: r2_weigh {"grams":12}, SUCCESS').click()
    expect(page.get_by_label("Arguments as a model would write them")).to_have_value('{"grams":12}')


def test_a_traced_call_opens_in_try_it_with_its_arguments(
    page: Any, server: InspectorServer, tmp_path: Path
) -> None:
    replies = iter(['Thought: weigh it\nAction: r2_weigh\nAction Input: {"grams": 40}', "Final Answer: 40 g"])
    result = ReAct(lambda messages: next(replies), ActionExecutor([r2_weigh])).run("How heavy?")
    result.save(tmp_path / "weigh.json")
    page.goto(server.url)
    page.get_by_role("tab", name="Traces").click()
    page.get_by_label("Open a trace file (saved with result.save(path))").set_input_files(
        str(tmp_path / "weigh.json")
    )
    page.get_by_role("button", name="Open r2_weigh in Try it").click()
    expect(page.get_by_role("tab", name="Tools")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#tool-title")).to_have_text("r2_weigh")
    raw = page.get_by_label("Arguments as a model would write them")
    expect(raw).to_have_value('{"grams": 40}')
    raw.fill('{"grams": 41}')
    page.get_by_role("button", name="Call with raw arguments").click()
    expect(page.get_by_role("region", name="Result").locator(".items pre")).to_have_text("41 g")


def test_a_traced_native_call_opens_under_its_api_name(
    page: Any, server: InspectorServer, tmp_path: Path
) -> None:
    class Native:
        calls = 0

        def chat(self, messages: Any, tools: Any = None, **params: Any) -> dict[str, Any]:
            Native.calls += 1
            if Native.calls == 1:
                call = {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "r2_weigh", "arguments": '{"grams": 9}'},
                }
                return {"role": "assistant", "content": "", "tool_calls": [call]}
            return {"role": "assistant", "content": "9 g"}

    result = ReAct(Native(), ActionExecutor([r2_weigh]), native_tools=True).run("How heavy?")
    result.save(tmp_path / "native.json")
    page.goto(server.url)
    page.get_by_role("tab", name="Traces").click()
    page.get_by_label("Open a trace file (saved with result.save(path))").set_input_files(
        str(tmp_path / "native.json")
    )
    page.get_by_role("button", name="Open r2_weigh in Try it").click()
    expect(page.get_by_label("Arguments as a model would write them")).to_have_value('{"grams": 9}')


def _timed_trace(tmp_path: Path) -> Path:
    """A saved run of two turns whose times and token counts are set by hand."""
    replies = iter(['Action: r2_weigh\nAction Input: {"grams": 3}', "Final Answer: 3 g"])
    data = ReAct(lambda messages: next(replies), ActionExecutor([r2_weigh])).run("Weigh 3 g").to_dict()
    first, second = data["turns"]
    first.update(model_seconds=0.25, tool_seconds=0.5, usage={"prompt_tokens": 100, "completion_tokens": 20})
    second.update(model_seconds=0.125, tool_seconds=0.0, usage={"total_tokens": 130})
    path = tmp_path / "timed.json"
    path.write_text(json.dumps(data))
    return path


def test_a_runs_time_line_shows_model_and_tool_time_per_turn_with_totals(
    page: Any, server: InspectorServer, tmp_path: Path
) -> None:
    page.goto(server.url)
    page.get_by_role("tab", name="Traces").click()
    page.get_by_label("Open a trace file (saved with result.save(path))").set_input_files(
        str(_timed_trace(tmp_path))
    )
    expect(page.get_by_label("Time line").locator("li")).to_have_count(2)
    assert page.get_by_label("Time line").locator(".line-text").all_inner_texts() == [
        "Turn 1: model 250.0 ms, tools 500.0 ms",
        "Turn 2: model 125.0 ms, tools 0.0 ms",
    ]
    totals = page.get_by_label("Totals")
    assert totals.locator("dt").all_inner_texts() == [
        "turns",
        "model",
        "tools and parsing",
        "total",
        "tokens",
    ]
    assert totals.locator("dd").all_inner_texts() == ["2", "375.0 ms", "500.0 ms", "875.0 ms", "250"]
    widths = page.locator(".time-line .bar").evaluate_all("(bars) => bars.map((b) => b.style.width)")
    assert widths == ["33.3%", "66.7%", "16.7%", "0%"]
    page.get_by_label("Time line").scroll_into_view_if_needed()
    shoot(page, tmp_path / "inspector-time-line.png")
