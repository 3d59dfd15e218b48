"""MCP both ways: our server against the SDK's client, our client against SDK and our servers.

Servers run as subprocesses (``python -m lagent_like -m mcp_tools serve-mcp``) over
stdio, or on 127.0.0.1 with a free port over streamable HTTP; every test bounds its
waits and stops what it started.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _servers import RAW_INITIALIZE, raw_stdio_server, start_announced, stop

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import anyio
import mcp_tools
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from lagent_like import ActionExecutor, ActionStatusCode, AsyncActionExecutor
from lagent_like.mcp import MCPConnectionError, MCPToolkit, build_mcp_server
from lagent_like.mcp._sdk import require_mcp

TESTS = Path(__file__).resolve().parent
#: The server subprocesses import the test tools from here.
ENV = {"PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
TOOLS = "McpCalc,McpEcho,McpRoute"
SERVE = ["-m", "lagent_like", "-m", "mcp_tools", "serve-mcp", "--tools", TOOLS]
AUTH = {"Authorization": f"Bearer {mcp_tools.TOKEN}"}
#: Seconds any one test may wait for a server.
LIMIT = 30


def _executor() -> ActionExecutor:
    return ActionExecutor([mcp_tools.McpCalc(), mcp_tools.McpEcho(), mcp_tools.McpRoute()])


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


# -- our server, the SDK's client -----------------------------------------------------


def test_stdio_server_lists_exactly_the_executor_mcp_tools() -> None:
    async def listed() -> list[dict[str, Any]]:
        params = StdioServerParameters(command=sys.executable, args=SERVE, env=ENV)
        with anyio.fail_after(LIMIT):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                tools = (await session.list_tools()).tools
                call = await session.call_tool("McpCalc__add", {"a": 2, "b": 5})
                assert (call.is_error, _text(call)) == (False, "7")
        return [t.model_dump(by_alias=True, exclude_none=True) for t in tools]

    assert anyio.run(listed) == _executor().to_mcp_tools()


def _exchange(proc: subprocess.Popen[bytes], message: str) -> Any:
    """Send one line to a stdio server; its answer (``None`` when none is due)."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(message.encode() + b"\n")
    proc.stdin.flush()
    if '"id"' not in message:
        return None
    ready, _, _ = select.select([proc.stdout], [], [], LIMIT)
    assert ready, f"no answer to {message[:80]}"
    return json.loads(proc.stdout.readline())


def _summary(answer: Any) -> Any:
    if answer is None or "error" in answer:
        return answer and (answer["id"], answer["error"]["code"])
    result = answer["result"]
    if "content" in result:
        return answer["id"], result["isError"], result["content"][0]["text"][:40]
    return answer["id"], sorted(result)


def test_stdio_server_survives_protocol_errors() -> None:
    proc = raw_stdio_server(SERVE, {**os.environ, **ENV})
    messages: list[Any] = [
        "this is not JSON",
        {"id": 0, "method": "tools/list"},
        {"id": 1, "method": "initialize", "params": RAW_INITIALIZE},
        {"method": "notifications/initialized"},
        {"id": 2, "method": "tools/call", "params": {"name": "McpEcho", "arguments": "not an object"}},
        {"id": 3, "method": "no/such/method"},
        {
            "id": 4,
            "method": "tools/call",
            "params": {"name": "McpEcho", "arguments": {"text": "x" * 2_000_000}},
        },
        {"id": 5, "method": "tools/call", "params": {"name": "Nope", "arguments": {}}},
        {"id": 6, "method": "tools/call", "params": {"name": "McpEcho", "arguments": {"text": "alive"}}},
    ]
    try:
        answers = [
            _summary(_exchange(proc, m if isinstance(m, str) else json.dumps({"jsonrpc": "2.0", **m})))
            for m in messages
        ]
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.wait(LIMIT)
        proc.stdout.close()
    assert answers == [
        None,
        (0, -32602),
        (1, ["capabilities", "protocolVersion", "serverInfo"]),
        None,
        (2, -32602),
        (3, -32601),
        (4, True, "the arguments are 2000012 characters of "),
        (5, -32602),
        (6, False, "ALIVE"),
    ]
    assert proc.returncode == 0


