"""Smoke test of ``benchmarks/bench_core.py``: it runs and reports every row.

Timings are not checked against targets here (the machine is shared and noisy); the
benchmark's own ``--check`` option does that.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_core.py"

NUMERIC_ROWS = [
    "floor json: str(add(**json.loads(s)))",
    "floor tuple: str(add(*ast.literal_eval(s)))",
    "floor async: str(await add(**json.loads(s)))",
    "Calc.add json valid",
    "Add json valid",
    "Calc.add tuple valid",
    "Add tuple valid",
    "Calc.add json missing arg",
    "Calc.add json unknown arg",
    "Calc.add json coercion",
    "Calc.add json type error",
    "Calc.add json unknown arg, new name each call",
    "Calc.add tuple too many",
    "Calc.add json malformed (json5)",
    "sync executor with a no-op hook",
    "async executor, async API",
    "async batch of 1,000 x 50 ms",
    "define 5-API toolkit",
    "export 50-API executor, cold",
    "export 50-API executor, cached",
    "import lagent_like",
    "from lagent_like import ActionExecutor, BaseAction, tool_api",
    "lenient 100 KB truncated",
    "lenient 100 KB single-quoted",
    "lenient 100 KB single-quoted, truncated",
    "lenient '{\"a\": 1,'",
    "lenient 1 MB single-quoted",
]


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, list)
    return {row["row"]: row for row in data}


@pytest.mark.parametrize("name", NUMERIC_ROWS)
def test_row_has_positive_number(rows: dict[str, dict[str, Any]], name: str) -> None:
    assert name in rows, sorted(rows)
    value = rows[name]["value"]
    assert isinstance(value, (int, float)) and not isinstance(value, bool)
    assert value > 0


def test_per_call_rows_have_ratios(rows: dict[str, dict[str, Any]]) -> None:
    for row in rows.values():
        if row["unit"] == "ns/call":
            assert row["ratio"] > 0, row


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("Calc.add json coercion", "<= 2.5x"),
        ("Calc.add json type error", "<= 3.0x"),
        ("Calc.add json unknown arg, new name each call", "-"),
    ],
)
def test_validation_rows_are_per_call_with_their_targets(
    rows: dict[str, dict[str, Any]], name: str, target: str
) -> None:
    assert (rows[name]["unit"], rows[name]["target"]) == ("ns/call", target)


@pytest.mark.parametrize("name", ["export 50-API executor, cold", "export 50-API executor, cached"])
def test_export_rows_report_microseconds_without_a_target(rows: dict[str, dict[str, Any]], name: str) -> None:
    row = rows[name]
    assert (row["unit"], row["ratio"], row["target"], row["verdict"]) == ("us", None, "-", "-")


@pytest.mark.parametrize(
    ("name", "unit", "target"),
    [
        ("floor async: str(await add(**json.loads(s)))", "ns/call", "-"),
        ("async executor, async API", "ns/call", "<= 2.0x"),
        ("sync executor with a no-op hook", "ns/call", "<= 4.0x"),
        ("Weather.forecast json valid, 8 mixed params", "ns/call", "<= 2.5x"),
        ("async batch of 1,000 x 50 ms", "ms", "<= 1.2x"),
    ],
)
def test_runtime_rows_have_their_units_and_targets(
    rows: dict[str, dict[str, Any]], name: str, unit: str, target: str
) -> None:
    assert (rows[name]["unit"], rows[name]["target"]) == (unit, target)


def test_async_row_is_a_ratio_to_the_async_floor(rows: dict[str, dict[str, Any]]) -> None:
    floor = rows["floor async: str(await add(**json.loads(s)))"]
    row = rows["async executor, async API"]
    assert floor["ratio"] == 1.0
    assert row["ratio"] == pytest.approx(row["value"] / floor["value"])
    json_floor = rows["floor json: str(add(**json.loads(s)))"]["value"]
    assert row["ratio_json"] == pytest.approx(row["value"] / json_floor)


def test_hook_row_is_a_ratio_to_the_json_floor(rows: dict[str, dict[str, Any]]) -> None:
    row = rows["sync executor with a no-op hook"]
    json_floor = rows["floor json: str(add(**json.loads(s)))"]["value"]
    assert row["ratio"] == pytest.approx(row["value"] / json_floor)
    assert row["verdict"] in ("ok", "OVER")


def test_mixed_row_is_a_ratio_to_its_own_floor(rows: dict[str, dict[str, Any]]) -> None:
    floor = rows["floor 8 params: str(forecast(**json.loads(s)))"]
    row = rows["Weather.forecast json valid, 8 mixed params"]
    assert floor["ratio"] == 1.0
    assert row["ratio"] == pytest.approx(row["value"] / floor["value"])


def test_batch_row_is_wall_time_against_one_call(rows: dict[str, dict[str, Any]]) -> None:
    row = rows["async batch of 1,000 x 50 ms"]
    # At least one call's 50 ms; far below the 50 s the calls would take one after another.
    assert 50 <= row["value"] < 5_000
    assert row["ratio"] == pytest.approx(row["value"] / 50)
    assert row["verdict"] in ("ok", "OVER")


def test_no_row_is_broken(rows: dict[str, dict[str, Any]]) -> None:
    # BROKEN means a row's call did not end in the state it claims to measure.
    assert not [r for r in rows.values() if r["verdict"].startswith("BROKEN")]


def test_requests_row_is_a_bool(rows: dict[str, dict[str, Any]]) -> None:
    assert isinstance(rows["requests imported"]["value"], bool)


def test_table_lists_every_row() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--quick"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    for name in [*NUMERIC_ROWS, "requests imported"]:
        assert name in proc.stdout
