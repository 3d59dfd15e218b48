"""Lagent 0.5's executor API: messages in and out, forward, mapping methods, message hooks.

The cases translate Lagent 0.5's README ("Consistency of Tool Calling", the
``CodeProcessor`` hook) and its ``ActionExecutor`` source to this package.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from lagent_like import ActionExecutor, AsyncActionExecutor, BaseAction, Hook, ToolContext, tool_api
from lagent_like.exceptions import ToolDefinitionError, ToolNotFoundError
from lagent_like.schema import (
    ActionReturn,
    ActionStatusCode,
    ActionValidCode,
    AgentMessage,
    AgentStatusCode,
    FunctionCall,
)


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first.
        b: the second.
    """
    return a + b


class Calculator(BaseAction, register=False):
    """Arithmetic."""

    @tool_api
    def multiply(self, a: int, b: int) -> int:
        """Multiply two integers.

        Args:
            a: the first.
            b: the second.
        """
        return a * b


class Python(BaseAction, register=False):
    """Runs one expression (a stand-in for Lagent's IPythonInteractive)."""

    def run(self, command: str) -> str:
        """Evaluate an arithmetic expression.

        Args:
            command: the expression.
        """
        return str(eval(command, {"__builtins__": {}}))


# --- schema -------------------------------------------------------------------------------


def test_agent_message_has_lagent_05_fields_and_defaults() -> None:
    message = AgentMessage(content="hi")
    assert message.model_dump() == {
        "content": "hi",
        "sender": "user",
        "formatted": None,
        "extra_info": None,
        "type": None,
        "receiver": None,
        "stream_state": AgentStatusCode.END,
    }


def test_agent_message_copy_deep_leaves_the_original_alone() -> None:
    message = AgentMessage(content={"name": "add"}, sender="Agent")
    copied = message.copy(deep=True)
    copied.content["name"] = "other"
    assert message.content == {"name": "add"}
    assert message.model_copy(update={"sender": "x"}).sender == "x"


def test_function_call_fields() -> None:
    call = FunctionCall("add", {"a": 1})
    assert (call.name, call.parameters) == ("add", {"a": 1})


def test_schema_imports_no_pydantic() -> None:
    import subprocess
    import sys

    code = "import sys, lagent_like.schema; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- executor(message) --------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        pytest.param({"name": "add", "parameters": {"a": 1, "b": 2}}, id="dict"),
        pytest.param({"name": "add", "parameters": '{"a": 1, "b": 2}'}, id="dict-with-json-string"),
        pytest.param(FunctionCall(name="add", parameters={"a": 1, "b": 2}), id="function-call"),
    ],
)
def test_message_call_answers_with_a_message_holding_the_record(content: Any) -> None:
    executor = ActionExecutor([add])
    reply = executor(AgentMessage(sender="Agent", content=content), session_id=0)
    assert isinstance(reply, AgentMessage)
    assert reply.sender == "ActionExecutor"
    assert isinstance(reply.content, ActionReturn)
    assert reply.content.result == [{"type": "text", "content": "3"}]
    assert reply.content.valid == ActionValidCode.OPEN


def test_message_call_reaches_a_toolkit_api() -> None:
    executor = ActionExecutor([Calculator()])
    reply = executor(
        AgentMessage(sender="Agent", content={"name": "Calculator.multiply", "parameters": {"a": 3, "b": 4}})
    )
    assert reply.content.format_result() == "12"


def test_message_call_of_an_unknown_tool_is_the_invalid_action_record() -> None:
    executor = ActionExecutor([add])
    reply = executor(AgentMessage(sender="Agent", content={"name": "nope", "parameters": {}}))
    assert reply.content.valid == ActionValidCode.INVALID
    assert reply.content.errmsg == "Unknown tool 'nope'. Available tools: add."


@pytest.mark.parametrize(
    ("content", "shown"),
    [
        pytest.param("just text", "str", id="text"),
        pytest.param({"name": "add"}, "dict", id="dict-without-parameters"),
        pytest.param(None, "NoneType", id="none"),
    ],
)
def test_message_without_a_call_gets_an_args_error_record(content: Any, shown: str) -> None:
    executor = ActionExecutor([add])
    reply = executor(AgentMessage(sender="Agent", content=content))
    assert reply.content.state == ActionStatusCode.ARGS_ERROR
    assert reply.content.errmsg == (
        f"The message holds no tool call (its content is a {shown}); expected a FunctionCall "
        "or a dict with 'name' and 'parameters'."
    )


def remember(ctx: ToolContext, value: str) -> str:
    """Store a value and return the previous one.

    Args:
        value: what to store.
    """
    previous = ctx.state.get("value", "")
    ctx.state["value"] = value
    return previous