@pytest.mark.parametrize(
    ("name", "arguments", "is_error", "text"),
    [
        pytest.param("McpCalc__add", {"a": 2, "b": 5}, False, "7", id="alias"),
        pytest.param("McpCalc.add", {"a": 2}, False, "3", id="canonical-name-and-default"),
        pytest.param(
            "McpCalc__add",
            {"a": "x"},
            True,
            "McpCalc__add: 'a' expected integer, got string 'x'",
            id="invalid-argument",
        ),
        pytest.param(
            "McpCalc__add",
            {"a": 1, "c": 2},
            True,
            "McpCalc__add: 'c' is not a parameter; parameters: a, b",
            id="unknown-argument",
        ),
        pytest.param("McpCalc__add", {}, True, "McpCalc__add: 'a' is required", id="missing-argument"),
        pytest.param("McpCalc__fail", {"message": "boom"}, True, "boom", id="tool-error"),
        pytest.param(
            "McpEcho",
            {"text": "Hi", "case": "lower", "tags": ["a", "b"]},
            False,
            "hi [a] [b]",
            id="simple-tool",
        ),
        pytest.param(
            "McpEcho",
            {"text": "Hi", "case": "title"},
            True,
            "McpEcho: 'case' expected one of ['upper', 'lower'], got string 'title'",
            id="enum",
        ),
        pytest.param(
            "McpCalc__scale",
            {"point": {"x": 1, "y": 2}, "box": {"width": 2, "height": 3}},
            False,
            '{"x": 2.0, "y": 4.0, "area": 24.0}',
            id="nested-objects",
        ),
        pytest.param(
            "McpRoute",
            {"origin": {"name": "A"}, "destination": {"name": "B", "kind": "port"}, "mode": "train"},
            False,
            "A -> B by train",
            id="schema-tool-with-ref",
        ),
        pytest.param(
            "McpRoute",
            {"origin": {"name": "A", "kind": "moon"}, "destination": {"name": "B"}},
            True,
            "McpRoute: 'origin.kind' expected one of ['city', 'port', 'airport'], got string 'moon'",
            id="ref-enum",
        ),
    ],
)
def test_server_call_results(name: str, arguments: dict[str, Any], is_error: bool, text: str) -> None:
    async def call() -> Any:
        with anyio.fail_after(LIMIT):
            async with Client(build_mcp_server(_executor())) as client:
                return await client.call_tool(name, arguments)

    result = anyio.run(call)
    assert (result.is_error, _text(result)) == (is_error, text)


@pytest.mark.parametrize("executor_class", [ActionExecutor, AsyncActionExecutor])
@pytest.mark.parametrize("name", ["Nope", "McpEcho.run.x", "McpCalc"])
def test_server_answers_unknown_tools_with_an_mcp_error(executor_class: type, name: str) -> None:
    server = build_mcp_server(executor_class([mcp_tools.McpCalc(), mcp_tools.McpEcho()]))

    async def call() -> None:
        with anyio.fail_after(LIMIT):
            async with Client(server) as client:
                with pytest.raises(
                    MCPError, match=re.escape(f"unknown tool {name!r}; call tools/list for the tools")
                ):
                    await client.call_tool(name, {})

    anyio.run(call)


def test_server_follows_enable_disable_and_add_at_run_time() -> None:
    executor = ActionExecutor([mcp_tools.McpCalc()])
    server = build_mcp_server(executor)

    async def session() -> list[list[str]]:
        seen = []
        with anyio.fail_after(LIMIT):
            async with Client(server) as client:
                seen.append([t.name for t in (await client.list_tools()).tools])
                executor.disable("McpCalc")
                seen.append([t.name for t in (await client.list_tools()).tools])
                with pytest.raises(MCPError, match="unknown tool 'McpCalc__add'"):
                    await client.call_tool("McpCalc__add", {"a": 1})
                executor.enable("McpCalc")
                executor.add_action(mcp_tools.McpEcho())
                seen.append([t.name for t in (await client.list_tools()).tools])
                result = await client.call_tool("McpEcho", {"text": "ok"})
                seen.append([_text(result)])
        return seen

    assert anyio.run(session) == [
        ["McpCalc__add", "McpCalc__scale", "McpCalc__fail", "McpCalc__pid"],
        [],
        ["McpCalc__add", "McpCalc__scale", "McpCalc__fail", "McpCalc__pid", "McpEcho"],
        ["OK"],
    ]


