"""Live runs are pushed to the page (Server-Sent Events), not polled.

The model is scripted and held by events the test sets: a change reaches the client
over the one open stream while the run is still held, which no poll could do (the
client sends no other request). The timeouts below only keep a broken build from
hanging the suite; no test waits on a clock.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any, Optional

import pytest
import requests

pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")
pytest.importorskip("uvicorn", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

from lagent_like import ActionExecutor
from lagent_like.agents import ReAct
from lagent_like.web import InspectorError, InspectorServer, InspectorState

ACTION = 'Thought: weigh it\nAction: r3_weigh\nAction Input: {"grams": 40}'


def r3_weigh(grams: int) -> str:
    """Weigh something.

    Args:
        grams: the weight.
    """
    return f"{grams} g"


class HeldModel:
    """A scripted model that answers its second turn only once the test lets it."""

    def __init__(self) -> None:
        self.second_turn = threading.Event()
        self.replies = iter([ACTION, "Final Answer: 40 g"])

    def __call__(self, messages: Any) -> str:
        reply = next(self.replies)
        if reply.startswith("Final") and not self.second_turn.wait(timeout=60):
            return "Final Answer: never released"
        return reply


def _held_state() -> tuple[InspectorState, HeldModel]:
    model = HeldModel()
    executor = ActionExecutor([r3_weigh])
    return InspectorState(executor, agent=ReAct(model, executor)), model


def test_follow_answers_at_once_then_only_when_the_run_changes() -> None:
    state, model = _held_state()
    trace_id = state.ask("How heavy?")
    version, trace = state.follow(trace_id, -1, timeout=60)
    assert trace is not None
    while len(trace["turns"]) < 1:  # the first turn needs no release: follow until it is in
        version, trace = state.follow(trace_id, version, timeout=60)
        assert trace is not None
    assert (trace["running"], trace["answer"]) == (True, None)
    model.second_turn.set()
    while trace["running"]:
        version, trace = state.follow(trace_id, version, timeout=60)
        assert trace is not None
    assert (trace["answer"], len(trace["turns"])) == ("40 g", 2)
    assert state.follow(trace_id, version, timeout=0) == (version, None)  # nothing new: no answer


def test_follow_of_an_unknown_trace_is_a_404() -> None:
    state, _ = _held_state()
    with pytest.raises(InspectorError, match=r"^no trace number 7$") as refused:
        state.follow("7", -1, timeout=0)
    assert refused.value.status == 404


def wait_until(state: InspectorState, trace_id: str, done: Any) -> None:
    """Follow trace ``trace_id`` until ``done(trace)`` holds."""
    version, trace = state.follow(trace_id, -1, timeout=60)
    while trace is not None and not done(trace):
        version, trace = state.follow(trace_id, version, timeout=60)
    assert trace is not None


@pytest.fixture
def held() -> Iterator[tuple[InspectorServer, HeldModel]]:
    model = HeldModel()
    executor = ActionExecutor([r3_weigh])
    with InspectorServer(executor, agent=ReAct(model, executor)) as running:
        yield running, model
        model.second_turn.set()


def _events(response: requests.Response) -> Iterator[tuple[str, Optional[dict[str, Any]]]]:
    """``(event name, data)`` of each event of a Server-Sent Events stream (comments skipped)."""
    name, data = "message", None
    for line in response.iter_lines(decode_unicode=True):
        if line.startswith("event: "):
            name = line[len("event: ") :]
        elif line.startswith("data: "):
            data = json.loads(line[len("data: ") :])
        elif line == "" and data is not None:
            yield name, data
            name, data = "message", None


def test_a_change_of_a_live_run_is_pushed_over_the_one_open_stream(
    held: tuple[InspectorServer, HeldModel],
) -> None:
    server, model = held
    trace_id = server.state.ask("How heavy?")
    headers = {"Authorization": f"Bearer {server.token}"}
    url = f"{server.base_url}/api/traces/{trace_id}/events"
    with requests.get(url, headers=headers, stream=True, timeout=60) as response:
        assert (response.status_code, response.headers["content-type"]) == (
            200,
            "text/event-stream; charset=utf-8",
        )
        events = _events(response)
        name, trace = next(events)
        while len(trace["turns"]) < 1:
            name, trace = next(events)
        # The run is held before its second turn: this came by push, not by its end.
        assert (name, trace["running"], trace["turns"][0]["action"]) == ("message", True, "r3_weigh")
        model.second_turn.set()
        while trace["running"]:
            name, trace = next(events)
        assert (trace["answer"], len(trace["turns"])) == ("40 g", 2)
        assert next(events) == ("end", {})
        assert list(events) == []  # the stream ends with the run


def test_the_stream_of_a_finished_run_sends_it_once_and_ends(held: tuple[InspectorServer, HeldModel]) -> None:
    server, model = held
    model.second_turn.set()
    trace_id = server.state.ask("How heavy?")
    wait_until(server.state, trace_id, lambda trace: not trace["running"])
    headers = {"Authorization": f"Bearer {server.token}"}
    url = f"{server.base_url}/api/traces/{trace_id}/events"
    with requests.get(url, headers=headers, stream=True, timeout=60) as response:
        events = list(_events(response))
    assert [(name, data["answer"] if data else None) for name, data in events] == [
        ("message", "40 g"),
        ("end", None),
    ]


@pytest.mark.parametrize(
    ("headers", "path", "status"),
    [
        pytest.param({}, "/api/traces/1/events", 401, id="no-token"),
        pytest.param(None, "/api/traces/9/events", 404, id="unknown-trace"),
    ],
)
def test_the_event_stream_needs_the_token_and_a_trace(
    held: tuple[InspectorServer, HeldModel], headers: Optional[dict[str, str]], path: str, status: int
) -> None:
    server, _ = held
    sent = {"Authorization": f"Bearer {server.token}"} if headers is None else headers
    response = requests.get(server.base_url + path, headers=sent, timeout=60)
    assert response.status_code == status
    assert response.json()["status"] == status


def test_stopping_the_server_ends_the_stream_of_a_run_still_going(
    held: tuple[InspectorServer, HeldModel],
) -> None:
    server, _ = held
    trace_id = server.state.ask("How heavy?")
    headers = {"Authorization": f"Bearer {server.token}"}
    url = f"{server.base_url}/api/traces/{trace_id}/events"
    with requests.get(url, headers=headers, stream=True, timeout=60) as response:
        events = _events(response)
        assert next(events)[1]["running"] is True
        thread = server._thread
        assert thread is not None
        server.stop()  # the run is held: only the server's stop can end the stream
        assert not thread.is_alive()
        # The stream ends (no read timeout); an update sent before the stop may still come
        # through, but none says the held run finished.
        assert set(data["running"] for _, data in events if data) <= {True}
