"""The inspector page in a real headless Chromium (Debian's ``chromium``, driven by Playwright).

Each scenario writes a screenshot of the view under the test's temporary directory;
the copies under ``docs/_static/inspector-*.png`` shown by ``docs/inspector.rst``
come from these. The tests skip with a reason where Playwright or the browser is
missing; ``.ci/run`` installs both (never a downloaded browser).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from typing_extensions import Literal, TypedDict

pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")
pytest.importorskip("uvicorn", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")
sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="needs the 'browser' extra: pip install '.[browser]' (or 'lagent-like[browser]')",
)

from lagent_like import ActionExecutor, BaseAction, tool_api  # noqa: E402

expect = sync_api.expect
from lagent_like.agents import ReAct  # noqa: E402
from lagent_like.web import InspectorServer  # noqa: E402

CHROMIUM = os.environ.get("LAGENT_LIKE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Set to a directory to also keep the screenshots there (docs/_static copies come from it).
KEEP_SCREENSHOTS = os.environ.get("LAGENT_LIKE_SCREENSHOTS")

if not os.path.exists(CHROMIUM):
    pytest.skip(
        f"no Chromium at {CHROMIUM}: apt-get install chromium (or set LAGENT_LIKE_CHROMIUM)",
        allow_module_level=True,
    )


def shoot(page: Any, path: Path) -> None:
    """Screenshot the visible part of ``page`` to ``path`` (and to ``KEEP_SCREENSHOTS``)."""
    page.screenshot(path=str(path))
    if KEEP_SCREENSHOTS:
        shutil.copy(path, Path(KEEP_SCREENSHOTS) / path.name)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    profile = tempfile.mkdtemp(prefix="lagent-like-chromium-")
    try:
        with sync_api.sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                args=FLAGS,
                headless=True,
                viewport={"width": 1200, "height": 860},
            )
            yield context
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    opened = browser.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    yield opened
    opened.close()
    assert errors == []


class Forecast(BaseAction, register=False):
    """Weather forecasts for the browser tests."""

    @tool_api
    def daily(
        self,
        city: str,
        days: int = 1,
        unit: Literal["celsius", "fahrenheit"] = "celsius",
        hourly: bool = False,
        hours: Optional[list[int]] = None,
    ) -> str:
        """Forecast the weather in a city.

        Args:
            city: the city name
            days: how many days ahead
            unit: the temperature unit
            hourly: include hourly values
            hours: only these hours of the day
        """
        return f"{city}: {days} day(s) in {unit}, hourly={hourly}, hours={hours}"

    @tool_api
    def alerts(self, region: str) -> str:
        """List weather alerts.

        Args:
            region: the region code
        """
        return f"no alerts in {region}"


class Geo(BaseAction, register=False):
    """Places on the map."""

    @tool_api
    def locate(self, place: str) -> dict[str, float]:
        """Find the coordinates of a place.

        Args:
            place: a place name
        """
        return {"lat": 48.85, "lon": 2.35}


@pytest.fixture
def server() -> Iterator[InspectorServer]:
    with InspectorServer(ActionExecutor([Forecast(), Geo()])) as running:
        yield running


def test_search_fill_the_form_call_and_read_the_result(
    page: Any, server: InspectorServer, tmp_path: Path
) -> None:
    page.goto(server.url)
    page.get_by_label("Search tools").fill("forecast city")
    assert page.locator("#tool-list button").all_inner_texts() == ["Forecast.daily"]
    assert page.locator("#search-count").inner_text() == "1 of 3 APIs"
    page.get_by_role("button", name="Forecast.daily").click()
    assert page.locator("#tool-title").inner_text() == "Forecast.daily"
    shoot(page, tmp_path / "inspector-catalogue.png")
    page.get_by_label("city (required)").fill("Paris")
    page.get_by_label("days (optional)").fill("3")
    page.get_by_label("unit (optional)").select_option(label='"fahrenheit"')
    page.get_by_label("hourly (optional)").select_option("true")
    page.get_by_role("button", name="Add an item to hours").click()
    page.get_by_role("spinbutton", name="hours item 1").fill("9")
    page.get_by_role("button", name="Call", exact=True).click()
    result = page.get_by_role("region", name="Result")
    result.locator(".result-title").wait_for()
    assert result.locator(".result-title").inner_text() == "Result: SUCCESS"
    assert "SUCCESS (0)" in result.inner_text()
    assert "OPEN (0)" in result.inner_text()
    assert (
        result.locator(".items pre").inner_text() == "Paris: 3 day(s) in fahrenheit, hourly=True, hours=[9]"
    )
    result.scroll_into_view_if_needed()
    shoot(page, tmp_path / "inspector-call.png")


def test_exports_are_shown_side_by_side_and_copyable(page: Any, server: InspectorServer) -> None:
    page.goto(server.url)
    page.get_by_role("button", name="Geo.locate").click()
    page.locator(".export h4").first.wait_for()
    panes = page.locator(".export h4").all_inner_texts()
    assert panes == [
        "Lagent description (system prompt)",
        "OpenAI",
        "OpenAI strict",
        "Anthropic",
        "Gemini",
        "MCP",
    ]
    lagent = page.get_by_role("region", name="Lagent description (system prompt)").locator("pre").inner_text()
    assert '"parameter_description"' in lagent
    assert '"name": "Geo.locate"' in lagent
    page.get_by_role("button", name="Copy OpenAI", exact=True).click()
    expect(page.get_by_role("region", name="OpenAI", exact=True).get_by_role("status")).to_have_text("copied")


def test_dirty_json_in_the_raw_box_is_read(page: Any, server: InspectorServer, tmp_path: Path) -> None:
    page.goto(server.url)
    page.get_by_role("button", name="Forecast.alerts").click()
    page.get_by_label("Arguments as a model would write them").fill("```json\n{'region': 'IDF',}\n```")
    page.get_by_role("button", name="Call with raw arguments").click()
    result = page.get_by_role("region", name="Result")
    result.locator(".result-title").wait_for()
    assert result.locator(".items pre").inner_text() == "no alerts in IDF"
    assert result.get_by_role("list", name="Repairs").locator("li").all_inner_texts() == [
        "removed code fence",
        "single quotes",
        "trailing comma",
    ]
    result.scroll_into_view_if_needed()
    shoot(page, tmp_path / "inspector-raw.png")


def test_dirty_json_shows_the_repair_list(page: Any, server: InspectorServer) -> None:
    page.goto(server.url)
    page.get_by_role("button", name="Forecast.alerts").click()
    page.get_by_label("Arguments as a model would write them").fill("{'region': 'IDF',}")
    page.get_by_role("button", name="Call with raw arguments").click()
    repairs = page.get_by_role("list", name="Repairs")
    repairs.wait_for(timeout=5000)
    assert repairs.locator("li").all_inner_texts() == ["single quotes", "trailing comma"]


def test_bad_arguments_show_state_and_errmsg_in_words(page: Any, server: InspectorServer) -> None:
    page.goto(server.url)
    page.get_by_role("button", name="Forecast.daily").click()
    page.get_by_label("Arguments as a model would write them").fill('{"city": "Paris", "days": "many"}')
    page.get_by_role("button", name="Call with raw arguments").click()
    result = page.get_by_role("region", name="Result")
    result.locator(".result-title").wait_for()
    assert result.locator(".result-title").inner_text() == "Result: ARGS_ERROR"
    assert "ARGS_ERROR (-1001)" in result.inner_text()
    assert "days" in result.locator("pre.bad").inner_text()


TRACE_REPLIES = [
    'Thought: I need the forecast.\nAction: Forecast.daily\nAction Input: {"city": "Oslo", "days": 2}',
    "Thought: now the alerts\nAction Input: {'region': 'NO'}",
    "Final Answer: Two mild days in Oslo.",
]


def test_open_a_recorded_trace_and_step_through_it(
    page: Any, server: InspectorServer, tmp_path: Path
) -> None:
    replies = iter(TRACE_REPLIES)
    result = ReAct(lambda messages: next(replies), ActionExecutor([Forecast()])).run("Weather in Oslo?")
    result.save(tmp_path / "oslo.json")
    page.goto(server.url)
    page.get_by_role("tab", name="Traces").click()
    page.get_by_label("Open a trace file (saved with result.save(path))").set_input_files(
        str(tmp_path / "oslo.json")
    )
    page.locator("#turn-position").wait_for()
    assert page.get_by_role("status").filter(has_text="Opened").inner_text() == "Opened oslo.json."
    assert page.locator("#turn-position").inner_text() == "Turn 1 of 3"
    turn = page.locator("article.turn")
    assert page.locator("#turn-heading").inner_text() == "Turn 1: tool call"
    assert "Forecast.daily" in turn.inner_text()
    assert "Oslo: 2 day(s) in celsius" in turn.inner_text()
    page.locator("#turn-heading").scroll_into_view_if_needed()
    shoot(page, tmp_path / "inspector-trace.png")
    page.get_by_role("button", name="Next turn").click()
    expect(page.locator("#turn-position")).to_have_text("Turn 2 of 3")
    assert page.locator("#turn-heading").inner_text() == "Turn 2: unreadable action"
    failed = page.locator(".failed-parse")
    assert failed.locator("section").nth(0).locator("pre").inner_text() == TRACE_REPLIES[1]
    assert "Action Input" in failed.locator("section").nth(1).inner_text()
    failed.scroll_into_view_if_needed()
    shoot(page, tmp_path / "inspector-trace-failed.png")
    page.get_by_role("button", name="Next turn").click()
    expect(page.locator("#turn-position")).to_have_text("Turn 3 of 3")
    assert page.get_by_role("button", name="Next turn").is_disabled()
    assert "Two mild days in Oslo." in page.locator("#trace-detail").inner_text()
    assert "tokens\tnot reported by the server" in page.locator("dl.timing").inner_text().replace("\n", "\t")


def test_keyboard_alone_reaches_a_tool_and_calls_it(page: Any, server: InspectorServer) -> None:
    page.goto(server.url)
    page.keyboard.press("Tab")  # the skip link
    page.keyboard.press("Tab")  # the Tools tab
    assert page.evaluate("document.activeElement.id") == "tab-tools"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.id") == "tab-traces"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "search"
    page.keyboard.type("locate")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Geo.locate"
    page.keyboard.press("Enter")
    expect(page.locator("#tool-detail")).to_be_focused()
    page.get_by_label("place (required)").focus()
    page.keyboard.type("Paris")
    page.keyboard.press("Enter")
    result = page.get_by_role("region", name="Result")
    result.locator(".result-title").wait_for()
    assert '"lat": 48.85' in result.locator(".items pre").inner_text()


def test_every_field_has_a_label_and_status_is_written_in_words(page: Any, server: InspectorServer) -> None:
    page.goto(server.url)
    page.get_by_role("button", name="Forecast.daily").click()
    page.get_by_role("button", name="Add an item to hours").click()
    unlabeled = page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea')]
            .filter((el) => el.type !== 'hidden' && !el.hidden && el.getAttribute('aria-hidden') !== 'true')
            .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
            .map((el) => el.outerHTML)"""
    )
    assert unlabeled == []
    unnamed_buttons = page.evaluate(
        "() => [...document.querySelectorAll('button')].filter((b) => !b.textContent.trim()"
        " && !b.getAttribute('aria-label')).length"
    )
    assert unnamed_buttons == 0
    # The selected tool is marked by aria-current, not only by its colour.
    assert page.get_by_role("button", name="Forecast.daily").get_attribute("aria-current") == "true"
    assert page.get_by_role("button", name="Remove hours item 1").count() == 1