@pytest.mark.parametrize("executor_class", [ActionExecutor, AsyncActionExecutor])
def test_server_gives_each_connection_its_own_tool_context(executor_class: type) -> None:
    executor = executor_class([mcp_tools.McpCounter()])
    server = build_mcp_server(executor)

    async def two_clients() -> list[str]:
        with anyio.fail_after(LIMIT):
            async with Client(server, mode="legacy") as first, Client(server, mode="legacy") as second:
                calls = [first, first, second, first]
                return [_text(await client.call_tool("McpCounter", {})) for client in calls]

    answers = anyio.run(two_clients)
    assert [re.sub(r"request \S+\)", "request ID)", a) for a in answers] == [
        "mcp-1 call 1 (request ID)",
        "mcp-1 call 2 (request ID)",
        "mcp-2 call 1 (request ID)",
        "mcp-1 call 3 (request ID)",
    ]
    assert all(re.search(r"request [^N]", a) for a in answers)


def test_server_refuses_oversized_arguments_with_an_error_result() -> None:
    server = build_mcp_server(_executor(), max_argument_chars=40)

    async def call() -> Any:
        with anyio.fail_after(LIMIT):
            async with Client(server) as client:
                big = await client.call_tool("McpEcho", {"text": "x" * 100})
                small = await client.call_tool("McpEcho", {"text": "y"})
                return big, small

    big, small = anyio.run(call)
    assert (big.is_error, _text(big)) == (
        True,
        "the arguments are 112 characters of JSON; this server accepts at most 40",
    )
    assert (small.is_error, _text(small)) == (False, "Y")


def test_server_runs_async_executor_hooks_and_policies() -> None:
    executor = AsyncActionExecutor([mcp_tools.McpCalc()])
    seen: list[str] = []

    class Recorder:
        def before_action(self, name: str, args: dict[str, Any], context: Any) -> None:
            seen.append(f"{name} {args}")

    executor.register_hook(Recorder())

    async def call() -> Any:
        with anyio.fail_after(LIMIT):
            async with Client(build_mcp_server(executor)) as client:
                return await client.call_tool("McpCalc__add", {"a": 40, "b": 2})

    result = anyio.run(call)
    assert (result.is_error, _text(result), seen) == (False, "42", ["McpCalc.add {'a': 40, 'b': 2}"])


# -- HTTP -------------------------------------------------------------------------


def _start_http_server(port: int = 0) -> tuple[subprocess.Popen[bytes], str]:
    """A ``serve-mcp --transport http`` subprocess (token ``mcp_tools.TOKEN``) and its URL."""
    command = [sys.executable, *SERVE, "--transport", "http", "--host", "127.0.0.1", "--port", str(port)]
    env = {**os.environ, **ENV, "LAGENT_LIKE_MCP_TOKEN": mcp_tools.TOKEN}
    return start_announced(command, env, what="the HTTP server")


@pytest.fixture
def http_server() -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    proc, url = _start_http_server()
    yield proc, url
    stop(proc)


