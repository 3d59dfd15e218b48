"""What MCP costs per call, measured on this machine (a report, not a test).

Rows: one call of a trivial tool through a local ``ActionExecutor``; the same call
through an :class:`~lagent_like.mcp.MCPToolkit` to our MCP server over stdio and over
streamable HTTP on 127.0.0.1 (so the difference is the protocol's round trip); and
the cold start of a stdio toolkit (spawn the server, handshake, list the tools).
Medians of N calls; ``--quick`` uses fewer. The script serves its own tool
(``--serve stdio|http``), so it needs nothing but the ``mcp`` extra.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Callable

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


def serve(transport: str) -> None:
    """Serve ``Echo`` over MCP (the server side of the benchmark)."""
    from lagent_like.mcp import serve_mcp

    serve_mcp(ActionExecutor([Echo()]), transport=transport, port=0)


def _call_ms(executor: ActionExecutor, name: str, n: int) -> float:
    ret = executor(name, '{"text": "hi"}')
    if ret.format_result() != "hi":
        raise RuntimeError(f"unexpected answer from {name}: {ret}")
    return median_ms(lambda: executor(name, '{"text": "hi"}'), n)


def _http_row(n: int) -> float:
    from lagent_like.mcp import MCPToolkit

    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", "http"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        assert proc.stderr is not None
        match = re.search(r"serving MCP on (\S+)", proc.stderr.readline().decode())
        if match is None:
            raise RuntimeError("the HTTP server did not start")
        with MCPToolkit(url=match.group(1)) as toolkit:
            return _call_ms(ActionExecutor([toolkit]), "MCP.Echo", n)
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()


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
    return rows


def main() -> None:
    """Print the report (``--json`` for machine-readable rows)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls per row")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--serve", choices=["stdio", "http"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    rows = measure(30 if args.quick else 300)
    if args.json:
        print(json.dumps([{"row": name, "ms": round(ms, 4)} for name, ms in rows]))
        return
    print(f"{'row':52s} {'median':>12s}")
    for name, ms in rows:
        shown = f"{ms * 1e3:9.1f} us" if ms < 1 else f"{ms:9.2f} ms"
        print(f"{name:52s} {shown:>12s}")


if __name__ == "__main__":
    main()
