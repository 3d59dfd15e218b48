"""``ReAct``: whole runs against scripted models, through real in-process tools."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest

from lagent_like import (
    ActionExecutor,
    ActionStatusCode,
    ActionValidCode,
    BaseAction,
    DefinitionError,
    agents,
    tool_api,
)
from lagent_like.agents import ReAct, Turn
from lagent_like.agents.prompts import DEFAULT_SYSTEM_TEMPLATE, FORMAT_REMINDER

Messages = list[dict[str, Any]]

NO_ACTION = "Your reply has neither an `Action:` nor a `Final Answer:`."


class Script:
    """A model that answers with scripted replies (an exception instance is raised)."""

    def __init__(self, replies: Sequence[Any]) -> None:
        self.replies = list(replies)
        self.calls: list[Messages] = []

    def __call__(self, messages: Messages) -> Any:
        self.calls.append([dict(m) for m in messages])
        reply = self.replies[len(self.calls) - 1]
        if isinstance(reply, BaseException):
            raise reply
        return reply


# Not registered: generic names like this one are defined again by the docs pages.
class Calc(BaseAction, register=False):
    """Exact integer arithmetic."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b

    @tool_api
    def multiply(self, a: int, b: int) -> int:
        """Multiply two integers.

        Args:
            a: the first factor
            b: the second factor
        """
        return a * b


def calc_executor(**options: Any) -> ActionExecutor:
    return ActionExecutor([Calc()], **options)


def reminder(names: str = "Calc.add, Calc.multiply") -> str:
    return FORMAT_REMINDER.format(tool_names=names)


def test_system_prompt_describes_each_tool() -> None:
    agent = ReAct(Script([]), calc_executor())
    descriptions = (
        "Calc.add: Add two integers.\n"
        '    Parameters: [{"name": "a", "type": "NUMBER", "description": "the first addend"}, '
        '{"name": "b", "type": "NUMBER", "description": "the second addend"}]\n'
        '    Required: ["a", "b"]\n'
        "    If you call this tool, you must pass arguments in the JSON format {key: value}, "
        "where the key is the parameter name.\n"
        "\n"
        "Calc.multiply: Multiply two integers.\n"
        '    Parameters: [{"name": "a", "type": "NUMBER", "description": "the first factor"}, '
        '{"name": "b", "type": "NUMBER", "description": "the second factor"}]\n'
        '    Required: ["a", "b"]\n'
        "    If you call this tool, you must pass arguments in the JSON format {key: value}, "
        "where the key is the parameter name."
    )
    assert agent.system_prompt == DEFAULT_SYSTEM_TEMPLATE.format(
        tool_descriptions=descriptions, tool_names="Calc.add, Calc.multiply"
    )


def test_system_prompt_follows_tools_enabled_at_run_time() -> None:
    executor = calc_executor()
    agent = ReAct(Script([]), executor)
    executor.disable("Calc")
    assert "(no tools are available)" in agent.system_prompt
    assert "exactly one of []" in agent.system_prompt


def test_multi_step_task_runs_through_the_tools() -> None:
    model = Script(
        [
            'Thought: First the sum.\nAction: Calc.add\nAction Input: {"a": 17, "b": 25}',
            'Thought: Now the product.\nAction: Calc.multiply\nAction Input: {"a": 42, "b": 3}',
            "Thought: I now know the final answer\nFinal Answer: 126",
        ]
    )
    agent = ReAct(model, calc_executor())
    result = agent.run("What is (17 + 25) * 3?")
    assert (result.answer, result.stop_reason, result.error) == ("126", "final_answer", None)
    assert result.messages == [
        {"role": "system", "content": agent.system_prompt},
        {"role": "user", "content": "What is (17 + 25) * 3?"},
        {"role": "assistant", "content": model.replies[0]},
        {"role": "user", "content": "Observation: 42"},
        {"role": "assistant", "content": model.replies[1]},
        {"role": "user", "content": "Observation: 126"},
        {"role": "assistant", "content": model.replies[2]},
    ]
    assert model.calls == [result.messages[:2], result.messages[:4], result.messages[:6]]
    assert [(t.index, t.outcome, t.action, t.action_input, t.observation) for t in result.turns] == [
        (1, "action", "Calc.add", '{"a": 17, "b": 25}', "42"),
        (2, "action", "Calc.multiply", '{"a": 42, "b": 3}', "126"),
        (3, "final_answer", None, None, None),
    ]
    first = result.turns[0].action_return
    assert first is not None
    assert (first.type, first.args, first.thought, first.valid) == (
        "Calc",
        {"a": 17, "b": 25},
        "First the sum.",
        ActionValidCode.OPEN,
    )
    assert result.turns[2].thought == "I now know the final answer"


