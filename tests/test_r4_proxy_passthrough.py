"""``serve-mcp`` over stdio passes a proxied stdio server's calls through as JSON-RPC lines.

A ``tools/call`` for a proxied tool goes from the proxy's stdin to the upstream's stdin
with only its tool name and id mapped, and the upstream's answer comes back as the
upstream wrote it, the client's id restored; everything else still goes through the
SDK. Each test runs real processes (the proxy started through a small script that
counts, at exit, the calls passed through and those forwarded by the SDK path), talks
to them with the official SDK client or line by line, and compares with the upstream
spoken to directly. Waiting is on lines and a named pipe, never on a clock.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
if not hasattr(os, "mkfifo"):
    pytest.skip("the upstream's gate is a named pipe (POSIX only)", allow_module_level=True)

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import lagent_like

ROOT = Path(lagent_like.__file__).parent.parent
UPSTREAM = Path(__file__).with_name("r4_passthrough_upstream.py")

COUNTING = """
import atexit, sys
from lagent_like.cli import main
import lagent_like.mcp.server as server

built, forwarded = [], [0]
build, forward = server.build_mcp_server, server._forward


def counting_build(*args, **kwargs):
    built.append(build(*args, **kwargs))
    return built[-1]


async def counting_forward(*args, **kwargs):
    forwarded[0] += 1
    return await forward(*args, **kwargs)


def report():
    passed = sum(getattr(s, "pass_through").passed for s in built if getattr(s, "pass_through", None))
    print(f"counts: passed={passed} forwarded={forwarded[0]}", file=sys.stderr, flush=True)


server.build_mcp_server, server._forward = counting_build, counting_forward
atexit.register(report)
sys.exit(main(sys.argv[1:]))
"""

#: A line the client waits for no longer than this; only a broken proxy runs it out.
PATIENCE = 60


class Setup:
    """The upstream's command line, the proxy's, their environment and the gate's named pipe."""

    def __init__(self, tmp_path: Path) -> None:
        self.fifo = tmp_path / "gate"
        os.mkfifo(self.fifo)
        self.upstream = [sys.executable, str(UPSTREAM), str(self.fifo)]
        script = tmp_path / "counting_proxy.py"
        script.write_text(COUNTING, encoding="utf-8")
        self.errlog = tmp_path / "proxy.err"
        paths = (str(ROOT), os.environ.get("PYTHONPATH", ""))
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
        self.script = script

    def proxy(self, *options: str) -> list[str]:
        upstream = subprocess.list2cmdline(self.upstream)
        return [sys.executable, str(self.script), "serve-mcp", "--mcp", upstream, *options]

    def open_gate(self) -> None:
        with open(self.fifo, "w", encoding="utf-8") as fifo:
            fifo.write("open\n")

    def counts(self) -> dict[str, int]:
        """The proxy's counts, written when it exited."""
        found = re.findall(r"counts: passed=(\d+) forwarded=(\d+)", self.errlog.read_text(encoding="utf-8"))
        assert found, self.errlog.read_text(encoding="utf-8")
        passed, forwarded = found[-1]
        return {"passed": int(passed), "forwarded": int(forwarded)}


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


class LineClient:
    """A client that writes JSON-RPC lines to a server and reads its lines back, as bytes."""

    def __init__(self, command: list[str], env: dict[str, str], errlog: Path) -> None:
        self._err = open(errlog, "ab")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, env=env
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def until(self, done: Callable[[dict[str, Any]], bool]) -> list[bytes]:
        """The lines read up to and with the first whose message is ``done``."""
        lines = []
        while True:
            line = self._lines.get(timeout=PATIENCE)
            assert line, f"the server closed its output; read so far: {lines}"
            lines.append(line)
            if done(json.loads(line.decode("utf-8", "surrogateescape"))):  # bytes as they came
                return lines

    def answer(self, request_id: Any) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.until(lambda m: _answers(m, request_id))[-1])
        return message

    def handshake(self) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": "init",
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "lines", "version": "1"},
                },
            }
        )
        self.answer("init")
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        # Answered after the notification's handler ran: calls may pass through from here.
        self.send({"jsonrpc": "2.0", "id": "list", "method": "tools/list"})
        self.answer("list")

    def call(
        self, request_id: Any, tool: str, arguments: Optional[dict[str, Any]] = None, **meta: Any
    ) -> None:
        params: dict[str, Any] = {"name": tool, "arguments": arguments or {}}
        if meta:
            params["_meta"] = meta
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=PATIENCE)
        self._reader.join(PATIENCE)
        self._err.close()


