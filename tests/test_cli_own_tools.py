"""Issue 24, "your tools first": with ``-m MODULE`` the commands offer that module's tools.

``list``, ``prompt``, ``chat``, ``serve-mcp`` and ``inspect`` show only the tools the
``-m`` modules define (classes and plain functions) unless ``--with-builtins`` or
``--tools`` say otherwise; ``-m path/to/file.py`` imports the file; ``demo --save``
writes a trace the inspector opens; ``call`` prints the arguments as JSON.

The commands run in process (``main``); the servers they would start are replaced by
recorders of the executor they were handed.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lagent_like import BaseAction, tool_api
from lagent_like.cli.commands import main
from lagent_like.registry import BUILTIN_TOOLS, TOOL_REGISTRY

OWN_TOOLS = textwrap.dedent(
    '''
    import dataclasses
    import enum

    from lagent_like import BaseAction, tool_api


    class OwnColor(enum.Enum):
        RED = "red"
        BLUE = "blue"


    @dataclasses.dataclass
    class OwnPoint:
        x: int
        y: int


    class OwnWeather(BaseAction):
        """Weather reports."""

        @tool_api
        def current(self, city: str) -> str:
            """The weather now.

            Args:
                city: the city
            """
            return f"sunny in {city}"


    class OwnNeedsKey(BaseAction):
        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

        def run(self, query: str) -> str:
            """Look something up with a key.

            Args:
                query: what to look up
            """
            return query


    @tool_api
    def own_paint(color: OwnColor, at: OwnPoint) -> str:
        """Paint a point.

        Args:
            color: the colour
            at: where
        """
        return f"{color.value} at {at.x},{at.y}"
    '''
)


@pytest.fixture
def own_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The module above as ``tools/own_cli_tools.py``, named by its path."""
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "own_cli_tools.py").write_text(OWN_TOOLS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    yield "tools/own_cli_tools.py"
    # The next test's file has the same name in another folder: a new command's import.
    sys.modules.pop("own_cli_tools", None)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def shipped_registry() -> None:
    """The registry as a fresh process has it: the shipped tools (and this file's stand-in).

    Other test files define tool classes that register in this worker's registry too;
    the commands that offer every registered tool must not see them.
    """
    saved = TOOL_REGISTRY.snapshot()
    kept = {name: entry for name, entry in saved.items() if name in BUILTIN_TOOLS or name == "NeedsAnExtra"}
    TOOL_REGISTRY.restore(kept)  # the autouse fixture of conftest.py puts the rest back


def test_list_with_a_module_shows_only_its_tools(capsys: pytest.CaptureFixture[str], own_file: str) -> None:
    status, out, err = run(capsys, "-m", own_file, "list", "--json")
    assert (status, err) == (0, "")
    assert json.loads(out) == ["OwnWeather", "OwnNeedsKey", "own_paint"]


def test_list_with_builtins_shows_the_builtins_first(
    capsys: pytest.CaptureFixture[str], own_file: str
) -> None:
    status, out, _ = run(capsys, "-m", own_file, "list", "--with-builtins")
    names = out.splitlines()
    assert status == 0
    assert names[:4] == ["BaseAction", "InvalidAction", "NoAction", "FinishAction"]
    assert names[-3:] == ["OwnWeather", "OwnNeedsKey", "own_paint"]
    assert "PythonInterpreter" in names


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param([], ["OwnWeather__current", "own_paint"], id="module-tools-only"),
        pytest.param(
            ["--tools", "PythonInterpreter,own_paint"], ["PythonInterpreter", "own_paint"], id="named"
        ),
    ],
)
def test_prompt_with_a_module_exports_its_tools(
    capsys: pytest.CaptureFixture[str], own_file: str, options: list[str], expected: list[str]
) -> None:
    status, out, err = run(capsys, "-m", own_file, "prompt", "--format", "mcp", *options)
    assert (status, err) == (0, "")
    assert [tool["name"] for tool in json.loads(out)] == expected