def test_made_up_observation_is_cut_from_the_history() -> None:
    reply = 'Action: Calc.add\nAction Input: {"a": 1, "b": 1}\nObservation: 3\nFinal Answer: 3'
    result = ReAct(Script([reply, "Final Answer: 2"]), calc_executor()).run("1 + 1?")
    assert result.messages[2:4] == [
        {"role": "assistant", "content": 'Action: Calc.add\nAction Input: {"a": 1, "b": 1}'},
        {"role": "user", "content": "Observation: 2"},
    ]
    assert result.turns[0].model_text == reply
    assert result.answer == "2"


@pytest.mark.parametrize(
    ("reply", "observation", "state"),
    [
        pytest.param(
            'Action: Calculator\nAction Input: {"a": 1, "b": 2}',
            "Unknown tool 'Calculator'. Did you mean 'Calc.multiply'? Available tools: Calc.add, Calc.multiply.",
            ActionStatusCode.API_ERROR,
            id="unknown-tool",
        ),
        pytest.param(
            'Action: Calc.ad\nAction Input: {"a": 1, "b": 2}',
            "Calc has no API 'ad'. Did you mean 'add'? Call one of: Calc.add, Calc.multiply",
            ActionStatusCode.API_ERROR,
            id="unknown-api",
        ),
        pytest.param(
            'Action: Calc.add\nAction Input: {"a": 1}',
            "Calc.add: 'b' is required",
            ActionStatusCode.ARGS_ERROR,
            id="bad-arguments",
        ),
    ],
)
def test_a_refused_call_is_observed_and_the_model_recovers(
    reply: str, observation: str, state: ActionStatusCode
) -> None:
    model = Script([reply, 'Action: Calc.add\nAction Input: {"a": 1, "b": 2}', "Final Answer: 3"])
    result = ReAct(model, calc_executor()).run("1 + 2?")
    assert result.messages[3] == {"role": "user", "content": f"Observation: {observation}"}
    ret = result.turns[0].action_return
    assert ret is not None
    assert (result.turns[0].outcome, ret.state) == ("action", state)
    assert [t.observation for t in result.turns] == [observation, "3", None]
    assert (result.answer, result.stop_reason) == ("3", "final_answer")


@pytest.mark.parametrize(
    ("reply", "outcome", "error"),
    [
        pytest.param("Let me think about it.", "no_action", NO_ACTION, id="prose"),
        pytest.param("", "no_action", NO_ACTION, id="empty"),
        pytest.param(
            "Action:\nAction Input: {}",
            "parse_error",
            "`Action:` is empty; it must name one of the tools.",
            id="empty-action",
        ),
        pytest.param(
            "Final Answer:",
            "parse_error",
            "`Final Answer:` is empty.",
            id="empty-answer",
        ),
    ],
)
def test_a_reply_without_a_usable_action_goes_to_no_action(reply: str, outcome: str, error: str) -> None:
    result = ReAct(Script([reply, "Final Answer: done"]), calc_executor()).run("q")
    turn = result.turns[0]
    observation = f"{error}\n{reminder()}"
    assert (turn.outcome, turn.observation) == (outcome, observation)
    assert turn.action_return is not None
    assert (turn.action_return.type, turn.action_return.valid) == ("NoAction", ActionValidCode.INVALID)
    assert result.messages[3] == {"role": "user", "content": f"Observation: {observation}"}
    assert (result.answer, result.stop_reason) == ("done", "final_answer")


