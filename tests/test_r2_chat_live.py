"""``chat`` prints a run's events as they happen: model text, tool call, progress, result.

The liveness test makes the tool wait until the terminal shows its first chunk, so
it passes only if the chunk is printed while the tool still runs.
"""

from __future__ import annotations

import argparse
import io
import json
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer
from test_cli_agent import CHAT_REPLIES, _cli, tools_dir  # noqa: F401 - the fixture is used by name

from lagent_like import ActionExecutor, ActionReturn, ActionStatusCode
from lagent_like.agents import (
    HandoffEvent,
    InterruptionEvent,
    ModelTextEvent,
    ReAct,
    ToolCallEvent,
    ToolProgressEvent,
    ToolResultEvent,
)
from lagent_like.agents._approvals import Interruption
from lagent_like.cli._live import format_event
from lagent_like.cli.chat import _converse


class Script:
    """A text-mode model answering with scripted replies."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.calls = 0

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        self.calls += 1
        return self.replies[self.calls - 1]


class WatchedTerminal(io.StringIO):
    """Standard output that sets ``seen`` once ``awaited`` was written to it."""

    def __init__(self, awaited: str) -> None:
        super().__init__()
        self.awaited = awaited
        self.seen = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.awaited in self.getvalue():
            self.seen.set()
        return written


def test_chat_prints_a_tools_chunk_while_the_tool_still_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = WatchedTerminal("… count: 1")

    def count() -> Iterator[str]:
        """Count to two, the second only once the first is on the terminal."""
        yield "1"
        yield "2" if terminal.seen.wait(timeout=30) else "chunk not shown while running"

    monkeypatch.setattr("sys.stdout", terminal)
    action = "Thought: count\nAction: count\nAction Input: {}"
    agent = ReAct(Script([action, "Final Answer: counted"]), ActionExecutor([count]), name="counter")
    status = _converse(agent, argparse.Namespace(question="count"), False)
    assert status == 0
    assert terminal.getvalue().splitlines() == [
        "── turn 1 (counter) ".ljust(72, "─"),
        "Thought: count",
        "Action: count",
        "Action Input: {}",
        "Tool call: count",
        "Arguments: {}",
        "… count: 1",
        "… count: 2",
        "Observation [SUCCESS]: 12",
        "── turn 2 (counter) ".ljust(72, "─"),
        "Final Answer: counted",
    ]


_MAIL_HELD = Interruption("mailer", "send_email", '{"to": "bo@x.org"}', None, 1, 0)


@pytest.mark.parametrize(
    ("event", "lines"),
    [
        pytest.param(
            ModelTextEvent("main", 3, "Thought: t\nAction: a"),
            ["── turn 3 (main) ".ljust(72, "─"), "Thought: t", "Action: a"],
            id="model-text",
        ),
        pytest.param(
            ModelTextEvent("main", 1, ""), ["── turn 1 (main) ".ljust(72, "─")], id="native-no-text"
        ),
        pytest.param(
            ToolCallEvent("main", 1, "add", '{"a": 1}', "c1"),
            ["Tool call: add", 'Arguments: {"a": 1}'],
            id="call",
        ),
        pytest.param(ToolProgressEvent("main", "spell", "a"), ["… spell: a"], id="progress"),
        pytest.param(
            ToolResultEvent(
                "main", 1, "add", ActionReturn(type="add", result=[{"type": "text", "content": "3"}])
            ),
            ["Observation [SUCCESS]: 3"],
            id="result",
        ),
        pytest.param(
            ToolResultEvent(
                "main",
                1,
                "add",
                ActionReturn(type="add", errmsg="a: not an int", state=ActionStatusCode.ARGS_ERROR),
            ),
            ["Observation [ARGS_ERROR]: a: not an int"],
            id="error-result",
        ),
        pytest.param(HandoffEvent("main", "helper", 2), ["Handed over from main to helper"], id="handoff"),
        pytest.param(
            InterruptionEvent((_MAIL_HELD,)),
            ['Waiting for approval: send_email {"to": "bo@x.org"}'],
            id="interruption",
        ),
    ],
)
def test_each_event_is_shown_in_the_turn_renderings_words(event: Any, lines: list[str]) -> None:
    assert format_event(event) == lines


def test_event_lines_are_coloured_on_request() -> None:
    (line,) = format_event(ToolProgressEvent("main", "spell", "a"), color=True)
    assert line == "\033[33m… spell: \033[0ma"


def test_chat_over_a_server_prints_the_events_then_the_answer(tools_dir: Any) -> None:  # noqa: F811
    with FakeOpenAIServer(CHAT_REPLIES) as server:
        proc = _cli(
            "-m", "chat_tools", "chat", "--base-url", server.base_url, "--model", "m", "--tools", "ChatCalc",
            "--color", "never", "What is 2 + 40?", cwd=tools_dir,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "── turn 1 (agent) ".ljust(72, "─"),
        "Thought: add them",
        "Action: ChatCalc.add",
        'Action Input: {"a": 2, "b": 40}',
        "Tool call: ChatCalc.add",
        f"Arguments: {json.dumps({'a': 2, 'b': 40})}",
        "Observation [SUCCESS]: 42",
        "── turn 2 (agent) ".ljust(72, "─"),
        "Final Answer: 42",
    ]
