"""The inspector with streaming tools and rich records (issue 20, items 5 and 6).

It never answers 500 for a call whose arguments or record hold more than JSON, shows
a generator tool's whole output, and shows the chunks of the tool call an agent run
is waiting on while it runs.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")
pytest.importorskip("uvicorn", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

from lagent_like import ActionExecutor, ActionReturn, BaseAction, tool_api
from lagent_like.agents import ReAct
from lagent_like.web import InspectorServer
from lagent_like.web.state import InspectorState


class Shade(enum.Enum):
    DARK = "dark"
    LIGHT = "light"


class Lamp(BaseAction, register=False):
    """A lamp with rich arguments and a streaming report."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.streaming = threading.Event()

    @tool_api
    def shade(self, shade: Shade) -> str:
        """Set the shade.

        Args:
            shade: the shade
        """
        return f"shade {shade.value}"

    @tool_api
    def own(self) -> ActionReturn:
        """Answer with a record holding objects."""
        return ActionReturn(args={"shade": Shade.DARK}, result=[{"type": "text", "content": Path("/tmp/x")}])

    @tool_api
    def report(self, parts: int) -> Iterator[str]:
        """Report in parts.

        Args:
            parts: how many parts
        """
        for i in range(parts):
            yield f"part {i}. "

    @tool_api
    def wait_report(self) -> Iterator[str]:
        """Report once, wait to be released, report again."""
        yield "warming up. "
        self.release.wait(10)
        yield "on."


@pytest.fixture
def server() -> Iterator[InspectorServer]:
    with InspectorServer(ActionExecutor([Lamp()])) as running:
        yield running


def _call(server: InspectorServer, name: str, arguments: Any) -> dict[str, Any]:
    response = requests.post(
        server.base_url + "/api/call",
        json={"name": name, "arguments": arguments},
        headers={"Authorization": f"Bearer {server.token}"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


@pytest.mark.parametrize(
    ("name", "arguments", "args", "items"),
    [
        pytest.param(
            "Lamp.shade",
            {"shade": "dark"},
            {"shade": "dark"},
            [{"type": "text", "content": "shade dark"}],
            id="enum",
        ),
        pytest.param(
            "Lamp.own", {}, {"shade": "dark"}, [{"type": "text", "content": "/tmp/x"}], id="tool-own-record"
        ),
        pytest.param(
            "Lamp.report",
            {"parts": 2},
            {"parts": 2},
            [{"type": "text", "content": "part 0. part 1. "}],
            id="generator-joined",
        ),
    ],
)
def test_inspector_answers_calls_with_json_records(
    server: InspectorServer, name: str, arguments: dict[str, Any], args: dict[str, Any], items: list[Any]
) -> None:
    answer = _call(server, name, arguments)
    assert answer["record"]["state"] == 0
    assert answer["record"]["args"] == args
    assert answer["items"] == items


def test_inspector_shows_the_chunks_of_the_running_call_of_an_agent_run() -> None:
    lamp = Lamp()
    replies = iter(["Action: Lamp.wait_report\nAction Input: {}", "Final Answer: lit"])
    delivered = threading.Event()
    agent = ReAct(
        lambda messages: next(replies), ActionExecutor([lamp]), on_progress=lambda *e: delivered.set()
    )
    state = InspectorState(agent.executor, agent=agent)
    trace_id = state.ask("light it")
    try:
        assert delivered.wait(10)
        live = state.trace(trace_id)
        assert (live["running"], live["progress"]) == (
            True,
            [{"tool": "Lamp.wait_report", "chunk": "warming up. "}],
        )
    finally:
        lamp.release.set()
    assert state._run_lock.acquire(timeout=10)
    done = state.trace(trace_id)
    assert (done["running"], done["progress"], done["answer"]) == (False, [], "lit")
    assert done["turns"][0]["observation"] == "warming up. on."
