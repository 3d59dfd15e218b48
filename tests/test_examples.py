"""Every script in ``examples/`` runs, and the quick start prints what the docs promise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))

#: Examples that need an optional extra, by the module the extra installs.
EXTRAS = {"mcp_roundtrip.py": "mcp", "ray_batch.py": "ray", "inspect_tools.py": "starlette"}

#: What the fake model server answers to ``react_agent.py``, one reply per turn.
REACT_REPLIES = [
    'Thought: First the sum.\nAction: Calc.add\nAction Input: {"a": 17, "b": 25}',
    'Thought: Now the product.\nAction: Calc.multiply\nAction Input: {"a": 42, "b": "three"}',
    'Action: Calc.multiply\nAction Input: {"a": 42, "b": 3}',
    "Thought: Done.\nFinal Answer: 126",
]


def _run(script: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_there_are_examples() -> None:
    assert EXAMPLES / "quickstart.py" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_example_runs(script: Path, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if script.name in EXTRAS:
        extra = {"starlette": "web"}.get(EXTRAS[script.name], EXTRAS[script.name])  # the module -> its extra
        pytest.importorskip(
            EXTRAS[script.name],
            reason=f"needs the {extra!r} extra: pip install '.[{extra}]' (or 'lagent-like[{extra}]')",
        )
    if EXTRAS.get(script.name) == "ray":
        request.getfixturevalue("ray_lock")  # its Ray cluster never beside another worker's
    # Run from an empty directory: an example must not depend on the current directory.
    if script.name == "react_agent.py":
        with FakeOpenAIServer(REACT_REPLIES) as server:
            proc = _run(script, tmp_path, "--base-url", server.base_url, "--model", "fake")
    else:
        proc = _run(script, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr


def test_react_agent_output(tmp_path: Path) -> None:
    with FakeOpenAIServer(REACT_REPLIES) as server:
        proc = _run(EXAMPLES / "react_agent.py", tmp_path, "--base-url", server.base_url, "--model", "fake")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        'turn 1: action Calc.add {"a": 17, "b": 25} -> 42',
        'turn 2: action Calc.multiply {"a": 42, "b": "three"} -> '
        "Calc.multiply: 'b' expected integer, got string 'three'",
        'turn 3: action Calc.multiply {"a": 42, "b": 3} -> 126',
        "turn 4: final answer",
        "answer: 126 (final_answer, 4 turns)",
    ]
    # The observations went back to the model, and the tools were described to it.
    assert [request["model"] for request in server.requests] == ["fake"] * 4
    assert "Calc.add" in server.requests[0]["messages"][0]["content"]
    assert server.requests[1]["messages"][-1]["content"].startswith("Observation: 42")


def test_quickstart_output(tmp_path: Path) -> None:
    proc = _run(EXAMPLES / "quickstart.py", tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "Tools for the system prompt:"
    first_call = lines.index("valid: state=0 (SUCCESS) valid=0 (OPEN)")
    info = json.loads("\n".join(lines[1:first_call]))
    assert [entry["name"] for entry in info] == ["Weather.current", "Bold"]
    unit = info[0]["parameters"][1]
    assert unit == {"name": "unit", "type": "STRING", "description": "temperature unit", "enum": ["C", "F"]}
    assert info[0]["required"] == ["city"]
    assert lines[first_call:] == [
        "valid: state=0 (SUCCESS) valid=0 (OPEN)",
        '  {"city": "Paris", "temperature": 21, "unit": "C", "sky": "sunny"}',
        "dirty JSON: state=0 (SUCCESS) valid=0 (OPEN)",
        '  {"city": "Oslo", "temperature": 48, "unit": "F", "sky": "rain"}',
        "unknown tool: state=-1002 (API_ERROR) valid=-2 (INVALID)",
        "  Unknown tool 'WebSearch'. Available tools: Weather.current, Bold.",
    ]


def test_function_calling_output(tmp_path: Path) -> None:
    proc = _run(EXAMPLES / "function_calling.py", tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == 'tools: ["Weather__current", "add"]'
    assert lines[2:] == [
        'call_1: {"city": "Oslo", "temperature": 21, "unit": "C"}',
        "call_2: 42",
        "call_3: add: 'a' expected integer, got number 2.5; 'b' is required",
    ]


def test_async_batch_output(tmp_path: Path) -> None:
    proc = _run(EXAMPLES / "async_batch.py", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "Travel.weather: SUCCESS attempts=1 Lisbon: 24 C, sunny",
        "Travel.flights: TIMEOUT attempts=1 'Travel.flights' timed out after 0.3 s",
        "Travel.hotels: SUCCESS attempts=3 Lisbon: 2 hotels free for 3 night(s)",
        "Travel.weather: SUCCESS attempts=1 Porto: 24 C, sunny",
        "Travel.weather: ARGS_ERROR attempts=1 Travel.weather: 'city' is required; "
        "'town' is not a parameter; parameters: city",
        "all 5 calls returned in input order",
        "wall time under 1 s",
    ]


@pytest.mark.parametrize("script", sorted(EXTRAS), ids=sorted(EXTRAS))
def test_an_example_without_its_extra_says_which_extra_in_one_line(script: str, tmp_path: Path) -> None:
    # The extra's module is made unimportable, whether or not it is installed.
    blocked = (
        f"import runpy, sys; sys.modules[{EXTRAS[script]!r}] = None; "
        f"sys.argv = [{str(EXAMPLES / script)!r}]; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    proc = subprocess.run(
        [sys.executable, "-c", blocked], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    extra = {"starlette": "web"}.get(EXTRAS[script], EXTRAS[script])
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        1,
        "",
        f"{script} needs the {extra!r} extra: pip install 'lagent-like[{extra}]'\n",
    )
