"""What MCP costs per call, measured on this machine (a report, not a test).

Rows: one call of a trivial tool through a local ``ActionExecutor``; the same call
through an :class:`~lagent_like.mcp.MCPToolkit` to our MCP server over stdio and over
streamable HTTP on 127.0.0.1 (so the difference is the protocol's round trip); and
the cold start of a stdio toolkit (spawn the server, handshake, list the tools).

The HTTP floor: the SDK's own client calling the SDK's own server (``MCPServer``)
under plain uvicorn, the same client calling our server's app under plain uvicorn
(no token, no TCP_NODELAY) and calling ``serve_mcp`` (bearer token and Host check
included). The ratio to the SDK's server is the row the issue pins (at most 1.5x);
the servers run in turn, in one run, each best-of-3 medians.

Medians of N calls; ``--quick`` uses fewer. The script serves its own tool
(``--serve stdio|http|sdk-http|plain-http``), so it needs nothing but the ``mcp`` extra.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import statistics
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any, Callable

from lagent_like import ActionExecutor, BaseAction

if TYPE_CHECKING:
    from lagent_like.mcp import MCPToolkit


class Echo(BaseAction):
    """Echo for timing."""

    def run(self, text: str) -> str:
        """Return the text unchanged.

        Args:
            text: what to echo
        """
        return text


def median_ms(call: Callable[[], object], n: int) -> float:
    """Median wall time of ``n`` calls, in milliseconds."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


#: The bearer token of the benchmark's own HTTP servers.
TOKEN = "bench-token"


def serve(transport: str, port: int) -> None:
    """Serve ``Echo`` over MCP (the server side of the benchmark)."""
    if transport == "sdk-http":
        _serve_sdk(port)
        return
    if transport == "plain-http":
        _serve_plain(port)
        return
    from lagent_like.mcp import serve_mcp

    serve_mcp(ActionExecutor([Echo()]), transport=transport, port=0, token=TOKEN)


def _serve_sdk(port: int) -> None:
    """The floor: the SDK's own server with the same tool, under plain uvicorn."""
    import uvicorn
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("sdk-bench")

    @server.tool()
    def Echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    print(f"serving MCP on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")


def _serve_plain(port: int) -> None:
    """Our server's app as the SDK makes it, under plain uvicorn: no guard, no TCP_NODELAY."""
    import uvicorn

    from lagent_like.mcp import build_mcp_server

    app = build_mcp_server(ActionExecutor([Echo()])).streamable_http_app()
    print(f"serving MCP on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _Server:
    """A benchmark server subprocess and the URL it announced."""

    def __init__(self, kind: str) -> None:
        command = [sys.executable, __file__, "--serve", kind, "--port", str(_free_port())]
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert self.proc.stderr is not None
        match = re.search(r"serving MCP on (\S+)", self.proc.stderr.readline().decode())
        if match is None:
            self.stop()
            raise RuntimeError(f"the {kind} server did not start")
        self.url = match.group(1)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


def _sdk_client_ms(url: str, n: int) -> float:
    """Median of ``n`` trivial calls from the SDK's own client (after a warm-up call)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def run() -> float:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with create_mcp_http_client(headers=headers) as http:  # noqa: SIM117 - 3.9 syntax
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await session.list_tools()
                    result: Any = await session.call_tool("Echo", {"text": "hi"})
                    if result.is_error or result.content[0].text != "hi":
                        raise RuntimeError(f"unexpected answer from {url}: {result}")
                    times = []
                    for _ in range(n):
                        start = time.perf_counter()
                        await session.call_tool("Echo", {"text": "hi"})
                        times.append((time.perf_counter() - start) * 1e3)
                    return statistics.median(times)

    return float(anyio.run(run))


def _http_floor_rows(n: int) -> list[tuple[str, float]]:
    """The SDK server and ours, each called by the SDK client; best of 3 medians each."""
    best = {"sdk-http": float("inf"), "plain-http": float("inf"), "http": float("inf")}
    servers = {kind: _Server(kind) for kind in best}
    try:
        for _ in range(3):
            for kind, server in servers.items():  # in turn, so load changes hit both
                best[kind] = min(best[kind], _sdk_client_ms(server.url, n))
    finally:
        for server in servers.values():
            server.stop()
    return [
        ("SDK client -> SDK MCPServer under uvicorn (floor)", best["sdk-http"]),
        ("SDK client -> our app under plain uvicorn", best["plain-http"]),
        ("SDK client -> serve_mcp over HTTP", best["http"]),
        ("ratio serve_mcp / SDK server (target <= 1.5)", best["http"] / best["sdk-http"]),
        ("ratio serve_mcp / our app under plain uvicorn", best["http"] / best["plain-http"]),
    ]


def _call_ms(executor: ActionExecutor, name: str, n: int) -> float:
    ret = executor(name, '{"text": "hi"}')
    if ret.format_result() != "hi":
        raise RuntimeError(f"unexpected answer from {name}: {ret}")
    return median_ms(lambda: executor(name, '{"text": "hi"}'), n)


def _http_row(n: int) -> float:
    from lagent_like.mcp import MCPToolkit

    server = _Server("http")
    try:
        with MCPToolkit(url=server.url, token=TOKEN) as toolkit:
            return _call_ms(ActionExecutor([toolkit]), "MCP.Echo", n)
    finally:
        server.stop()


def _stdio_toolkit() -> MCPToolkit:
    from lagent_like.mcp import MCPToolkit

    return MCPToolkit(sys.executable, [__file__, "--serve", "stdio"])


def measure(n: int) -> list[tuple[str, float]]:
    """The report rows: (name, milliseconds)."""
    rows = [("Echo through a local ActionExecutor", _call_ms(ActionExecutor([Echo()]), "Echo", n))]
    cold = []
    for _ in range(3):
        start = time.perf_counter()
        with _stdio_toolkit():
            cold.append((time.perf_counter() - start) * 1e3)
    with _stdio_toolkit() as toolkit:
        rows.append(("Echo through MCPToolkit, stdio", _call_ms(ActionExecutor([toolkit]), "MCP.Echo", n)))
    rows.append(("Echo through MCPToolkit, streamable HTTP", _http_row(n)))
    rows.append(("stdio toolkit cold start (spawn, handshake, list)", statistics.median(cold)))
    rows += _http_floor_rows(n)
    return rows


def main() -> None:
    """Print the report (``--json`` for machine-readable rows)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls per row")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument(
        "--serve", choices=["stdio", "http", "sdk-http", "plain-http"], help=argparse.SUPPRESS
    )
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port)
        return
    rows = measure(30 if args.quick else 300)
    if args.json:
        print(json.dumps([{"row": name, "ms": round(ms, 4)} for name, ms in rows]))
        return
    print(f"{'row':52s} {'median':>12s}")
    for name, ms in rows:
        if name.startswith("ratio"):
            print(f"{name:52s} {ms:9.2f} x")
            continue
        shown = f"{ms * 1e3:9.1f} us" if ms < 1 else f"{ms:9.2f} ms"
        print(f"{name:52s} {shown:>12s}")


if __name__ == "__main__":
    main()
