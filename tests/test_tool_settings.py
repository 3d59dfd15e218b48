"""Runtime settings live in ``ToolSettings``; a tool's own attributes are its own.

Lagent's tools set attributes such as ``self.timeout`` for their own use, and classes
from other libraries are mixed with ``BaseAction``: none of their names may be read as
an executor setting or clash with ``BaseAction``'s own state.
"""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

import pytest

from lagent_like import (
    ActionExecutor,
    ActionStatusCode,
    AsyncActionExecutor,
    BaseAction,
    JsonParser,
    RetryPolicy,
    ToolDefinitionError,
    ToolSettings,
    TransientToolError,
    tool_api,
)
from lagent_like.exceptions import DefinitionWarning

SUCCESS = ActionStatusCode.SUCCESS


class SettingsShell(BaseAction):
    """Like Lagent's ``IPythonInteractive``: its own time limit, enforced with SIGALRM."""

    def __init__(self, timeout: int = 5) -> None:
        super().__init__()
        self.timeout = timeout  # the shell's own limit, not the executor's

    def run(self, command: str) -> str:
        """Run a command.

        Args:
            command: the command
        """
        previous = signal.signal(signal.SIGALRM, lambda *_: None)  # only works in the main thread
        signal.alarm(self.timeout)
        try:
            return f"ran {command}"
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


def test_a_tools_own_timeout_attribute_does_not_move_it_to_a_worker_thread() -> None:
    ret = ActionExecutor([SettingsShell()])("SettingsShell", '{"command": "ls"}')
    assert (ret.state, ret.result, ret.errmsg) == (SUCCESS, [{"type": "text", "content": "ran ls"}], None)


# Nothing in the class reads it: defining the class warns (issue 20).
with pytest.warns(
    DefinitionWarning, match=r"SettingsNap: self\.timeout = \.\.\. in a method is read by nothing"
):

    class SettingsNap(BaseAction):
        def __init__(self) -> None:
            super().__init__()
            self.timeout = 0.05  # a tool's own field, as Lagent tools have

        def run(self, seconds: float) -> str:
            """Sleep.

            Args:
                seconds: how long
            """
            time.sleep(seconds)
            return "rested"


def test_a_tools_own_timeout_attribute_is_not_an_executor_timeout() -> None:
    ret = ActionExecutor([SettingsNap()])("SettingsNap", '{"seconds": 0.2}')
    assert (ret.state, ret.result) == (SUCCESS, [{"type": "text", "content": "rested"}])


# Nothing in the class reads it: defining the class warns (issue 20).
with pytest.warns(
    DefinitionWarning, match=r"SettingsFlaky: self\.retry = \.\.\. in a method is read by nothing"
):

    class SettingsFlaky(BaseAction):
        def __init__(self) -> None:
            super().__init__()
            self.retry = 3  # how often the tool itself retries its backend
            self.calls = 0

        def run(self) -> str:
            """Fail once, then work."""
            self.calls += 1
            if self.calls == 1:
                raise TransientToolError("backend busy")
            return "ok"


@pytest.mark.parametrize("executor_class", [ActionExecutor, AsyncActionExecutor], ids=["sync", "async"])
def test_a_tools_own_retry_attribute_is_not_a_retry_policy(executor_class: Any) -> None:
    tool = SettingsFlaky()
    executor = executor_class([tool])
    call = executor("SettingsFlaky", "{}")
    first = asyncio.run(call) if asyncio.iscoroutine(call) else call
    assert (first.state, first.errmsg, first.attempts) == (ActionStatusCode.API_ERROR, "backend busy", 1)
    assert tool.calls == 1
    assert tool.retry == 3


def test_settings_given_as_tool_settings_do_apply() -> None:
    class SettingsRetried(SettingsFlaky):
        __tool_settings__ = ToolSettings(retry=RetryPolicy(max_attempts=2, base_delay=0, jitter=0))

    tool = SettingsRetried()
    ret = ActionExecutor([tool])("SettingsRetried", "{}")
    assert (ret.state, ret.result, ret.attempts) == (SUCCESS, [{"type": "text", "content": "ok"}], 2)


class SettingsSlow(BaseAction):
    __tool_settings__ = ToolSettings(timeout=5.0)

    def run(self, seconds: float) -> str:
        """Sleep.

        Args:
            seconds: how long
        """
        time.sleep(seconds)
        return "done"


