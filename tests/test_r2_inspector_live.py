"""``chat --web``: a live run shows its turn going on (the model's text, the call) before it ends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import test_web_browser as web_browser

from lagent_like import ActionExecutor
from lagent_like.agents import ReAct
from lagent_like.web import InspectorServer
from lagent_like.web.state import InspectorState

browser = web_browser.browser
page = web_browser.page
shoot = web_browser.shoot
expect = web_browser.expect

ACTION = 'Thought: boil it\nAction: r2_boil\nAction Input: {"litres": 2}'


class Kettle:
    """A tool that reports, then waits until the test lets it finish."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def r2_boil(self, litres: int) -> Iterator[str]:
        """Boil water.

        Args:
            litres: how much
        """
        yield "heating. "
        yield "boiled." if self.release.wait(timeout=30) else "never released."


def _agent(kettle: Kettle) -> ReAct:
    replies = iter([ACTION, "Final Answer: tea time"])
    return ReAct(lambda messages: next(replies), ActionExecutor([kettle.r2_boil]), name="cook")


def _call_and_chunk_seen(state: InspectorState, trace_id: str) -> bool:
    trace = state._traces[trace_id]
    return bool(trace.progress) and trace.live is not None and bool(trace.live["calls"])


def test_a_live_run_shows_the_turn_going_on_then_drops_it_when_the_turn_ends() -> None:
    kettle = Kettle()
    state = InspectorState(ActionExecutor([kettle.r2_boil]), agent=_agent(kettle))
    trace_id = state.ask("Tea?")
    with state.changed:
        # The chunk comes from the tool's thread, the call from the run's: wait for both.
        assert state.changed.wait_for(lambda: _call_and_chunk_seen(state, trace_id), timeout=30)
    going = state.trace(trace_id)
    assert going["running"] is True
    assert going["live"] == {
        "turn": 1,
        "agent": "cook",
        "model_text": ACTION,
        "calls": [{"name": "r2_boil", "arguments": '{"litres": 2}'}],
    }
    assert going["progress"] == [{"tool": "r2_boil", "chunk": "heating. "}]
    kettle.release.set()
    with state.changed:
        assert state.changed.wait_for(lambda: not state._traces[trace_id].running, timeout=30)
    done = state.trace(trace_id)
    assert (done["live"], done["progress"], done["answer"]) == (None, [], "tea time")
    assert [turn["outcome"] for turn in done["turns"]] == ["action", "final_answer"]


def test_the_page_shows_a_live_turn_while_its_tool_runs(page: Any, tmp_path: Any) -> None:
    kettle = Kettle()
    with InspectorServer(ActionExecutor([kettle.r2_boil]), agent=_agent(kettle)) as server:
        trace_id = server.state.ask("Tea?")
        with server.state.changed:
            assert server.state.changed.wait_for(
                lambda: _call_and_chunk_seen(server.state, trace_id), timeout=30
            )
        page.goto(server.url)
        page.get_by_role("tab", name="Traces").click()
        page.get_by_role("button", name="1. Tea?").click()
        expect(page.get_by_label("Model output so far")).to_have_text(ACTION)
        expect(page.locator(".live-turn p")).to_have_text('calling r2_boil {"litres": 2}')
        expect(page.get_by_text("heating.")).to_be_visible()
        shoot(page, tmp_path / "inspector-live.png")
        kettle.release.set()
        expect(page.locator("#turn-position")).to_have_text("Turn 2 of 2", timeout=30_000)
        expect(page.get_by_label("Model output so far")).to_have_count(0)
