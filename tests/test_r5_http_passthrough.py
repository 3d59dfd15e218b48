"""``serve-mcp --transport http`` passes a proxied HTTP server's calls through as POSTs.

A POST that is one ``tools/call`` for a proxied tool goes to the upstream with only its
tool name and id mapped, and the upstream's answer comes back as JSON, the client's id
restored; everything else still goes through the SDK. Each test runs real processes on
127.0.0.1 (an upstream HTTP server, and the proxy started through a small script that
counts, at exit, the calls passed through and those forwarded by the SDK path), talks
to them with the official SDK client or with plain HTTP requests, and compares with
the upstream spoken to directly. Waiting is on lines and a named pipe, never on a clock.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
if not hasattr(os, "mkfifo"):
    pytest.skip("the upstream's gate is a named pipe (POSIX only)", allow_module_level=True)

import anyio
import httpx
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

import lagent_like

ROOT = Path(lagent_like.__file__).parent.parent
UPSTREAM = Path(__file__).with_name("r5_http_server.py")
TOKEN = "r5-proxy-token"

COUNTING = """
import atexit, os, sys
from lagent_like.cli import main
import lagent_like.mcp.server as server

built, forwarded = [], [0]
build, forward = server.build_mcp_server, server._forward


def counting_build(*args, **kwargs):
    if "R5_QUEUE_TIMEOUT" in os.environ:
        kwargs["queue_timeout"] = float(os.environ["R5_QUEUE_TIMEOUT"])
    if "R5_TOOL_TIMEOUT" in os.environ:
        for toolkit in kwargs["names"].toolkits:
            toolkit._request_timeout = float(os.environ["R5_TOOL_TIMEOUT"])
    built.append(build(*args, **kwargs))
    return built[-1]


async def counting_forward(*args, **kwargs):
    forwarded[0] += 1
    return await forward(*args, **kwargs)


def report():
    passed = sum(s.http_pass_through.passed for s in built if getattr(s, "http_pass_through", None))
    print(f"counts: passed={passed} forwarded={forwarded[0]}", file=sys.stderr, flush=True)


server.build_mcp_server, server._forward = counting_build, counting_forward
atexit.register(report)
sys.exit(main(sys.argv[1:]))
"""

#: A line the test waits for no longer than this; only a broken process runs it out.
PATIENCE = 60

PROTOCOL = "2025-11-25"


class Served:
    """A process that announces ``serving MCP on URL`` on stderr; its stderr lines are kept."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
        )
        self._lines: queue.Queue[str] = queue.Queue()
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        while True:
            line = self._lines.get(timeout=PATIENCE)
            assert line, f"{command[:3]} ended before serving: {self.lines}"
            match = re.search(r"serving MCP on (\S+)", line)
            if match:
                self.url = match.group(1)
                return

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace")
            self.lines.append(line)
            self._lines.put(line)
        self._lines.put("")

    def stop(self) -> str:
        """Stop it (Ctrl-C, as an operator does; exit handlers run); everything it wrote on stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(timeout=PATIENCE)
            while self._lines.get(timeout=PATIENCE):
                pass
        return "".join(self.lines)


class Setup:
    """The upstream server and the proxy in front of it, started on demand, stopped at the end."""

    def __init__(self, tmp_path: Path, stdio: bool = False) -> None:
        self.fifo = tmp_path / "gate"
        os.mkfifo(self.fifo)
        paths = (str(ROOT), os.environ.get("PYTHONPATH", ""))
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
        self.script = tmp_path / "counting_proxy.py"
        self.script.write_text(COUNTING, encoding="utf-8")
        self.token_file = tmp_path / "token"
        self.token_file.write_text(TOKEN, encoding="utf-8")
        command = [sys.executable, str(UPSTREAM), str(self.fifo)]
        # Over stdio the proxy starts the upstream itself, from this command line.
        self.upstream_command = subprocess.list2cmdline([*command, "--stdio"])
        self.upstream = None if stdio else Served(command, self.env)
        self._proxy: Optional[Served] = None
        self._counts: Optional[dict[str, int]] = None

    def proxy(self, *options: str, env: Optional[dict[str, str]] = None) -> str:
        """Start the proxy of the upstream (with ``options``); its URL."""
        target = self.upstream_command if self.upstream is None else self.upstream.url
        command = [sys.executable, str(self.script), "serve-mcp", "--mcp", target]
        command += ["--transport", "http", "--port", "0", "--token-file", str(self.token_file), *options]
        self._proxy = Served(command, {**self.env, **(env or {})})
        return self._proxy.url

    @property
    def upstream_url(self) -> str:
        assert self.upstream is not None
        return self.upstream.url

    def open_gate(self) -> None:
        with open(self.fifo, "w", encoding="utf-8") as fifo:
            fifo.write("open\n")

    def counts(self) -> dict[str, int]:
        """The proxy's counts (it is stopped first)."""
        if self._counts is None:
            assert self._proxy is not None
            text = self._proxy.stop()
            found = re.findall(r"counts: passed=(\d+) forwarded=(\d+)", text)
            assert found, text
            self._counts = {"passed": int(found[-1][0]), "forwarded": int(found[-1][1])}
        return self._counts

    def stop(self) -> None:
        if self._proxy is not None:
            self._proxy.stop()
        if self.upstream is not None:
            self.upstream.stop()