def test_constructor_timeout_wins_over_the_class_tool_settings() -> None:
    tool = SettingsSlow(timeout=0.05)
    assert tool.__tool_settings__ == ToolSettings(timeout=0.05)
    assert SettingsSlow.__tool_settings__ == ToolSettings(timeout=5.0)
    ret = ActionExecutor([tool])("SettingsSlow", '{"seconds": 2}')
    assert (ret.state, ret.errmsg) == (ActionStatusCode.TIMEOUT, "'SettingsSlow' timed out after 0.05 s")


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        pytest.param({"retry": 3}, "retry must be a RetryPolicy or None, got 3", id="retry-int"),
        pytest.param(
            {"timeout": -1},
            "timeout must be a positive number of seconds or None, got -1",
            id="timeout-negative",
        ),
        pytest.param(
            {"timeout": "5"},
            "timeout must be a positive number of seconds or None, got '5'",
            id="timeout-text",
        ),
        pytest.param(
            {"circuit_breaker": 2},
            "circuit_breaker must be a factory of CircuitBreaker (a function of no arguments) or None, got 2",
            id="breaker-int",
        ),
    ],
)
def test_tool_settings_refuse_values_that_are_no_setting(settings: dict[str, Any], problem: str) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        ToolSettings(**settings)
    assert str(caught.value) == f"ToolSettings: {problem}"


# --- a class from elsewhere, mixed with BaseAction ----------------------------------------------


class ThirdPartyClient:
    """A client class from another library, with private fields of common names."""

    def __init__(self) -> None:
        self._api_description = "the client's API description"
        self._description = "the client's description"
        self._name = "client"
        self._enable = "client's flag"
        self._parser = "client's parser"
        self._is_toolkit = "client's field"
        self._routes = ["client route"]
        self._schemas = {"client": "schema"}

    def greeting(self, who: str) -> str:
        return f"hello {who} from {self._name}"


class SettingsClientTools(ThirdPartyClient, BaseAction):
    """Greeting tools."""

    def __init__(self, client_first: bool) -> None:
        if client_first:
            ThirdPartyClient.__init__(self)
            BaseAction.__init__(self)
        else:
            BaseAction.__init__(self)
            ThirdPartyClient.__init__(self)

    @tool_api
    def greet(self, who: str) -> str:
        """Greet someone.

        Args:
            who: the name to greet
        """
        return self.greeting(who)


CLIENT_DESCRIPTION = {
    "name": "SettingsClientTools",
    "description": "Greeting tools.",
    "api_list": [
        {
            "name": "greet",
            "description": "Greet someone.",
            "parameters": [{"name": "who", "type": "STRING", "description": "the name to greet"}],
            "required": ["who"],
            "parameter_description": JsonParser.PARAMETER_DESCRIPTION,
        }
    ],
}


@pytest.mark.parametrize("client_first", [True, False], ids=["client-init-first", "client-init-last"])
def test_a_class_mixed_with_base_action_keeps_its_own_private_fields(client_first: bool) -> None:
    tool = SettingsClientTools(client_first)
    assert tool.description == CLIENT_DESCRIPTION
    executor = ActionExecutor(tool)
    info = executor.get_actions_info()
    assert [entry["name"] for entry in info] == ["SettingsClientTools.greet"]
    assert executor.to_openai_tools()[0]["function"]["description"] == "Greet someone."
    assert tool.json_schema("greet")["required"] == ["who"]
    ret = executor("SettingsClientTools.greet", '{"who": "Ada"}')
    assert (ret.state, ret.result) == (SUCCESS, [{"type": "text", "content": "hello Ada from client"}])
    assert (tool._api_description, tool._description, tool._name) == (
        "the client's API description",
        "the client's description",
        "client",
    )
    assert (tool._enable, tool._parser, tool._is_toolkit) == (
        "client's flag",
        "client's parser",
        "client's field",
    )
    assert (tool._routes, tool._schemas) == (["client route"], {"client": "schema"})


# --- one tool without a list (Lagent accepts it) ------------------------------------------------


class SettingsEcho(BaseAction):
    def run(self, text: str) -> str:
        """Echo.

        Args:
            text: what to echo
        """
        return text


def settings_shout(text: str) -> str:
    """Shout.

    Args:
        text: what to shout
    """
    return text.upper()


def test_an_executor_takes_one_action_without_a_list() -> None:
    executor = ActionExecutor(SettingsEcho())
    assert executor.action_names() == ["SettingsEcho"]
    assert executor("SettingsEcho", '{"text": "hi"}').result == [{"type": "text", "content": "hi"}]


def test_an_executor_takes_one_function_without_a_list() -> None:
    executor = ActionExecutor(settings_shout)
    assert executor("settings_shout", '{"text": "hi"}').result == [{"type": "text", "content": "HI"}]


def test_an_async_executor_takes_one_action_without_a_list() -> None:
    executor = AsyncActionExecutor(SettingsEcho())
    ret = asyncio.run(executor("SettingsEcho", '{"text": "hi"}'))
    assert ret.result == [{"type": "text", "content": "hi"}]
