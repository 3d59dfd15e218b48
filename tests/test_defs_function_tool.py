"""Issue 20, item 4: factories and settings on function tools.

``FunctionTool(func, name=..., description=...)`` is the closure factory of LiveKit and
the Agents SDK; ``tool.timeout = 5.0`` (Google ADK, seed 000) is honoured, also by an
executor that already holds the tool. On a ``BaseAction``, whose attributes are its
own as in Lagent, an attribute named like a runtime setting that nothing reads warns.
"""

from __future__ import annotations

import asyncio
import threading
import warnings
from collections.abc import Iterator
from typing import Any, Callable

import pytest

from lagent_like import (
    ActionExecutor,
    ActionStatusCode,
    AsyncActionExecutor,
    BaseAction,
    FunctionTool,
    RetryPolicy,
    ToolDefinitionError,
    ToolSettings,
)
from lagent_like.exceptions import DefinitionWarning
from lagent_like.runtime.settings import UNSET


def set_profile_field_func_for(field: str) -> Callable[[str], str]:
    # LiveKit's closure factory (seed 003): one function per field, named by the tool.
    def set_value(value: str) -> str:
        return f"field {field} was set to {value}"

    return set_value


def test_closure_factory_names_and_describes_each_tool() -> None:
    tools = [
        FunctionTool(
            set_profile_field_func_for("phone"),
            name="set_phone_number",
            description="Call this function when user has provided their phone number.",
        ),
        FunctionTool(
            set_profile_field_func_for("email"),
            name="set_email",
            description="Call this function when user has provided their email.",
        ),
    ]
    executor = ActionExecutor(tools)
    assert [(info["name"], info["description"]) for info in executor.get_actions_info()] == [
        ("set_phone_number", "Call this function when user has provided their phone number."),
        ("set_email", "Call this function when user has provided their email."),
    ]
    assert executor.to_openai_tools()[1]["function"]["description"] == (
        "Call this function when user has provided their email."
    )
    record = executor("set_email", '{"value": "a@b.c"}')
    assert record.result == [{"type": "text", "content": "field email was set to a@b.c"}]


def documented(x: int) -> int:
    """Return x.

    Args:
        x: the value
    """
    return x


@pytest.mark.parametrize(
    ("options", "name", "description"),
    [
        pytest.param({}, "documented", "Return x.", id="defaults"),
        pytest.param({"name": "ident"}, "ident", "Return x.", id="name"),
        pytest.param({"description": "Echo a number."}, "documented", "Echo a number.", id="description"),
    ],
)
def test_name_and_description_override_the_functions_own(
    options: dict[str, Any], name: str, description: str
) -> None:
    tool = FunctionTool(documented, **options)
    assert (tool.name, tool.description["description"]) == (name, description)
    assert tool.description["parameters"] == [{"name": "x", "type": "NUMBER", "description": "the value"}]
    assert documented.__name__ == "documented" and documented.__doc__.startswith("Return x.")


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    # A call that waits on the gate outlives any short timeout; opened at the end so
    # that no worker thread is left waiting.
    event = threading.Event()
    yield event
    event.set()


def make_slow(gate: threading.Event) -> Callable[[], str]:
    def slow_function() -> str:
        """Wait for the gate."""
        gate.wait(10)
        return "done"

    return slow_function


def test_timeout_attribute_set_before_the_executor_is_honoured(gate: threading.Event) -> None:
    tool = FunctionTool(make_slow(gate))
    tool.timeout = 0.05  # seed 000: overrides the executor's timeout
    record = ActionExecutor([tool], timeout=30)("slow_function", "{}")
    assert (record.state, record.errmsg) == (
        ActionStatusCode.TIMEOUT,
        "'slow_function' timed out after 0.05 s",
    )


@pytest.mark.parametrize("executor_class", [ActionExecutor, AsyncActionExecutor], ids=["sync", "async"])
def test_timeout_attribute_set_after_the_executor_is_honoured(
    gate: threading.Event, executor_class: Any
) -> None:
    tool = FunctionTool(make_slow(gate))
    executor = executor_class([tool])
    tool.timeout = 0.05
    call = executor("slow_function", "{}")
    record = asyncio.run(call) if asyncio.iscoroutine(call) else call
    assert (record.state, record.errmsg) == (
        ActionStatusCode.TIMEOUT,
        "'slow_function' timed out after 0.05 s",
    )


def test_deleting_a_setting_returns_it_to_the_executor() -> None:
    tool = FunctionTool(documented, timeout=3)
    assert tool.timeout == 3
    del tool.timeout
    assert tool.timeout is UNSET
    assert tool.__tool_settings__ == ToolSettings()


@pytest.mark.parametrize(
    ("attribute", "value"),
    [
        pytest.param("timeout", 5.0, id="timeout"),
        pytest.param("timeout", None, id="no-timeout"),
        pytest.param("retry", RetryPolicy(max_attempts=2), id="retry"),
        pytest.param("blocking", False, id="blocking"),
        pytest.param("validation", "strict", id="validation"),
    ],
)
def test_setting_attributes_are_the_tools_settings(attribute: str, value: Any) -> None:
    tool = FunctionTool(documented)
    setattr(tool, attribute, value)
    assert getattr(tool, attribute) == value
    assert getattr(tool.__tool_settings__, attribute) == value
    assert attribute not in vars(tool)


