"""Serving tools over MCP safely: tried as an attacker (or a greedy client) would.

Each test starts what it needs (``serve-mcp`` subprocesses on 127.0.0.x, or the
server in process) and stops it; exact answers are asserted.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from _servers import INITIALIZE_REQUEST, RAW_INITIALIZE, raw_stdio_server, start_announced, stop

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import anyio
import mcp_tools
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from lagent_like import ActionExecutor, ActionStatusCode, AsyncActionExecutor, BaseAction
from lagent_like.mcp import MCPConnectionError, MCPToolkit, build_mcp_server

TESTS = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
TOKEN_ENV = {"LAGENT_LIKE_MCP_TOKEN": mcp_tools.TOKEN}
AUTH = {"Authorization": f"Bearer {mcp_tools.TOKEN}"}
REQUIRED = "a bearer token is required (Authorization: Bearer <token>)"
NOT_VALID = "the bearer token is not valid (use the token the server was given or printed at start)"
#: Seconds any one test may wait for a server.
LIMIT = 30


def _start(
    tools: str, host: str = "127.0.0.1", env: Optional[dict[str, str]] = None
) -> tuple[subprocess.Popen[bytes], str, list[str]]:
    """A ``serve-mcp --transport http`` subprocess, its URL and the rest of its announcement."""
    command = [sys.executable, "-m", "lagent_like", "-m", "mcp_tools", "serve-mcp", "--tools", tools]
    # ``env`` replaces the environment, but the path to mcp_tools (ENV) stays.
    environment = {**os.environ, **TOKEN_ENV, **ENV} if env is None else {**env, **ENV}
    proc, url = start_announced(
        [*command, "--transport", "http", "--host", host, "--port", "0"], environment, host, "the HTTP server"
    )
    assert proc.stderr is not None
    rest = []
    if env is not None and "LAGENT_LIKE_MCP_TOKEN" not in env:
        rest.append(proc.stderr.readline().decode())
    return proc, url, rest


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


# -- the HTTP guard ----------------------------------------------------------------


@pytest.fixture(scope="module")
def server_on_127_0_0_2() -> Iterator[str]:
    proc, url, _ = _start("McpEcho", host="127.0.0.2")
    yield url
    stop(proc)


INITIALIZE = INITIALIZE_REQUEST


@pytest.mark.parametrize(
    ("headers", "status", "body"),
    [
        pytest.param({}, 401, REQUIRED, id="no-token"),
        pytest.param({"Authorization": "Bearer wrong"}, 401, NOT_VALID, id="wrong-token"),
        pytest.param({"Authorization": f"Bearer {mcp_tools.TOKEN}x"}, 401, NOT_VALID, id="token-prefix"),
        pytest.param({"Authorization": "Basic abc"}, 401, REQUIRED, id="other-scheme"),
        pytest.param({"Authorization": "Bearer "}, 401, REQUIRED, id="empty-bearer"),
        pytest.param(
            {"Host": "attacker.example", **AUTH}, 421, "Invalid Host header", id="rebound-host-with-token"
        ),
        pytest.param({"Host": "attacker.example"}, 421, "Invalid Host header", id="rebound-host"),
        pytest.param({"Host": "127.0.0.1:{port}", **AUTH}, 421, "Invalid Host header", id="other-address"),
        pytest.param(
            {"Origin": "http://attacker.example", **AUTH}, 403, "Invalid Origin header", id="foreign-origin"
        ),
        pytest.param({"Origin": "null", **AUTH}, 403, "Invalid Origin header", id="null-origin"),
    ],
)
def test_http_server_refuses_requests_without_the_token_or_for_another_host(
    server_on_127_0_0_2: str, headers: dict[str, str], status: int, body: str
) -> None:
    port = int(server_on_127_0_0_2.split(":")[2].split("/")[0])
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    sent.update({k: v.format(port=port) for k, v in headers.items()})
    connection = http.client.HTTPConnection("127.0.0.2", port, timeout=LIMIT)
    try:
        # skip_host: the Host header is the attacker's choice here.
        connection.putrequest("POST", "/mcp", skip_host="Host" in sent)
        for key, value in {**sent, "Content-Length": str(len(INITIALIZE))}.items():
            connection.putheader(key, value)
        connection.endheaders(INITIALIZE.encode())
        answer = connection.getresponse()
        error = {"code": -32001, "message": f"HTTP {status}: {body}"}
        assert (answer.status, json.loads(answer.read())) == (
            status,
            {"jsonrpc": "2.0", "id": None, "error": error},
        )
        if status == 401:
            # RFC 6750: a wrong token is named invalid_token; a missing one gets the bare challenge.
            challenge = 'Bearer error="invalid_token"' if body == NOT_VALID else "Bearer"
            assert answer.getheader("WWW-Authenticate") == challenge
    finally:
        connection.close()


def test_http_server_serves_a_client_with_the_token_and_its_own_address(server_on_127_0_0_2: str) -> None:
    with MCPToolkit(url=server_on_127_0_0_2, token=mcp_tools.TOKEN, timeout=LIMIT) as toolkit:
        ret = ActionExecutor([toolkit])("MCP.McpEcho", '{"text": "hello"}')
    assert (ret.state, ret.format_result()) == (ActionStatusCode.SUCCESS, "HELLO")


def test_http_toolkit_without_the_token_names_the_refusal(server_on_127_0_0_2: str) -> None:
    with pytest.raises(MCPConnectionError) as caught:
        MCPToolkit(url=server_on_127_0_0_2, timeout=LIMIT)
    message = str(caught.value)
    assert message == (
        f"cannot connect to the MCP server {server_on_127_0_0_2}: MCPError: HTTP 401: "
        "a bearer token is required (Authorization: Bearer <token>)"
    )


def test_http_server_generates_and_prints_a_token_when_none_is_given() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAGENT_LIKE_MCP_TOKEN")}
    proc, url, rest = _start("McpEcho", env=env)
    try:
        match = re.fullmatch(r"bearer token: ([A-Za-z0-9_-]{43})\n", rest[0])
        assert match is not None, rest
        with MCPToolkit(url=url, token=match.group(1), timeout=LIMIT) as toolkit:
            ret = toolkit.call_tool("McpEcho", {"text": "ok"})
        with pytest.raises(MCPConnectionError, match="MCPError: HTTP 401: the bearer token is not valid"):
            MCPToolkit(url=url, token=mcp_tools.TOKEN, timeout=LIMIT)
    finally:
        stop(proc)
    assert (ret.state, ret.format_result()) == (ActionStatusCode.SUCCESS, "OK")


# -- results no transport can encode -------------------------------------------------


def test_stdio_server_survives_surrogates_in_results_and_arguments() -> None:
    command = ["-m", "lagent_like", "-m", "mcp_tools", "serve-mcp", "--tools", "McpSurrogate,McpEcho"]
    proc = raw_stdio_server(command, {**os.environ, **ENV})

    def call(request_id: int, name: str, text: str) -> str:
        # Written by hand: JSON may escape a lone surrogate, and a hostile client will.
        arguments = json.dumps({"text": text}, ensure_ascii=True)
        return (
            f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", '
            f'"params": {{"name": "{name}", "arguments": {arguments}}}}}'
        )

    messages = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": RAW_INITIALIZE}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call(2, "McpSurrogate", "hi"),
        # The SDK's JSON reader refuses a lone surrogate escape: no answer, no harm.
        call(3, "McpEcho", "\udc80a"),
        call(4, "McpEcho", "a\ud83d\ude00"),
        call(5, "McpEcho", "alive"),
    ]
    answers = []
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for message in messages:
            proc.stdin.write(message.encode() + b"\n")
            proc.stdin.flush()
            if '"id"' in message and '"id": 3' not in message:
                ready, _, _ = select.select([proc.stdout], [], [], LIMIT)
                assert ready, f"no answer to {message[:80]}"
                answers.append(json.loads(proc.stdout.readline()))
    finally:
        proc.stdin.close()
        proc.wait(LIMIT)
        proc.stdout.close()
    results = [(a["id"], a["result"]["isError"], a["result"]["content"][0]["text"]) for a in answers[1:]]
    assert results == [(2, False, "\ufffdhi\ufffd"), (4, False, "A\U0001f600"), (5, False, "ALIVE")]
    assert proc.returncode == 0


# -- sessions ----------------------------------------------------------------------


def test_sessionless_http_clients_get_separate_state() -> None:
    proc, url, _ = _start("McpMemo")

    async def memo(value: Optional[str]) -> str:
        # The 2026-07-28 protocol: no handshake and no Mcp-Session-Id, every request stands alone.
        async with (
            create_mcp_http_client(headers=AUTH) as http,
            Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client,
        ):
            arguments = {} if value is None else {"value": value}
            return _text(await client.call_tool("McpMemo", arguments))

    async def two_clients() -> list[str]:
        with anyio.fail_after(LIMIT):
            return [await memo("secret of A"), await memo(None), await memo("B"), await memo(None)]

    try:
        answers = anyio.run(two_clients)
    finally:
        stop(proc)
    assert answers == ["secret of A", "None", "B", "None"]


class RecordingExecutor(AsyncActionExecutor):
    """An executor that notes which sessions were ended."""

    ended: list[str]

    def end_session(self, session_id: str) -> None:
        self.ended.append(session_id)
        super().end_session(session_id)


class Keeper(BaseAction):
    """A tool that keeps something per session, as an interpreter keeps a process."""

    def __init__(self) -> None:
        super().__init__()
        self.ended: list[str] = []

    def run(self) -> str:
        """Do nothing."""
        return "ok"

    def end_session(self, session_id: str) -> None:
        self.ended.append(session_id)


def test_sessions_end_with_their_connection_and_sessionless_calls_with_their_request() -> None:
    keeper = Keeper()
    executor = RecordingExecutor([mcp_tools.McpMemo(), keeper])
    executor.ended = []
    server = build_mcp_server(executor)
    seen: list[Any] = []

    async def clients() -> None:
        with anyio.fail_after(LIMIT):
            async with Client(server, mode="legacy") as first, Client(server, mode="legacy") as second:
                seen.append(_text(await first.call_tool("McpMemo", {"value": "1"})))
                seen.append(_text(await second.call_tool("McpMemo", {})))
                seen.append(_text(await first.call_tool("McpMemo", {})))
                seen.append(list(executor.ended))
            seen.append(sorted(executor.ended))
            async with Client(server, mode="2026-07-28") as modern:
                seen.append(_text(await modern.call_tool("McpMemo", {"value": "2"})))
                seen.append(_text(await modern.call_tool("McpMemo", {})))
                seen.append(list(executor.ended[2:]))

    anyio.run(clients)
    assert seen == ["1", "None", "1", [], ["mcp-1", "mcp-2"], "2", "None", ["mcp-3", "mcp-4"]]
    # Tools that keep sessions (an interpreter's process) are told as well.
    assert sorted(keeper.ended) == ["mcp-1", "mcp-2", "mcp-3", "mcp-4"]
    assert executor._sessions == {}


# -- one client cannot starve another -------------------------------------------------


def test_one_flooding_client_does_not_starve_another() -> None:
    proc, url, _ = _start("McpSlow,McpEcho")

    async def flood_and_probe() -> tuple[list[str], str, int]:
        async with (
            create_mcp_http_client(headers=AUTH) as greedy_http,
            create_mcp_http_client(headers=AUTH) as polite_http,
            streamable_http_client(url, http_client=greedy_http) as (read_a, write_a),
            ClientSession(read_a, write_a) as greedy,
            streamable_http_client(url, http_client=polite_http) as (read_b, write_b),
            ClientSession(read_b, write_b) as polite,
        ):
            await greedy.initialize()
            await polite.initialize()
            slow: list[str] = []

            async def one_slow() -> None:
                slow.append(_text(await greedy.call_tool("McpSlow", {"seconds": 2})))

            async with anyio.create_task_group() as group:
                for _ in range(8):
                    group.start_soon(one_slow)
                await anyio.sleep(0.5)  # the flood holds every slot it can get
                probe = _text(await polite.call_tool("McpEcho", {"text": "quick"}))
                slow_answered_before_the_probe = len(slow)
            return slow, probe, slow_answered_before_the_probe

    async def bounded() -> tuple[list[str], str, int]:
        with anyio.fail_after(LIMIT):
            return await flood_and_probe()

    try:
        slow, probe, slow_answered_before_the_probe = anyio.run(bounded)
    finally:
        stop(proc)
    assert (slow, probe) == (["slept 2.0"] * 8, "QUICK")
    # Without a per-client limit the probe waits for the flood's first calls to end: it
    # would come back after at least one of them (an order of answers, not a time).
    assert slow_answered_before_the_probe == 0


class McpHeld(BaseAction):
    """Holds a call until the test releases it (or ``seconds`` pass)."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def run(self, seconds: float) -> str:
        """Wait to be released.

        Args:
            seconds: the longest wait
        """
        self.entered.set()
        return f"released {self.release.wait(seconds)}"