@pytest.fixture
def stdio_setup(tmp_path: Path) -> Iterator[Setup]:
    started = Setup(tmp_path, stdio=True)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    started = Setup(tmp_path)
    try:
        yield started
    finally:
        started.stop()


def _noter(progress: list[tuple[float, Optional[float], Optional[str]]]) -> Any:
    async def note(done: float, total: Optional[float], message: Optional[str]) -> None:
        progress.append((done, total, message))

    return note


def session_calls(
    url: str, calls: list[tuple[str, dict[str, Any]]], progress: bool = False, token: Optional[str] = TOKEN
) -> list[tuple[dict[str, Any], list[Any]]]:
    """Each call's result (dumped) and the progress it reported, over one SDK session (streamable HTTP)."""

    async def run() -> list[tuple[dict[str, Any], list[Any]]]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answers = []
        async with (
            create_mcp_http_client(headers=headers) as client,
            streamable_http_client(url, http_client=client) as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()  # the handshake is complete when this is answered
            for tool, arguments in calls:
                noted: list[tuple[float, Optional[float], Optional[str]]] = []
                result = await session.call_tool(
                    tool, arguments, progress_callback=_noter(noted) if progress else None
                )
                answers.append((result.model_dump(by_alias=True, exclude_none=True), noted))
        return answers

    return anyio.run(run)


class RawClient:
    """An MCP client of plain HTTP requests: one session, its answers as they came."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.Client(timeout=PATIENCE)
        self.headers = {
            "Authorization": f"Bearer {TOKEN}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        answer = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": _init_params()})
        self.session_id = answer.headers["mcp-session-id"]
        self.headers.update({"Mcp-Session-Id": self.session_id, "Mcp-Protocol-Version": PROTOCOL})
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        # Answered after the notification's handler ran: calls may pass through from here.
        listed = self.message(self.post({"jsonrpc": "2.0", "id": "list", "method": "tools/list"}))
        assert "tools" in listed["result"]

    def post(self, message: Any, **headers: str) -> httpx.Response:
        sent = {**self.headers, **headers}
        return self.http.post(self.url, content=json.dumps(message), headers=sent)

    def call(self, request_id: Any, tool: str, arguments: Optional[dict[str, Any]] = None) -> httpx.Response:
        params = {"name": tool, "arguments": arguments or {}}
        return self.post({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})

    @staticmethod
    def message(response: httpx.Response) -> dict[str, Any]:
        """The JSON-RPC message of an answer, JSON or an event stream's last data."""
        if response.headers["content-type"].startswith("application/json"):
            found: dict[str, Any] = response.json()
            return found
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        found = json.loads([d for d in data if d][-1])
        return found

    def close(self) -> None:
        self.http.close()


def _init_params() -> dict[str, Any]:
    return {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}


SAME_AS_DIRECT = [
    pytest.param("shout", {"text": "hello"}, id="structured-content"),
    pytest.param("fail", {}, id="error-result"),
    pytest.param("shout", {"text": 5}, id="upstream-validation-error"),
    pytest.param("shout", {"text": "ünïcødé ✓"}, id="non-ascii"),
]


@pytest.mark.parametrize(("tool", "arguments"), SAME_AS_DIRECT)
def test_a_passed_call_answers_as_the_upstream_does_directly(
    setup: Setup, tool: str, arguments: dict[str, Any]
) -> None:
    url = setup.proxy()
    proxied = session_calls(url, [(tool, arguments)])
    direct = session_calls(setup.upstream_url, [(tool, arguments)], token=None)
    assert proxied == direct
    assert setup.counts() == {"passed": 1, "forwarded": 0}


def test_the_upstream_sees_the_proxys_id_and_the_client_gets_its_own_back(setup: Setup) -> None:
    client = RawClient(setup.proxy())
    try:
        answers = {
            request_id: client.call(request_id, "whoami")
            for request_id in ["lagent-like-pass-1", 7, "7", "ünï", "x" * 200]
        }
    finally:
        client.close()
    for request_id, response in answers.items():
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        assert response.headers["mcp-session-id"] == client.session_id
        message = response.json()
        assert message["id"] == request_id
        upstream_id = message["result"]["content"][0]["text"]
        assert upstream_id.startswith("lagent-like-pass-")
    assert setup.counts() == {"passed": 5, "forwarded": 0}


def test_concurrent_calls_are_answered_to_their_own_ids(setup: Setup) -> None:
    client = RawClient(setup.proxy("--max-client-calls", "8"))
    answers: dict[int, dict[str, Any]] = {}

    def call(number: int) -> None:
        answers[number] = client.call(number, "shout", {"text": f"call {number}"}).json()

    threads = [threading.Thread(target=call, args=(number,)) for number in range(8)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(PATIENCE)
    finally:
        client.close()
    assert {number: answer["id"] for number, answer in answers.items()} == {n: n for n in range(8)}
    assert {n: a["result"]["structuredContent"] for n, a in answers.items()} == {
        n: {"text": f"CALL {n}"} for n in range(8)
    }
    assert setup.counts() == {"passed": 8, "forwarded": 0}


def _call_body(tool: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": tool, "arguments": {}}}


REFUSALS = [
    pytest.param({"Mcp-Session-Id": "not-a-session"}, 404, id="unknown-session"),
    pytest.param({"Host": "evil.example"}, 421, id="foreign-host"),
    pytest.param({"Origin": "http://evil.example"}, 403, id="foreign-origin"),
    pytest.param({"Authorization": ""}, 401, id="no-token"),
    pytest.param({"Authorization": "Bearer wrong"}, 401, id="wrong-token"),
    pytest.param({"Accept": "application/json"}, 406, id="no-event-stream-accepted"),
    pytest.param({"Content-Type": "text/plain"}, 400, id="not-json"),
    pytest.param({"Mcp-Protocol-Version": "1999-01-01"}, 400, id="unknown-protocol-version"),
]


@pytest.mark.parametrize(("headers", "status"), REFUSALS)
def test_refused_requests_are_refused_as_the_sdk_path_refuses_them(
    setup: Setup, headers: dict[str, str], status: int
) -> None:
    client = RawClient(setup.proxy())
    try:
        proxied = client.post(_call_body("shout"), **headers)
        # An unknown tool always takes the SDK path: the refusal the SDK gives.
        sdk = client.post(_call_body("no-such-tool"), **headers)
    finally:
        client.close()
    assert proxied.status_code == sdk.status_code == status
    assert proxied.content == sdk.content
    assert setup.counts()["passed"] == 0


def test_a_call_with_a_progress_token_takes_the_sdk_path_and_its_progress_comes(setup: Setup) -> None:
    url = setup.proxy()
    proxied = session_calls(url, [("steps", {})], progress=True)
    direct = session_calls(setup.upstream_url, [("steps", {})], progress=True, token=None)
    assert proxied == direct
    assert proxied[0][1] == [(1.0, 3.0, "one"), (2.0, 3.0, "two"), (3.0, 3.0, None)]
    assert setup.counts() == {"passed": 0, "forwarded": 1}


def test_passed_and_sdk_path_calls_share_the_upstream_session(setup: Setup) -> None:
    url = setup.proxy()
    first = session_calls(url, [("count", {}), ("count", {})])
    with_token = session_calls(url, [("count", {})], progress=True)
    last = session_calls(url, [("count", {})])
    texts = [result["content"][0]["text"] for result, _ in [*first, *with_token, *last]]
    assert texts == ["1", "2", "3", "4"]
    assert setup.counts() == {"passed": 3, "forwarded": 1}


@pytest.mark.parametrize("progress", [pytest.param(False, id="passed"), pytest.param(True, id="sdk-path")])
def test_an_upstream_that_dies_mid_call_is_answered_as_the_sdk_path_answers(
    setup: Setup, progress: bool
) -> None:
    url = setup.proxy()
    [(lost, _)] = session_calls(url, [("die", {})], progress=progress)
    assert lost == {
        "content": [
            {"type": "text", "text": f"the connection to the MCP server {setup.upstream_url} was lost"}
        ],
        "isError": True,
        "resultType": "complete",
    }
    assert setup.counts() == {"passed": int(not progress), "forwarded": int(progress)}


def test_an_upstream_that_does_not_answer_in_time_is_answered_as_the_sdk_path_answers(setup: Setup) -> None:
    url = setup.proxy(env={"R5_TOOL_TIMEOUT": "0.5"})
    [(passed, _)] = session_calls(url, [("hang", {})])
    [(forwarded, _)] = session_calls(url, [("hang", {})], progress=True)
    assert (
        passed
        == forwarded
        == {
            "content": [{"type": "text", "text": "the MCP server did not answer within 0.5s"}],
            "isError": True,
            "resultType": "complete",
        }
    )
    assert setup.counts() == {"passed": 1, "forwarded": 1}


def test_a_call_beyond_the_clients_slots_gets_the_sdk_paths_busy_result(setup: Setup) -> None:
    client = RawClient(setup.proxy("--max-client-calls", "1", env={"R5_QUEUE_TIMEOUT": "0"}))
    gated: list[httpx.Response] = []
    holder = threading.Thread(target=lambda: gated.append(client.call("gate", "gate")))
    holder.start()
    try:
        with open(setup.fifo, "w", encoding="utf-8") as fifo:
            # The upstream opened the pipe: the gate call runs there, holding the only slot.
            busy = client.call("busy", "shout", {"text": "busy"}).json()
            fifo.write("open\n")
        holder.join(PATIENCE)
        after = client.call("after", "shout", {"text": "after"}).json()
    finally:
        client.close()
    assert busy["id"] == "busy"
    assert busy["result"] == {
        "content": [
            {
                "type": "text",
                "text": "this client already has 1 calls running; this call waited 0s for one of them "
                "to finish. Wait for your calls to end, then try again",
            }
        ],
        "isError": True,
    }
    assert gated[0].json()["result"]["content"][0]["text"] == "gate passed"
    assert after["result"]["structuredContent"] == {"text": "AFTER"}
    assert setup.counts() == {"passed": 2, "forwarded": 0}


@pytest.mark.parametrize(
    "upstream", [pytest.param("setup", id="http-server"), pytest.param("stdio_setup", id="stdio-server")]
)
def test_a_client_cancelling_a_passed_call_frees_its_slot_and_the_upstream_is_told(
    request: pytest.FixtureRequest, upstream: str
) -> None:
    setup: Setup = request.getfixturevalue(upstream)
    client = RawClient(setup.proxy("--max-client-calls", "1", env={"R5_QUEUE_TIMEOUT": "0"}))
    held: list[httpx.Response] = []
    caller = threading.Thread(target=lambda: held.append(client.call(7, "held")))
    caller.start()
    try:
        setup.open_gate()  # returns once the upstream reads the pipe: the call runs there
        notice = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
        accepted = client.post(notice)
        caller.join(PATIENCE)
        after = client.call("after", "shout", {"text": "after"}).json()
        counts = [client.call(n, "cancelled").json()["result"]["content"][0]["text"] for n in range(100)]
    finally:
        client.close()
    assert accepted.status_code == 202
    assert held[0].json() == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32800, "message": "Request cancelled"},
    }
    # The slot was given back at once (a call finding it taken would be refused: no queueing).
    assert after["result"]["structuredContent"] == {"text": "AFTER"}
    # The upstream was told under the proxy's id: its call was cancelled.
    assert "1" in counts
    assert setup.counts() == {"passed": 102, "forwarded": 0}


TOOL_RULES = [
    pytest.param(("--tools", "shout"), "fail", id="not-in-tools"),
    pytest.param((), "PythonInterpreter", id="code-tool-withheld"),
    pytest.param((), "nope", id="unknown-name"),
]


@pytest.mark.parametrize(("options", "tool"), TOOL_RULES)
def test_tools_the_proxy_does_not_serve_are_refused_by_the_sdk_path(
    setup: Setup, options: tuple[str, ...], tool: str
) -> None:
    client = RawClient(setup.proxy(*options))
    try:
        refused = client.message(client.call(9, tool, {"command": "1"}))
    finally:
        client.close()
    assert refused == {
        "jsonrpc": "2.0",
        "id": 9,
        "error": {"code": -32602, "message": f"unknown tool {tool!r}; call tools/list for the tools"},
    }
    assert setup.counts() == {"passed": 0, "forwarded": 0}


def test_oversized_arguments_are_refused_by_the_sdk_path(setup: Setup) -> None:
    client = RawClient(setup.proxy())
    try:
        refused = client.message(client.call(3, "shout", {"text": "x" * 1_100_000}))
    finally:
        client.close()
    assert refused["id"] == 3
    assert refused["result"]["isError"] is True
    assert refused["result"]["content"][0]["text"] == (
        "the arguments are 1100012 characters of JSON; this server accepts at most 1000000"
    )
    assert setup.counts() == {"passed": 0, "forwarded": 0}


def test_a_stdio_upstreams_calls_pass_through_the_http_proxy(stdio_setup: Setup) -> None:
    client = RawClient(stdio_setup.proxy())
    try:
        mine = client.call("lagent-like-pass-1", "whoami").json()
        loud = client.call(2, "shout", {"text": "piped"}).json()
        failed = client.call(3, "fail").json()
    finally:
        client.close()
    assert mine["id"] == "lagent-like-pass-1"
    assert mine["result"]["content"][0]["text"].startswith("lagent-like-pass-")
    assert loud == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "content": [{"type": "text", "text": '{"text": "PIPED"}'}],
            "structuredContent": {"text": "PIPED"},
            "isError": False,
        },
    }
    assert failed["result"] == {
        "content": [{"type": "text", "text": "it failed, as always"}],
        "isError": True,
    }
    assert stdio_setup.counts() == {"passed": 3, "forwarded": 0}


def test_a_stdio_upstream_that_dies_mid_call_is_answered_with_the_lost_connection_result(
    stdio_setup: Setup,
) -> None:
    client = RawClient(stdio_setup.proxy())
    try:
        lost = client.call(1, "die").json()
        again = client.message(client.call(2, "shout", {"text": "again"}))
    finally:
        client.close()
    assert lost["result"] == {
        "content": [
            {
                "type": "text",
                "text": f"the connection to the MCP server {stdio_setup.upstream_command} was lost",
            }
        ],
        "isError": True,
    }
    # The reconnecting call goes by the SDK session, which opens the new connection.
    assert again["result"]["structuredContent"] == {"text": "AGAIN"}
    assert stdio_setup.counts() == {"passed": 1, "forwarded": 1}
