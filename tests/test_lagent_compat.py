"""Lagent compatibility: the suite's toolkits behave as Lagent 0.2.4 recorded them.

``compat/lagent_0_2_4.json`` was recorded by ``compat/record_lagent_fixtures.py``
running Lagent 0.2.4 on the toolkits of ``compat/lagent_style.py``. Descriptions, the
prompt pieces and every call record must be identical, except the deliberate
differences listed in :data:`DELIBERATE` (each one is on docs/compatibility.rst, with
how to get Lagent's behaviour), and those are checked to differ exactly there.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from compat.observe import observe, record

import lagent_like
from lagent_like import ActionExecutor

FIXTURES = Path(__file__).parent / "compat" / "lagent_0_2_4.json"

LAGENT_LIKE = SimpleNamespace(
    BaseAction=lagent_like.BaseAction,
    tool_api=lagent_like.tool_api,
    ActionReturn=lagent_like.ActionReturn,
    ActionExecutor=lagent_like.ActionExecutor,
    JsonParser=lagent_like.JsonParser,
    TupleParser=lagent_like.TupleParser,
    InvalidAction=lagent_like.InvalidAction,
    NoAction=lagent_like.NoAction,
    FinishAction=lagent_like.FinishAction,
    class_options={"register": False},
    shipped={
        name: getattr(lagent_like, name)
        for name in ("ArxivSearch", "GoogleSearch", "IPythonInterpreter", "PythonInterpreter")
    },
)

_MESSAGE = "errmsg says what to fix"
_RENDER = "lists and tuples render as JSON"
_CHECKED = "arguments are checked against the declared types"
_ROUTED = "an unknown tool is answered by the executor, naming the tools"
_TOOL_ERROR = "a tool's exception is reported with its type"
_SANDBOX = "the interpreter describes its sandbox"

#: Path of each deliberate difference -> why (docs/compatibility.rst).
DELIBERATE: dict[str, str] = {
    "executors/json/calls/division-by-zero/errmsg": _TOOL_ERROR,
    "executors/json/calls/tool-raises/errmsg": _TOOL_ERROR,
    "executors/json/calls/tool-raises-type-error/args": _CHECKED,
    "executors/json/calls/tool-raises-type-error/errmsg": _CHECKED,
    "executors/json/calls/tool-raises-type-error/state": _CHECKED,
    "executors/json/calls/tuple-return/result": _RENDER,
    "executors/json/calls/tuple-return/format_result": _RENDER,
    "executors/json/calls/invalid-json/errmsg": _MESSAGE,
    "executors/json/calls/missing-argument/errmsg": _MESSAGE,
    "executors/json/calls/unknown-argument/errmsg": _MESSAGE,
    "executors/json/calls/unknown-api/errmsg": _MESSAGE,
    "executors/json/calls/unknown-tool/args": _ROUTED,
    "executors/json/calls/unknown-tool/errmsg": _ROUTED,
    "executors/tuple/calls/not-a-literal/errmsg": _MESSAGE,
    "executors/tuple/calls/too-few/errmsg": _MESSAGE,
    "executors/tuple/calls/too-many/errmsg": _MESSAGE,
    "shipped_tools/PythonInterpreter/description": _SANDBOX,
    "shipped_tools/PythonInterpreter/parameters": _SANDBOX,
}


_RECORD_FIELD = re.compile(r"/calls/[^/]+/[^/]+$")


def differences(lagent: Any, ours: Any, path: str = "") -> set[str]:
    """Paths (``a/b/c``) where the two differ; a differing record field is one path."""
    if isinstance(lagent, dict) and isinstance(ours, dict) and not _RECORD_FIELD.search(path):
        found: set[str] = set()
        for key in lagent.keys() | ours.keys():
            where = f"{path}/{key}" if path else key
            if key not in lagent or key not in ours:
                found.add(where)
            else:
                found |= differences(lagent[key], ours[key], where)
        return found
    return set() if lagent == ours else {path}


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURES.read_text(encoding="utf-8"))
    assert data.pop("lagent_version") == "0.2.4"
    return data


@pytest.fixture(scope="module")
def observed() -> dict[str, Any]:
    # Through JSON, as the fixtures were: tuples become lists, codes ints.
    return json.loads(json.dumps(observe(LAGENT_LIKE), ensure_ascii=False))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "section",
    [
        pytest.param("class_descriptions", id="class-descriptions"),
        pytest.param("builtins", id="builtin-descriptions-and-enable"),
    ],
)
def test_descriptions_are_byte_identical_to_lagents(
    recorded: dict[str, Any], observed: dict[str, Any], section: str
) -> None:
    assert json.dumps(observed[section], sort_keys=True, ensure_ascii=False) == json.dumps(
        recorded[section], sort_keys=True, ensure_ascii=False
    )


@pytest.mark.parametrize("executor", ["json", "tuple"])
@pytest.mark.parametrize("piece", ["actions_info", "prompt_tool_description", "prompt_action_names"])
def test_prompt_pieces_are_byte_identical_to_lagents(
    recorded: dict[str, Any], observed: dict[str, Any], executor: str, piece: str
) -> None:
    assert observed["executors"][executor][piece] == recorded["executors"][executor][piece]


def test_call_records_match_lagents_except_the_deliberate_differences(
    recorded: dict[str, Any], observed: dict[str, Any]
) -> None:
    found = differences(recorded, observed)
    assert sorted(found) == sorted(DELIBERATE)


def test_the_suite_covers_successes_and_failures(recorded: dict[str, Any]) -> None:
    calls = [c for e in recorded["executors"].values() for c in e["calls"].values()]
    states = sorted({c["state"] for c in calls})
    assert (len(calls), states) == (25, [-1002, -1001, 0])


def test_validation_off_and_error_formatter_give_lagents_records(recorded: dict[str, Any]) -> None:
    # docs/compatibility.rst: names-only checks and str(exc) messages, as Lagent.
    from compat.lagent_style import build

    classes = build(
        lagent_like.BaseAction, lagent_like.tool_api, lagent_like.ActionReturn, {"register": False}
    )
    executor = ActionExecutor(
        [classes["CityInfo"](), classes["Arithmetic"]()],
        validation="off",
        error_formatter=lambda exc, ret: str(exc),
    )
    calls = [
        ("tool-raises", "CityInfo.checked", '{"city": "Lyon", "strict": true}'),
        ("tool-raises-type-error", "Arithmetic.add", '{"a": 1, "b": "x"}'),
        ("division-by-zero", "Arithmetic.divide", '{"a": 1.5, "b": 0.0}'),
        ("toolkit-int", "Arithmetic.add", '{"a": 1, "b": 2}'),
    ]
    for call_id, name, command in calls:
        assert record(executor(name, command)) == recorded["executors"]["json"]["calls"][call_id], call_id


@pytest.mark.skipif(
    importlib.util.find_spec("lagent") is None, reason="lagent is not installed beside lagent_like"
)
def test_the_recorder_reproduces_the_fixtures(tmp_path: Path) -> None:
    script = Path(__file__).parent / "compat" / "record_lagent_fixtures.py"
    before = FIXTURES.read_text(encoding="utf-8")
    try:
        subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
        assert FIXTURES.read_text(encoding="utf-8") == before
    finally:
        FIXTURES.write_text(before, encoding="utf-8")
