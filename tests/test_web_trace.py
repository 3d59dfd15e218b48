"""Trace files: ``AgentResult.save``/``load`` and what each turn records for the inspector."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer

from lagent_like import ActionExecutor, BaseAction, tool_api
from lagent_like.agents import AgentResult, ReAct, Turn
from lagent_like.llms import OpenAIChat
from lagent_like.schema import ActionStatusCode, ActionValidCode


class TraceCalc(BaseAction, register=False):
    """Arithmetic for the trace tests."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first number
            b: the second number
        """
        return a + b


REPLIES = [
    'Thought: I add.\nAction: TraceCalc.add\nAction Input: {"a": 40, "b": 2}',
    'Thought: hmm\nAction Input: {"a": 1}',
    "Final Answer: 42",
]


def _run(replies: list[str]) -> AgentResult:
    it = iter(replies)
    return ReAct(lambda messages: next(it), ActionExecutor([TraceCalc()])).run("What is 40 + 2?")


def test_save_and_load_give_back_the_same_result(tmp_path: Path) -> None:
    result = _run(REPLIES)
    path = tmp_path / "run.json"
    result.save(path)
    loaded = AgentResult.load(path)
    assert loaded == result
    assert loaded.turns[0].action_return is not None
    assert loaded.turns[0].action_return.state is ActionStatusCode.SUCCESS
    assert loaded.turns[0].action_return.valid is ActionValidCode.OPEN
    assert [turn.outcome for turn in loaded.turns] == ["action", "parse_error", "final_answer"]


def test_saved_file_is_marked_json_with_the_format_and_version(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    _run(["Final Answer: 1"]).save(str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert (data["format"], data["version"], data["answer"], data["stop_reason"]) == (
        "lagent-like-trace",
        1,
        "1",
        "final_answer",
    )
    assert data["turns"][0]["model_text"] == "Final Answer: 1"


def test_each_turn_records_what_the_model_was_sent_and_the_timings() -> None:
    result = _run(REPLIES)
    first, second, third = result.turns
    assert (first.messages_sent, second.messages_sent, third.messages_sent) == (2, 4, 6)
    assert result.messages[: first.messages_sent][-1] == {"role": "user", "content": "What is 40 + 2?"}
    for turn in result.turns:
        assert turn.model_seconds is not None and 0 <= turn.model_seconds < 5
        assert turn.tool_seconds is not None and 0 <= turn.tool_seconds < 5
        assert turn.usage is None


def test_turns_record_the_token_counts_the_server_reports() -> None:
    replies = ['Action: TraceCalc.add\nAction Input: {"a": 1, "b": 2}', "Final Answer: 3"]
    with FakeOpenAIServer(replies) as server:
        model = OpenAIChat("m", base_url=server.base_url, api_key="")
        result = ReAct(model, ActionExecutor([TraceCalc()])).run("1 + 2?")
    first, second = result.turns
    assert first.usage is not None and second.usage is not None
    assert set(first.usage) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    assert first.usage["completion_tokens"] == len(replies[0].split())
    assert second.usage["completion_tokens"] == 3
    assert second.usage["prompt_tokens"] > first.usage["prompt_tokens"]
    assert model.last_usage == second.usage


def test_a_streamed_reply_without_usage_leaves_none() -> None:
    with FakeOpenAIServer(["Final Answer: 3"]) as server:
        model = OpenAIChat("m", base_url=server.base_url, api_key="", stream=True)
        result = ReAct(model, ActionExecutor([TraceCalc()])).run("1 + 2?")
    assert result.turns[0].usage is None


def test_native_turn_round_trips_its_tool_calls(tmp_path: Path) -> None:
    replies: list[Any] = [
        {"tool_calls": [{"name": "TraceCalc__add", "arguments": '{"a": 1, "b": 2}'}]},
        "It is 3.",
    ]
    with FakeOpenAIServer(replies) as server:
        model = OpenAIChat("m", base_url=server.base_url, api_key="")
        result = ReAct(model, ActionExecutor([TraceCalc()]), native_tools=True).run("1 + 2?")
    path = tmp_path / "native.json"
    result.save(path)
    loaded = AgentResult.load(path)
    assert loaded == result
    assert loaded.turns[0].tool_returns is not None and loaded.turns[0].tool_returns[0] is not None
    assert loaded.turns[0].tool_returns[0].result == [{"type": "text", "content": "3"}]


BAD_FILES = [
    pytest.param("{not json", "Expecting property name", id="not-json"),
    pytest.param(
        "[]", "not a lagent-like trace: expected an object with format 'lagent-like-trace'", id="list"
    ),
    pytest.param(
        '{"format": "lagent-like-trace", "version": 2, "turns": [], "messages": []}',
        "trace version 2 is not supported (expected 1)",
        id="version",
    ),
    pytest.param(
        '{"format": "lagent-like-trace", "version": 1, "turns": {}, "messages": []}',
        "trace: 'turns' and 'messages' must be lists",
        id="turns-not-a-list",
    ),
    pytest.param(
        '{"format": "lagent-like-trace", "version": 1, "messages": [], '
        '"turns": [{"index": 1, "model_text": "x", "outcome": "action", "colour": 1}]}',
        "trace: turn 1 is malformed: Turn.from_dict: unknown keys ['colour'], missing keys []",
        id="unknown-turn-key",
    ),
    pytest.param(
        '{"format": "lagent-like-trace", "version": 1, "messages": [], '
        '"turns": [{"index": 1, "model_text": "x", "outcome": "action", "action_return": {"bad": 1}}]}',
        "trace: turn 1 is malformed: ActionReturn.from_dict: unknown keys ['bad']",
        id="bad-record",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD_FILES)
def test_load_names_the_file_and_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        AgentResult.load(path)
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)


def test_turn_from_dict_rebuilds_records() -> None:
    turn = _run(REPLIES).turns[0]
    assert Turn.from_dict(turn.to_dict()) == turn
    assert json.loads(json.dumps(turn.to_dict()))["action_return"]["state"] == 0