def test_prompt_format_gemini_prints_the_function_declarations(
    capsys: pytest.CaptureFixture[str], own_file: str
) -> None:
    status, out, _ = run(capsys, "-m", own_file, "prompt", "--format", "gemini", "--tools", "OwnWeather")
    [declaration] = json.loads(out)[0]["functionDeclarations"]
    assert status == 0
    assert (declaration["name"], declaration["parameters"]["properties"]) == (
        "OwnWeather__current",
        {"city": {"type": "STRING", "description": "the city"}},
    )


def test_prompt_with_builtins_adds_the_registered_tools(
    capsys: pytest.CaptureFixture[str], own_file: str, shipped_registry: None
) -> None:
    status, out, _ = run(capsys, "-m", own_file, "prompt", "--format", "mcp", "--with-builtins")
    names = [tool["name"] for tool in json.loads(out)]
    assert status == 0
    assert {"PythonInterpreter", "OwnWeather__current", "own_paint"} <= set(names)


class Recorder:
    """Stands in for a server: keeps the executor's tool names instead of serving them."""

    def __init__(self) -> None:
        self.names: list[list[str]] = []

    def keep(self, executor: Any) -> None:
        self.names.append(executor.action_names())


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """Replaces ``serve_mcp``, ``web.inspect`` and ``web.InspectorServer`` with recorders."""
    pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
    pytest.importorskip(
        "starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')"
    )
    import lagent_like.mcp as mcp_package
    import lagent_like.web as web_package

    kept = Recorder()

    class Page:
        url = "http://127.0.0.1:1/"

        def __init__(self, executor: Any, **options: Any) -> None:
            kept.keep(executor)

        def start(self) -> Page:
            return self

        def wait(self) -> None:
            return None

    monkeypatch.setattr(mcp_package, "serve_mcp", lambda executor, **options: kept.keep(executor))
    monkeypatch.setattr(web_package, "inspect", lambda executor, **options: kept.keep(executor))
    monkeypatch.setattr(web_package, "InspectorServer", Page)
    return kept


CHAT = ["chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--web"]


@pytest.mark.parametrize(
    ("command", "options", "expected"),
    [
        pytest.param(["serve-mcp"], [], ["OwnWeather", "own_paint"], id="serve-mcp"),
        pytest.param(["inspect"], [], ["OwnWeather", "own_paint"], id="inspect"),
        pytest.param(CHAT, [], ["OwnWeather", "own_paint"], id="chat"),
        pytest.param(["serve-mcp"], ["--tools", "own_paint"], ["own_paint"], id="serve-mcp-named"),
        pytest.param(CHAT, ["--tools", "OwnWeather"], ["OwnWeather"], id="chat-named"),
    ],
)
def test_serving_commands_with_a_module_offer_its_tools(
    capsys: pytest.CaptureFixture[str],
    own_file: str,
    recorder: Recorder,
    command: list[str],
    options: list[str],
    expected: list[str],
) -> None:
    status, _, _ = run(capsys, "-m", own_file, *command, *options)
    assert status == 0
    assert recorder.names == [expected]


@pytest.mark.parametrize(
    "command", [pytest.param(["serve-mcp", "--allow-code"], id="serve-mcp"), pytest.param(CHAT, id="chat")]
)
def test_serving_commands_with_builtins_offer_the_registered_tools_too(
    capsys: pytest.CaptureFixture[str],
    own_file: str,
    recorder: Recorder,
    command: list[str],
    shipped_registry: None,
) -> None:
    status, _, _ = run(capsys, "-m", own_file, *command, "--with-builtins")
    assert status == 0
    [names] = recorder.names
    assert {"OwnWeather", "own_paint", "ArxivSearch"} <= set(names)


