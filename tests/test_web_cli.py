"""``lagent-like inspect`` and ``chat --web``: real processes serving the page on 127.0.0.1."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")
pytest.importorskip("uvicorn", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

from fake_openai_server import FakeOpenAIServer

from lagent_like.agents import AgentResult, ReAct
from lagent_like.cli.commands import main

TESTS = Path(__file__).resolve().parent

TOOLS_MODULE = '''
from lagent_like import BaseAction, tool_api


class CliWebCalc(BaseAction):
    """Arithmetic served by the inspector command."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first number
            b: the second number
        """
        return a + b


class CliWebShell(BaseAction):
    """Runs code (it says so)."""

    runs_code = True

    @tool_api
    def run(self, command: str) -> str:
        """Run a command.

        Args:
            command: the command line
        """
        return "ran " + command
'''


@pytest.fixture
def tools_dir(tmp_path: Path) -> Path:
    (tmp_path / "cli_web_tools.py").write_text(textwrap.dedent(TOOLS_MODULE), encoding="utf-8")
    return tmp_path


def _env(cwd: Path) -> dict[str, str]:
    paths = [str(cwd), str(TESTS), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _read_url(proc: subprocess.Popen[str], limit: float = 60) -> str:
    """The URL the command prints, read within ``limit`` seconds."""
    assert proc.stdout is not None
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            line = proc.stdout.readline()
            if line.startswith("lagent-like inspector: open "):
                return line.split("open ", 1)[1].strip()
            if not line and proc.poll() is not None:
                break
    raise AssertionError(f"no URL printed; stderr: {proc.stderr.read() if proc.stderr else ''}")


@pytest.fixture
def launch(tools_dir: Path) -> Iterator[Any]:
    started: list[subprocess.Popen[str]] = []

    def run(*args: str) -> tuple[subprocess.Popen[str], str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "lagent_like", *args],
            cwd=tools_dir,
            env=_env(tools_dir),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(proc)
        return proc, _read_url(proc)

    yield run
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


def _stop(proc: subprocess.Popen[str]) -> int:
    proc.send_signal(signal.SIGINT)
    return proc.wait(timeout=30)


def _api(url: str, path: str, body: Any = None) -> requests.Response:
    base, token = url.split("/?token=")
    headers = {"Authorization": f"Bearer {token}"}
    if body is None:
        return requests.get(base + path, headers=headers, timeout=30)
    return requests.post(base + path, json=body, headers=headers, timeout=30)


def test_inspect_prints_a_loopback_url_with_a_token_and_serves_the_tools(launch: Any) -> None:
    proc, url = launch("-m", "cli_web_tools", "inspect", "--tools", "CliWebCalc")
    assert url.startswith("http://127.0.0.1:") and "/?token=" in url
    assert requests.get(url, timeout=30).status_code == 200
    assert requests.get(url.split("?")[0], timeout=30).status_code == 401
    assert [entry["name"] for entry in _api(url, "/api/tools").json()] == ["CliWebCalc.add"]
    answer = _api(url, "/api/call", {"name": "CliWebCalc.add", "arguments": "{'a': 1, 'b': 2}"}).json()
    assert answer["items"] == [{"type": "text", "content": "3"}]
    assert _stop(proc) == 0


@pytest.mark.parametrize(
    ("flags", "status"),
    [
        pytest.param(["--tools", "CliWebCalc,CliWebShell"], 200, id="named-in-tools"),
        pytest.param(["--allow-code"], 200, id="allow-code"),
        pytest.param([], 403, id="neither"),
    ],
)
def test_inspect_calls_code_executing_tools_only_when_the_operator_says_so(
    launch: Any, flags: list[str], status: int
) -> None:
    proc, url = launch("-m", "cli_web_tools", "inspect", *flags)
    response = _api(url, "/api/call", {"name": "CliWebShell", "arguments": {"command": "ls"}})
    assert response.status_code == status
    _stop(proc)


def test_inspect_shows_a_trace_file(launch: Any, tmp_path: Path) -> None:
    result = ReAct(lambda messages: "Final Answer: 7", _executor()).run("Seven?")
    result.save(tmp_path / "seven.json")
    proc, url = launch("-m", "cli_web_tools", "inspect", "--trace", str(tmp_path / "seven.json"))
    assert _api(url, "/api/traces").json() == [
        {"id": "1", "title": "seven.json", "turns": 1, "running": False, "stop_reason": "final_answer"}
    ]
    assert _api(url, "/api/traces/1").json()["answer"] == "7"
    _stop(proc)


def test_inspect_lists_a_folder_of_saved_runs(launch: Any, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    ReAct(lambda messages: "Final Answer: 7", _executor()).run("Seven?").save(runs / "seven.json")
    proc, url = launch("-m", "cli_web_tools", "inspect", "--runs-dir", str(runs))
    listed = _api(url, "/api/traces").json()
    assert [(t["turns"], t["stop_reason"]) for t in listed] == [(1, "final_answer")]
    assert "seven.json" in listed[0]["title"]
    _stop(proc)


def test_inspect_with_a_runs_dir_that_is_not_a_folder_is_an_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", "--tools", "ArxivSearch", "--runs-dir", str(tmp_path / "nowhere")]) == 2
    assert (
        capsys.readouterr().err == f"lagent-like: error: --runs-dir {tmp_path / 'nowhere'}: not a directory\n"
    )


def _executor() -> Any:
    from lagent_like import ActionExecutor

    return ActionExecutor([])


def test_inspect_with_an_unreadable_trace_is_an_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.json").write_text("[]", encoding="utf-8")
    # Named tools: the registry holds other tests' tools, some of which cannot be built.
    assert main(["inspect", "--tools", "ArxivSearch", "--trace", str(tmp_path / "bad.json")]) == 2
    assert capsys.readouterr().err == (
        f"lagent-like: error: ValueError: {tmp_path / 'bad.json'}: "
        "not a lagent-like trace: expected an object with format 'lagent-like-trace'\n"
    )


def test_inspect_reads_another_mcp_servers_tools(launch: Any) -> None:
    pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
    # MCPToolkit gives the server a clean environment: env(1) sets the path to mcp_tools.
    server = f"env PYTHONPATH={TESTS} {sys.executable} -m lagent_like -m mcp_tools serve-mcp --tools McpCalc"
    proc, url = launch("inspect", "--mcp", server)
    names = [entry["name"] for entry in _api(url, "/api/tools").json()]
    # The toolkit is named after the server (serve-mcp announces itself as lagent-like).
    names_expected = ["McpCalc__add", "McpCalc__scale", "McpCalc__fail", "McpCalc__pid"]
    assert names == [f"lagent-like.{name}" for name in names_expected]
    answer = _api(
        url, "/api/call", {"name": "lagent-like.McpCalc__add", "arguments": {"a": 2, "b": 3}}
    ).json()
    assert answer["items"] == [{"type": "text", "content": "5"}]
    assert _stop(proc) == 0


CHAT_REPLIES = ['Thought: add\nAction: CliWebCalc.add\nAction Input: {"a": 2, "b": 40}', "Final Answer: 42"]


def test_chat_web_shows_the_run_on_the_page(launch: Any) -> None:
    with FakeOpenAIServer(CHAT_REPLIES) as model_server:
        proc, url = launch(
            "-m", "cli_web_tools", "chat", "--web", "--base-url", model_server.base_url, "--model", "m",
            "--tools", "CliWebCalc", "What is 2 + 40?",
        )  # fmt: skip
        deadline = time.monotonic() + 60
        trace = _api(url, "/api/traces/1").json()
        while trace["running"] and time.monotonic() < deadline:
            time.sleep(0.05)
            trace = _api(url, "/api/traces/1").json()
        assert _stop(proc) == 0
    loaded = AgentResult.from_dict(
        {
            key: trace[key]
            for key in ("format", "version", "answer", "stop_reason", "error", "messages", "turns")
        }
    )
    assert loaded.answer == "42"
    assert [turn.outcome for turn in loaded.turns] == ["action", "final_answer"]
    assert loaded.turns[0].usage is not None and loaded.turns[0].usage["completion_tokens"] == len(
        CHAT_REPLIES[0].split()
    )
    assert loaded.turns[0].action_return is not None
    assert loaded.turns[0].action_return.result == [{"type": "text", "content": "42"}]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(None, "cannot read the MCP token file: FileNotFoundError: ", id="missing"),
        pytest.param("\n", "the MCP token file {path} is empty", id="empty"),
    ],
)
def test_inspect_mcp_token_file_problems_are_error_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, message: str
) -> None:
    path = tmp_path / "token.txt"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    argv = ["inspect", "--mcp", "http://127.0.0.1:9/mcp", "--mcp-token-file", str(path)]
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("lagent-like: error: " + message.format(path=path))


@pytest.fixture
def http_mcp_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``serve-mcp --transport http`` requiring the token in a file: its URL and that file."""
    pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
    token_file = tmp_path / "mcp-token"
    token_file.write_text("inspector-test-token\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAGENT_LIKE_MCP_TOKEN")}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "lagent_like", "-m", "mcp_tools", "serve-mcp", "--tools", "McpEcho"]
    proc = subprocess.Popen(
        [*command, "--transport", "http", "--port", "0", "--token-file", str(token_file)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], 60)
        line = proc.stderr.readline() if ready else ""
        assert line.startswith("serving MCP on http://127.0.0.1:"), line
        yield line.split("serving MCP on ", 1)[1].strip(), token_file
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_inspect_reads_an_http_mcp_server_with_its_token_from_a_file(
    launch: Any, http_mcp_server: tuple[str, Path]
) -> None:
    url, token_file = http_mcp_server
    proc, page = launch("inspect", "--mcp", url, "--mcp-token-file", str(token_file))
    assert [entry["name"] for entry in _api(page, "/api/tools").json()] == ["lagent-like.McpEcho"]
    answer = _api(page, "/api/call", {"name": "lagent-like.McpEcho", "arguments": {"text": "hi"}}).json()
    assert answer["items"] == [{"type": "text", "content": "HI"}]
    assert _stop(proc) == 0


def test_inspect_without_the_mcp_token_is_refused_by_the_server(
    http_mcp_server: tuple[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = http_mcp_server
    monkeypatch.delenv("LAGENT_LIKE_MCP_TOKEN", raising=False)
    assert main(["inspect", "--mcp", url]) == 2
    assert capsys.readouterr().err == (
        f"lagent-like: error: MCPConnectionError: cannot connect to the MCP server {url}: "
        "MCPError: HTTP 401: a bearer token is required (Authorization: Bearer <token>)\n"
    )