class Ledger(BaseAction, register=False):
    """Keeps what it is told."""

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[str] = []

    def run(self, entry: str) -> str:
        """Write an entry.

        Args:
            entry: what to write
        """
        self.entries.append(entry)
        return f"{len(self.entries)} entries"


@pytest.mark.parametrize(
    ("finish_input", "answer"),
    [
        pytest.param("126", "126", id="text"),
        pytest.param('{"response": "126"}', "126", id="json-response"),
    ],
)
def test_finish_action_ends_the_run(finish_input: str, answer: str) -> None:
    ledger = Ledger()
    model = Script(
        [
            'Action: Ledger\nAction Input: {"entry": "start"}',
            f"Thought: done\nAction: FinishAction\nAction Input: {finish_input}",
            "never asked",
        ]
    )
    result = ReAct(model, ActionExecutor([ledger])).run("q")
    assert (result.answer, result.stop_reason) == (answer, "finish")
    assert len(model.calls) == 2
    turn = result.turns[1]
    assert (turn.outcome, turn.action, turn.thought, turn.observation) == (
        "final_answer",
        "FinishAction",
        "done",
        None,
    )
    assert turn.action_return is not None
    assert turn.action_return.valid == ActionValidCode.FINISH
    assert ledger.entries == ["start"]


def test_looping_model_stops_at_max_turns_and_the_trace_shows_the_repeats() -> None:
    loop = 'Thought: again\nAction: Calc.add\nAction Input: {"a": 1, "b": 1}'
    other = 'Action: Calc.add\nAction Input: {"a": 2, "b": 2}'
    model = Script([loop, loop, other, loop, "never asked"])
    result = ReAct(model, calc_executor(), max_turns=4).run("q")
    assert (result.answer, result.stop_reason, result.error) == (None, "max_turns", None)
    assert len(model.calls) == 4
    assert [(t.outcome, t.observation, t.repeat_of) for t in result.turns] == [
        ("action", "2", None),
        ("action", "2", 1),
        ("action", "4", None),
        ("action", "2", 1),
    ]


@pytest.mark.parametrize(
    ("replies", "turns", "error"),
    [
        pytest.param([RuntimeError("server down")], 0, "RuntimeError: server down", id="first-turn"),
        pytest.param(
            ['Action: Calc.add\nAction Input: {"a": 1, "b": 1}', ConnectionError("reset")],
            1,
            "ConnectionError: reset",
            id="later-turn",
        ),
        pytest.param([None], 0, "TypeError: the model returned NoneType, expected str", id="not-text"),
    ],
)
def test_a_failing_model_ends_the_run_with_model_error(replies: list[Any], turns: int, error: str) -> None:
    result = ReAct(Script(replies), calc_executor()).run("q")
    assert (result.answer, result.stop_reason, result.error) == (None, "model_error", error)
    assert len(result.turns) == turns


def test_keyboard_interrupt_in_the_model_is_not_swallowed() -> None:
    with pytest.raises(KeyboardInterrupt):
        ReAct(Script([KeyboardInterrupt()]), calc_executor()).run("q")


def test_on_turn_is_called_for_each_turn_in_order_as_it_ends() -> None:
    events: list[str] = []

    class Model(Script):
        def __call__(self, messages: Messages) -> Any:
            events.append(f"model {len(self.calls) + 1}")
            return super().__call__(messages)

    def on_turn(turn: Turn) -> None:
        events.append(f"turn {turn.index} {turn.outcome}")

    model = Model(['Action: Calc.add\nAction Input: {"a": 1, "b": 1}', "hmm", "Final Answer: 2"])
    ReAct(model, calc_executor(), on_turn=on_turn).run("q")
    assert events == [
        "model 1",
        "turn 1 action",
        "model 2",
        "turn 2 no_action",
        "model 3",
        "turn 3 final_answer",
    ]


