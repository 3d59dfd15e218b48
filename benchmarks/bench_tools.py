"""Round trips of the shipped tools, measured on this machine (a report, not a test).

Rows, with the interpreters' sandbox on (docs/isolation.rst): ``PythonInterpreter``
running ``print(1)`` on a cold tool (sandbox start included) and on a warm one (goal at
most 15 ms); ``IPythonInterpreter``'s first call in a new session (sandbox start
included, goal at most 150 ms) and on a warm session (goal at most 5 ms); and
``ArxivSearch`` through the executor against a local HTTP server, next to a bare
``requests`` GET of the same URL, so the difference is the tool's own overhead.
Medians of N calls; ``--quick`` uses fewer. Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from lagent_like import ActionExecutor, ArxivSearch, IPythonInterpreter, PythonInterpreter

FEED = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <entry>
    <published>2024-01-02T00:00:00Z</published>
    <title>A paper</title>
    <author><name>A. Author</name></author>
    <summary>What it found.</summary>
  </entry>
</feed>"""


class _Feed(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/atom+xml")
        self.send_header("Content-Length", str(len(FEED)))
        self.end_headers()
        self.wfile.write(FEED)

    def log_message(self, format: str, *args: object) -> None:
        return None


@contextmanager
def local_server() -> Iterator[str]:
    """A feed server on 127.0.0.1 with an ephemeral port, stopped on exit."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Feed)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api/query"
    finally:
        server.shutdown()
        server.server_close()


def median_ms(call: Callable[[], object], n: int) -> float:
    """Median wall time of ``n`` calls, in milliseconds."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def measure(n: int) -> list[tuple[str, float, str]]:
    """The report rows: (name, milliseconds, goal)."""
    rows = []
    cold = []
    for _ in range(max(3, n // 10)):
        tool = PythonInterpreter(answer_expr=None, answer_from_stdout=True)
        start = time.perf_counter()
        tool('{"command": "print(1)"}')
        cold.append((time.perf_counter() - start) * 1e3)
        tool.close()
    rows.append(("PythonInterpreter print(1), cold", statistics.median(cold), "-"))
    python = PythonInterpreter(answer_expr=None, answer_from_stdout=True)
    python('{"command": "print(1)"}')
    rows.append(
        ("PythonInterpreter print(1), warm", median_ms(lambda: python('{"command": "print(1)"}'), n), "<= 15")
    )
    python.close()
    ipython = IPythonInterpreter()
    executor = ActionExecutor([ipython])
    first = []
    for i in range(max(3, n // 10)):
        start = time.perf_counter()
        executor("IPythonInterpreter", '{"command": "x = 1"}', session_id=f"s{i}")
        first.append((time.perf_counter() - start) * 1e3)
        ipython.end_session(f"s{i}")
    rows.append(("IPythonInterpreter new session, first call", statistics.median(first), "<= 150"))
    ipython('{"command": "x = 1"}')
    rows.append(
        (
            "IPythonInterpreter x + 1, warm session",
            median_ms(lambda: ipython('{"command": "x + 1"}'), n),
            "<= 5",
        )
    )
    ipython.close()
    with local_server() as url:
        import requests

        session = requests.Session()
        session.get(url, timeout=5)
        bare = median_ms(lambda: session.get(url, params={"search_query": "x"}, timeout=5).content, n)
        executor = ActionExecutor([ArxivSearch(base_url=url)])
        executor("ArxivSearch.get_arxiv_article_information", '{"query": "x"}')
        tool = median_ms(lambda: executor("ArxivSearch.get_arxiv_article_information", '{"query": "x"}'), n)
    rows.append(("local HTTP GET, bare requests", bare, "-"))
    rows.append(("ArxivSearch call through the executor", tool, "-"))
    rows.append(("ArxivSearch overhead over the bare GET", tool - bare, "-"))
    return rows


def main() -> None:
    """Print the report (``--json`` for machine-readable rows)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls per row")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = measure(20 if args.quick else 200)
    if args.json:
        print(json.dumps([{"row": name, "ms": round(ms, 3), "goal_ms": goal} for name, ms, goal in rows]))
        return
    print(f"{'row':44s} {'ms':>9s}  goal (ms)")
    for name, ms, goal in rows:
        print(f"{name:44s} {ms:9.2f}  {goal}")


if __name__ == "__main__":
    main()
