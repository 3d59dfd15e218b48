"""The MCP and Ray benchmarks run and report every row (no timing thresholds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True, timeout=300
    )


def test_mcp_benchmark_reports_every_row() -> None:
    pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
    proc = _run("bench_mcp.py", "--quick", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = {row["row"]: row["ms"] for row in json.loads(proc.stdout)}
    assert list(rows) == [
        "Echo through a local ActionExecutor",
        "Echo through MCPToolkit, stdio",
        "Echo through MCPToolkit, streamable HTTP",
        "stdio toolkit cold start (spawn, handshake, list)",
        "SDK client -> SDK MCPServer under uvicorn (floor)",
        "SDK client -> our app under plain uvicorn",
        "SDK client -> serve_mcp over HTTP",
        "ratio serve_mcp / SDK server (target <= 1.5)",
        "ratio serve_mcp / our app under plain uvicorn",
    ]
    assert all(ms > 0 for ms in rows.values())


def test_ray_benchmark_reports_every_row(ray_lock: None) -> None:
    pytest.importorskip("ray", reason="needs the 'ray' extra: pip install '.[ray]' (or 'lagent-like[ray]')")
    proc = _run("bench_ray.py", "--quick")
    assert proc.returncode == 0, proc.stderr
    starts = [line.split(":")[0].strip() for line in proc.stdout.splitlines()]
    assert starts == [
        "start-up (ray.init, 5 actors, warm-up)",
        "slots",
        "Sleeper batch",
        "AsyncSleeper batch",
        "trivial call, median of 30",
    ]
