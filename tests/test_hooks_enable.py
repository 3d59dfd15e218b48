"""Issue 20, item 3: ``enable`` may be a callable, as ``is_enabled`` in the OpenAI Agents SDK.

It is asked each time the tools are described, exported or called: with the call's
``ToolContext`` when there is one (``None`` when describing), or with no argument if it
takes none. ``False`` hides the tool from ``get_actions_info()``, every export and MCP
listings, and refuses calls. A callable that fails disables the tool (logged); one
that cannot be called so, or an ``enable`` that is neither a bool nor a callable, is a
definition error.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Optional, Union

import pytest

from lagent_like import (
    ActionExecutor,
    ActionReturn,
    ActionStatusCode,
    AsyncActionExecutor,
    BaseAction,
    ToolContext,
    tool_api,
)
from lagent_like.exceptions import ToolDefinitionError

Executor = Union[ActionExecutor, AsyncActionExecutor]

EXECUTORS = [
    pytest.param(ActionExecutor, id="sync"),
    pytest.param(AsyncActionExecutor, id="async"),
]


def call(executor: Executor, name: str, command: Any, session_id: Optional[str] = None) -> ActionReturn:
    """One call through either executor."""
    ret = executor(name, command, session_id=session_id, call_id="call_1")
    if isinstance(executor, AsyncActionExecutor):
        ret = asyncio.run(ret)
    assert isinstance(ret, ActionReturn)
    return ret


class Switch:
    """An ``enable`` of no argument that the test flips."""

    def __init__(self, on: bool) -> None:
        self.on = on
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.on


class Vault(BaseAction, register=False):
    """Secrets of the company."""

    def run(self, key: str) -> str:
        """Read a secret.

        Args:
            key: the secret's name
        """
        return f"secret {key}"


class Miles(BaseAction, register=False):
    def run(self, km: float) -> str:
        """Kilometres in miles.

        Args:
            km: the distance in kilometres
        """
        return f"{km * 0.621:.1f} mi"


def listed(executor: Executor) -> dict[str, list[str]]:
    """The names each description and export shows."""
    return {
        "get_actions_info": [d["name"] for d in executor.get_actions_info()],
        "api_names": executor.api_names(),
        "action_names": executor.action_names(),
        "openai": [t["function"]["name"] for t in executor.to_openai_tools()],
        "openai strict": [t["function"]["name"] for t in executor.to_openai_tools(strict=True)],
        "anthropic": [t["name"] for t in executor.to_anthropic_tools()],
        "gemini": [d["name"] for t in executor.to_gemini_tools() for d in t["functionDeclarations"]],
        "mcp": [t["name"] for t in executor.to_mcp_tools()],
    }


VIEWS = (
    "get_actions_info",
    "api_names",
    "action_names",
    "openai",
    "openai strict",
    "anthropic",
    "gemini",
    "mcp",
)


def everywhere(*names: str) -> dict[str, list[str]]:
    """What ``listed`` gives when every view shows ``names``."""
    return {view: list(names) for view in VIEWS}


@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_a_callable_enable_is_asked_each_time_the_tools_are_described_exported_or_called(
    executor_class: type[Executor],
) -> None:
    switch = Switch(on=False)
    executor = executor_class([Vault(enable=switch), Miles()])
    assert listed(executor) == everywhere("Miles")
    refused = call(executor, "Vault", '{"key": "k"}')
    assert refused == ActionReturn(
        args={"inputs": '{"key": "k"}', "name": "Vault"},
        type="InvalidAction",
        errmsg="Tool 'Vault' is disabled. Available tools: Miles.",
        state=ActionStatusCode.API_ERROR,
        valid=refused.valid,
    )
    assert executor.is_valid("Vault") is False
    switch.on = True
    assert listed(executor) == everywhere("Vault", "Miles")
    assert call(executor, "Vault", '{"key": "k"}').result == [{"type": "text", "content": "secret k"}]
    assert executor.is_valid("Vault") is True


def test_a_disabled_call_is_refused_as_one_of_a_tool_disabled_with_false() -> None:
    by_callable = ActionExecutor([Vault(enable=lambda: False), Miles()])
    by_flag = ActionExecutor([Vault(enable=False), Miles()])
    assert call(by_callable, "Vault", '{"key": "k"}') == call(by_flag, "Vault", '{"key": "k"}')


class Kit(BaseAction, register=False):
    """Three APIs."""

    @tool_api
    def a(self) -> str:
        """A."""
        return "a"

    @tool_api
    def b(self) -> str:
        """B."""
        return "b"

    @tool_api
    def c(self) -> str:
        """C."""
        return "c"


def test_the_callable_is_asked_once_per_tool_for_one_description_or_export() -> None:
    switch = Switch(on=True)
    executor = ActionExecutor([Kit(enable=switch)])
    for describe in (executor.get_actions_info, executor.api_names, executor.to_openai_tools):
        switch.asked = 0
        describe()
        assert switch.asked == 1, describe.__name__


@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_a_callable_of_one_argument_gets_the_calls_context_and_none_when_describing(
    executor_class: type[Executor],
) -> None:
    seen: list[Optional[tuple[str, Optional[str], str]]] = []

    def staff_only(context: Optional[ToolContext]) -> bool:
        seen.append(None if context is None else (context.session_id, context.call_id, context.tool_name))
        return context is not None and context.state.get("staff") is True

    executor = executor_class([Vault(enable=staff_only)])
    executor.session_state("desk")["staff"] = True
    assert executor.get_actions_info() == []
    assert call(executor, "Vault", '{"key": "k"}', session_id="desk").result == [
        {"type": "text", "content": "secret k"}
    ]
    assert call(executor, "Vault", '{"key": "k"}', session_id="guest").state == ActionStatusCode.API_ERROR
    # Describing, the two calls, then the refusal listing the tools there are (describing).
    assert seen == [None, ("desk", "call_1", "Vault"), ("guest", "call_1", "Vault"), None]


def test_an_async_batch_on_the_direct_path_asks_the_callable() -> None:
    switch = Switch(on=False)

    class AsyncVault(BaseAction, register=False):
        async def run(self, key: str) -> str:
            """Read a secret.

            Args:
                key: the secret's name
            """
            return f"secret {key}"

    executor = AsyncActionExecutor([AsyncVault(enable=switch)])
    records = asyncio.run(executor.batch([("AsyncVault", {"key": "a"}), ("AsyncVault", {"key": "b"})]))
    assert [r.errmsg for r in records] == ["Tool 'AsyncVault' is disabled. Available tools: none."] * 2


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        pytest.param(1, True, id="truthy int"),
        pytest.param("yes", True, id="non-empty str"),
        pytest.param(0, False, id="zero"),
        pytest.param(None, False, id="None"),
    ],
)
def test_the_callables_answer_is_read_for_its_truth_as_the_agents_sdk_reads_it(
    answer: Any, shown: bool
) -> None:
    executor = ActionExecutor([Vault(enable=lambda: answer)])
    assert executor.api_names() == (["Vault"] if shown else [])
    assert (call(executor, "Vault", '{"key": "k"}').state == ActionStatusCode.SUCCESS) is shown


def _raises() -> bool:
    raise RuntimeError("flag service down")


def _returns_a_coroutine() -> Any:
    async def later() -> bool:
        return True

    return later()


@pytest.mark.parametrize(
    ("check", "error"),
    [
        pytest.param(_raises, "RuntimeError('flag service down')", id="raises"),
        pytest.param(
            _returns_a_coroutine,
            "TypeError('it returned an awaitable; enable must answer at once')",
            id="returns an awaitable",
        ),
    ],
)
def test_a_failing_callable_disables_the_tool_and_is_logged(
    check: Callable[[], Any], error: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="lagent_like")
    executor = ActionExecutor([Vault(enable=check), Miles()])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "coroutine was never awaited"
        assert executor.api_names() == ["Miles"]
        ret = call(executor, "Vault", '{"key": "k"}')
    assert ret.errmsg == "Tool 'Vault' is disabled. Available tools: Miles."
    logged = [(r.getMessage(), repr(r.exc_info[1])) for r in caplog.records if r.exc_info]
    assert logged and set(logged) == {("the enable check of Vault failed; the tool is disabled", error)}


def test_enable_and_disable_replace_the_callable() -> None:
    vault = Vault(enable=lambda: False)
    executor = ActionExecutor([vault])
    executor.enable("Vault")
    assert vault.enable is True
    assert call(executor, "Vault", '{"key": "k"}').state == ActionStatusCode.SUCCESS
    executor.disable("Vault")
    assert executor.api_names() == []


def test_reading_enable_asks_the_callable_without_a_context() -> None:
    asked: list[Any] = []

    def check(context: Any = "unset") -> bool:
        asked.append(context)
        return True

    vault = Vault(enable=check)
    assert vault.enable is True
    assert asked == [None]
    assert repr(vault).startswith("<Vault name='Vault' enable=<function ")


def _never(context: Any) -> bool:
    return False


def test_a_tool_with_a_module_level_enable_callable_pickles() -> None:
    copy = pickle.loads(pickle.dumps(Vault(enable=_never)))
    assert copy.enable is False
    assert ActionExecutor([copy]).api_names() == []


async def _async_check() -> bool:
    return True


@pytest.mark.parametrize(
    ("enable", "message"),
    [
        pytest.param(
            "yes",
            r"^Vault: enable must be True, False or a callable taking the call's ToolContext "
            r"\(or no argument\), got str 'yes'$",
            id="str",
        ),
        pytest.param(1, r"^Vault: enable must be .*, got int 1$", id="int"),
        pytest.param(None, r"^Vault: enable must be .*, got NoneType None$", id="None"),
        pytest.param(
            lambda a, b: True,
            r"^Vault: enable must be .*; <function <lambda> at .*> cannot be called as enable\(context\): "
            r"missing a required argument: 'b'$",
            id="two parameters",
        ),
        pytest.param(
            _async_check,
            r"^Vault: enable must be .*; <function _async_check at .*> is async, but tools are described "
            r"synchronously$",
            id="async def",
        ),
    ],
)
def test_an_enable_that_is_not_a_bool_or_a_fitting_callable_is_a_definition_error(
    enable: Any, message: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        Vault(enable=enable)
    vault = Vault()
    with pytest.raises(ToolDefinitionError, match=message):
        vault.enable = enable
    assert vault.enable is True


def test_an_mcp_server_lists_and_runs_a_tool_only_while_its_callable_says_so() -> None:
    pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
    import anyio
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    from lagent_like.mcp import build_mcp_server

    switch = Switch(on=False)
    executor = ActionExecutor([Vault(enable=switch), Miles()])
    server = build_mcp_server(executor)

    async def session() -> list[Any]:
        seen: list[Any] = []
        with anyio.fail_after(30):
            async with Client(server) as client:
                seen.append([t.name for t in (await client.list_tools()).tools])
                with pytest.raises(MCPError, match="unknown tool 'Vault'"):
                    await client.call_tool("Vault", {"key": "k"})
                switch.on = True
                seen.append([t.name for t in (await client.list_tools()).tools])
                result = await client.call_tool("Vault", {"key": "k"})
                seen.append([block.text for block in result.content])
        return seen

    assert anyio.run(session) == [["Miles"], ["Vault", "Miles"], ["secret k"]]


def _staff_only(context: Optional[ToolContext]) -> bool:
    return context is None or context.state.get("staff") is True


@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_a_call_refused_by_its_context_does_not_list_the_tool_as_available(
    executor_class: type[Executor],
) -> None:
    executor = executor_class([Vault(enable=_staff_only), Miles()])
    assert executor.api_names() == ["Vault", "Miles"]
    ret = call(executor, "Vault", '{"key": "k"}', session_id="guest")
    assert ret.errmsg == "Tool 'Vault' is disabled. Available tools: Miles."


def test_an_mcp_toolkit_keeps_its_enable_callable_when_the_server_changes_its_tools(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
    from lagent_like.mcp import MCPToolkit

    switch = Switch(on=True)
    server = Path(__file__).resolve().parent / "mcp_sdk_server.py"
    with (
        (tmp_path / "stderr.txt").open("w") as errlog,
        MCPToolkit(
            sys.executable,
            [str(server), str(tmp_path / "generation")],
            name="Odd",
            timeout=30,
            errlog=errlog,
            enable=switch,
        ) as toolkit,
    ):
        executor = ActionExecutor([toolkit])
        toolkit.on_tools_changed(executor.refresh)
        assert call(executor, "Odd.grow", "{}").format_result() == "grown"  # the server adds 'extra'
        deadline = time.monotonic() + 30
        while "extra" not in toolkit.tool_names and time.monotonic() < deadline:
            time.sleep(0.02)
        assert "Odd.extra" in executor.api_names()
        switch.on = False
        assert executor.api_names() == []
        assert (
            call(executor, "Odd.extra", "{}").errmsg == "Tool 'Odd.extra' is disabled. Available tools: none."
        )