@pytest.mark.parametrize(
    ("target", "content", "message"),
    [
        pytest.param(
            "missing.py",
            None,
            "cannot import module 'missing.py': no such file '{tmp}/missing.py'",
            id="missing-file",
        ),
        pytest.param(
            "broken.py",
            "def broken(:\n",
            "cannot import module 'broken.py': SyntaxError: invalid syntax (broken.py, line 1)",
            id="syntax-error",
        ),
        pytest.param(
            "raising.py",
            "raise RuntimeError('no config')\n",
            "cannot import module 'raising.py': RuntimeError: no config",
            id="raises-on-import",
        ),
        pytest.param(
            "empty_tools.py",
            "X = 1\n",
            "the module(s) empty_tools define no tools: name tools with --tools A,B or pass --with-builtins",
            id="no-tools",
        ),
    ],
)
def test_bad_module_file_is_one_error_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    target: str,
    content: Any,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    if content is not None:
        (tmp_path / target).write_text(content, encoding="utf-8")
    status, out, err = run(capsys, "-m", target, "prompt")
    assert (status, out) == (2, "")
    assert err == f"lagent-like: error: {message.format(tmp=tmp_path.resolve())}\n"


def test_module_file_named_like_an_imported_module_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "json.py").write_text("X = 1\n", encoding="utf-8")
    status, _, err = run(capsys, "-m", "./json.py", "list")
    assert status == 2
    assert err == (
        "lagent-like: error: cannot import module './json.py': a module named 'json' is already imported "
        "from elsewhere; rename the file\n"
    )


def test_call_prints_enum_and_dataclass_arguments_as_json(
    capsys: pytest.CaptureFixture[str], own_file: str
) -> None:
    status, out, _ = run(
        capsys, "-m", own_file, "call", "own_paint", '{"color": "blue", "at": {"x": 1, "y": 2}}'
    )
    record = json.loads(out)
    assert status == 0
    assert record["args"] == {"color": "blue", "at": {"x": 1, "y": 2}}
    assert record["result"] == [{"type": "text", "content": "blue at 1,2"}]
    assert '"color": "blue"' in out


def test_demo_save_writes_a_trace_the_inspector_opens(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip(
        "starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')"
    )
    from lagent_like import ActionExecutor
    from lagent_like.web.state import InspectorState

    path = tmp_path / "demo.json"
    status, out, _ = run(capsys, "demo", "--color", "never", "--save", str(path))
    assert status == 0
    state = InspectorState(ActionExecutor([]))
    trace_id = state.add_trace_file(str(path))
    [summary] = state.traces()
    detail = state.trace(trace_id)
    assert summary["title"] == "demo.json"
    assert detail["answer"] in out
    assert len(detail["turns"]) == 5


def test_demo_save_into_a_missing_directory_is_an_error_line_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "missing" / "demo.json"
    status, out, err = run(capsys, "demo", "--save", str(path))
    assert (status, out) == (2, "")
    assert err == f"lagent-like: error: --save {path}: no such directory {tmp_path / 'missing'}\n"


class NeedsAnExtra(BaseAction):
    """Stands for a shipped tool whose optional extra is not installed."""

    def __init__(self) -> None:
        raise ImportError("NeedsAnExtra needs thing: pip install 'lagent-like[thing]'")

    @tool_api
    def run(self, text: str) -> str:
        """Echo.

        Args:
            text: what to echo.
        """
        return text


def test_tools_offered_by_default_leave_out_one_whose_extra_is_missing(
    capsys: pytest.CaptureFixture[str], shipped_registry: None
) -> None:
    status, out, err = run(capsys, "prompt", "--format", "mcp")
    assert (status, err) == (0, "")
    assert "NeedsAnExtra" not in [tool["name"] for tool in json.loads(out)]


def test_a_named_tool_whose_extra_is_missing_is_an_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "prompt", "--tools", "NeedsAnExtra")
    assert status == 2
    assert err == (
        "lagent-like: error: cannot construct tool 'NeedsAnExtra': "
        "ImportError: NeedsAnExtra needs thing: pip install 'lagent-like[thing]'\n"
    )


def test_describe_shows_the_declared_description_of_a_tool_whose_extra_is_missing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "describe", "NeedsAnExtra")
    assert status == 0
    assert json.loads(out)["name"] == "NeedsAnExtra"
