"""The inspector over 500 APIs from 3 MCP servers: first load and a "Try it" round trip (a report).

The script starts three MCP servers over stdio (itself, run with ``--serve``: 167,
167 and 166 tools, each with a described string, integer and enum parameter), holds
them in one executor as three toolkits, serves the inspector over it and measures,
median and best of N on this machine:

* **connect**: the three servers started and their tools listed (context, no target);
* **catalogue built**: the inspector's short catalogue of the 500 APIs built from
  cold (exports, lint, search text), as at the server's start or after a server is
  connected or disconnected;
* **first load, server side**: ``GET /`` on a fresh inspector whose catalogue is
  built at start, and the same with the catalogue built inside the request (a
  server connected from the page just before), each the time to build and send the
  page with the catalogue JSON. Target 300 ms;
* **catalogue after a change**: ``GET /api/tools?index=1`` right after the tools
  changed (what the page fetches when a server is connected or disconnected);
* **first load in Chromium** (when Chromium and Playwright are there): navigation
  start to ``DOMContentLoaded`` and to the first contentful paint, with the list
  of 500 drawn. Target 300 ms;
* **connect from the page**: ``POST /api/servers`` starting a fourth server (one
  tool) over stdio, and the catalogue the page then reads (``GET
  /api/tools?index=1``; the connect request builds it before it answers). Target
  300 ms for the read;
* **"Try it" round trip**: ``POST /api/call`` of an MCP tool (the page's HTTP API,
  the executor, the MCP server over stdio and back). Target 50 ms;
* the floors: a tiny ``GET /api/history`` (HTTP alone), and the same MCP call made
  in-process through the executor (the server's share).

``--quick`` uses fewer tries; ``--json`` prints the rows as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, Literal, Optional

SERVERS = (("alpha", 167), ("beta", 167), ("gamma", 166))
CHROMIUM = os.environ.get("LAGENT_LIKE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def serve(name: str, count: int) -> None:
    """Serve ``count`` tools over stdio as the MCP server ``name`` (the ``--serve`` mode)."""
    from lagent_like import ActionExecutor, FunctionTool
    from lagent_like.mcp import serve_mcp

    def forecast(city: str, days: int = 1, unit: Literal["C", "F"] = "C") -> str:
        return f"{city}: sunny for {days} day(s), in {unit}"

    def tool(number: int) -> Any:
        forecast.__doc__ = (
            f"Operation {number} of server {name}: forecast the weather in a city.\n\n"
            "Args:\n    city: the city name\n    days: how many days ahead\n"
            "    unit: the temperature unit, C or F\n"
        )
        return FunctionTool(forecast, name=f"op_{number}")

    serve_mcp(ActionExecutor([tool(n) for n in range(count)]), name=name)


def timed(run: Callable[[], object], n: int) -> tuple[float, float]:
    """Median and best of ``n`` runs of ``run``, in milliseconds."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