def test_http_server_serves_the_sdk_client(http_server: tuple[subprocess.Popen[bytes], str]) -> None:
    _, url = http_server

    async def session() -> tuple[list[dict[str, Any]], Any, Any]:
        with anyio.fail_after(LIMIT):
            async with (
                create_mcp_http_client(headers=AUTH) as http,
                streamable_http_client(url, http_client=http) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                tools = (await client.list_tools()).tools
                good = await client.call_tool("McpEcho", {"text": "web"})
                bad = await client.call_tool("McpCalc__fail", {"message": "no"})
        return [t.model_dump(by_alias=True, exclude_none=True) for t in tools], good, bad

    tools, good, bad = anyio.run(session)
    assert tools == _executor().to_mcp_tools()
    assert [(good.is_error, _text(good)), (bad.is_error, _text(bad))] == [(False, "WEB"), (True, "no")]


def test_http_toolkit_reports_a_dead_server_then_reconnects() -> None:
    proc, url = _start_http_server()
    port = int(url.split(":")[2].split("/")[0])
    try:
        with MCPToolkit(url=url, timeout=10, token=mcp_tools.TOKEN) as toolkit:
            executor = ActionExecutor([toolkit])
            first = executor("MCP.McpCalc__pid", "{}")
            stop(proc)
            lost = executor("MCP.McpCalc__add", '{"a": 1}')
            proc, _ = _start_http_server(port)
            again = executor("MCP.McpCalc__pid", "{}")
    finally:
        stop(proc)
    assert first.state == ActionStatusCode.SUCCESS
    assert (lost.state, lost.result, lost.errmsg) == (
        ActionStatusCode.HTTP_ERROR,
        None,
        f"the connection to the MCP server {url} was lost",
    )
    assert (again.state, again.errmsg, again.format_result()) == (
        ActionStatusCode.SUCCESS,
        None,
        str(proc.pid),
    )


# -- our client -------------------------------------------------------------------


@pytest.fixture(scope="module")
def toolkit() -> Iterator[MCPToolkit]:
    # One server for the module: these tests only read and call.
    with MCPToolkit(sys.executable, SERVE, env=ENV, timeout=LIMIT) as made:
        yield made


def test_toolkit_schemas_survive_the_round_trip(toolkit: MCPToolkit) -> None:
    local = _executor()
    remote = ActionExecutor([toolkit])
    served = {t["name"]: t["inputSchema"] for t in local.to_mcp_tools()}
    assert toolkit.tool_names == list(served)
    assert {name: toolkit.json_schema(name) for name in served} == served
    assert remote.to_openai_tools() == [
        {
            "type": "function",
            "function": {
                "name": f"MCP__{t['name']}",
                "description": t["description"],
                "parameters": t["inputSchema"],
            },
        }
        for t in local.to_mcp_tools()
    ]
    remote_apis = remote.get_actions_info()
    local_apis = {api["name"]: api for api in local.get_actions_info()}
    assert [api["name"] for api in remote_apis] == [f"MCP.{name}" for name in served]
    route = next(api for api in remote_apis if api["name"] == "MCP.McpRoute")
    assert {k: route[k] for k in ("description", "parameters", "required")} == {
        k: local_apis["McpRoute"][k] for k in ("description", "parameters", "required")
    }


@pytest.mark.parametrize(
    ("name", "command", "state", "output"),
    [
        pytest.param("MCP.McpCalc__add", '{"a": 2, "b": 5}', ActionStatusCode.SUCCESS, "7", id="success"),
        pytest.param("MCP__McpCalc__add", {"a": 2}, ActionStatusCode.SUCCESS, "3", id="alias"),
        pytest.param(
            "MCP.McpCalc__add",
            '{"a": "x"}',
            ActionStatusCode.ARGS_ERROR,
            "MCP.McpCalc__add: 'a' expected integer, got string 'x'",
            id="checked-locally",
        ),
        pytest.param(
            "MCP.McpCalc__fail", '{"message": "boom"}', ActionStatusCode.API_ERROR, "boom", id="is-error"
        ),
        pytest.param(
            "MCP.McpRoute",
            {"origin": {"name": "A"}, "destination": {"name": "B"}},
            ActionStatusCode.SUCCESS,
            "A -> B by car",
            id="ref-schema",
        ),
        pytest.param(
            "MCP.McpEcho", '{"text": "hey", "tags": ["x"]}', ActionStatusCode.SUCCESS, "HEY [x]", id="simple"
        ),
    ],
)
def test_toolkit_calls_through_an_executor(
    toolkit: MCPToolkit, name: str, command: Any, state: ActionStatusCode, output: str
) -> None:
    ret = ActionExecutor([toolkit])(name, command)
    assert (ret.state, ret.format_result() or ret.errmsg) == (state, output)


def test_toolkit_serves_concurrent_calls_from_an_async_executor(toolkit: MCPToolkit) -> None:
    executor = AsyncActionExecutor([toolkit])
    calls = [("MCP.McpEcho", {"text": f"call {i}"}) for i in range(12)]

    async def batch() -> list[str]:
        with anyio.fail_after(LIMIT):
            return [ret.format_result() for ret in await executor.batch(calls)]

    assert anyio.run(batch) == [f"CALL {i}" for i in range(12)]


def test_toolkit_forwards_unknown_tools_as_api_errors(toolkit: MCPToolkit) -> None:
    ret = toolkit.call_tool("Nope", {})
    assert (ret.state, ret.errmsg) == (
        ActionStatusCode.API_ERROR,
        "the MCP server refused the call: unknown tool 'Nope'; call tools/list for the tools",
    )


def test_toolkit_reports_a_killed_server_then_reconnects() -> None:
    with MCPToolkit(sys.executable, SERVE, env=ENV, timeout=LIMIT) as toolkit:
        _kill_and_reconnect(toolkit)


def _kill_and_reconnect(toolkit: MCPToolkit) -> None:
    executor = ActionExecutor([toolkit])
    pid = int(executor("MCP.McpCalc__pid", "{}").format_result())
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + LIMIT
    lost = executor("MCP.McpCalc__add", '{"a": 1}')
    again = executor("MCP.McpCalc__add", '{"a": 1}')
    new_pid = int(executor("MCP.McpCalc__pid", "{}").format_result())
    assert time.monotonic() < deadline
    assert (lost.state, lost.errmsg) == (
        ActionStatusCode.HTTP_ERROR,
        f"the connection to the MCP server {sys.executable} {' '.join(SERVE)} was lost",
    )
    assert (again.state, again.format_result()) == (ActionStatusCode.SUCCESS, "2")
    assert new_pid != pid


def test_toolkit_gives_timeout_records_for_slow_tools() -> None:
    serve = [*SERVE[:-1], "McpSlow"]
    with MCPToolkit(sys.executable, serve, env=ENV, timeout=0.5) as toolkit:
        executor = ActionExecutor([toolkit])
        slow = executor("MCP.McpSlow", '{"seconds": 3}')
        quick = executor("MCP.McpSlow", '{"seconds": 0}')
    assert (slow.state, slow.errmsg) == (
        ActionStatusCode.TIMEOUT,
        "the MCP server did not answer within 0.5s",
    )
    assert (quick.state, quick.format_result()) == (ActionStatusCode.SUCCESS, "slept 0.0")


SDK_SERVER = '''
    from typing import Literal

    from pydantic import BaseModel, Field
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("sdk-demo")


    class Place(BaseModel):
        """A named place."""

        name: str = Field(description="the place's name")
        kind: Literal["city", "port"] = "city"


    @server.tool()
    def route(origin: Place, destination: Place, mode: Literal["car", "train"] = "car") -> str:
        """Plan a route between two places."""
        return f"{origin.name} -> {destination.name} by {mode}"


    @server.tool()
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        return a / b


    if __name__ == "__main__":
        server.run()
'''


@pytest.fixture(scope="module")
def sdk_toolkit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MCPToolkit, Path]]:
    tmp_path = tmp_path_factory.mktemp("sdk")
    script = tmp_path / "sdk_server.py"
    script.write_text(textwrap.dedent(SDK_SERVER))
    # The SDK server logs a traceback for the failing tool: keep it out of the test output.
    errlog = (tmp_path / "stderr.txt").open("w")
    try:
        with MCPToolkit(sys.executable, [str(script)], name="Sdk", timeout=LIMIT, errlog=errlog) as made:
            yield made, script
    finally:
        errlog.close()


