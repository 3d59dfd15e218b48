"""``serve-mcp --mcp``: other MCP servers' tools served again, as the original servers serve them.

An official SDK client talks to the proxy (``python -m lagent_like serve-mcp --mcp
...``) and to the upstream server directly; tools (names, titles, annotations, output
schemas), results (structured content, errors) and progress notifications must be
the same. Names get a prefix only on a clash, which the proxy states on stderr.
``--tools`` and ``--allow-code`` select proxied tools as they select local ones.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Callable, Optional

import pytest
from _servers import serving

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

import lagent_like

HERE = Path(__file__).parent
ROOT = Path(lagent_like.__file__).parent.parent
UPSTREAM = str(HERE / "mcp_proxy_upstream.py")
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), str(HERE), os.environ.get("PYTHONPATH", "")) if p),
}
PROXY = [sys.executable, "-m", "lagent_like"]


def upstream(name: str, *tools: str) -> list[str]:
    """The command line of the test server called ``name`` offering ``tools``."""
    return [sys.executable, UPSTREAM, name, *tools]


def proxy(*options: str) -> list[str]:
    """The command line of ``serve-mcp`` with ``options``."""
    return [*PROXY, "serve-mcp", *options]


def mcp_option(command: list[str]) -> list[str]:
    return ["--mcp", subprocess.list2cmdline(command)]


@contextlib.asynccontextmanager
async def connected(command: list[str], errlog: Any = None) -> AsyncIterator[ClientSession]:
    """An initialized SDK session with the stdio server ``command``."""
    params = StdioServerParameters(command=command[0], args=command[1:], env=ENV)
    errors = errlog if errlog is not None else sys.stderr
    async with stdio_client(params, errlog=errors) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def dumped(value: Any) -> Any:
    return value.model_dump(by_alias=True, exclude_none=True, mode="json")


def tools_of(command: list[str], errlog: Any = None) -> list[dict[str, Any]]:
    async def listing() -> list[dict[str, Any]]:
        async with connected(command, errlog) as session:
            return [dumped(tool) for tool in (await session.list_tools()).tools]

    result: list[dict[str, Any]] = anyio.run(listing)
    return result


def call(command: list[str], tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """``(the result, the progress notifications)`` of one call through the server ``command``."""
    progress: list[Any] = []

    async def record(done: float, total: Optional[float], message: Optional[str]) -> None:
        progress.append((done, total, message))

    async def calling() -> dict[str, Any]:
        async with connected(command) as session:
            try:
                return dumped(await session.call_tool(tool, arguments, progress_callback=record))
            except MCPError as exc:  # a protocol error, shown as the client sees it
                return {"protocolError": exc.message}

    return anyio.run(calling), progress


# -- the test server: what passes through -----------------------------------------


def test_proxy_lists_the_upstream_tools_exactly_as_the_upstream_does() -> None:
    direct = upstream("alpha", "shout", "fail", "steps")
    assert tools_of(proxy(*mcp_option(direct))) == tools_of(direct)
    # Titles, annotations and output schemas are in that list.
    assert tools_of(direct)[0]["title"] == "Shouter"


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        pytest.param(
            "shout",
            {"text": "hi"},
            {
                "content": [{"type": "text", "text": '{"text": "HI"}'}],
                "structuredContent": {"text": "HI"},
                "isError": False,
                "resultType": "complete",
            },
            id="structured",
        ),
        pytest.param(
            "fail",
            {},
            {
                "content": [{"type": "text", "text": "it failed, as always"}],
                "isError": True,
                "resultType": "complete",
            },
            id="error",
        ),
    ],
)
def test_proxy_passes_results_through(tool: str, arguments: dict[str, Any], expected: dict[str, Any]) -> None:
    direct = upstream("alpha", "shout", "fail")
    assert call(direct, tool, arguments)[0] == expected
    assert call(proxy(*mcp_option(direct)), tool, arguments)[0] == expected


def test_proxy_passes_progress_notifications_through() -> None:
    direct = upstream("alpha", "steps")
    expected = [(1.0, 3.0, "one"), (2.0, 3.0, "two"), (3.0, 3.0, None)]
    assert call(direct, "steps", {})[1] == expected
    result, progress = call(proxy(*mcp_option(direct)), "steps", {})
    assert progress == expected
    assert result["content"] == [{"type": "text", "text": "done"}]


def test_proxy_prefixes_only_clashing_tools_and_says_so(tmp_path: Path) -> None:
    log = tmp_path / "stderr.txt"
    command = proxy(*mcp_option(upstream("alpha", "shout", "fail")), *mcp_option(upstream("beta", "shout")))
    with log.open("w") as errlog:
        names = [tool["name"] for tool in tools_of(command, errlog)]
    assert names == ["alpha__shout", "fail", "beta__shout"]
    said = log.read_text().splitlines()
    assert (
        "lagent-like: serving tool 'shout' of server 'alpha' as 'alpha__shout': the name 'shout' is also taken by server 'beta'"
        in said
    )
    assert (
        "lagent-like: serving tool 'shout' of server 'beta' as 'beta__shout': the name 'shout' is also taken by server 'alpha'"
        in said
    )
    assert call(command, "beta__shout", {"text": "b"})[0]["structuredContent"] == {"text": "B"}


def test_proxy_refuses_a_prefixed_name_of_a_tool_served_under_its_own() -> None:
    command = proxy(*mcp_option(upstream("alpha", "shout")))
    assert call(command, "alpha__shout", {"text": "x"})[0] == {
        "protocolError": "unknown tool 'alpha__shout'; call tools/list for the tools"
    }


def test_servers_with_the_same_name_are_told_apart() -> None:
    command = proxy(*mcp_option(upstream("same", "shout")), *mcp_option(upstream("same", "fail")))
    assert [tool["name"] for tool in tools_of(command)] == ["shout", "fail"]
    assert call(command, "fail", {})[0]["isError"] is True


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param([], ["shout", "fail", "steps"], id="default-withholds-code"),
        pytest.param(["--allow-code"], ["shout", "fail", "steps", "PythonInterpreter"], id="allow-code"),
        pytest.param(["--tools", "PythonInterpreter,fail"], ["fail", "PythonInterpreter"], id="named"),
        pytest.param(["--tools", "alpha.shout"], ["shout"], id="toolkit-dot-tool"),
        pytest.param(
            ["--tools", "alpha"], ["shout", "fail", "steps", "PythonInterpreter"], id="whole-server"
        ),
    ],
)
def test_tools_and_allow_code_select_proxied_tools(options: list[str], expected: list[str]) -> None:
    command = proxy(*mcp_option(upstream("alpha")), *options)
    assert [tool["name"] for tool in tools_of(command)] == expected


def test_withheld_proxied_code_tools_are_stated(tmp_path: Path) -> None:
    log = tmp_path / "stderr.txt"
    with log.open("w") as errlog:
        tools_of(proxy(*mcp_option(upstream("alpha"))), errlog)
    assert (
        "lagent-like: not serving the code-executing tools alpha.PythonInterpreter; "
        "name them with --tools or pass --allow-code"
    ) in log.read_text().splitlines()


def test_proxy_serves_local_module_tools_beside_proxied_ones() -> None:
    command = [
        *PROXY,
        "-m",
        "mcp_tools",
        "serve-mcp",
        "--tools",
        "McpEcho,shout",
        *mcp_option(upstream("alpha")),
    ]
    assert [tool["name"] for tool in tools_of(command)] == ["McpEcho", "shout"]


def test_an_unreachable_upstream_is_one_error_line() -> None:
    proc = subprocess.run(
        [*proxy("--mcp", "/nonexistent/server")], capture_output=True, text=True, env=ENV, timeout=120
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "lagent-like: error: MCPConnectionError: cannot connect to the MCP server /nonexistent/server: "
        "FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/server'\n"
    )


# -- the MCP reference servers, over stdio and streamable HTTP ---------------------


def reference(name: str) -> str:
    program = shutil.which(name)
    if program is None:
        pytest.skip(f"{name} is not installed (pip install {name}); the proxy is checked against it")
    return program


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A repository with one commit at a fixed date and one untracked file."""
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2024-01-02T03:04:05Z",
        "GIT_COMMITTER_DATE": "2024-01-02T03:04:05Z",
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("a\n")
    subprocess.run(["git", "-C", str(repo), "add", "a.txt"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", "first"], check=True, env=env)
    (repo / "new.txt").write_text("n\n")
    return repo


@pytest.mark.parametrize(
    ("server", "tool", "arguments"),
    [
        pytest.param("mcp-server-time", "convert_time", None, id="time"),
        pytest.param("mcp-server-git", "git_status", None, id="git"),
    ],
)
def test_reference_servers_through_the_proxy_over_stdio(
    server: str, tool: str, arguments: Any, git_repo: Path
) -> None:
    program = reference(server)
    direct = [program, "--repository", str(git_repo)] if server == "mcp-server-git" else [program]
    arguments = (
        {"repo_path": str(git_repo)}
        if server == "mcp-server-git"
        else {"source_timezone": "Europe/Paris", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    )
    through = proxy(*mcp_option(direct))
    assert tools_of(through) == tools_of(direct)
    assert call(through, tool, arguments)[0] == call(direct, tool, arguments)[0]
    # An error of the server's own passes through as its error, bad arguments included:
    # the server checks them, not the proxy.
    bad = {"repo_path": "/nonexistent"} if server == "mcp-server-git" else {**arguments, "time": "25:99"}
    for wrong in (bad, {}, {**arguments, next(iter(arguments)): 5}):
        assert call(through, tool, wrong)[0] == call(direct, tool, wrong)[0]


def http_proxy(options: list[str], token_file: Path) -> AbstractContextManager[str]:
    """``serve-mcp --transport http`` with ``options``; yields its URL, stops it after."""
    command = [*proxy(*options), "--transport", "http", "--port", "0", "--token-file", str(token_file)]
    return serving(command, ENV, what="the proxy")


def http_session(url: str, token: str, use: Callable[[ClientSession], Any]) -> Any:
    async def run() -> Any:
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            create_mcp_http_client(headers=headers) as client,
            streamable_http_client(url, http_client=client) as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await use(session)

    return anyio.run(run)


def test_reference_time_server_through_the_proxy_over_http(tmp_path: Path) -> None:
    program = reference("mcp-server-time")
    token_file = tmp_path / "token"
    token_file.write_text("proxy-token\n")
    arguments = {"source_timezone": "Europe/Paris", "time": "12:00", "target_timezone": "Asia/Tokyo"}

    async def use(session: ClientSession) -> Any:
        tools = [dumped(tool) for tool in (await session.list_tools()).tools]
        return tools, dumped(await session.call_tool("convert_time", arguments))

    with http_proxy(["--mcp", program], token_file) as url:
        tools, result = http_session(url, "proxy-token", use)
    assert tools == tools_of([program])
    assert result == call([program], "convert_time", arguments)[0]


# -- the MCP Inspector's command line (the official npm package) ---------------------

CONVERT = ["--tool-name", "convert_time", "--tool-arg", "source_timezone=Europe/Paris", "time=12:00"]
CONVERT += ["target_timezone=Asia/Tokyo"]


def inspector_cli(tmp_path: Path, target: list[str], *options: str) -> Any:
    """What ``mcp-inspector --cli TARGET OPTIONS`` prints, as JSON."""
    program = os.environ.get("MCP_INSPECTOR") or shutil.which("mcp-inspector")
    if program is None:
        pytest.skip(
            "the MCP Inspector is not installed (npm install @modelcontextprotocol/inspector, then put "
            "node_modules/.bin on PATH or set MCP_INSPECTOR)"
        )
    # Its catalogue of servers goes to a file of this test, not the home directory.
    env = {**ENV, "MCP_CATALOG_PATH": str(tmp_path / "catalog.json")}
    proc = subprocess.run(
        [program, "--cli", *target, *options], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize(
    "method",
    [
        pytest.param(["--method", "tools/list"], id="list"),
        pytest.param(["--method", "tools/call", *CONVERT], id="call"),
    ],
)
def test_inspector_cli_sees_the_same_through_the_proxy_over_stdio(tmp_path: Path, method: list[str]) -> None:
    program = reference("mcp-server-time")
    direct = inspector_cli(tmp_path, [program], *method)
    through = inspector_cli(
        tmp_path, ["env", f"PYTHONPATH={ENV['PYTHONPATH']}", *proxy("--mcp", program)], *method
    )
    assert through == direct


def test_inspector_cli_sees_the_same_through_the_proxy_over_http(tmp_path: Path) -> None:
    program = reference("mcp-server-time")
    token_file = tmp_path / "token"
    token_file.write_text("proxy-token\n")
    direct = [inspector_cli(tmp_path, [program], "--method", "tools/list")]
    direct.append(inspector_cli(tmp_path, [program], "--method", "tools/call", *CONVERT))
    header = ["--transport", "http", "--header", "Authorization: Bearer proxy-token"]
    with http_proxy(["--mcp", program], token_file) as url:
        through = [inspector_cli(tmp_path, [url], *header, "--method", "tools/list")]
        through.append(inspector_cli(tmp_path, [url], *header, "--method", "tools/call", *CONVERT))
    assert through == direct
