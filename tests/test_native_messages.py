"""Issue 20, item 9: what a natively calling model reads names the tools as it was given them.

A model calling natively was given the aliases (``NativeKit__literal``): every message of
its calls (bad arguments, invalid JSON, unknown API, a tool's own error) names those, in
``run_tool_calls``, in the ReAct agent's native mode and in ``chat --native``'s
printout. ``run_tool_calls`` reads a whole assistant message of any provider and
refuses, with a ``TypeError`` naming what it expects, anything that is not one.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from lagent_like import ActionExecutor, AsyncActionExecutor, BaseAction, ToolError, tool_api
from lagent_like.agents import ReAct
from lagent_like.agents.trace_render import format_turn
from lagent_like.runtime._messages import alias_renamer


class NativeKit(BaseAction, register=False):
    """A toolkit: its APIs are called ``NativeKit.<api>`` in prompts, ``NativeKit__<api>`` natively."""

    @tool_api
    def literal(self, x: int) -> int:
        """Echo a number.

        Args:
            x: the number
        """
        return x

    @tool_api
    def ordered(self, step: int) -> str:
        """Refuse to run before ``literal``.

        Args:
            step: the step
        """
        raise ToolError("call NativeKit.literal first; NativeKit.literals is not a tool")


def native_call(name: str, arguments: Any, call_id: str = "c1") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


KIT = ActionExecutor([NativeKit()], max_argument_chars=40)


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        pytest.param(
            "NativeKit__literal",
            '{"x": "abc"}',
            "NativeKit__literal: 'x' expected integer, got string 'abc'",
            id="bad-argument",
        ),
        pytest.param(
            "NativeKit__literal", "{}", "NativeKit__literal: 'x' is required", id="missing-argument"
        ),
        pytest.param(
            "NativeKit__literal",
            '{"x": 1, "y": 2}',
            "NativeKit__literal: 'y' is not a parameter; parameters: x",
            id="unknown-argument",
        ),
        pytest.param(
            "NativeKit__literal",
            "[1]",
            'NativeKit__literal: expected a JSON object such as {"x": <NUMBER>}, got list [1]',
            id="not-an-object",
        ),
        pytest.param(
            "NativeKit__literal",
            '{"x": 1',
            "NativeKit__literal: invalid JSON arguments: the arguments end in the middle of an object at "
            'character 7: the output was probably cut off. Write one JSON object such as {"x": <NUMBER>}',
            id="invalid-json",
        ),
        pytest.param(
            "NativeKit__literal",
            '{"x": ' + "1" * 40 + "}",
            "NativeKit__literal: the arguments are 47 characters long, more than the 40 this executor "
            "accepts; send shorter arguments",
            id="too-long",
        ),
        pytest.param(
            "NativeKit.nope",
            "{}",
            "NativeKit has no API 'nope'. Call one of: NativeKit__literal, NativeKit__ordered",
            id="unknown-api",
        ),
        pytest.param(
            "NativeKit",
            "{}",
            "NativeKit has no API 'run'. Call one of: NativeKit__literal, NativeKit__ordered",
            id="toolkit-without-api",
        ),
        pytest.param(
            "NativeKit__literl",
            "{}",
            "Unknown tool 'NativeKit__literl'. Did you mean 'NativeKit__literal' or 'NativeKit__ordered'? "
            "Available tools: "
            "NativeKit__literal, NativeKit__ordered.",
            id="unknown-tool",
        ),
        pytest.param(
            "NativeKit.literal",
            '{"x": "abc"}',
            "NativeKit__literal: 'x' expected integer, got string 'abc'",
            id="dotted-name-sent",
        ),
        pytest.param(
            "NativeKit__ordered",
            '{"step": 1}',
            "call NativeKit__literal first; NativeKit.literals is not a tool",
            id="tool-error-names-another-api",
        ),
    ],
)
def test_native_messages_name_the_aliases_the_model_was_given(
    name: str, arguments: str, message: str
) -> None:
    [result] = KIT.run_tool_calls([native_call(name, arguments)])
    assert result == {"role": "tool", "tool_call_id": "c1", "content": message}


def test_a_prompt_call_keeps_the_dotted_names() -> None:
    assert KIT("NativeKit__literal", '{"x": "abc"}').errmsg == (
        "NativeKit.literal: 'x' expected integer, got string 'abc'"
    )


def test_async_native_messages_name_the_aliases() -> None:
    executor = AsyncActionExecutor([NativeKit()])
    block = {"type": "tool_use", "id": "t1", "name": "NativeKit__literal", "input": {}}
    assert asyncio.run(executor.run_tool_calls([block])) == [
        {
            "type": "tool_result",
            "tool_use_id": "t1",
            "content": "NativeKit__literal: 'x' is required",
            "is_error": True,
        }
    ]


@pytest.mark.parametrize(
    ("text", "renamed"),
    [
        pytest.param("Kit.ab: bad", "Kit__ab: bad", id="name-alone"),
        pytest.param("Kit.abc: bad", "Kit__abc: bad", id="longer-name-first"),
        pytest.param("use Kit.abcd or MyKit.ab", "use Kit.abcd or MyKit.ab", id="inside-longer-names"),
        pytest.param(
            "'Kit.ab' timed out; Kit.ab.", "'Kit__ab' timed out; Kit__ab.", id="quoted-and-at-the-end"
        ),
    ],
)
def test_the_renamer_replaces_whole_names_only(text: str, renamed: str) -> None:
    rename = alias_renamer({"Kit.ab": "Kit__ab", "Kit.abc": "Kit__abc", "plain": "plain"})
    assert rename is not None
    assert rename(text) == renamed


def test_no_renamer_when_every_name_is_its_own_alias() -> None:
    assert alias_renamer({"plain": "plain", "other": "other"}) is None


# --- ReAct native mode, and chat --native's printout --------------------------------


class ScriptedChat:
    """A chat model that answers with scripted OpenAI message dicts."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = replies
        self.sent: list[list[dict[str, Any]]] = []

    def chat(self, messages: list[dict[str, Any]], tools: Any = None, **params: Any) -> dict[str, Any]:
        self.sent.append(messages)
        return self.replies[len(self.sent) - 1]