def test_calls_beyond_a_client_share_queue_then_time_out() -> None:
    held = McpHeld()
    server = build_mcp_server(ActionExecutor([held]), max_client_calls=1, queue_timeout=0.3)

    async def until(condition: Any) -> None:
        while not condition():
            await anyio.sleep(0.01)

    async def two_calls() -> list[tuple[bool, str]]:
        answers: list[tuple[bool, str]] = []

        async def call(seconds: float) -> None:
            result = await client.call_tool("McpHeld", {"seconds": seconds})
            answers.append((bool(result.is_error), _text(result)))

        with anyio.fail_after(LIMIT):
            async with Client(server, mode="legacy") as client:
                async with anyio.create_task_group() as group:
                    group.start_soon(call, LIMIT)
                    await until(held.entered.is_set)  # the first call holds the client's only slot
                    group.start_soon(call, 0.0)
                    await until(lambda: answers)  # the second waited its 0.3 s in the queue
                    held.release.set()
                await call(0.0)
        return answers

    try:
        answers = anyio.run(two_calls)
    finally:
        held.release.set()
    assert answers == [
        (
            True,
            "this client already has 1 calls running; this call waited 0.3s for one of them to "
            "finish. Wait for your calls to end, then try again",
        ),
        (False, "released True"),
        (False, "released True"),
    ]


