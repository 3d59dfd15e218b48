"""Smoke test of ``benchmarks/fuzz_executor.py``: a short, seeded soak finds nothing that raises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

FUZZ = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_executor.py"
SUMMARY = re.compile(
    r"^fuzz: (\d+) calls, (\d+) returned, (\d+) raised, (\d+) states (\{.*\}), (\d+) calls/s$", re.MULTILINE
)


def test_seeded_soak_of_2000_calls_exits_0_with_nothing_raised() -> None:
    proc = subprocess.run(
        [sys.executable, str(FUZZ), "-n", "2000", "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 raised" in proc.stdout
    match = SUMMARY.search(proc.stdout)
    assert match is not None, proc.stdout
    assert proc.stdout.rstrip().endswith(match.group(0))
    calls, returned, raised = (int(match.group(i)) for i in (1, 2, 3))
    assert (calls, returned, raised) == (2000, 2000, 0)
    # Valid calls, refused arguments and failing tools all occur.
    for state in ("SUCCESS", "ARGS_ERROR", "API_ERROR"):
        assert f"'{state}'" in match.group(5)


def _states(seed: int) -> str:
    proc = subprocess.run(
        [sys.executable, str(FUZZ), "-n", "300", "--seed", str(seed)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    match = SUMMARY.search(proc.stdout)
    assert match is not None, proc.stdout
    return match.group(5)


def test_same_seed_gives_the_same_outcomes() -> None:
    assert _states(3) == _states(3)