def _answers(message: dict[str, Any], request_id: Any) -> bool:
    return "method" not in message and message.get("id") == request_id


def _id_of(line: bytes) -> Any:
    message = json.loads(line)
    return None if "method" in message else message.get("id")


def _noter(progress: list[tuple[float, Optional[float], Optional[str]]]) -> Any:
    """A progress callback that notes each notification in ``progress``."""

    async def note(done: float, total: Optional[float], message: Optional[str]) -> None:
        progress.append((done, total, message))

    return note


async def _session_calls(
    command: list[str], env: dict[str, str], errlog: Path, calls: list[tuple[str, dict[str, Any]]]
) -> list[tuple[dict[str, Any], list[tuple[float, Optional[float], Optional[str]]]]]:
    """Each call's result (dumped) and the progress it reported, over one SDK session."""
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    answers = []
    with open(errlog, "ab") as err:
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()  # the handshake is complete when this is answered
            for tool, arguments in calls:
                progress: list[tuple[float, Optional[float], Optional[str]]] = []
                result = await session.call_tool(tool, arguments, progress_callback=_noter(progress))
                answers.append((result.model_dump(by_alias=True, exclude_none=True), progress))
    return answers


SAME_AS_DIRECT = [
    pytest.param("shout", {"text": "hello"}, id="structured-content"),
    pytest.param("fail", {}, id="error-result"),
    pytest.param("steps", {}, id="progress"),
    pytest.param("shout", {"text": 5}, id="upstream-validation-error"),
    pytest.param("shout", {"text": "ünïcødé ✓"}, id="non-ascii"),
]


@pytest.mark.parametrize(("tool", "arguments"), SAME_AS_DIRECT)
def test_a_passed_call_answers_as_the_upstream_does_directly(
    setup: Setup, tool: str, arguments: dict[str, Any]
) -> None:
    calls = [(tool, arguments)]
    direct = anyio.run(_session_calls, setup.upstream, setup.env, setup.errlog, calls)
    proxied = anyio.run(_session_calls, setup.proxy(), setup.env, setup.errlog, calls)
    assert proxied == direct
    assert setup.counts() == {"passed": 1, "forwarded": 0}


def test_the_answer_line_is_the_upstreams_bytes_but_for_the_id(setup: Setup) -> None:
    lines = {}
    for label, command in (("direct", setup.upstream), ("proxied", setup.proxy())):
        client = LineClient(command, setup.env, setup.errlog)
        try:
            client.handshake()
            client.call(41, "shout", {"text": "bytes ✓"})
            lines[label] = client.until(lambda m: _answers(m, 41))[-1]
        finally:
            client.close()
    assert lines["proxied"] == lines["direct"]
    assert setup.counts() == {"passed": 1, "forwarded": 0}


def test_client_ids_like_the_proxys_own_are_answered_to_the_client_ids(setup: Setup) -> None:
    client = LineClient(setup.proxy(), setup.env, setup.errlog)
    try:
        client.handshake()
        # The proxy's own ids look like these; a client's are mapped all the same.
        for request_id in ("lagent-like-pass-1", "lagent-like-pass-2", 1, "1x"):
            client.call(request_id, "whoami")
            answer = client.answer(request_id)
            seen = answer["result"]["content"][0]["text"]
            # The upstream saw the proxy's id, and its text (which quotes it) is left alone.
            assert seen.startswith("lagent-like-pass-")
            assert answer["id"] == request_id
    finally:
        client.close()
    assert setup.counts() == {"passed": 4, "forwarded": 0}


