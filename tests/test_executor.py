"""``ActionExecutor``: describing tools for prompts and routing a model's calls."""

from __future__ import annotations

import pytest

from lagent_like import (
    ActionExecutor,
    ActionStatusCode,
    ActionValidCode,
    BaseAction,
    FinishAction,
    InvalidAction,
    NoAction,
    ToolDefinitionError,
    ToolNotFoundError,
    tool_api,
)

PARAMETER_DESCRIPTION = "If you call this tool, you must pass arguments in the JSON format {key: value}, where the key is the parameter name."


class ExecWeather(BaseAction):
    """Weather look-ups."""

    @tool_api
    def current(self, city: str) -> str:
        """Current weather of a city.

        Args:
            city: city name
        """
        return f"sunny in {city}"

    @tool_api
    def forecast(self, city: str, days: int = 3) -> str:
        """Forecast.

        Args:
            city: city name
            days: how many days
        """
        return f"{days} days of rain in {city}"


class ExecEcho(BaseAction):
    def run(self, text: str) -> str:
        """Repeat the text.

        Args:
            text: what to repeat
        """
        return text


def make_executor() -> ActionExecutor:
    return ActionExecutor(actions=[ExecWeather(), ExecEcho()])


def test_get_actions_info_flattens_toolkits_into_tool_dot_api_entries() -> None:
    assert make_executor().get_actions_info() == [
        {
            "name": "ExecWeather.current",
            "description": "Current weather of a city.",
            "parameters": [{"name": "city", "type": "STRING", "description": "city name"}],
            "required": ["city"],
            "parameter_description": PARAMETER_DESCRIPTION,
        },
        {
            "name": "ExecWeather.forecast",
            "description": "Forecast.",
            "parameters": [
                {"name": "city", "type": "STRING", "description": "city name"},
                {"name": "days", "type": "NUMBER", "description": "how many days"},
            ],
            "required": ["city"],
            "parameter_description": PARAMETER_DESCRIPTION,
        },
        {
            "name": "ExecEcho",
            "description": "Repeat the text.",
            "parameters": [{"name": "text", "type": "STRING", "description": "what to repeat"}],
            "required": ["text"],
            "parameter_description": PARAMETER_DESCRIPTION,
        },
    ]


def test_get_actions_info_returns_copies() -> None:
    executor = make_executor()
    info = executor.get_actions_info()
    # Inside an entry the values are shared and read-only (issue 25: no deep copy per call).
    with pytest.raises(TypeError, match=r"read-only; edit a copy made with copy\.deepcopy\(\)"):
        info[0]["parameters"][0]["name"] = "changed"
    info[2]["description"] = "changed"
    assert executor.get_actions_info()[0]["parameters"][0]["name"] == "city"
    assert executor.actions["ExecEcho"].description["description"] == "Repeat the text."


def test_get_actions_info_leaves_out_disabled_tools() -> None:
    executor = make_executor()
    executor.actions["ExecWeather"].enable = False
    assert [entry["name"] for entry in executor.get_actions_info()] == ["ExecEcho"]


@pytest.mark.parametrize(
    ("name", "command", "content"),
    [
        pytest.param("ExecWeather.current", '{"city": "Oslo"}', "sunny in Oslo", id="toolkit-api"),
        pytest.param(
            "ExecWeather.forecast", '{"city": "Oslo", "days": 2}', "2 days of rain in Oslo", id="default"
        ),
        pytest.param("ExecEcho", '{"text": "hi"}', "hi", id="simple-tool"),
        pytest.param("ExecEcho.run", '{"text": "hi"}', "hi", id="simple-tool-run"),
    ],
)
def test_executor_runs_known_tools_with_valid_open(name: str, command: str, content: str) -> None:
    ret = make_executor()(name, command)
    assert ret.state == ActionStatusCode.SUCCESS
    assert ret.valid == ActionValidCode.OPEN
    assert ret.format_result() == content


def test_unknown_tool_goes_to_invalid_action_naming_it_and_the_available_ones() -> None:
    ret = make_executor()("ExecWether.current", '{"city": "Oslo"}')
    assert ret.type == "InvalidAction"
    assert ret.valid == ActionValidCode.INVALID
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == (
        "Unknown tool 'ExecWether.current'. Did you mean 'ExecWeather.current' or 'ExecWeather.forecast'? "
        "Available tools: ExecWeather.current, ExecWeather.forecast, ExecEcho."
    )
    assert ret.args == {"inputs": '{"city": "Oslo"}', "name": "ExecWether.current"}


def test_disabled_tool_is_invalid_and_says_so() -> None:
    executor = make_executor()
    executor.actions["ExecEcho"].enable = False
    ret = executor("ExecEcho", '{"text": "hi"}')
    assert ret.valid == ActionValidCode.INVALID
    assert (
        ret.errmsg
        == "Tool 'ExecEcho' is disabled. Available tools: ExecWeather.current, ExecWeather.forecast."
    )


class SwitchedEcho(ExecEcho):
    """An echo whose class decides for itself whether it is on."""

    switched_on = True

    @property
    def enable(self) -> bool:
        return self.switched_on

    @enable.setter
    def enable(self, value: bool) -> None:
        pass


