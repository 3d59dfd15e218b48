"""Smoke test of the pydantic row of ``benchmarks/bench_core.py``: measured against the Agents SDK, or skipped with a notice."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_core.py"
ROW = "ship json valid, pydantic model param"
FLOOR = "floor: Agents SDK FunctionTool.on_invoke_tool(ctx, s)"


def test_the_pydantic_row_runs_against_the_agents_sdk_or_says_why_not() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json", "--only", "pydantic"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    rows = {row["row"]: row for row in json.loads(proc.stdout)}
    present = all(importlib.util.find_spec(name) for name in ("pydantic", "agents"))
    if present:
        assert rows[ROW]["target"] == "<= 2.0x"
        assert not rows[ROW]["verdict"].startswith("BROKEN")
        assert rows[ROW]["ratio"] == rows[ROW]["value"] / rows[FLOOR]["value"]
    else:
        assert ROW not in rows and FLOOR not in rows
        assert f"note: {ROW!r} skipped: " in proc.stderr
        assert "is not installed" in proc.stderr