def test_concurrent_calls_are_answered_out_of_order_with_a_notification_between(setup: Setup) -> None:
    client = LineClient(setup.proxy(), setup.env, setup.errlog)
    try:
        client.handshake()
        client.call(1, "gate")
        client.call(2, "steps", progressToken="tok")
        client.send({"jsonrpc": "2.0", "id": "ping", "method": "ping"})  # the SDK's, meanwhile
        answered: set[Any] = set()
        read = client.until(lambda m: bool(answered.add(m.get("id"))) or {2, "ping"} <= answered)
        setup.open_gate()
        read += client.until(lambda m: _answers(m, 1))
    finally:
        client.close()
    messages = [json.loads(line) for line in read]
    progress = [m["params"] for m in messages if m.get("method") == "notifications/progress"]
    assert progress == [
        {"progressToken": "tok", "progress": 1.0, "total": 3.0, "message": "one"},
        {"progressToken": "tok", "progress": 2.0, "total": 3.0, "message": "two"},
        {"progressToken": "tok", "progress": 3.0, "total": 3.0},
    ]
    answers = {m["id"]: m["result"] for m in messages if "method" not in m}
    # The first call is answered last, each answer to its own id.
    assert list(answers)[-1] == 1
    assert answers == {
        2: {"content": [{"text": "done", "type": "text"}], "isError": False},
        "ping": {},
        1: {"content": [{"text": "gate passed", "type": "text"}], "isError": False},
    }
    assert setup.counts() == {"passed": 2, "forwarded": 0}


def test_a_passed_call_holds_its_clients_slot_until_its_answer(setup: Setup) -> None:
    client = LineClient(setup.proxy("--max-client-calls", "1"), setup.env, setup.errlog)
    try:
        client.handshake()
        client.call(1, "gate")
        client.call(2, "shout", {"text": "queued"})
        setup.open_gate()
        read = client.until(lambda m: _answers(m, 2))
    finally:
        client.close()
    # The second call waited for the first one's slot, so it is answered after it.
    assert [_id_of(line) for line in read] == [1, 2]
    assert setup.counts() == {"passed": 2, "forwarded": 0}


def test_cancelling_a_passed_call_reaches_the_upstream_and_frees_the_slot(setup: Setup) -> None:
    client = LineClient(setup.proxy("--max-client-calls", "1"), setup.env, setup.errlog)
    try:
        client.handshake()
        client.call(7, "hang")
        client.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
        client.call(8, "cancelled")
        read = client.until(lambda m: _answers(m, 8))
    finally:
        client.close()
    # The upstream got the cancellation under the proxy's id, the slot was given back,
    # and the cancelled call is never answered.
    assert [_id_of(line) for line in read] == [8]
    assert json.loads(read[-1])["result"]["content"][0]["text"] == "1"
    assert setup.counts() == {"passed": 2, "forwarded": 0}


def test_an_upstream_that_dies_mid_call_is_answered_and_the_next_call_reconnects(setup: Setup) -> None:
    client = LineClient(setup.proxy(), setup.env, setup.errlog)
    try:
        client.handshake()
        client.call(1, "die")
        lost = client.answer(1)
        client.call(2, "shout", {"text": "again"})
        again = client.answer(2)
    finally:
        client.close()
    target = subprocess.list2cmdline(setup.upstream)
    assert lost["result"] == {
        "content": [{"type": "text", "text": f"the connection to the MCP server {target} was lost"}],
        "isError": True,
    }
    assert again["result"]["structuredContent"] == {"text": "AGAIN"}
    # The reconnecting call goes by the SDK session, which opens the new connection.
    assert setup.counts() == {"passed": 1, "forwarded": 1}


REFUSED = [
    pytest.param(
        ("--tools", "shout"),
        "fail",
        {},
        {"code": -32602, "message": "unknown tool 'fail'; call tools/list for the tools"},
        id="not-in-tools",
    ),
    pytest.param(
        (),
        "PythonInterpreter",
        {"command": "1"},
        {"code": -32602, "message": "unknown tool 'PythonInterpreter'; call tools/list for the tools"},
        id="code-tool-withheld",
    ),
    pytest.param(
        (),
        "nope",
        {},
        {"code": -32602, "message": "unknown tool 'nope'; call tools/list for the tools"},
        id="unknown-name",
    ),
]


