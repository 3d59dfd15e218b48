"""The inspector benchmark over 3 MCP servers runs and reports every row (no timing thresholds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")
pytest.importorskip("uvicorn", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

ROWS = [
    "connect: 3 MCP servers started, 500 tools listed",
    "floor: GET /api/history (HTTP alone)",
    "floor: the MCP call in-process",
    "catalogue built from cold (500 MCP APIs)",
    "first load: GET /, catalogue built at start",
    "first load: GET /, catalogue built in the request",
    "catalogue after a change: GET /api/tools?index=1",
    "connect from the page: POST /api/servers (a 1-tool server)",
    "catalogue after that connect: GET /api/tools?index=1",
    "Chromium: navigation to DOMContentLoaded",
    "Chromium: navigation to first contentful paint",
    '"Try it" round trip: POST /api/call (MCP over stdio)',
]
#: Rows only measured where Chromium and Playwright are installed.
BROWSER_ROWS = {row for row in ROWS if row.startswith("Chromium")}


def test_inspector_benchmark_reports_every_row_with_a_verdict_for_each_target() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_inspector.py"), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    names = [row["row"] for row in rows]
    assert names == [row for row in ROWS if row in names]
    assert set(ROWS) - set(names) <= BROWSER_ROWS
    assert all(0 < row["best_ms"] <= row["median_ms"] for row in rows)
    targets = {row["row"]: row["target_ms"] for row in rows if "target_ms" in row}
    assert targets["first load: GET /, catalogue built at start"] == 300
    assert targets['"Try it" round trip: POST /api/call (MCP over stdio)'] == 50
    assert {row["verdict"] for row in rows if "target_ms" in row} <= {"met", "MISSED"}