def test_history_goes_between_the_system_prompt_and_the_question() -> None:
    history = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]
    model = Script(["Final Answer: fine"])
    result = ReAct(model, calc_executor()).run("How are you?", history=history)
    assert model.calls[0][1:] == [*history, {"role": "user", "content": "How are you?"}]
    assert history == [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]
    assert result.answer == "fine"


def test_custom_template_is_rendered_with_the_tools() -> None:
    template = 'Tools ({tool_names}):\n{tool_descriptions}\nReply as JSON like {{"a": 1}}.'
    executor = ActionExecutor([Ledger()])
    model = Script(["Final Answer: ok"])
    agent = ReAct(model, executor, system_template=template)
    expected = (
        "Tools (Ledger):\n"
        "Ledger: Write an entry.\n"
        '    Parameters: [{"name": "entry", "type": "STRING", "description": "what to write"}]\n'
        '    Required: ["entry"]\n'
        "    If you call this tool, you must pass arguments in the JSON format {key: value}, "
        "where the key is the parameter name.\n"
        'Reply as JSON like {"a": 1}.'
    )
    assert agent.system_prompt == expected
    agent.run("q")
    assert model.calls[0][0] == {"role": "system", "content": expected}


HINT = "use {tool_descriptions}, {tool_names}; write literal braces as {{ and }}"


@pytest.mark.parametrize(
    ("template", "message"),
    [
        pytest.param(
            "{tools}", f"system_template has unknown placeholders '{{tools}}'; {HINT}", id="unknown"
        ),
        pytest.param(
            "{tool_names} {0} {}",
            f"system_template has unknown placeholders '{{0}}', '{{}}'; {HINT}",
            id="positional",
        ),
        pytest.param(
            "{tool_names.upper}",
            f"system_template has unknown placeholders '{{tool_names.upper}}'; {HINT}",
            id="attribute",
        ),
        pytest.param(
            'JSON: {"a": 1}',
            f"system_template has unknown placeholders '{{\"a\"}}'; {HINT}",
            id="unescaped-json",
        ),
        pytest.param(
            "{tool_names",
            f"system_template is not a valid str.format template (expected '}}' before end of string); {HINT}",
            id="unclosed",
        ),
        pytest.param(
            "a } b",
            f"system_template is not a valid str.format template (Single '}}' encountered in format string); {HINT}",
            id="stray-brace",
        ),
        pytest.param(
            "{tool_names:{x}}",
            f"system_template cannot be formatted (KeyError('x')); {HINT}",
            id="nested-spec",
        ),
    ],
)
def test_a_bad_template_is_refused_at_construction(template: str, message: str) -> None:
    with pytest.raises(DefinitionError, match=f"^{re.escape(message)}$"):
        ReAct(Script([]), calc_executor(), system_template=template)


def test_max_turns_must_be_positive() -> None:
    with pytest.raises(DefinitionError, match=r"^max_turns must be at least 1, got 0$"):
        ReAct(Script([]), calc_executor(), max_turns=0)


def test_a_model_that_cannot_be_called_is_refused() -> None:
    with pytest.raises(
        TypeError,
        match=r"^ReAct: model must be a callable messages -> str or have a chat\(\) method; got int$",
    ):
        ReAct(3, calc_executor())


