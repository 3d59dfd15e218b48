"""The ``lagent-like`` command: ``list``, ``describe``, ``call``, ``-m`` imports and errors.

Every behaviour runs in a real subprocess, both as ``python -m lagent_like`` and as the
installed ``lagent-like`` console script; a few in-process tests of ``main`` cover the
rest quickly.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from lagent_like import BaseAction, tool_api
from lagent_like.cli import commands as cli_module
from lagent_like.cli.commands import main

BUILTINS = ["BaseAction", "InvalidAction", "NoAction", "FinishAction"]
CLI_TOOLS = ["CliCalc", "CliEcho", "CliBoom", "CliNeedsKey", "CliBroken"]
PARAMETER_DESCRIPTION = "If you call this tool, you must pass arguments in the JSON format {key: value}, where the key is the parameter name."
SCRIPT = Path(sys.executable).with_name("lagent-like")

TOOLS_MODULE = textwrap.dedent(
    '''
    from lagent_like import BaseAction, tool_api


    class CliCalc(BaseAction):
        """Integer arithmetic."""

        @tool_api
        def add(self, a: int, b: int) -> int:
            """Add two integers.

            Args:
                a: the first addend
                b: the second addend
            """
            return a + b


    class CliEcho(BaseAction):
        def run(self, text: str) -> str:
            """Echo the text back.

            Args:
                text: what to echo
            """
            return text


    class CliBoom(BaseAction):
        def run(self) -> str:
            """Always fails."""
            raise ValueError("boom")


    class CliNeedsKey(BaseAction):
        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

        def run(self, query: str) -> str:
            """Look something up with a key.

            Args:
                query: what to look up
            """
            return query


    class CliBroken(BaseAction):
        def __init__(self) -> None:
            raise RuntimeError("no config file")

        def run(self) -> str:
            """Never constructed."""
            return ""
    '''
)

CALC_DESCRIPTION = {
    "name": "CliCalc",
    "description": "Integer arithmetic.",
    "api_list": [
        {
            "name": "add",
            "description": "Add two integers.",
            "parameters": [
                {"name": "a", "type": "NUMBER", "description": "the first addend"},
                {"name": "b", "type": "NUMBER", "description": "the second addend"},
            ],
            "required": ["a", "b"],
            "parameter_description": PARAMETER_DESCRIPTION,
        }
    ],
}
ECHO_DESCRIPTION = {
    "name": "CliEcho",
    "description": "Echo the text back.",
    "parameters": [{"name": "text", "type": "STRING", "description": "what to echo"}],
    "required": ["text"],
    "parameter_description": PARAMETER_DESCRIPTION,
}
# Described from the class: no instance, so no parser inserted parameter_description.
NEEDS_KEY_DESCRIPTION = {
    "name": "CliNeedsKey",
    "description": "Look something up with a key.",
    "parameters": [{"name": "query", "type": "STRING", "description": "what to look up"}],
    "required": ["query"],
}

RunCli = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture(params=[pytest.param("module", id="python-m"), pytest.param("script", id="console-script")])
def run_cli(request: pytest.FixtureRequest, tmp_path: Path) -> RunCli:
    """Run the command in a subprocess that can import ``cli_tools_mod`` from ``tmp_path``."""
    (tmp_path / "cli_tools_mod.py").write_text(TOOLS_MODULE, encoding="utf-8")
    command = [sys.executable, "-m", "lagent_like"] if request.param == "module" else [str(SCRIPT)]
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path}

    def run(*args: str, stdin: Optional[str] = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *args],
            input=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=env,
            cwd=tmp_path,
            timeout=60,
        )

    return run


def assert_error_line(proc: subprocess.CompletedProcess[str], message: str) -> None:
    assert "Traceback" not in proc.stderr
    assert proc.stderr == f"lagent-like: error: {message}\n"
    assert proc.stdout == ""
    assert proc.returncode == 2


def assert_success(proc: subprocess.CompletedProcess[str]) -> Any:
    """Exit 0 and a clean stderr; return the JSON printed on stdout."""
    assert "Traceback" not in proc.stderr
    assert (proc.returncode, proc.stderr) == (0, "")
    return json.loads(proc.stdout)


# -- subprocess: python -m lagent_like and the console script ------------------------------


def test_console_script_is_installed_next_to_the_interpreter() -> None:
    assert SCRIPT.is_file()


def test_importing_the_package_does_not_import_the_cli() -> None:
    probe = "import sys, lagent_like; print('lagent_like.cli.commands' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout == "False\n"


def test_list_with_builtins_prints_builtins_first_then_imported_tools(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "list", "--with-builtins")
    assert (proc.returncode, proc.stderr) == (0, "")
    names = proc.stdout.splitlines()
    assert names[:4] == BUILTINS
    assert [n for n in names if n.startswith("Cli")] == CLI_TOOLS
    assert len(names) == len(set(names))


def test_list_with_long_import_option(run_cli: RunCli) -> None:
    proc = run_cli("--import", "cli_tools_mod", "list")
    assert proc.returncode == 0
    assert "CliCalc" in proc.stdout.splitlines()


def test_list_json_prints_one_json_list(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "list", "--json")
    names = assert_success(proc)
    assert proc.stdout.count("\n") == 1
    assert names == CLI_TOOLS


def test_list_without_imports_shows_the_builtins(run_cli: RunCli) -> None:
    names = assert_success(run_cli("list", "--json"))
    assert names[:4] == BUILTINS
    assert not [n for n in names if n.startswith("Cli")]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("CliCalc", CALC_DESCRIPTION, id="toolkit"),
        pytest.param("CliEcho", ECHO_DESCRIPTION, id="simple-tool"),
        pytest.param("CliNeedsKey", NEEDS_KEY_DESCRIPTION, id="needs-constructor-args"),
    ],
)
def test_describe_prints_the_description_as_indented_json(
    run_cli: RunCli, name: str, expected: dict[str, Any]
) -> None:
    proc = run_cli("-m", "cli_tools_mod", "describe", name)
    assert assert_success(proc) == expected
    assert proc.stdout == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"


def test_describe_unknown_name_suggests_close_names(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "describe", "CliCalk")
    assert_error_line(proc, "no tool named 'CliCalk' in the registry; did you mean 'CliCalc'?")


def test_describe_tool_whose_constructor_fails_is_an_error(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "describe", "CliBroken")
    assert_error_line(proc, "cannot construct tool 'CliBroken': RuntimeError: no config file")


def test_call_success_prints_the_record_and_exits_0(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "call", "CliCalc.add", '{"a": 1, "b": 2}')
    assert assert_success(proc) == {
        "args": {"a": 1, "b": 2},
        "url": None,
        "type": "CliCalc",
        "result": [{"type": "text", "content": "3"}],
        "errmsg": None,
        "state": 0,
        "thought": None,
        "valid": 0,
        "attempts": 1,
        "full_result": None,
    }


def test_call_simple_tool_keeps_non_ascii_text(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "call", "CliEcho", '{"text": "héllo ✓"}')
    record = assert_success(proc)
    assert record["result"] == [{"type": "text", "content": "héllo ✓"}]
    assert '"content": "héllo ✓"' in proc.stdout


def test_call_reads_arguments_from_stdin_with_dash(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "call", "CliCalc.add", "-", stdin='{"a": 40, "b": 2}\n')
    record = assert_success(proc)
    assert (record["args"], record["result"]) == ({"a": 40, "b": 2}, [{"type": "text", "content": "42"}])


def test_call_with_bad_json_is_an_args_error_exiting_1(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "call", "CliCalc.add", '{"a": 1,')
    assert (proc.returncode, proc.stderr) == (1, "")
    record = json.loads(proc.stdout)
    assert record["state"] == -1001
    assert record["args"] == {"inputs": '{"a": 1,', "name": "add"}
    assert (record["type"], record["result"], record["valid"]) == ("CliCalc", None, 0)
    assert record["errmsg"].startswith("CliCalc.add: invalid JSON arguments: ")
    assert "the arguments end in the middle of an object at character 8" in record["errmsg"]
    assert record["errmsg"].endswith('Write one JSON object such as {"a": <NUMBER>, "b": <NUMBER>}')


def test_call_of_a_raising_tool_is_an_api_error_exiting_1(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "call", "CliBoom", "{}")
    # The tool's traceback goes to the logger, which the command keeps quiet.
    assert (proc.returncode, proc.stderr) == (1, "")
    record = json.loads(proc.stdout)
    assert (record["state"], record["errmsg"], record["result"]) == (-1002, "ValueError: boom", None)


def test_call_of_an_unknown_api_of_a_known_toolkit_is_an_api_error(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "call", "CliCalc.sub", "{}")
    assert (proc.returncode, proc.stderr) == (1, "")
    record = json.loads(proc.stdout)
    assert (record["state"], record["errmsg"]) == (
        -1002,
        "CliCalc has no API 'sub'. Call one of: CliCalc.add",
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        pytest.param(
            "CliCalk.add",
            "no tool named 'CliCalk' in the registry; did you mean 'CliCalc'?",
            id="toolkit-api",
        ),
        pytest.param("Nowhere", "no tool named 'Nowhere' in the registry", id="simple-name"),
    ],
)
def test_call_of_an_unknown_tool_is_an_error_line(run_cli: RunCli, name: str, message: str) -> None:
    assert_error_line(run_cli("-m", "cli_tools_mod", "call", name, "{}"), message)


def test_call_of_a_tool_needing_constructor_args_is_an_error_line(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "call", "CliNeedsKey", '{"query": "x"}')
    assert "Traceback" not in proc.stderr
    assert (proc.returncode, proc.stdout) == (2, "")
    assert re.fullmatch(
        r"lagent-like: error: cannot construct tool 'CliNeedsKey' without arguments: "
        r"TypeError: (CliNeedsKey\.)?__init__\(\) missing 1 required positional argument: 'key'\n",
        proc.stderr,
    )


def test_failing_import_is_one_error_line(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "-m", "no_such_module_for_cli", "list")
    assert_error_line(
        proc,
        "cannot import module 'no_such_module_for_cli': "
        "ModuleNotFoundError: No module named 'no_such_module_for_cli'",
    )


def test_missing_command_is_an_argparse_usage_error(run_cli: RunCli) -> None:
    proc = run_cli()
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.startswith("usage: lagent-like ")
    assert proc.stderr.endswith("lagent-like: error: the following arguments are required: COMMAND\n")


# -- in process: main(argv) ----------------------------------------------------------------


class CliInProcCalc(BaseAction):
    """In-process arithmetic."""

    @tool_api
    def mul(self, a: int, b: int) -> int:
        """Multiply.

        Args:
            a: left factor
            b: right factor
        """
        return a * b


def test_main_list_returns_0_and_lists_test_tools(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == BUILTINS
    assert "CliInProcCalc" in out


def test_main_call_returns_0_on_success(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "CliInProcCalc.mul", '{"a": 6, "b": 7}']) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["result"] == [{"type": "text", "content": "42"}]
    assert captured.err == ""


def test_main_call_reads_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"a": 2, "b": 3}'))
    assert main(["call", "CliInProcCalc.mul", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == [{"type": "text", "content": "6"}]


def test_main_call_returns_1_when_the_call_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "CliInProcCalc.mul", '{"a": 6}']) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["state"] == -1001


def test_main_describe_falls_back_to_the_class_description(capsys: pytest.CaptureFixture[str]) -> None:
    class CliInProcKeyed(BaseAction):
        def __init__(self, token: str) -> None:
            super().__init__()
            self.token = token

        def run(self) -> str:
            """Keyed."""
            return self.token

    assert main(["describe", "CliInProcKeyed"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == CliInProcKeyed.__tool_description__


def test_main_failed_import_returns_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-m", "no_such_module_for_cli", "list"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "lagent-like: error: cannot import module 'no_such_module_for_cli': "
        "ModuleNotFoundError: No module named 'no_such_module_for_cli'\n"
    )


def test_main_multi_line_error_message_becomes_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    class CliInProcFussy(BaseAction):
        def __init__(self) -> None:
            raise ValueError("first line\n  second line\n")

        def run(self) -> str:
            """Fussy."""
            return ""

    assert main(["call", "CliInProcFussy", "{}"]) == 2
    assert capsys.readouterr().err == (
        "lagent-like: error: cannot construct tool 'CliInProcFussy': ValueError: first line second line\n"
    )


def test_main_unexpected_exception_is_an_error_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def on_fire() -> list[str]:
        raise RuntimeError("registry on fire")

    monkeypatch.setattr(cli_module, "list_tools", on_fire)
    assert main(["list"]) == 2
    assert capsys.readouterr().err == "lagent-like: error: RuntimeError: registry on fire\n"


def test_main_usage_error_exits_2_through_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc_info:
        main(["describe"])
    assert exc_info.value.code == 2
    assert capsys.readouterr().err.endswith(
        "lagent-like describe: error: the following arguments are required: NAME\n"
    )


def test_main_leaves_the_package_logger_as_it_found_it(capsys: pytest.CaptureFixture[str]) -> None:
    handlers = list(logging.getLogger("lagent_like").handlers)
    assert main(["list"]) == 0
    assert logging.getLogger("lagent_like").handlers == handlers


def test_console_script_imports_modules_from_the_current_directory(tmp_path: Path) -> None:
    (tmp_path / "cli_cwd_mod.py").write_text(TOOLS_MODULE.replace("Cli", "CliCwd"), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [str(SCRIPT), "-m", "cli_cwd_mod", "call", "CliCwdEcho", '{"text": "here"}'],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert (out.returncode, out.stderr) == (0, "")
    assert json.loads(out.stdout)["result"] == [{"type": "text", "content": "here"}]


# -- lint -----------------------------------------------------------------------------------

LINT_WARN_MODULE = '''
from lagent_like import BaseAction


class CliLintWarn(BaseAction):
    def run(self, text: str) -> str:
        """Echo the text back."""
        return text
'''

LINT_ERROR_MODULE = """
from lagent_like import BaseAction