def test_toolkit_reads_an_sdk_server(sdk_toolkit: tuple[MCPToolkit, Path]) -> None:
    toolkit, script = sdk_toolkit

    async def served() -> dict[str, dict[str, Any]]:
        params = StdioServerParameters(command=sys.executable, args=[str(script)])
        with anyio.fail_after(LIMIT), open(os.devnull, "w") as quiet:
            async with (
                stdio_client(params, errlog=quiet) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return {t.name: t.input_schema for t in (await session.list_tools()).tools}

    schemas = anyio.run(served)
    assert toolkit.tool_names == ["route", "divide"]
    assert {name: toolkit.json_schema(name) for name in toolkit.tool_names} == schemas
    assert schemas["route"]["$defs"]["Place"]["properties"]["kind"]["enum"] == ["city", "port"]
    executor = ActionExecutor([toolkit])
    assert executor.to_mcp_tools()[0]["inputSchema"] == schemas["route"]


@pytest.mark.parametrize(
    ("name", "command", "state", "output"),
    [
        pytest.param(
            "Sdk.route",
            {"origin": {"name": "A"}, "destination": {"name": "B", "kind": "port"}},
            ActionStatusCode.SUCCESS,
            "A -> B by car",
            id="nested-ref",
        ),
        pytest.param(
            "Sdk.route",
            {"origin": {"name": "A", "kind": "moon"}, "destination": {"name": "B"}},
            ActionStatusCode.ARGS_ERROR,
            "Sdk.route: 'origin.kind' expected one of ['city', 'port'], got string 'moon'",
            id="enum-in-defs",
        ),
        pytest.param("Sdk.divide", '{"a": 1, "b": 4}', ActionStatusCode.SUCCESS, "0.25", id="success"),
        pytest.param(
            "Sdk.divide",
            '{"a": 1, "b": 0}',
            ActionStatusCode.API_ERROR,
            "Error executing tool divide",
            id="is-error",
        ),
    ],
)
def test_toolkit_calls_an_sdk_server(
    sdk_toolkit: tuple[MCPToolkit, Path], name: str, command: Any, state: ActionStatusCode, output: str
) -> None:
    ret = ActionExecutor([sdk_toolkit[0]])(name, command)
    assert (ret.state, ret.format_result() or ret.errmsg) == (state, output)


def test_toolkit_include_selects_tools() -> None:
    with MCPToolkit(sys.executable, SERVE, env=ENV, include=["McpEcho"], name="Echo") as toolkit:
        assert toolkit.tool_names == ["McpEcho"]
        assert ActionExecutor([toolkit]).api_names() == ["Echo.McpEcho"]


def test_toolkit_closed_calls_are_records() -> None:
    toolkit = MCPToolkit(sys.executable, SERVE, env=ENV, include=["McpEcho"])
    toolkit.close()
    toolkit.close()
    ret = toolkit.call_tool("McpEcho", {"text": "a"})
    assert (ret.state, ret.errmsg, toolkit.connected) == (
        ActionStatusCode.HTTP_ERROR,
        "the MCP toolkit 'MCP' is closed",
        False,
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        pytest.param({}, ValueError, "needs exactly one of command=", id="nothing"),
        pytest.param({"command": "x", "url": "http://127.0.0.1:1/mcp"}, ValueError, "exactly one", id="both"),
        pytest.param(
            {"command": sys.executable, "args": ["-c", "pass"], "timeout": 10},
            MCPConnectionError,
            "cannot connect to the MCP server",
            id="server-exits",
        ),
        pytest.param(
            {"command": "/nonexistent/mcp-server", "timeout": 10},
            MCPConnectionError,
            "cannot connect to the MCP server /nonexistent/mcp-server",
            id="no-such-command",
        ),
    ],
)
def test_toolkit_construction_errors(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        MCPToolkit(**kwargs)


# -- packaging --------------------------------------------------------------------


def test_importing_the_package_does_not_import_the_sdk() -> None:
    code = "import sys, lagent_like, lagent_like.mcp; print(sorted(m for m in sys.modules if m.split('.')[0] == 'mcp'))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=LIMIT, check=True
    )
    assert out.stdout == "[]\n"


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a)
    )
    with pytest.raises(ImportError, match=re.escape("install lagent-like[mcp]")):
        require_mcp()


def test_cli_reports_a_busy_port_as_an_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    from lagent_like.cli.commands import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        status = main(
            ["-m", "mcp_tools", "serve-mcp", "--tools", "McpEcho", "--transport", "http", "--port", str(port)]
        )
    assert (status, capsys.readouterr().err) == (
        2,
        "lagent-like: error: OSError: [Errno 98] Address already in use\n",
    )