def connect() -> list[Any]:
    """The three servers as toolkits named after them."""
    from lagent_like.mcp import MCPToolkit

    here = os.path.abspath(__file__)
    root = os.path.dirname(os.path.dirname(here))
    env = {"PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    toolkits = []
    for name, count in SERVERS:
        toolkit = MCPToolkit(
            command=sys.executable, args=[here, "--serve", name, str(count)], env=env, name=name
        )
        toolkits.append(toolkit)
    return toolkits


def connect_from_the_page(session: Any, api: str, n: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """A fourth server (one tool) connected, then the catalogue read, as the page does; then removed."""
    here = os.path.abspath(__file__)
    target = f"{sys.executable} {here} --serve delta 1"
    connects, reads = [], []
    for _ in range(n):
        started = time.perf_counter()
        answer = session.post(api + "/servers", json={"target": target}, timeout=120).json()
        connected = time.perf_counter()
        index = session.get(api + "/tools?index=1", timeout=60).json()
        read = time.perf_counter()
        assert answer["status"] == "connected" and len(index) == 501, answer
        assert session.delete(f"{api}/servers/{answer['id']}", timeout=60).json() == {"removed": answer["id"]}
        connects.append((connected - started) * 1000)
        reads.append((read - connected) * 1000)
    return (statistics.median(connects), min(connects)), (statistics.median(reads), min(reads))


def browser_loads(url: str, n: int) -> Optional[tuple[list[float], list[float]]]:
    """Navigation start to ``DOMContentLoaded`` and to the first contentful paint, ``n`` times."""
    if not os.path.exists(CHROMIUM):
        return None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    profile = tempfile.mkdtemp(prefix="bench-inspector-")
    ready, painted = [], []
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=FLAGS, headless=True
            )
            page = context.new_page()
            for _ in range(n):
                page.goto(url, wait_until="load")
                assert page.locator("#tool-list button").count() == sum(count for _, count in SERVERS)
                ready.append(
                    page.evaluate(
                        "() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
                    )
                )
                # The paint entry may be recorded after the load event (a busy machine): wait for it.
                fcp = "performance.getEntriesByName('first-contentful-paint')"
                page.wait_for_function(f"() => {fcp}.length > 0")
                painted.append(page.evaluate(f"() => {fcp}[0].startTime"))
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return ready, painted


def _row(
    name: str, times: tuple[float, float], target: Optional[float] = None, floor: str = ""
) -> dict[str, Any]:
    row: dict[str, Any] = {"row": name, "median_ms": times[0], "best_ms": times[1], "floor": floor}
    if target is not None:
        row["target_ms"] = target
        row["verdict"] = "met" if times[0] < target else "MISSED"
    return row


def measure(n: int, n_browser: int) -> list[dict[str, Any]]:
    """Every row, in the order printed."""
    import requests

    from lagent_like import ActionExecutor
    from lagent_like.web import InspectorServer

    started = time.perf_counter()
    toolkits = connect()
    connected = (time.perf_counter() - started) * 1000
    executor = ActionExecutor(toolkits)
    assert len(executor.api_names()) == 500
    rows = [_row("connect: 3 MCP servers started, 500 tools listed", (connected, connected))]
    call = {"name": "beta.op_7", "arguments": '{"city": "Oslo", "days": 2}'}
    try:
        with InspectorServer(executor, allow_connect_commands=True) as server, requests.Session() as session:
            session.headers["Authorization"] = f"Bearer {server.token}"
            api = server.base_url + "/api"
            assert session.post(api + "/call", json=call, timeout=30).json()["record"]["state"] == 0
            for _ in range(20):  # warm the connection and the code paths
                session.get(api + "/history", timeout=30)
                session.post(api + "/call", json=call, timeout=30)

            def rebuilt() -> None:
                server.state.refresh()
                server.state.index_json()

            def page_after_change() -> None:
                server.state.refresh()
                assert session.get(server.url, timeout=60).status_code == 200

            def index_after_change() -> None:
                server.state.refresh()
                assert session.get(api + "/tools?index=1", timeout=60).status_code == 200

            rows.append(
                _row("floor: GET /api/history (HTTP alone)", timed(lambda: session.get(api + "/history"), n))
            )
            rows.append(
                _row(
                    "floor: the MCP call in-process",
                    timed(lambda: executor(call["name"], call["arguments"]), n),
                )
            )
            rows.append(_row("catalogue built from cold (500 MCP APIs)", timed(rebuilt, max(3, n // 20))))
            rows.append(
                _row(
                    "first load: GET /, catalogue built at start",
                    timed(lambda: session.get(server.url), n),
                    300,
                )
            )
            rows.append(
                _row(
                    "first load: GET /, catalogue built in the request",
                    timed(page_after_change, max(3, n // 20)),
                    300,
                )
            )
            rows.append(
                _row(
                    "catalogue after a change: GET /api/tools?index=1",
                    timed(index_after_change, max(3, n // 20)),
                    300,
                )
            )
            connected_ms, index_ms = connect_from_the_page(session, api, max(3, n // 20))
            rows.append(_row("connect from the page: POST /api/servers (a 1-tool server)", connected_ms))
            rows.append(_row("catalogue after that connect: GET /api/tools?index=1", index_ms, 300))
            loads = browser_loads(server.url, n_browser)
            if loads is not None:
                for label, values in zip(("DOMContentLoaded", "first contentful paint"), loads):
                    rows.append(
                        _row(
                            f"Chromium: navigation to {label}", (statistics.median(values), min(values)), 300
                        )
                    )
            rows.append(
                _row(
                    '"Try it" round trip: POST /api/call (MCP over stdio)',
                    timed(lambda: session.post(api + "/call", json=call, timeout=30), n),
                    50,
                )
            )
    finally:
        for toolkit in toolkits:
            toolkit.close()
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    """Run the benchmark (or, with ``--serve NAME COUNT``, be one of its servers)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer tries (a smoke run)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--serve", nargs=2, metavar=("NAME", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve[0], int(args.serve[1]))
        return 0
    n, n_browser = (10, 3) if args.quick else (100, 10)
    rows = measure(n, n_browser)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(
        "lagent_like inspector benchmark: 500 APIs from 3 MCP servers, "
        f"median and best of {n} ({n_browser} in Chromium)"
    )
    print(f"{'row':<58} {'median':>10} {'best':>10}  target     verdict")
    for row in rows:
        target = f"< {row['target_ms']:.0f} ms" if "target_ms" in row else "-"
        times = f"{row['median_ms']:7.2f} ms {row['best_ms']:7.2f} ms"
        print(f"{row['row']:<58} {times}  {target:<9}  {row.get('verdict', '-')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