# -- code-executing tools ------------------------------------------------------------


def _sandbox_missing() -> str:
    """Why the built-in interpreters cannot be built here ('' when they can)."""
    from lagent_like.actions import PythonInterpreter
    from lagent_like.exceptions import SandboxUnavailableError

    try:
        PythonInterpreter().close()
    except SandboxUnavailableError as exc:
        return str(exc)
    return ""


def _served(tmp_path: Path, options: list[str]) -> tuple[list[str], str]:
    """The tools ``serve-mcp`` (stdio, with the test tools imported) lists, and its stderr."""

    async def names() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "lagent_like", "-m", "mcp_tools", "serve-mcp", *options],
            env=ENV,
        )
        with anyio.fail_after(LIMIT), errors.open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                return [tool.name for tool in (await client.list_tools()).tools]

    errors = tmp_path / "stderr.txt"
    listed = anyio.run(names)
    return listed, errors.read_text()


CODE_TOOLS = ("IPythonInterpreter", "PythonInterpreter", "McpScript")


def test_serve_mcp_withholds_code_tools_by_default(tmp_path: Path) -> None:
    listed, errors = _served(tmp_path, ["--with-builtins"])
    assert [name for name in listed if name.split("__")[0] in CODE_TOOLS] == []
    assert "McpEcho" in listed and "McpCalc__add" in listed
    assert errors == (
        "lagent-like: not serving the code-executing tools IPythonInterpreter, PythonInterpreter, McpScript; "
        "name them with --tools or pass --allow-code\n"
    )