def test_session_id_of_a_message_call_selects_the_session() -> None:
    executor = ActionExecutor([remember])
    call = {"name": "remember", "parameters": {"value": "one"}}
    executor(AgentMessage(content=call), session_id=7)
    assert executor.session_state("7") == {"value": "one"}
    executor(AgentMessage(content=call))  # Lagent's default 0: the executor's default session
    assert executor.session_state() == {"value": "one"}


def test_string_call_is_unchanged_and_a_missing_command_raises() -> None:
    executor = ActionExecutor([add])
    assert executor("add", '{"a": 1, "b": 2}').result == [{"type": "text", "content": "3"}]
    with pytest.raises(TypeError, match=r"ActionExecutor\(\) missing the command \(the arguments\) of 'add'"):
        executor("add")


# --- forward, description, mapping --------------------------------------------------------


def test_forward_returns_the_record() -> None:
    executor = ActionExecutor([add])
    ret = executor.forward("add", {"a": 2, "b": 5}, session_id=0)
    assert isinstance(ret, ActionReturn)
    assert ret.format_result() == "7"


def test_description_lists_apis_as_get_actions_info() -> None:
    executor = ActionExecutor([add, Calculator()])
    assert executor.description() == executor.get_actions_info()
    assert [d["name"] for d in executor.description()] == ["add", "Calculator.multiply"]


def test_mapping_methods() -> None:
    executor = ActionExecutor([add])
    assert executor.keys() == ["add"]
    assert "add" in executor
    executor["Calculator"] = Calculator()
    assert executor.keys() == ["add", "Calculator"]
    del executor["add"]
    assert "add" not in executor
    with pytest.raises(ToolNotFoundError):
        del executor["add"]


def test_setitem_under_another_name_raises() -> None:
    executor = ActionExecutor([add])
    with pytest.raises(ToolDefinitionError, match=r"executor\['calc'\] = an action named 'Calculator'"):
        executor["calc"] = Calculator()


def test_dict_configs_build_actions_and_hooks() -> None:
    class Tag:
        def __init__(self, label: str) -> None:
            self.label = label

        def after_action(self, executor: Any, message: AgentMessage, session_id: int) -> AgentMessage:
            message.extra_info = self.label
            return message

    executor = ActionExecutor([dict(type=Calculator)], hooks=[dict(type=Tag, label="seen")])
    executor["Python"] = dict(type=Python)
    assert executor.keys() == ["Calculator", "Python"]
    reply = executor(AgentMessage(content={"name": "Python", "parameters": {"command": "1+1"}}))
    assert (reply.content.format_result(), reply.extra_info) == ("2", "seen")


def test_dict_config_type_may_be_a_dotted_path() -> None:
    executor = ActionExecutor([dict(type="test_exec05_api.Calculator")])
    assert executor.keys() == ["Calculator"]


def test_dict_config_with_a_path_that_does_not_import_raises() -> None:
    with pytest.raises(ToolDefinitionError, match=r"config type 'nowhere\.Tool' cannot be imported"):
        ActionExecutor([dict(type="nowhere.Tool")])


# --- message hooks ------------------------------------------------------------------------


class CodeProcessor(Hook):
    """Lagent 0.5's README hook, as written there."""

    def before_action(self, executor: Any, message: AgentMessage, session_id: int) -> AgentMessage:
        message = message.copy(deep=True)
        message.content = dict(name="Python", parameters={"command": message.formatted["action"]})
        return message

    def after_action(self, executor: Any, message: AgentMessage, session_id: int) -> AgentMessage:
        action_return = message.content
        if isinstance(action_return, ActionReturn):
            if action_return.state == ActionStatusCode.SUCCESS:
                response = action_return.format_result()
            else:
                response = action_return.errmsg
        else:
            response = action_return
        message.content = response
        return message


def _bot_message() -> AgentMessage:
    return AgentMessage(
        sender="Agent",
        content="First, we compute...",
        formatted={"tool_type": "code interpreter", "thought": "...", "action": "63 * 63", "status": 1},
    )


def test_readme_code_processor_hook() -> None:
    executor = ActionExecutor(actions=[Python()], hooks=[CodeProcessor()])
    reply = executor(_bot_message())
    assert (reply.content, reply.sender) == ("3969", "ActionExecutor")


def test_message_hooks_do_not_run_on_string_calls_and_keep_the_direct_path() -> None:
    executor = ActionExecutor([Python()], hooks=[CodeProcessor()])
    assert executor._routes["Python"].direct
    assert executor("Python", '{"command": "2*3"}').format_result() == "6"


