"""Measure what ``serve-mcp --mcp`` adds to a call: the proxy against the upstream server itself.

Run ``python benchmarks/bench_mcp_proxy.py`` (``--calls N``, ``--rounds N``,
``--work-ms MS [MS ...]``, ``--transport stdio|http|both``, ``--package DIR [DIR ...]``,
``--json``). An official SDK client calls one tool, once straight on an upstream
server and once through ``lagent-like serve-mcp --mcp UPSTREAM`` (the same upstream,
reached by the proxy). Over ``stdio`` the client starts both processes (the proxy
starts its upstream); over ``http`` the upstream and the proxy listen on 127.0.0.1 and
the client (and the proxy) connect by streamable HTTP. Both sessions stay open, and
the two are timed alternately (direct, proxied, direct, ...) for ``--rounds`` rounds of
``--calls`` calls each; each row keeps its best round (wall time: the calls cross
processes, so CPU time of one would miss most of the cost). The ratio is proxied /
direct, in the same run. Beside it, from ``/proc`` (Linux), the CPU time per call of
the server process each session talks to, over all rounds: the upstream's for the
direct session, the proxy process's alone for a proxied one. On a busy machine the wall
times (and ratios) move from run to run; the CPU times are what the code costs.

Target: a proxied call within 1.3x of a direct one. ``--work-ms`` is the upstream
tool's own time per call (it sleeps that long, like a tool that reads a file or a
clock); with 0 the row shows the bare cost of one more MCP hop. ``--package`` runs
the proxy from other checkouts too (``--package /path/to/main .``): each is a proxied
session of its own, timed in the same rounds, so two versions compare in one run.

The upstream is this file run with ``--upstream``: a low-level SDK server with one
tool, ``echo``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent
TOKEN = "bench-proxy-token"


def serve_upstream(work_ms: float, http: bool) -> None:
    """Serve the ``echo`` tool over stdio, or over HTTP on a free port (the URL on stderr)."""
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
    if http:
        import socket

        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        print(f"serving MCP on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
        config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
        uvicorn.Server(config).run(sockets=[sock])
        return

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


def _env(package: Path) -> dict[str, str]:
    paths = (str(package), os.environ.get("PYTHONPATH"))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


@contextlib.contextmanager
def _listening(command: list[str], env: dict[str, str], cwd: Path = ROOT) -> Iterator[tuple[str, int]]:
    """Start ``command`` in ``cwd``, yield the URL it announces on stderr and its pid; stop it after."""
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    try:
        assert proc.stderr is not None
        for raw in proc.stderr:
            match = re.search(r"serving MCP on (\S+)", raw.decode())
            if match:
                yield match.group(1), proc.pid
                break
        else:
            raise RuntimeError(f"{command[:3]} ended before serving")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()


@contextlib.asynccontextmanager
async def _stdio_session(command: list[str], env: dict[str, str], cwd: Path = ROOT) -> AsyncIterator[Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    # ``python -m`` puts the working directory first on sys.path: each proxy runs in
    # its own checkout, or every one would import the package found where this runs.
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=cwd)
    async with (
        stdio_client(params, errlog=subprocess.DEVNULL) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@contextlib.asynccontextmanager
async def _http_session(url: str) -> AsyncIterator[Any]:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        create_mcp_http_client(headers=headers) as client,
        streamable_http_client(url, http_client=client) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def _cpu_seconds(pid: Optional[int]) -> Optional[float]:
    """The CPU time (user + system) process ``pid`` has used, from ``/proc``; ``None`` elsewhere."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _child(marker: str, package: Optional[Path] = None) -> Optional[int]:
    """The pid of this process's child whose command line holds ``marker`` (and runs ``package``)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rpartition(")")[2].split()[1]) != os.getpid():
                continue
            cmdline = (stat.parent / "cmdline").read_bytes().split(b"\0")
            environ = (stat.parent / "environ").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if marker.encode() not in cmdline:
            continue
        wanted = f"PYTHONPATH={package}".encode()
        if package is None or any(entry.startswith(wanted) for entry in environ):
            return int(stat.parent.name)
    return None


async def _timed_rounds(
    sessions: dict[str, Any], pids: dict[str, Optional[int]], calls: int, rounds: int
) -> dict[str, tuple[float, Optional[float]]]:
    """``(best seconds per call, its server process's CPU seconds per call)`` of each session.

    The sessions are timed alternately; the CPU time is the server's (the upstream for
    ``direct``, the proxy process alone for a proxy) over every round, per call: unlike
    wall time, it does not count the time spent waiting for a busy machine's cores.
    """
    best = {label: float("inf") for label in sessions}
    cpu: dict[str, Optional[float]] = dict.fromkeys(sessions, 0.0)
    for session in sessions.values():
        for _ in range(20):  # warm up: imports, first-call paths
            await session.call_tool("echo", {"text": "warm"})
    for _ in range(rounds):
        for label, session in sessions.items():
            used = _cpu_seconds(pids[label])
            start = time.perf_counter()
            for _ in range(calls):
                result = await session.call_tool("echo", {"text": "hello"})
            elapsed = (time.perf_counter() - start) / calls
            after = _cpu_seconds(pids[label])
            assert not result.is_error, result
            best[label] = min(best[label], elapsed)
            total = cpu[label]
            cpu[label] = None if total is None or used is None or after is None else total + after - used
    return {
        label: (best[label], None if cpu[label] is None else cpu[label] / (calls * rounds))
        for label in sessions
    }


async def _measure_stdio(
    work_ms: float, packages: list[Path], calls: int, rounds: int
) -> dict[str, tuple[float, Optional[float]]]:
    upstream = [sys.executable, str(HERE), "--upstream", "--work-ms", str(work_ms)]
    proxy = [sys.executable, "-m", "lagent_like", "serve-mcp", "--mcp", subprocess.list2cmdline(upstream)]
    async with contextlib.AsyncExitStack() as stack:
        sessions = {"direct": await stack.enter_async_context(_stdio_session(upstream, _env(ROOT)))}
        pids = {"direct": _child("--upstream")}
        for package in packages:
            session = _stdio_session(proxy, _env(package), package)
            sessions[str(package)] = await stack.enter_async_context(session)
            pids[str(package)] = _child("serve-mcp", package)
        return await _timed_rounds(sessions, pids, calls, rounds)


async def _measure_http(
    work_ms: float, packages: list[Path], calls: int, rounds: int
) -> dict[str, tuple[float, Optional[float]]]:
    upstream = [sys.executable, str(HERE), "--upstream", "--http", "--work-ms", str(work_ms)]
    with contextlib.ExitStack() as processes, tempfile.TemporaryDirectory() as tmp:
        upstream_url, upstream_pid = processes.enter_context(_listening(upstream, _env(ROOT)))
        token_file = Path(tmp) / "token"
        token_file.write_text(TOKEN)
        proxy = [sys.executable, "-m", "lagent_like", "serve-mcp", "--mcp", upstream_url]
        proxy += ["--transport", "http", "--port", "0", "--token-file", str(token_file)]
        urls = {"direct": upstream_url}
        pids: dict[str, Optional[int]] = {"direct": upstream_pid}
        for package in packages:
            served = _listening(proxy, _env(package), package)
            urls[str(package)], pids[str(package)] = processes.enter_context(served)
        async with contextlib.AsyncExitStack() as stack:
            sessions = {
                label: await stack.enter_async_context(_http_session(url)) for label, url in urls.items()
            }
            return await _timed_rounds(sessions, pids, calls, rounds)


def _ms(seconds: Optional[float]) -> Optional[float]:
    return None if seconds is None else seconds * 1000


def _shown(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.3f}"


def main(argv: Any = None) -> int:
    """Run the benchmark and print its rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per round (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per row; the best counts (default 5)")
    parser.add_argument(
        "--work-ms",
        type=float,
        nargs="+",
        default=[0.0, 2.0, 10.0],
        help="the upstream tool's own time (default 0 2 10)",
    )
    parser.add_argument("--transport", choices=("stdio", "http", "both"), default="both", help="default both")
    parser.add_argument(
        "--package",
        type=Path,
        nargs="+",
        default=[ROOT],
        help="the checkouts the proxy runs from, each a row, timed in the same rounds (default this one)",
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--upstream", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--http", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.package = [package.resolve() for package in args.package]
    if args.upstream:
        serve_upstream(args.work_ms[0], args.http)
        return 0
    import anyio

    measures = {"stdio": _measure_stdio, "http": _measure_http}
    transports = list(measures) if args.transport == "both" else [args.transport]
    rows = []
    for transport in transports:
        for work_ms in args.work_ms:
            best = anyio.run(measures[transport], work_ms, args.package, args.calls, args.rounds)
            for package in args.package:
                wall, cpu = best[str(package)]
                rows.append(
                    {
                        "transport": transport,
                        "work_ms": work_ms,
                        "package": str(package),
                        "direct_ms": best["direct"][0] * 1000,
                        "proxied_ms": wall * 1000,
                        "ratio": wall / best["direct"][0],
                        "upstream_cpu_ms": _ms(best["direct"][1]),
                        "proxy_cpu_ms": _ms(cpu),
                    }
                )
    if args.json:
        print(json.dumps({"rows": rows}))
        return 0
    print(
        f"best of {args.rounds} rounds of {args.calls} calls, the sessions of a row timed alternately; "
        "target <= 1.3x"
    )
    print(
        f"{'transport':<10}{'tool ms':>8}{'direct ms':>11}{'proxied ms':>12}{'ratio':>8}  verdict"
        f"{'upstream cpu ms':>17}{'proxy cpu ms':>14}  proxy from"
    )
    for row in rows:
        verdict = "ok" if row["ratio"] <= 1.3 else "MISS"
        print(
            f"{row['transport']:<10}{row['work_ms']:>8g}{row['direct_ms']:>11.3f}{row['proxied_ms']:>12.3f}"
            f"{row['ratio']:>7.2f}x  {verdict:<7}{_shown(row['upstream_cpu_ms']):>17}"
            f"{_shown(row['proxy_cpu_ms']):>14}  {row['package']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
