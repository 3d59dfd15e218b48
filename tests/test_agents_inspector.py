"""The inspector opens the runs of agents used as tools as traces of their own."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

from lagent_like import ActionExecutor
from lagent_like.agents import ReAct
from lagent_like.web.state import InspectorState


def shout(text: str) -> str:
    """Shout a text.

    Args:
        text: what to shout.
    """
    return text.upper()


def scripted(*replies: str) -> Any:
    answers = iter(replies)
    return lambda messages: next(answers)


def act(name: str, arguments: dict[str, Any]) -> str:
    return f"Action: {name}\nAction Input: {json.dumps(arguments)}"


def test_a_trace_with_an_agent_tool_call_lists_the_nested_run_as_its_own_trace() -> None:
    inner = ReAct(
        scripted(act("shout", {"text": "hi"}), "Final Answer: HI"), ActionExecutor([shout]), name="loud"
    )
    outer = ReAct(
        scripted(act("loud", {"request": "hi"}), "Final Answer: done"), ActionExecutor([inner.as_tool()])
    )
    state = InspectorState(outer.executor)
    state.add_trace(outer.run("q"), "run.json")
    assert [(t["id"], t["title"], t["turns"]) for t in state.traces()] == [
        ("1", "run.json", 2),
        ("2", "run.json > turn 1: loud", 2),
    ]
    nested = state.trace("2")
    assert (nested["answer"], nested["last_agent"]) == ("HI", "loud")
