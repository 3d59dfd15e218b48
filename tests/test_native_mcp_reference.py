"""The official MCP reference servers through ``MCPToolkit``, against calling them directly.

``mcp-server-time``, ``mcp-server-git`` and ``mcp-server-fetch`` were run over stdio
and called with the SDK's own client (the git server on a small repository, the fetch
server against an HTTP server on 127.0.0.1); ``mcp_reference_replay.py`` serves what
they listed and answered. Here the same calls go through an ``MCPToolkit`` in an
executor: every tool is listed as the server listed it, every call the toolkit
forwards is answered as the server answered it, and where the toolkit answers
itself (arguments refused before sending, tools the server lacks) the record says
what to change. No value is converted behind the server's back: the toolkit checks
arguments in ``"strict"`` mode, so a ``"20"`` sent for an integer is refused, as the
fetch server refuses it, instead of becoming a call with ``20``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

from mcp_reference_replay import recorded

from lagent_like import ActionExecutor, ActionStatusCode, ToolDefinitionError
from lagent_like.mcp import MCPToolkit

REPLAY = str(Path(__file__).parent / "mcp_reference_replay.py")
LABELS = {"time": "Time", "git": "Git", "fetch": "Fetch", "fetch-public-only": "Public"}
LIMIT = 30.0


def _replayed(server: str, **options: Any) -> MCPToolkit:
    return MCPToolkit(sys.executable, [REPLAY, server], name=LABELS[server], timeout=LIMIT, **options)


@pytest.fixture(scope="module")
def toolkits() -> Iterator[dict[str, MCPToolkit]]:
    # One replayed server each for the module: these tests only list and call.
    made = {server: _replayed(server) for server in LABELS}
    try:
        yield made
    finally:
        for toolkit in made.values():
            toolkit.close()


def _server_answer(server: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """What the real server answered to this call, called directly."""
    for call in recorded(server)["calls"]:
        if call["name"] == name and call["arguments"] == arguments:
            answer: dict[str, Any] = call["result"] if "result" in call else {"error": call["error"]}
            return answer
    raise AssertionError(f"no recorded call {name} {arguments}")


@pytest.mark.parametrize("server", ["time", "git", "fetch"])
def test_every_reference_tool_is_exported_as_the_server_listed_it(
    toolkits: dict[str, MCPToolkit], server: str
) -> None:
    listed = recorded(server)["tools"]
    executor = ActionExecutor([toolkits[server]])
    assert toolkits[server].tool_names == [tool["name"] for tool in listed]
    exported = executor.to_mcp_tools()
    assert [tool["name"] for tool in exported] == [f"{LABELS[server]}__{tool['name']}" for tool in listed]
    for mine, theirs in zip(exported, listed):
        assert {**mine, "name": theirs["name"]} == theirs


def _forwarded(server: str, name: str, arguments: dict[str, Any]) -> Any:
    return pytest.param(server, name, arguments, id=f"{server}-{name}-{'-'.join(arguments) or 'none'}")


#: Calls the toolkit sends on: answered as the server answered them, called directly.
FORWARDED = [
    _forwarded("time", "convert_time", {"source_timezone": "Europe/London", "time": "12:30", "target_timezone": "Asia/Tokyo"}),
    _forwarded("time", "convert_time", {"source_timezone": "Mars/Olympus", "time": "12:30", "target_timezone": "Asia/Tokyo"}),
    _forwarded("time", "convert_time", {"source_timezone": "Europe/London", "time": "25:99", "target_timezone": "Asia/Tokyo"}),
    _forwarded("time", "get_current_time", {"timezone": "Nowhere/City"}),
    _forwarded("git", "git_status", {"repo_path": "/repo"}),
    _forwarded("git", "git_log", {"repo_path": "/repo", "max_count": 1}),
    _forwarded("git", "git_diff_unstaged", {"repo_path": "/repo", "context_lines": 1}),
    _forwarded("git", "git_show", {"repo_path": "/repo", "revision": "nope"}),
    _forwarded("git", "git_diff", {"repo_path": "/repo", "target": "--output=/tmp/x"}),
    _forwarded("git", "git_status", {"repo_path": "/elsewhere"}),
    _forwarded("fetch", "fetch", {"url": "http://127.0.0.1:8000/index.html"}),
    _forwarded("fetch", "fetch", {"url": "http://127.0.0.1:8000/index.html", "max_length": 20}),
    _forwarded("fetch", "fetch", {"url": "http://127.0.0.1:8000/index.html", "start_index": 100000}),
    _forwarded("fetch", "fetch", {"url": "http://127.0.0.1:8000/missing.html"}),
    # Without --allow-private-ips the fetch server refuses 127.0.0.1: an error result, passed on.
    _forwarded("fetch-public-only", "fetch", {"url": "http://127.0.0.1:8000/index.html"}),
]  # fmt: skip


@pytest.mark.parametrize(("server", "name", "arguments"), FORWARDED)
def test_forwarded_calls_are_answered_as_the_server_answered_them(
    toolkits: dict[str, MCPToolkit], server: str, name: str, arguments: dict[str, Any]
) -> None:
    answer = _server_answer(server, name, arguments)
    text = "\n".join(block["text"] for block in answer["content"])
    ret = ActionExecutor([toolkits[server]])(f"{LABELS[server]}.{name}", arguments)
    if answer["isError"]:
        assert (ret.state, ret.errmsg) == (ActionStatusCode.API_ERROR, text)
    else:
        assert (ret.state, ret.format_result()) == (ActionStatusCode.SUCCESS, text)
        assert ret.result is not None
        assert ret.result[0].get("structured") == answer.get("structuredContent")


def _refused(server: str, name: str, arguments: dict[str, Any], errmsg: str, server_failed: bool) -> Any:
    return pytest.param(server, name, arguments, errmsg, server_failed, id=f"{server}-{'-'.join(arguments)}")


#: Calls the toolkit refuses before sending, and whether the server, called directly, failed them too.
REFUSED = [
    _refused("time", "convert_time", {"source_timezone": "Europe/London", "time": 1230, "target_timezone": "Asia/Tokyo"}, "Time.convert_time: 'time' expected string, got integer 1230", True),
    _refused("time", "convert_time", {"source_timezone": "Europe/London"}, "Time.convert_time: 'time' is required; 'target_timezone' is required", True),
    _refused("fetch", "fetch", {"url": "http://127.0.0.1:8000/index.html", "max_length": "20"}, "Fetch.fetch: 'max_length' expected integer >= 1 and <= 999999, got string '20'", True),
    _refused("fetch", "fetch", {"url": "http://127.0.0.1:8000/index.html", "max_length": 0}, "Fetch.fetch: 'max_length' expected integer >= 1 and <= 999999, got integer 0", True),
    _refused("git", "git_add", {"repo_path": "/repo", "files": []}, "Git.git_add: 'files' expected array of at least 1 items, got array []", True),
    # The differences, loud: the git server reads "1" as 1, and the servers drop keys
    # their schema does not name; the toolkit names what to change instead.
    _refused("git", "git_diff_unstaged", {"repo_path": "/repo", "context_lines": "1"}, "Git.git_diff_unstaged: 'context_lines' expected integer, got string '1'", False),
    _refused("git", "git_status", {"repo_path": "/repo", "verbose": True}, "Git.git_status: 'verbose' is not a parameter; parameters: repo_path", False),
    _refused("time", "convert_time", {"source_timezone": "Europe/London", "time": "12:30", "target_timezone": "Asia/Tokyo", "extra": 1}, "Time.convert_time: 'extra' is not a parameter; parameters: source_timezone, time, target_timezone", False),
    _refused("fetch", "fetch", {"url": "http://127.0.0.1:8000/index.html", "headers": {}}, "Fetch.fetch: 'headers' is not a parameter; parameters: url, max_length, start_index, raw", False),
]  # fmt: skip


@pytest.mark.parametrize(("server", "name", "arguments", "errmsg", "server_failed"), REFUSED)
def test_arguments_are_refused_before_sending_never_converted(
    toolkits: dict[str, MCPToolkit],
    server: str,
    name: str,
    arguments: dict[str, Any],
    errmsg: str,
    server_failed: bool,
) -> None:
    assert _server_answer(server, name, arguments)["isError"] is server_failed
    ret = ActionExecutor([toolkits[server]])(f"{LABELS[server]}.{name}", arguments)
    assert (ret.state, ret.errmsg) == (ActionStatusCode.ARGS_ERROR, errmsg)


def test_a_tool_the_server_lacks_is_its_protocol_error(toolkits: dict[str, MCPToolkit]) -> None:
    assert _server_answer("time", "no_such_tool", {}) == {
        "error": {"code": -32602, "message": "Unknown tool: no_such_tool"}
    }
    ret = toolkits["time"].call_tool("no_such_tool", {})
    assert (ret.state, ret.errmsg) == (
        ActionStatusCode.API_ERROR,
        "the MCP server refused the call: Unknown tool: no_such_tool",
    )


@pytest.mark.parametrize(
    ("name", "arguments", "content"),
    [
        pytest.param(
            "Fetch__fetch",
            '{"url": "http://127.0.0.1:8000/index.html", "raw": "yes"}',
            "Fetch__fetch: 'raw' expected boolean, got string 'yes'",
            id="bad-argument",
        ),
        pytest.param(
            "Fetch__fetch_all",
            "{}",
            "Unknown tool 'Fetch__fetch_all'. Did you mean 'Fetch__fetch'? Available tools: Fetch__fetch.",
            id="unknown-tool",
        ),
        pytest.param(
            "Fetch.fetch_all",
            "{}",
            "Fetch has no API 'fetch_all'. Did you mean 'fetch'? Call one of: Fetch__fetch",
            id="unknown-api",
        ),
    ],
)
def test_native_calls_of_a_toolkit_name_the_aliases(
    toolkits: dict[str, MCPToolkit], name: str, arguments: str, content: str
) -> None:
    call = {"id": "c", "type": "function", "function": {"name": name, "arguments": arguments}}
    assert ActionExecutor([toolkits["fetch"]]).run_tool_calls([call]) == [
        {"role": "tool", "tool_call_id": "c", "content": content}
    ]


def test_coerce_mode_converts_when_asked() -> None:
    with _replayed("fetch", validation="coerce") as toolkit:
        ret = ActionExecutor([toolkit])(
            "Fetch.fetch", {"url": "http://127.0.0.1:8000/index.html", "max_length": "20"}
        )
    # Sent as 20: the answer of the server to max_length 20.
    answer = _server_answer("fetch", "fetch", {"url": "http://127.0.0.1:8000/index.html", "max_length": 20})
    assert ret.format_result() == answer["content"][0]["text"]


def test_a_bad_validation_mode_is_refused_before_any_server_starts() -> None:
    with pytest.raises(ToolDefinitionError, match=r"validation must be one of \['coerce', 'strict', 'off'\]"):
        MCPToolkit("/nonexistent/server", validation="loose")


@pytest.mark.parametrize("server", ["time", "git", "fetch"])
def test_the_installed_reference_server_still_lists_what_was_recorded(server: str, tmp_path: Path) -> None:
    command = recorded(server)["command"]
    program = shutil.which(command[0])
    if program is None:
        pytest.skip(f"{command[0]} is not installed (pip install {command[0]})")
    if server == "git":
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    args = [str(tmp_path) if arg == "/repo" else arg for arg in command[1:]]
    with MCPToolkit(program, args, name=LABELS[server], timeout=LIMIT) as toolkit:
        exported = ActionExecutor([toolkit]).to_mcp_tools()
    assert [{**tool, "name": tool["name"].split("__", 1)[1]} for tool in exported] == recorded(server)[
        "tools"
    ]
