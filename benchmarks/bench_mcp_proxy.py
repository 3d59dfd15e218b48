"""Measure what ``serve-mcp --mcp`` adds to a call: the proxy against the upstream server itself.

Run ``python benchmarks/bench_mcp_proxy.py`` (``--calls N``, ``--rounds N``,
``--work-ms MS``, ``--json``). An official SDK client calls one tool over stdio, once
straight on an upstream server and once through ``lagent-like serve-mcp --mcp
UPSTREAM`` (the same upstream, started by the proxy). Both sessions stay open, and
the two are timed alternately (direct, proxied, direct, ...) for ``--rounds`` rounds
of ``--calls`` calls each; each row keeps its best round (wall time: the calls cross
processes, so CPU time of one would miss most of the cost). The ratio is proxied /
direct, in the same run. Target: a proxied call within 1.3x of a direct one for a
tool that does some work (``--work-ms``, 2 ms by default: the upstream sleeps that
long per call, like a tool that reads a file or a clock); with ``--work-ms 0`` the
row shows the bare per-hop cost (a proxy is one more process hop, so roughly twice
an empty call).

The upstream is this file run with ``--upstream``: a low-level SDK server with one
tool, ``echo``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent


def serve_upstream(work_ms: float) -> None:
    """Serve the ``echo`` tool over stdio (the upstream of the benchmark)."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    tool = types.Tool(
        name="echo",
        description="Echo the text.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if work_ms:
            await anyio.sleep(work_ms / 1000)
        return types.CallToolResult(content=[types.TextContent(text=str((params.arguments or {})["text"]))])

    server = Server("bench-upstream", on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


async def _timed_rounds(direct: list[str], proxied: list[str], calls: int, rounds: int) -> dict[str, float]:
    """Best seconds per call of each session, timed alternately."""
    from contextlib import AsyncExitStack

    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    }
    best = {"direct": float("inf"), "proxied": float("inf")}
    async with AsyncExitStack() as stack:
        sessions = {}
        for label, command in (("direct", direct), ("proxied", proxied)):
            params = StdioServerParameters(command=command[0], args=command[1:], env=env)
            read, write = await stack.enter_async_context(stdio_client(params, errlog=subprocess.DEVNULL))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            for _ in range(20):  # warm up: imports, first-call paths
                await session.call_tool("echo", {"text": "warm"})
            sessions[label] = session
        for _ in range(rounds):
            for label, session in sessions.items():
                start = time.perf_counter()
                for _ in range(calls):
                    result = await session.call_tool("echo", {"text": "hello"})
                elapsed = (time.perf_counter() - start) / calls
                assert not result.is_error, result
                best[label] = min(best[label], elapsed)
    return best


def main(argv: Any = None) -> int:
    """Run the benchmark and print its rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per round (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per row; the best counts (default 5)")
    parser.add_argument("--work-ms", type=float, default=2.0, help="the upstream tool's own time (default 2)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--upstream", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.upstream:
        serve_upstream(args.work_ms)
        return 0
    import anyio

    upstream = [sys.executable, str(HERE), "--upstream", "--work-ms", str(args.work_ms)]
    proxy = [sys.executable, "-m", "lagent_like", "serve-mcp", "--mcp", subprocess.list2cmdline(upstream)]
    best = anyio.run(_timed_rounds, upstream, proxy, args.calls, args.rounds)
    ratio = best["proxied"] / best["direct"]
    rows = [
        {"row": "direct call (SDK client -> upstream)", "ms_per_call": best["direct"] * 1000},
        {
            "row": "proxied call (SDK client -> serve-mcp --mcp -> upstream)",
            "ms_per_call": best["proxied"] * 1000,
        },
    ]
    if args.json:
        print(json.dumps({"work_ms": args.work_ms, "rows": rows, "ratio": ratio}))
        return 0
    print(f"upstream tool time: {args.work_ms:g} ms; best of {args.rounds} rounds of {args.calls} calls")
    for row in rows:
        print(f"  {row['row']:<60} {row['ms_per_call']:8.3f} ms")
    verdict = "meets" if ratio <= 1.3 else "misses"
    print(f"  proxied / direct: {ratio:.2f}x ({verdict} the 1.3x target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