TWO_CALLS = [
    native_call("NativeKit__literal", '{"x": 7}', "c1"),
    native_call("NativeKit__literal", '{"x": "seven"}', "c2"),
    {"id": "c3", "type": "function", "function": {"arguments": "{}"}},
]


def test_react_native_mode_names_the_aliases_in_messages_and_records() -> None:
    model = ScriptedChat([{"role": "assistant", "content": None, "tool_calls": TWO_CALLS}, {"content": "7"}])
    result = ReAct(model, ActionExecutor([NativeKit()]), native_tools=True).run("q")
    assert result.messages[3:6] == [
        {"role": "tool", "tool_call_id": "c1", "content": "7"},
        {
            "role": "tool",
            "tool_call_id": "c2",
            "content": "NativeKit__literal: 'x' expected integer, got string 'seven'",
        },
        {
            "role": "tool",
            "tool_call_id": "c3",
            "content": "tool call 2 has no function name; send {'function': {'name': ..., 'arguments': ...}}",
        },
    ]
    returns = result.turns[0].tool_returns
    assert returns is not None
    assert returns[1] is not None
    assert returns[1].errmsg == "NativeKit__literal: 'x' expected integer, got string 'seven'"


def test_a_native_turn_prints_every_call_with_its_observation() -> None:
    model = ScriptedChat([{"role": "assistant", "content": None, "tool_calls": TWO_CALLS}, {"content": "7"}])
    result = ReAct(model, ActionExecutor([NativeKit()]), native_tools=True).run("q")
    assert format_turn(result.turns[0], width=None).splitlines() == [
        "── turn 1: tool call ",
        "Tool call: NativeKit__literal",
        'Arguments: {"x": 7}',
        "Observation [SUCCESS]: 7",
        "Tool call: NativeKit__literal",
        'Arguments: {"x": "seven"}',
        "Observation [ARGS_ERROR]: NativeKit__literal: 'x' expected integer, got string 'seven'",
        "Tool call: None",
        "Arguments: {}",
        "Observation [ARGS_ERROR]: tool call 2 has no function name; send {'function': {'name': ..., "
        "'arguments': ...}}",
    ]


# --- run_tool_calls given a whole message --------------------------------------------

HELLO_CALL = native_call("NativeKit__literal", '{"x": 5}', "h1")
HELLO_RESULT = [{"role": "tool", "tool_call_id": "h1", "content": "5"}]
ANTHROPIC_BLOCKS = [
    {"type": "text", "text": "Let me echo."},
    {"type": "tool_use", "id": "t1", "name": "NativeKit__literal", "input": {"x": 5}},
]
ANTHROPIC_RESULT = [{"type": "tool_result", "tool_use_id": "t1", "content": "5", "is_error": False}]


@pytest.mark.parametrize(
    ("message", "results"),
    [
        pytest.param(
            {"role": "assistant", "content": None, "tool_calls": [HELLO_CALL]}, HELLO_RESULT, id="openai-dict"
        ),
        pytest.param({"role": "assistant", "content": "Hi."}, [], id="openai-text-reply"),
        pytest.param(None, [], id="openai-tool-calls-none"),
        pytest.param(HELLO_CALL, HELLO_RESULT, id="one-call"),
        pytest.param(
            {"role": "assistant", "content": ANTHROPIC_BLOCKS}, ANTHROPIC_RESULT, id="anthropic-dict"
        ),
        pytest.param(
            {"role": "model", "parts": [{"functionCall": {"name": "NativeKit__literal", "args": {"x": 5}}}]},
            [{"functionResponse": {"name": "NativeKit__literal", "response": {"result": 5}}}],
            id="gemini-content",
        ),
        pytest.param(
            types.SimpleNamespace(role="assistant", content=None, tool_calls=[HELLO_CALL]),
            HELLO_RESULT,
            id="message-object",
        ),
    ],
)
def test_run_tool_calls_reads_a_whole_assistant_message(message: Any, results: list[dict[str, Any]]) -> None:
    assert KIT.run_tool_calls(message) == results