def web_hostile(note: str) -> str:
    """Echo a note. <img src=x onerror="window.pwned = 1"><script>window.pwned = 2</script>

    Args:
        note: <b onmouseover="window.pwned = 3">bold</b>
    """
    return '<img src=x onerror="window.pwned = 4">'


def test_text_from_tools_is_shown_as_text_never_run(page: Any) -> None:
    with InspectorServer(ActionExecutor([web_hostile])) as running:
        page.goto(running.url)
        page.get_by_role("button", name="web_hostile").click()
        page.get_by_label("note (required)").fill("<i>x</i>")
        page.get_by_role("button", name="Call", exact=True).click()
        result = page.get_by_role("region", name="Result")
        result.locator(".result-title").wait_for()
        assert result.locator(".items pre").inner_text() == '<img src=x onerror="window.pwned = 4">'
        assert "window.pwned = 2" in page.locator("#tool-detail > p").first.inner_text()
        assert page.evaluate("window.pwned") is None
        assert page.locator("#tool-detail img, #tool-detail script, #tool-detail b").count() == 0


class Spot(TypedDict):
    """A place on the map."""

    lat: float
    lon: float


def web_route(
    start: Spot, stops: list[Spot], mode: Literal["car", "bike"], note: Optional[str] = None
) -> str:
    """Plan a route.

    Args:
        start: where to start
        stops: where to stop on the way
        mode: how to travel
        note: a note for the driver
    """
    return f"{start} via {stops} by {mode}, note={note}"


def test_form_fills_nested_objects_arrays_of_objects_and_enums(page: Any) -> None:
    with InspectorServer(ActionExecutor([web_route])) as running:
        page.goto(running.url)
        page.get_by_role("button", name="web_route").click()
        start = page.get_by_role("group", name="start (required)")
        start.get_by_label("lat (required)").fill("48.5")
        start.get_by_label("lon (required)").fill("2.25")
        page.get_by_role("button", name="Add an item to stops").click()
        stop = page.get_by_role("group", name="stops item 1")
        stop.get_by_label("lat (required)").fill("45")
        stop.get_by_label("lon (required)").fill("4.5")
        page.get_by_label("mode (required)").select_option(label='"bike"')
        page.get_by_role("button", name="Call", exact=True).click()
        result = page.get_by_role("region", name="Result")
        result.locator(".result-title").wait_for()
        assert result.locator(".items pre").inner_text() == (
            "{'lat': 48.5, 'lon': 2.25} via [{'lat': 45.0, 'lon': 4.5}] by bike, note=None"
        )