def test_a_tool_class_that_redefines_enable_is_asked_on_every_call() -> None:
    tool = SwitchedEcho()
    executor = ActionExecutor([tool])
    assert executor("SwitchedEcho", '{"text": "hi"}').result == [{"type": "text", "content": "hi"}]
    tool.switched_on = False
    ret = executor("SwitchedEcho", '{"text": "hi"}')
    assert (ret.valid, ret.errmsg) == (
        ActionValidCode.INVALID,
        "Tool 'SwitchedEcho' is disabled. Available tools: none.",
    )


def test_unknown_api_of_a_known_toolkit_is_an_api_error_with_valid_open() -> None:
    ret = make_executor()("ExecWeather.history", "{}")
    assert ret.type == "ExecWeather"
    assert (ret.state, ret.valid) == (ActionStatusCode.API_ERROR, ActionValidCode.OPEN)
    assert ret.errmsg == (
        "ExecWeather has no API 'history'. Call one of: ExecWeather.current, ExecWeather.forecast"
    )


def test_no_action_name_goes_to_no_action() -> None:
    ret = make_executor()("NoAction", "")
    assert ret.type == "NoAction"
    assert ret.valid == ActionValidCode.INVALID
    assert ret.errmsg == "Please follow the format"


@pytest.mark.parametrize(
    "command",
    [
        pytest.param("The answer is 42.", id="text"),
        pytest.param('{"response": "The answer is 42."}', id="json"),
        pytest.param({"response": "The answer is 42."}, id="dict"),
    ],
)
def test_finish_action_ends_with_the_answer(command: object) -> None:
    ret = make_executor()("FinishAction", command)
    assert ret.valid == ActionValidCode.FINISH
    assert ret.state == ActionStatusCode.SUCCESS
    assert ret.format_result() == "The answer is 42."


def test_finish_in_action_offers_finish_to_the_model() -> None:
    executor = ActionExecutor([ExecEcho()], finish_in_action=True)
    assert [entry["name"] for entry in executor.get_actions_info()] == ["ExecEcho", "FinishAction"]
    assert executor("FinishAction", "done").valid == ActionValidCode.FINISH


def test_custom_builtin_actions_are_used() -> None:
    executor = ActionExecutor(
        [ExecEcho()],
        invalid_action=InvalidAction(err_msg="no such tool"),
        no_action=NoAction(err_msg="use Action:"),
        finish_action=FinishAction(),
    )
    assert executor("NoAction", "").errmsg == "use Action:"
    assert executor("Missing", "").errmsg == "Unknown tool 'Missing'. Available tools: ExecEcho."


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        pytest.param("ExecEcho", True, id="simple"),
        pytest.param("ExecWeather", True, id="toolkit"),
        pytest.param("ExecWeather.current", True, id="api"),
        pytest.param("Nope", False, id="unknown"),
    ],
)
def test_is_valid(name: str, valid: bool) -> None:
    assert make_executor().is_valid(name) is valid


def test_action_names_and_contains() -> None:
    executor = make_executor()
    executor.actions["ExecEcho"].enable = False
    assert executor.action_names() == ["ExecWeather"]
    assert executor.action_names(only_enable=False) == ["ExecWeather", "ExecEcho"]
    assert "ExecEcho" in executor
    assert "ExecWeather.current" in executor
    assert "Nope" not in executor
    assert executor.is_valid("ExecEcho") is False


def test_add_action_replaces_a_tool_of_the_same_name() -> None:
    class ExecEchoLoud(ExecEcho, register=False):
        __tool_name__ = "ExecEcho"

        def run(self, text: str) -> str:
            """Repeat loudly."""
            return text.upper()

    executor = make_executor()
    executor.add_action(ExecEchoLoud())
    assert executor("ExecEcho", '{"text": "hi"}').format_result() == "HI"
    assert executor.action_names() == ["ExecWeather", "ExecEcho"]


def test_del_action_removes_a_tool() -> None:
    executor = make_executor()
    executor.del_action("ExecWeather")
    assert executor("ExecWeather.current", '{"city": "x"}').valid == ActionValidCode.INVALID
    with pytest.raises(ToolNotFoundError, match=r"^no tool named 'ExecWeather' in this executor$"):
        executor.del_action("ExecWeather")
    with pytest.raises(
        ToolNotFoundError, match=r"^no tool named 'ExecEco' in this executor; did you mean 'ExecEcho'\?$"
    ):
        executor.del_action("ExecEco")


def test_duplicate_names_in_the_constructor_raise() -> None:
    with pytest.raises(
        ToolDefinitionError, match=r"^ActionExecutor: several actions are named \['ExecEcho'\]"
    ):
        ActionExecutor([ExecEcho(), ExecEcho()])


def test_a_class_instead_of_an_instance_is_reported() -> None:
    with pytest.raises(
        ToolDefinitionError,
        match=r"actions\[0\] is the class ExecEcho; pass an instance, e\.g\. ExecEcho\(\)",
    ):
        ActionExecutor([ExecEcho])  # type: ignore[list-item]


def test_add_action_refuses_non_actions() -> None:
    with pytest.raises(
        ToolDefinitionError,
        match="add_action is str 'ExecEcho', expected a BaseAction instance or a function",
    ):
        make_executor().add_action("ExecEcho")  # type: ignore[arg-type]


def test_constructor_does_not_mutate_the_given_list() -> None:
    actions: list[BaseAction] = [ExecEcho()]
    ActionExecutor(actions, finish_in_action=True)
    assert len(actions) == 1
