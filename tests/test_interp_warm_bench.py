"""The interpreter benchmark runs and reports the floor and both isolations (no timing thresholds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lagent_like.tools.interpreters import _sandbox as sandbox

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_interpreter.py"


@pytest.mark.skipif(sandbox._probe() is not None, reason=f"no sandbox: {sandbox._probe()}")
def test_the_interpreter_benchmark_reports_each_row_against_the_floor() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--rounds", "5", "--json"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [row["row"] for row in rows] == [
        "bare fork-per-call worker (floor)",
        "PythonInterpreter print(1), warm, isolation='sandbox'",
        "PythonInterpreter print(1), warm, isolation='process'",
        "PythonInterpreter print(1), back-to-back, isolation='sandbox'",
    ]
    assert rows[0]["ratio"] == rows[0]["median_ratio"] == 1.0
    assert all(row["best_ms"] > 0 and row["ratio"] > 0 for row in rows)
