"""The web benchmark runs and reports every row (no timing thresholds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_web_benchmark_reports_every_row() -> None:
    pytest.importorskip(
        "starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')"
    )
    pytest.importorskip(
        "uvicorn", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')"
    )
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_web.py"), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    rows = {row["row"]: row["ms"] for row in json.loads(proc.stdout)}
    expected = [
        "floor: GET /api/traces (HTTP alone)",
        "floor: the call in-process",
        "server start: catalogue built, exported, linted (500 APIs)",
        "first load, GET / on a fresh server (500 APIs)",
        "load again, GET / (500 APIs)",
        "first load in Chromium to the load event (500 APIs)",
        "tool call round trip, POST /api/call",
    ]
    assert [row for row in expected if row in rows] == list(rows)
    assert set(expected) - set(rows) <= {"first load in Chromium to the load event (500 APIs)"}
    assert all(ms > 0 for ms in rows.values())