class CliLintSilent(BaseAction):
    def run(self) -> str:
        return ""
"""

LINT_BROKEN_MODULE = '''
from lagent_like import BaseAction


class CliLintBadDoc(BaseAction):
    def run(self, x: int, /) -> int:
        """Double.

        Args:
            x: a number
        """
        return 2 * x
'''

LINT_LINE = re.compile(r"(error|warning|info) (\S+): .+ \[([a-z-]+)\]")
WARN_TEXT = (
    "warning CliLintWarn: parameter 'text' has no description; document it under Args: in the "
    "docstring (or annotate it Annotated[T, 'description']) [param-no-description]"
)
SILENT_TEXT = (
    "error CliLintSilent: no description: the model is not told what this API does; "
    "add a docstring to run or to the class [no-description]"
)


def lint_size(description: dict[str, Any]) -> str:
    tokens = -(-len(json.dumps(description, ensure_ascii=False)) // 4)  # ceil(length / 4)
    return f"the description is about {tokens} tokens (estimated as its JSON length / 4)"


WARN_SIZE = lint_size(
    {
        "name": "CliLintWarn",
        "description": "Echo the text back.",
        "parameters": [{"name": "text", "type": "STRING", "description": ""}],
        "required": ["text"],
        "parameter_description": PARAMETER_DESCRIPTION,
    }
)
SILENT_SIZE = lint_size(
    {
        "name": "CliLintSilent",
        "description": "",
        "parameters": [],
        "required": [],
        "parameter_description": PARAMETER_DESCRIPTION,
    }
)


def write_lint_modules(directory: Path) -> None:
    for name, source in [
        ("cli_lint_warn", LINT_WARN_MODULE),
        ("cli_lint_error", LINT_ERROR_MODULE),
        ("cli_lint_broken", LINT_BROKEN_MODULE),
        ("cli_lint_crash", "raise RuntimeError('no config')\n"),
    ]:
        (directory / f"{name}.py").write_text(source, encoding="utf-8")


def lint_lines(stdout: str) -> list[tuple[str, str, str]]:
    """``(severity, api, code)`` of each finding line; the summary line is left out."""
    *lines, _summary = stdout.splitlines()
    matches = [LINT_LINE.fullmatch(line) for line in lines]
    assert all(matches), lines
    return [(m[1], m[2], m[3]) for m in matches if m]


def test_lint_module_without_problems_exits_0(run_cli: RunCli) -> None:
    proc = run_cli("lint", "cli_tools_mod")
    assert "Traceback" not in proc.stderr
    assert (proc.returncode, proc.stderr) == (0, "")
    assert lint_lines(proc.stdout) == [
        ("info", "CliCalc.add", "size"),
        ("info", "CliEcho", "size"),
        ("info", "CliBoom", "size"),
        ("info", "CliNeedsKey", "not-instantiated"),
        ("info", "CliNeedsKey", "size"),
        ("info", "CliBroken", "not-instantiated"),
        ("info", "CliBroken", "size"),
    ]
    assert proc.stdout.endswith("\n0 errors, 0 warnings\n")


@pytest.mark.parametrize(
    ("options", "status"),
    [
        pytest.param([], 0, id="warnings-pass"),
        pytest.param(["--strict"], 1, id="strict-warnings-fail"),
    ],
)
def test_lint_warnings_fail_only_with_strict(
    run_cli: RunCli, tmp_path: Path, options: list[str], status: int
) -> None:
    write_lint_modules(tmp_path)
    proc = run_cli("lint", *options, "cli_lint_warn")
    assert (proc.returncode, proc.stderr) == (status, "")
    assert proc.stdout == f"{WARN_TEXT}\ninfo CliLintWarn: {WARN_SIZE} [size]\n0 errors, 1 warning\n"


@pytest.mark.parametrize("options", [pytest.param([], id="default"), pytest.param(["--strict"], id="strict")])
def test_lint_error_exits_1(run_cli: RunCli, tmp_path: Path, options: list[str]) -> None:
    write_lint_modules(tmp_path)
    proc = run_cli("lint", *options, "cli_lint_error", "cli_lint_warn")
    assert (proc.returncode, proc.stderr) == (1, "")
    assert proc.stdout == (
        f"{SILENT_TEXT}\ninfo CliLintSilent: {SILENT_SIZE} [size]\n"
        f"{WARN_TEXT}\ninfo CliLintWarn: {WARN_SIZE} [size]\n"
        "1 error, 1 warning\n"
    )


def test_lint_json_prints_the_findings_as_a_list_of_dicts(run_cli: RunCli, tmp_path: Path) -> None:
    write_lint_modules(tmp_path)
    proc = run_cli("lint", "--json", "cli_lint_error")
    assert (proc.returncode, proc.stderr) == (1, "")
    assert json.loads(proc.stdout) == [
        {
            "severity": "error",
            "tool": "CliLintSilent",
            "api": "CliLintSilent",
            "code": "no-description",
            "message": "no description: the model is not told what this API does; "
            "add a docstring to run or to the class",
        },
        {
            "severity": "info",
            "tool": "CliLintSilent",
            "api": "CliLintSilent",
            "code": "size",
            "message": SILENT_SIZE,
        },
    ]


@pytest.mark.parametrize(
    ("options", "status"),
    [
        pytest.param([], 0, id="default"),
        pytest.param(["--strict"], 1, id="strict"),
    ],
)
def test_lint_json_keeps_the_exit_status(
    run_cli: RunCli, tmp_path: Path, options: list[str], status: int
) -> None:
    write_lint_modules(tmp_path)
    proc = run_cli("lint", "--json", *options, "cli_lint_warn")
    assert (proc.returncode, proc.stderr) == (status, "")
    assert [f["code"] for f in json.loads(proc.stdout)] == ["param-no-description", "size"]


def test_lint_definition_error_is_a_finding_exiting_1(run_cli: RunCli, tmp_path: Path) -> None:
    write_lint_modules(tmp_path)
    proc = run_cli("lint", "cli_lint_broken")
    assert (proc.returncode, proc.stderr) == (1, "")
    assert proc.stdout == (
        "error CliLintBadDoc.run: parameter 'x' is positional-only; tools receive keyword arguments "
        "(module 'cli_lint_broken' cannot be imported, so none of its tools is "
        "linted) [definition-error]\n1 error, 0 warnings\n"
    )


def test_lint_without_targets_lints_the_imported_tools_not_the_builtins(run_cli: RunCli) -> None:
    proc = run_cli("-m", "cli_tools_mod", "lint")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert {api.partition(".")[0] for _, api, _ in lint_lines(proc.stdout)} == set(CLI_TOOLS)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        pytest.param(
            "CliCalk",
            "no tool named 'CliCalk' in the registry, and no module has that name; did you mean 'CliCalc'?",
            id="unknown-name",
        ),
        pytest.param(
            "cli_lint_crash",
            "cannot import module 'cli_lint_crash': RuntimeError: no config",
            id="import-fails",
        ),
    ],
)
def test_lint_bad_target_is_an_error_line(run_cli: RunCli, tmp_path: Path, target: str, message: str) -> None:
    write_lint_modules(tmp_path)
    assert_error_line(run_cli("-m", "cli_tools_mod", "lint", target), message)


def test_lint_imports_target_modules_from_the_current_directory(tmp_path: Path) -> None:
    write_lint_modules(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [str(SCRIPT), "lint", "--strict", "cli_lint_warn"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert (out.returncode, out.stderr) == (1, "")
    assert out.stdout.endswith("\n0 errors, 1 warning\n")


def test_main_lint_of_a_registered_tool_name_returns_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--strict", "CliInProcCalc"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.splitlines()[-1] == "0 errors, 0 warnings"