def test_message_hook_sees_executor_message_and_session_and_falsy_result_keeps_message() -> None:
    seen = []

    class Recorder:
        def before_action(self, executor: Any, message: AgentMessage, session_id: int) -> None:
            seen.append(("before", executor, message.sender, session_id))

        def after_action(self, executor: Any, message: AgentMessage, session_id: int) -> None:
            seen.append(("after", executor, message.sender, session_id))

    executor = ActionExecutor([add])
    handle = executor.register_hook(Recorder())
    reply = executor(AgentMessage(sender="Agent", content={"name": "add", "parameters": {"a": 1, "b": 1}}), 3)
    assert seen == [("before", executor, "Agent", 3), ("after", executor, "ActionExecutor", 3)]
    assert reply.content.format_result() == "2"
    handle.remove()
    executor(AgentMessage(content={"name": "add", "parameters": {"a": 1, "b": 1}}))
    assert len(seen) == 2


def test_hooks_run_in_registration_order() -> None:
    order = []

    class Mark:
        def __init__(self, label: str) -> None:
            self.label = label

        def before_action(self, executor: Any, message: AgentMessage, session_id: int) -> None:
            order.append(self.label)

    executor = ActionExecutor([add], hooks=[Mark("a"), Mark("b")])
    executor(AgentMessage(content={"name": "add", "parameters": {"a": 1, "b": 1}}))
    assert order == ["a", "b"]


def test_mixed_hook_styles_are_refused() -> None:
    class Mixed(Hook):
        def before_action(self, executor: Any, message: AgentMessage, session_id: int) -> None:
            return None

        def after_action(self, name: str, action_return: ActionReturn, context: Any) -> None:
            return None

    with pytest.raises(ToolDefinitionError, match=r"Mixed\.after_action.*write both methods one way"):
        ActionExecutor([add]).register_hook(Mixed())


def test_package_hooks_still_see_name_args_context_on_message_calls() -> None:
    seen = []

    class Audit(Hook):
        def before_action(self, name: str, args: dict[str, Any], context: Any) -> None:
            seen.append((name, args))

    executor = ActionExecutor([add], hooks=[Audit()])
    executor(AgentMessage(content={"name": "add", "parameters": {"a": 1, "b": 2}}))
    assert seen == [("add", {"a": 1, "b": 2})]


# --- async --------------------------------------------------------------------------------


def test_async_executor_message_call_with_async_hook() -> None:
    class AsyncProcessor(CodeProcessor):
        async def after_action(self, executor: Any, message: AgentMessage, session_id: int) -> AgentMessage:
            return super().after_action(executor, message, session_id)

    async def main() -> tuple[Any, Any]:
        executor = AsyncActionExecutor([Python()], hooks=[AsyncProcessor()])
        reply = await executor(_bot_message(), session_id=1)
        record = await executor.forward("Python", {"command": "2+2"})
        return reply.content, record.format_result()

    assert asyncio.run(main()) == ("3969", "4")


def test_sync_executor_runs_an_async_message_hook_to_completion() -> None:
    class Later:
        async def after_action(self, executor: Any, message: AgentMessage, session_id: int) -> AgentMessage:
            message.content = "done"
            return message

    executor = ActionExecutor([add], hooks=[Later()])
    assert executor(AgentMessage(content={"name": "add", "parameters": {"a": 1, "b": 1}})).content == "done"


def test_async_string_call_is_unchanged_and_a_missing_command_raises() -> None:
    async def main() -> str:
        executor = AsyncActionExecutor([add])
        with pytest.raises(
            TypeError, match=r"AsyncActionExecutor\(\) missing the command \(the arguments\) of 'add'"
        ):
            await executor("add")
        return (await executor("add", '{"a": 1, "b": 2}')).format_result()

    assert asyncio.run(main()) == "3"


def test_async_executor_finds_tools() -> None:
    assert [m.name for m in AsyncActionExecutor([add, Calculator()]).find_tools("multiply integers")] == [
        "Calculator.multiply",
        "add",
    ]


def test_a_message_call_given_a_context_is_refused_not_ignored() -> None:
    from lagent_like import ActionExecutor, FunctionTool
    from lagent_like.schema import AgentMessage

    def echo(text: str) -> str:
        """Echo.

        Args:
            text: what to echo.
        """
        return text

    executor = ActionExecutor([FunctionTool(echo)])
    message = AgentMessage(sender="user", content={"name": "echo", "parameters": {"text": "hi"}})
    with pytest.raises(
        TypeError, match=r"^a Lagent 0.5 message call takes no context=; call with a name and arguments$"
    ):
        executor(message, context={"user": "ann"})