def test_run_tool_calls_reads_sdk_message_objects() -> None:
    chat = pytest.importorskip(
        "openai.types.chat", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
    )
    responses = pytest.importorskip(
        "openai.types.responses",
        reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')",
    )
    anthropic = pytest.importorskip(
        "anthropic.types", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
    )
    completion_message = chat.ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "tool_calls": [HELLO_CALL]}
    )
    response = responses.Response.model_validate(
        {
            "id": "r1",
            "object": "response",
            "created_at": 0,
            "model": "m",
            "output": [
                {
                    "type": "function_call",
                    "call_id": "f1",
                    "name": "NativeKit__literal",
                    "arguments": '{"x": 5}',
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )
    message = anthropic.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": ANTHROPIC_BLOCKS,
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    assert KIT.run_tool_calls(completion_message) == HELLO_RESULT
    assert KIT.run_tool_calls(response) == [{"type": "function_call_output", "call_id": "f1", "output": "5"}]
    assert KIT.run_tool_calls(message) == ANTHROPIC_RESULT


EXPECTED = "expected an assistant message"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        pytest.param("NativeKit__literal", f"got str 'NativeKit__literal'; {EXPECTED}", id="string"),
        pytest.param(3, f"got int 3; {EXPECTED}", id="int"),
        pytest.param({"foo": 1}, f"got dict {{'foo': 1}}; {EXPECTED}", id="other-dict"),
        pytest.param({}, f"got dict {{}}; {EXPECTED}", id="empty-dict"),
        pytest.param(
            {"role": "user", "content": "hi"},
            "got a 'user' message, which calls no tools; pass the assistant's message",
            id="user-message",
        ),
        pytest.param(
            {"id": "x", "object": "chat.completion", "choices": [{"message": {}}]},
            "got a whole reply with 'choices'; pass completion.choices[0].message",
            id="chat-completion",
        ),
        pytest.param(
            {"candidates": [{"content": {}}]},
            "got a whole reply with 'candidates'; pass response.candidates[0].content",
            id="gemini-response",
        ),
        pytest.param(
            [HELLO_CALL, "oops"], f"item 1 is str 'oops', not a tool call; {EXPECTED}", id="string-item"
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": [HELLO_CALL]}],
            "item 0 is a chat message, not a tool call; pass one assistant message, or its tool_calls",
            id="list-of-messages",
        ),
    ],
)
def test_run_tool_calls_refuses_what_is_not_a_message_or_calls(given: Any, message: str) -> None:
    with pytest.raises(TypeError, match=f"^run_tool_calls: {re.escape(message)}"):
        KIT.run_tool_calls(given)
    with pytest.raises(TypeError, match=r"^run_tool_calls: "):
        asyncio.run(AsyncActionExecutor([NativeKit()]).run_tool_calls(given))


CHAT_TOOLS = '''
from lagent_like import BaseAction, tool_api


class ChatKit(BaseAction):
    """Integer arithmetic."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b
'''


def test_chat_native_prints_the_observation_of_every_call(tmp_path: Path) -> None:
    from fake_openai_server import FakeOpenAIServer

    (tmp_path / "chat_kit.py").write_text(CHAT_TOOLS)
    calls = [
        {"name": "ChatKit__add", "arguments": '{"a": 1, "b": 2}'},
        {"name": "ChatKit__add", "arguments": '{"a": "one", "b": 2}'},
    ]
    environment = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    with FakeOpenAIServer([{"tool_calls": calls}, "It is 3."]) as server:
        command = [
            sys.executable,
            "-m",
            "lagent_like",
            "-m",
            "chat_kit",
            "chat",
            "--base-url",
            server.base_url,
        ]
        command += ["--model", "m", "--tools", "ChatKit", "--native", "--color", "never", "1 + 2?"]
        proc = subprocess.run(
            command, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=environment
        )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1:7] == [
        "Tool call: ChatKit__add",
        'Arguments: {"a": 1, "b": 2}',
        "Observation [SUCCESS]: 3",
        "Tool call: ChatKit__add",
        'Arguments: {"a": "one", "b": 2}',
        "Observation [ARGS_ERROR]: ChatKit__add: 'a' expected integer, got string 'one'",
    ]
    assert lines[-1] == "Final Answer: It is 3."


def test_a_langchain_tool_answers_with_the_alias_it_is_named_by() -> None:
    pytest.importorskip(
        "langchain_core",
        reason="needs the 'langchain' extra: pip install '.[langchain]' (or 'lagent-like[langchain]')",
    )
    from lagent_like.langchain_tools import to_langchain_tools

    tool = {t.name: t for t in to_langchain_tools(ActionExecutor([NativeKit()]))}["NativeKit__literal"]
    assert tool.invoke({"x": "abc"}) == "NativeKit__literal: 'x' expected integer, got string 'abc'"