class ChatClient:
    """Both ways of talking, like ``OpenAIChat``: ``__call__`` for text, ``chat`` for dicts."""

    def __init__(self, replies: Sequence[Any]) -> None:
        self.replies = list(replies)
        self.calls: list[tuple[str, Messages, dict[str, Any]]] = []

    def _next(self, kind: str, messages: Messages, params: dict[str, Any]) -> Any:
        self.calls.append((kind, [dict(m) for m in messages], params))
        return self.replies[len(self.calls) - 1]

    def __call__(self, messages: Messages, **params: Any) -> str:
        reply: str = self._next("call", messages, params)
        return reply

    def chat(self, messages: Messages, tools: Any = None, **params: Any) -> dict[str, Any]:
        reply: dict[str, Any] = self._next("chat", messages, {"tools": tools, **params})
        return reply


@pytest.mark.parametrize(
    ("model_params", "sent"),
    [
        pytest.param(None, {"stop": ["Observation:"]}, id="default-stop"),
        pytest.param({"temperature": 0.0}, {"stop": ["Observation:"], "temperature": 0.0}, id="params-added"),
        pytest.param({"stop": None, "temperature": 0.0}, {"temperature": 0.0}, id="stop-removed"),
    ],
)
def test_a_chat_client_in_text_mode_gets_stop_and_model_params(
    model_params: dict[str, Any] | None, sent: dict[str, Any]
) -> None:
    client = ChatClient(["Final Answer: ok"])
    result = ReAct(client, calc_executor(), model_params=model_params).run("q")
    assert result.answer == "ok"
    assert [(kind, params) for kind, _, params in client.calls] == [("call", sent)]


def test_a_plain_callable_gets_only_messages_unless_params_are_given() -> None:
    received: list[dict[str, Any]] = []

    def model(messages: Messages, **params: Any) -> str:
        received.append(params)
        return "Final Answer: ok"

    ReAct(model, calc_executor()).run("q")
    ReAct(model, calc_executor(), model_params={"temperature": 0.5}).run("q")
    assert received == [{}, {"temperature": 0.5}]


