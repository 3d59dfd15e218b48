"""The tools benchmark runs and reports every row (no timing thresholds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_tools.py"


def test_tools_benchmark_reports_every_row() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--json"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    rows = {row["row"]: row["ms"] for row in json.loads(proc.stdout)}
    assert list(rows) == [
        "PythonInterpreter print(1), cold",
        "PythonInterpreter print(1), warm",
        "IPythonInterpreter new session, first call",
        "IPythonInterpreter x + 1, warm session",
        "local HTTP GET, bare requests",
        "ArxivSearch call through the executor",
        "ArxivSearch overhead over the bare GET",
    ]
    assert all(ms > 0 for name, ms in rows.items() if "overhead" not in name)