def test_serve_mcp_offers_a_code_tool_named_in_tools(tmp_path: Path) -> None:
    assert _served(tmp_path, ["--tools", "McpScript,McpEcho"]) == (["McpScript", "McpEcho"], "")


def test_serve_mcp_offers_every_code_tool_with_allow_code(tmp_path: Path) -> None:
    missing = _sandbox_missing()
    if missing:
        pytest.skip(f"the built-in interpreters cannot start here: {missing}")
    listed, errors = _served(tmp_path, ["--allow-code", "--with-builtins"])
    assert ([name for name in listed if name in CODE_TOOLS], errors) == (list(CODE_TOOLS), "")


def test_http_server_takes_its_token_from_a_file(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("from-a-file\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAGENT_LIKE_MCP_TOKEN")}
    command = [sys.executable, "-m", "lagent_like", "-m", "mcp_tools", "serve-mcp", "--tools", "McpEcho"]
    proc = subprocess.Popen(
        [*command, "--transport", "http", "--port", "0", "--token-file", str(token_file)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**env, **ENV},
    )
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], LIMIT)
        match = re.fullmatch(
            r"serving MCP on (http://127\.0\.0\.1:\d+/mcp)\n", proc.stderr.readline().decode()
        )
        assert ready and match is not None
        with MCPToolkit(url=match.group(1), token="from-a-file", timeout=LIMIT) as toolkit:
            ret = toolkit.call_tool("McpEcho", {"text": "filed"})
    finally:
        stop(proc)
    assert (ret.state, ret.format_result()) == (ActionStatusCode.SUCCESS, "FILED")