class ChatOnly:
    """A model with ``chat`` and no ``__call__``."""

    def __init__(self, replies: Sequence[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.params: list[dict[str, Any]] = []

    def chat(self, messages: Messages, tools: Any = None, **params: Any) -> dict[str, Any]:
        self.params.append({"tools": tools, **params})
        return self.replies[len(self.params) - 1]


def test_a_chat_only_model_works_in_text_mode() -> None:
    model = ChatOnly(
        [
            {"role": "assistant", "content": 'Action: Calc.add\nAction Input: {"a": 2, "b": 3}'},
            {"role": "assistant", "content": "Final Answer: 5"},
        ]
    )
    result = ReAct(model, calc_executor()).run("2 + 3?")
    assert (result.answer, [t.observation for t in result.turns]) == ("5", ["5", None])
    assert model.params == [{"tools": None, "stop": ["Observation:"]}] * 2


def tool_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_native_mode_runs_tool_calls_and_ends_on_a_plain_reply() -> None:
    calls = [
        tool_call("c1", "Calc__add", '{"a": 17, "b": 25}'),
        tool_call("c2", "Calc__multiply", {"a": 2, "b": 3}),
    ]
    client = ChatClient(
        [
            {"role": "assistant", "content": "Both at once.", "tool_calls": calls},
            {"role": "assistant", "content": "42 and 6."},
        ]
    )
    executor = calc_executor()
    agent = ReAct(client, executor, native_tools=True, model_params={"temperature": 0})
    result = agent.run("17 + 25 and 2 * 3?")
    assert (result.answer, result.stop_reason) == ("42 and 6.", "final_answer")
    sent_calls = [calls[0], tool_call("c2", "Calc__multiply", '{"a": 2, "b": 3}')]
    assert result.messages[2:] == [
        {"role": "assistant", "content": "Both at once.", "tool_calls": sent_calls},
        {"role": "tool", "tool_call_id": "c1", "content": "42"},
        {"role": "tool", "tool_call_id": "c2", "content": "6"},
        {"role": "assistant", "content": "42 and 6."},
    ]
    assert [(kind, params) for kind, _, params in client.calls] == [
        ("chat", {"tools": executor.to_openai_tools(), "temperature": 0})
    ] * 2
    first = result.turns[0]
    assert (first.outcome, first.thought, first.action, first.action_input, first.observation) == (
        "action",
        "Both at once.",
        "Calc__add",
        '{"a": 17, "b": 25}',
        "42\n6",
    )
    assert first.tool_calls == sent_calls
    assert first.tool_returns is not None
    assert [r.format_result() for r in first.tool_returns if r is not None] == ["42", "6"]
    assert first.action_return is first.tool_returns[0]
    assert result.turns[1].outcome == "final_answer"
    assert agent.system_prompt == result.messages[0]["content"]
    assert "Action Input" not in agent.system_prompt


def test_native_mode_reports_a_bad_tool_call_to_the_model() -> None:
    client = ChatClient(
        [
            {"role": "assistant", "content": None, "tool_calls": [tool_call("c1", "Calc__sub", "{}")]},
            {"role": "assistant", "content": "Sorry."},
        ]
    )
    result = ReAct(client, calc_executor(), native_tools=True).run("q")
    assert result.messages[2:4] == [
        {"role": "assistant", "content": None, "tool_calls": [tool_call("c1", "Calc__sub", "{}")]},
        {
            "role": "tool",
            "tool_call_id": "c1",
            # The model was given the aliases: the message names those (issue 20, item 9).
            "content": "Unknown tool 'Calc__sub'. Did you mean 'Calc__add' or 'Calc__multiply'? "
            "Available tools: Calc__add, Calc__multiply.",
        },
    ]
    assert result.turns[0].thought is None


def test_native_mode_finishes_through_the_finish_action() -> None:
    client = ChatClient(
        [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [tool_call("f", "FinishAction", '{"response": "7"}')],
            }
        ]
    )
    executor = calc_executor(finish_in_action=True)
    result = ReAct(client, executor, native_tools=True).run("q")
    assert (result.answer, result.stop_reason) == ("7", "finish")
    assert result.turns[0].outcome == "final_answer"
    assert result.messages[-1] == {"role": "tool", "tool_call_id": "f", "content": "7"}


def test_native_mode_tells_the_model_about_an_empty_reply() -> None:
    client = ChatClient([{"role": "assistant", "content": ""}, {"role": "assistant", "content": "Here."}])
    result = ReAct(client, calc_executor(), native_tools=True).run("q")
    empty = "Your reply was empty. Call a tool, or reply with the final answer as text."
    assert result.messages[2:4] == [{"role": "assistant", "content": ""}, {"role": "user", "content": empty}]
    assert [(t.outcome, t.observation) for t in result.turns] == [
        ("no_action", empty),
        ("final_answer", None),
    ]
    assert result.answer == "Here."


def test_native_mode_needs_a_chat_method() -> None:
    with pytest.raises(
        TypeError,
        match=r"^ReAct: native_tools=True needs a model with chat\(messages, tools=None, \*\*params\); function has none$",
    ):
        ReAct(lambda messages: "", calc_executor(), native_tools=True)


def test_native_mode_model_error_is_recorded() -> None:
    class Broken:
        def chat(self, messages: Messages, tools: Any = None, **params: Any) -> dict[str, Any]:
            raise TimeoutError("no answer in 60 s")

    result = ReAct(Broken(), calc_executor(), native_tools=True).run("q")
    assert (result.stop_reason, result.error, result.turns) == (
        "model_error",
        "TimeoutError: no answer in 60 s",
        [],
    )


def test_agents_are_not_imported_with_the_package_and_export_a_sorted_all() -> None:
    probe = "import sys, lagent_like; print('lagent_like.agents' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert agents.__all__ == sorted(agents.__all__)
    assert all(getattr(agents, name) is not None for name in agents.__all__)
