"""What the web inspector costs, for a catalogue of 500 APIs (a report, not a test).

Rows, each a median over N tries on this machine, with its ratio to a floor measured
in the same run:

* the server's start, where the catalogue of 500 APIs is built, exported four ways and
  linted (before the URL is printed);
* the page's first load over HTTP: ``GET /`` on a fresh server (the short catalogue
  embedded in the page), and again;
* the page's first load in Chromium, when ``/usr/bin/chromium`` and Playwright are
  there: navigation start to the ``load`` event, the tool list drawn;
* a tool call round trip: ``POST /api/call`` through the real executor;
* the floors: a tiny ``GET /api/traces`` (HTTP alone) and the same call in-process.

Targets (issue 15): first load under 300 ms, a call round trip under 50 ms.
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
from typing import Any, Callable, Optional

import requests

from lagent_like import ActionExecutor, BaseAction
from lagent_like.web import InspectorServer

TOOLKITS = 50
APIS_PER_TOOLKIT = 10
CHROMIUM = "/usr/bin/chromium"

_TOOLKIT_SOURCE = '''
class Kit{k}(BaseAction, register=False):
    """Toolkit number {k} of the benchmark catalogue."""
{methods}
'''
_METHOD_SOURCE = '''
    @tool_api
    def op{i}(self, city: str, days: int = 1, unit: Literal["C", "F"] = "C") -> str:
        """Operation {i} of toolkit {k}: forecast something.

        Args:
            city: the city name
            days: how many days ahead
            unit: the temperature unit
        """
        return city
'''


def catalogue_of_500() -> list[BaseAction]:
    """50 toolkits of 10 APIs each, defined from source like hand-written tools."""
    from typing_extensions import Literal

    from lagent_like import tool_api

    scope: dict[str, Any] = {"BaseAction": BaseAction, "tool_api": tool_api, "Literal": Literal}
    for k in range(TOOLKITS):
        methods = "".join(_METHOD_SOURCE.format(i=i, k=k) for i in range(APIS_PER_TOOLKIT))
        exec(_TOOLKIT_SOURCE.format(k=k, methods=methods), scope)
    return [scope[f"Kit{k}"]() for k in range(TOOLKITS)]


def median_ms(run: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def first_load_cold_ms(n: int) -> tuple[float, float]:
    """Server start (the catalogue is built then) and the first ``GET /`` after it, medians."""
    starts, loads = [], []
    for _ in range(n):
        server = InspectorServer(ActionExecutor(catalogue_of_500()))
        start = time.perf_counter()
        with server:
            started = time.perf_counter()
            response = requests.get(server.url, timeout=60)
            loads.append((time.perf_counter() - started) * 1000)
            starts.append((started - start) * 1000)
            assert response.status_code == 200
    return statistics.median(starts), statistics.median(loads)


def browser_load_ms(server: InspectorServer, n: int) -> Optional[float]:
    """Navigation start to the ``load`` event in Chromium, or ``None`` without one."""
    if not os.path.exists(CHROMIUM):
        return None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
    flags += ["--disable-background-networking", "--disable-component-update", "--disable-sync"]
    profile = tempfile.mkdtemp(prefix="bench-web-")
    times = []
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=flags, headless=True
            )
            page = context.new_page()
            for _ in range(n):
                page.goto(server.url, wait_until="load")
                assert page.locator("#tool-list button").count() == TOOLKITS * APIS_PER_TOOLKIT
                times.append(
                    page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd")
                )
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return float(statistics.median(times))


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer tries (a smoke run)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    n_cold, n = (2, 20) if args.quick else (5, 200)

    executor = ActionExecutor(catalogue_of_500())
    rows: list[dict[str, Any]] = []
    with InspectorServer(executor) as server, requests.Session() as session:
        session.headers["Authorization"] = f"Bearer {server.token}"
        call_body = {"name": "Kit7.op3", "arguments": '{"city": "Oslo", "days": 2}'}
        assert (
            session.post(f"{server.base_url}/api/call", json=call_body, timeout=30).json()["record"]["state"]
            == 0
        )
        requests.get(server.url, timeout=60)
        for _ in range(20):  # warm the connection and the server's code paths first
            session.get(f"{server.base_url}/api/traces", timeout=30)
            session.post(f"{server.base_url}/api/call", json=call_body, timeout=30)
        http_floor = median_ms(lambda: session.get(f"{server.base_url}/api/traces", timeout=30), n)
        local_floor = median_ms(lambda: executor("Kit7.op3", '{"city": "Oslo", "days": 2}'), n)
        start, cold = first_load_cold_ms(n_cold)
        warm = median_ms(lambda: session.get(server.url, timeout=60), max(5, n // 10))
        call = median_ms(lambda: session.post(f"{server.base_url}/api/call", json=call_body, timeout=30), n)
        browser = browser_load_ms(server, max(3, n // 40))
    rows.append({"row": "floor: GET /api/traces (HTTP alone)", "ms": http_floor, "floor": "http"})
    rows.append({"row": "floor: the call in-process", "ms": local_floor, "floor": "local"})
    rows.append({"row": "server start: catalogue built, exported, linted (500 APIs)", "ms": start})
    rows.append(
        {"row": "first load, GET / on a fresh server (500 APIs)", "ms": cold, "floor": "http", "target": 300}
    )
    rows.append({"row": "load again, GET / (500 APIs)", "ms": warm, "floor": "http", "target": 300})
    if browser is not None:
        rows.append(
            {"row": "first load in Chromium to the load event (500 APIs)", "ms": browser, "target": 300}
        )
    rows.append({"row": "tool call round trip, POST /api/call", "ms": call, "floor": "http", "target": 50})
    floors = {"http": http_floor, "local": local_floor}
    for row in rows:
        if "floor" in row and not row["row"].startswith("floor"):
            row["ratio"] = row["ms"] / floors[row["floor"]]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        ratio = f"  {row['ratio']:6.1f}x {row['floor']} floor" if "ratio" in row else ""
        target = (
            f"  (target < {row['target']} ms: {'met' if row['ms'] < row['target'] else 'MISSED'})"
            if "target" in row
            else ""
        )
        print(f"{row['row']:<55} {row['ms']:10.3f} ms{ratio}{target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