def test_cli_refuses_an_empty_token_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lagent_like.cli.commands import main

    token_file = tmp_path / "token"
    token_file.write_text("\n")
    status = main(
        [
            "-m",
            "mcp_tools",
            "serve-mcp",
            "--tools",
            "McpEcho",
            "--transport",
            "http",
            "--token-file",
            str(token_file),
        ]
    )
    assert (status, capsys.readouterr().err) == (
        2,
        f"lagent-like: error: cannot read the bearer token: ValueError: the token file {token_file} is empty; "
        "give a non-empty bearer token or none to generate one\n",
    )


def test_tool_list_is_valid_unicode() -> None:
    from lagent_like import SchemaTool

    broken = {
        "name": "Broken",
        "description": "read with surrogateescape: \udcff",
        "parameters": {"type": "object", "properties": {}},
    }
    server = build_mcp_server(ActionExecutor([SchemaTool(broken, lambda: "ok")]))

    async def listed() -> list[str]:
        with anyio.fail_after(LIMIT):
            async with Client(server) as client:
                return [tool.description or "" for tool in (await client.list_tools()).tools]

    assert anyio.run(listed) == ["read with surrogateescape: \ufffd"]


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (read from /proc)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def test_an_ended_http_session_reclaims_its_ipython_process() -> None:
    missing = _sandbox_missing()
    if missing:
        pytest.skip(f"the built-in interpreters cannot start here: {missing}")
    proc, url, _ = _start("IPythonInterpreter")

    async def one_session() -> tuple[str, int]:
        with anyio.fail_after(LIMIT):
            async with (
                create_mcp_http_client(headers=AUTH) as http,
                streamable_http_client(url, http_client=http) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                await client.call_tool("IPythonInterpreter", {"command": "x = 41"})
                result = await client.call_tool("IPythonInterpreter", {"command": "x + 1"})
                return _text(result), len(_descendants(proc.pid))

    try:
        before = _descendants(proc.pid)
        answer, during = anyio.run(one_session)
        deadline = time.monotonic() + LIMIT
        while _descendants(proc.pid) != before and time.monotonic() < deadline:
            time.sleep(0.05)
        after = _descendants(proc.pid)
    finally:
        stop(proc)
    assert (answer, during > len(before), after) == ("42", True, before)