@pytest.mark.parametrize(
    ("attribute", "value", "message"),
    [
        pytest.param("timeout", -1, "timeout must be a positive number of seconds or None, got -1", id="timeout"),
        pytest.param("validation", "loose", "validation must be one of ['coerce', 'strict', 'off'], got 'loose'", id="validation"),
        pytest.param("retry", 3, "retry must be a RetryPolicy or None, got 3", id="retry"),
    ],
)  # fmt: skip
def test_invalid_setting_attributes_raise(attribute: str, value: Any, message: str) -> None:
    tool = FunctionTool(documented)
    with pytest.raises(ToolDefinitionError) as raised:
        setattr(tool, attribute, value)
    assert str(raised.value) == f"ToolSettings: {message}"
    assert tool.__tool_settings__ == ToolSettings()


def test_validation_attribute_changes_how_an_executor_reads_arguments() -> None:
    tool = FunctionTool(documented)
    executor = ActionExecutor([tool])
    assert executor("documented", '{"x": "3"}').result == [{"type": "text", "content": "3"}]
    tool.validation = "strict"
    assert executor("documented", '{"x": "3"}').errmsg == "documented: 'x' expected integer, got string '3'"


def test_settings_keywords_are_taken_by_the_constructor() -> None:
    tool = FunctionTool(documented, timeout=2.5, blocking=False)
    assert tool.__tool_settings__ == ToolSettings(timeout=2.5, blocking=False)


# -- BaseAction: attributes named like runtime settings that nothing reads ---------------


def class_body_timeout() -> type:
    class ClassBodyTimeout(BaseAction, register=False):
        timeout = 5.0

        def run(self, text: str) -> str:
            """Echo."""
            return text

    return ClassBodyTimeout


def init_max_retries() -> type:
    class InitMaxRetries(BaseAction, register=False):
        def __init__(self) -> None:
            super().__init__()
            self.max_retries = 3

        def run(self, text: str) -> str:
            """Echo."""
            return text

    return InitMaxRetries


@pytest.mark.parametrize(
    ("define", "message"),
    [
        pytest.param(class_body_timeout, "class_body_timeout.<locals>.ClassBodyTimeout: timeout = 5.0 in the class body is read by nothing in the tool, and the executor does not read it as a runtime setting; to set the tool's timeout, use __tool_settings__ = ToolSettings(timeout=...) or the constructor keyword ClassBodyTimeout(timeout=...)", id="class-body"),
        pytest.param(init_max_retries, "init_max_retries.<locals>.InitMaxRetries: self.max_retries = ... in a method is read by nothing in the tool, and the executor does not read it as a runtime setting; to set the tool's retry, use __tool_settings__ = ToolSettings(retry=...) or the constructor keyword InitMaxRetries(retry=...)", id="init"),
    ],
)  # fmt: skip
def test_unread_setting_attribute_warns_at_definition(define: Callable[[], type], message: str) -> None:
    with pytest.warns(DefinitionWarning) as caught:
        define()
    assert [str(w.message) for w in caught] == [message]


class InstanceTimeout(BaseAction, register=False):
    def run(self, text: str) -> str:
        """Echo."""
        return text


def test_unread_setting_set_on_an_instance_warns_when_an_executor_takes_it() -> None:
    tool = InstanceTimeout()
    tool.timeout = 5.0  # seed 000's idiom, on a class that is not a FunctionTool
    with pytest.warns(DefinitionWarning) as caught:
        ActionExecutor([tool])
    assert [str(w.message) for w in caught] == [
        "InstanceTimeout: the instance attribute timeout = 5.0 is read by nothing in the tool, and the "
        "executor does not read it as a runtime setting; to set the tool's timeout, use "
        "__tool_settings__ = ToolSettings(timeout=...) or the constructor keyword InstanceTimeout(timeout=...)"
    ]


def own_timeout_read_in_run() -> type:
    class OwnTimeout(BaseAction, register=False):
        def __init__(self, timeout: int = 5) -> None:
            super().__init__()
            self.timeout = timeout

        def run(self, command: str) -> str:
            """Run with the tool's own limit."""
            return f"{command} within {self.timeout}"

    return OwnTimeout


def own_retry_read_by_getattr() -> type:
    class OwnRetry(BaseAction, register=False):
        retry = 2

        def run(self) -> str:
            """Report the retries."""
            return str(getattr(self, "retry"))  # noqa: B009 - the read the check must see

    return OwnRetry


def own_timeout_read_by_a_base() -> type:
    class Base:
        def limit(self) -> float:
            return self.timeout * 2

    class Derived(Base, BaseAction, register=False):
        def __init__(self) -> None:
            super().__init__()
            self.timeout = 1.0

        def run(self) -> str:
            """Report the limit."""
            return str(self.limit())

    return Derived


def settings_through_tool_settings() -> type:
    class Configured(BaseAction, register=False):
        __tool_settings__ = ToolSettings(timeout=5.0)

        def run(self) -> str:
            """Run."""
            return "ok"

    return Configured


@pytest.mark.parametrize(
    "define",
    [
        pytest.param(own_timeout_read_in_run, id="read-in-run"),
        pytest.param(own_retry_read_by_getattr, id="read-by-getattr"),
        pytest.param(own_timeout_read_by_a_base, id="read-by-a-base"),
        pytest.param(settings_through_tool_settings, id="tool-settings"),
    ],
)
def test_attributes_the_tool_reads_itself_do_not_warn(define: Callable[[], type]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cls = define()
        ActionExecutor([cls()])
