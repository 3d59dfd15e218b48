"""Facts with one home: the option list of ``tool_api``, the validation modes, the argument limit, API lookups."""

from __future__ import annotations

from typing import Any

import pytest

from lagent_like import ActionExecutor, BaseAction, ToolDefinitionError, ToolSettings, tool_api
from lagent_like.spec._api_spec import DEFAULT_OPTIONS, DescribeOptions
from lagent_like.toolkits._tool_api import api_spec_of


def test_tool_api_options_are_the_fields_of_describe_options() -> None:
    @tool_api(include_arguments="city", annotations={"readOnlyHint": True})
    def weather(city: str, unit: str = "C") -> str:
        """Weather.

        Args:
            city: the city.
            unit: the unit.
        """
        return city

    spec = api_spec_of(weather)
    assert spec is not None
    assert spec.options == DescribeOptions(include_arguments=["city"], annotations={"readOnlyHint": True})
    assert [p.name for p in spec.params] == ["city"]


def test_tool_api_with_only_default_options_shares_the_bare_options() -> None:
    @tool_api(explode_return=False, validation=None)
    def ping() -> str:
        """Ping."""
        return "pong"

    spec = api_spec_of(ping)
    assert spec is not None and spec.options is DEFAULT_OPTIONS


def test_an_unknown_tool_api_keyword_is_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match=r"^tool_api\(\) got an unexpected keyword argument 'explode'$"):
        tool_api(explode=True)


@pytest.mark.parametrize(
    ("make", "owner"),
    [
        pytest.param(lambda: tool_api(validation="lax"), "tool_api", id="tool_api"),
        pytest.param(lambda: ToolSettings(validation="lax"), "ToolSettings", id="ToolSettings"),
        pytest.param(lambda: ActionExecutor([], validation="lax"), "ActionExecutor", id="executor"),
    ],
)
def test_every_place_refuses_an_unknown_validation_mode_in_the_same_words(make: Any, owner: str) -> None:
    with pytest.raises(
        ToolDefinitionError,
        match=rf"^{owner}.*validation must be one of \['coerce', 'strict', 'off'\], got 'lax'",
    ):
        make()


class HomeKit(BaseAction):
    """Two APIs, one of them off for now."""

    @tool_api
    def ping(self) -> str:
        """Ping."""
        return "pong"


class HomeOff(BaseAction):
    """A simple tool, disabled."""

    @tool_api
    def run(self) -> str:
        """Run."""
        return "ran"


def test_api_of_names_the_action_and_key_of_an_enabled_api_only() -> None:
    kit, off = HomeKit(), HomeOff(enable=False)
    executor = ActionExecutor([kit, off])
    assert executor.api_of("HomeKit.ping") == (kit, "ping")
    assert executor.api_of("HomeKit__ping") == (kit, "ping")  # the function-calling alias
    assert executor.api_of("HomeKit") is None  # a toolkit's own name is not an API
    assert executor.api_of("HomeOff") is None  # disabled
    assert executor.api_of("Nothing") is None


class HomeEcho(BaseAction):
    """Echoes text."""

    @tool_api
    def run(self, text: str) -> str:
        """Echo.

        Args:
            text: what to echo.
        """
        return text


def test_the_mcp_server_takes_the_executors_argument_limit_by_default() -> None:
    pytest.importorskip("mcp", reason="needs the optional 'mcp' SDK: pip install 'lagent-like[mcp]'")
    import anyio
    from mcp import Client

    from lagent_like.mcp import build_mcp_server

    server = build_mcp_server(ActionExecutor([HomeEcho()], max_argument_chars=40))

    async def call() -> Any:
        with anyio.fail_after(30):
            async with Client(server) as client:
                return await client.call_tool("HomeEcho", {"text": "x" * 100})

    big = anyio.run(call)
    assert big.is_error
    assert big.content[0].text == "the arguments are 112 characters of JSON; this server accepts at most 40"