@pytest.mark.parametrize(("options", "tool", "arguments", "error"), REFUSED)
def test_calls_the_proxy_refuses_are_refused_by_the_sdk_path_as_before(
    setup: Setup, options: tuple[str, ...], tool: str, arguments: dict[str, Any], error: dict[str, Any]
) -> None:
    client = LineClient(setup.proxy(*options), setup.env, setup.errlog)
    try:
        client.handshake()
        client.call(1, tool, arguments)
        answer = client.answer(1)
    finally:
        client.close()
    assert answer["error"] == error
    assert setup.counts() == {"passed": 0, "forwarded": 0}


def test_oversized_arguments_are_refused_as_before(setup: Setup) -> None:
    client = LineClient(setup.proxy(), setup.env, setup.errlog)
    try:
        client.handshake()
        client.call(1, "shout", {"text": "x" * 1_000_000})
        answer = client.answer(1)
    finally:
        client.close()
    assert answer["result"] == {
        "content": [
            {
                "type": "text",
                "text": "the arguments are 1000012 characters of JSON; this server accepts at most 1000000",
            }
        ],
        "isError": True,
    }
    assert setup.counts() == {"passed": 0, "forwarded": 0}


def test_the_allowed_code_tool_passes_through(setup: Setup) -> None:
    client = LineClient(setup.proxy("--allow-code"), setup.env, setup.errlog)
    try:
        client.handshake()
        client.call(1, "PythonInterpreter", {"command": "1 + 1"})
        answer = client.answer(1)
    finally:
        client.close()
    assert answer["result"]["content"][0]["text"] == "ran 1 + 1"
    assert setup.counts() == {"passed": 1, "forwarded": 0}


RAW_UPSTREAM = r"""
import json, sys

TOOL = {"name": "raw", "description": "Answers with a byte that is not UTF-8.", "inputSchema": {"type": "object"}}
for line in sys.stdin.buffer:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    elif message["method"] == "tools/list":
        result = {"tools": [TOOL]}
    elif message["method"] == "tools/call":
        head = json.dumps({"jsonrpc": "2.0", "id": message["id"]})[:-1].encode()
        sys.stdout.buffer.write(head + b',"result":{"content":[{"type":"text","text":"caf\xe9 \\ud800"}]}}\n')
        sys.stdout.buffer.flush()
        continue
    else:
        result = {}
    sys.stdout.buffer.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode() + b"\n")
    sys.stdout.buffer.flush()
"""


def test_bytes_that_are_not_utf8_reach_the_client_as_the_upstream_wrote_them(
    setup: Setup, tmp_path: Path
) -> None:
    raw = tmp_path / "raw_upstream.py"
    raw.write_text(RAW_UPSTREAM, encoding="utf-8")
    setup.upstream = [sys.executable, str(raw)]
    lines = {}
    for label, command in (("direct", setup.upstream), ("proxied", setup.proxy())):
        client = LineClient(command, setup.env, setup.errlog)
        try:
            client.handshake()
            client.call(5, "raw")
            lines[label] = client.until(lambda m: _answers(m, 5))[-1]
        finally:
            client.close()
    assert lines["proxied"] == lines["direct"]
    assert b'"text":"caf\xe9 \\ud800"' in lines["proxied"]
    assert setup.counts() == {"passed": 1, "forwarded": 0}


def test_the_sdk_path_reads_such_bytes_as_replacement_characters(setup: Setup, tmp_path: Path) -> None:
    from mcp.client.client import Client

    raw = tmp_path / "raw_upstream.py"
    raw.write_text(RAW_UPSTREAM, encoding="utf-8")
    setup.upstream = [sys.executable, str(raw)]
    command = setup.proxy()

    async def run() -> Any:
        # A client of the 2026-07-28 protocol: its calls go through the SDK's sessions.
        params = StdioServerParameters(command=command[0], args=command[1:], env=setup.env)
        async with Client(params) as client:
            return (await client.call_tool("raw", {})).model_dump(by_alias=True, exclude_none=True)

    # (The SDK's Client takes no errlog: the proxy's counts go to this test's stderr.)
    assert anyio.run(run)["content"] == [{"type": "text", "text": "caf\ufffd \ufffd"}]
