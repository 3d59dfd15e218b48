"""The agent side of ``lagent-like``: ``prompt``, ``demo`` and ``chat``, in subprocesses.

``chat`` talks to the fake OpenAI-compatible server of ``fake_openai_server.py``, a
real HTTP server on 127.0.0.1 in this test process.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Optional

import pytest
from fake_openai_server import FakeOpenAIServer

from lagent_like import ActionExecutor, BaseAction, tool_api
from lagent_like.agents import ReAct

TOOLS_MODULE = textwrap.dedent(
    '''
    from lagent_like import BaseAction, tool_api


    class ChatCalc(BaseAction):
        """Integer arithmetic."""

        @tool_api
        def add(self, a: int, b: int) -> int:
            """Add two integers.

            Args:
                a: the first addend
                b: the second addend
            """
            return a + b
    '''
)


def _cli(
    *args: str, cwd: Path, stdin: Optional[str] = None, env: Optional[dict[str, str]] = None
) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "NO_COLOR")
    }
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "lagent_like", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        input=stdin if stdin is not None else "",
        env=environment,
    )


@pytest.fixture
def tools_dir(tmp_path: Path) -> Path:
    (tmp_path / "chat_tools.py").write_text(TOOLS_MODULE)
    return tmp_path


class ChatCalc(BaseAction):
    """Integer arithmetic."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b


@pytest.mark.parametrize(
    ("fmt", "method"),
    [
        pytest.param("openai", "to_openai_tools", id="openai"),
        pytest.param("anthropic", "to_anthropic_tools", id="anthropic"),
        pytest.param("mcp", "to_mcp_tools", id="mcp"),
    ],
)
def test_prompt_prints_the_function_calling_export(tools_dir: Path, fmt: str, method: str) -> None:
    proc = _cli("-m", "chat_tools", "prompt", "--tools", "ChatCalc", "--format", fmt, cwd=tools_dir)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == getattr(ActionExecutor([ChatCalc()]), method)()


def test_prompt_prints_the_react_system_prompt(tools_dir: Path) -> None:
    proc = _cli("-m", "chat_tools", "prompt", "--tools", "ChatCalc", cwd=tools_dir)
    assert proc.returncode == 0, proc.stderr
    expected = ReAct(lambda messages: "", ActionExecutor([ChatCalc()])).system_prompt
    assert proc.stdout == expected + "\n"
    assert "ChatCalc.add" in proc.stdout


def test_prompt_with_builtins_offers_every_tool_that_needs_no_arguments(tools_dir: Path) -> None:
    proc = _cli("-m", "chat_tools", "prompt", "--with-builtins", "--format", "mcp", cwd=tools_dir)
    assert proc.returncode == 0, proc.stderr
    names = [tool["name"] for tool in json.loads(proc.stdout)]
    assert names[-1] == "ChatCalc__add"
    assert {"PythonInterpreter", "IPythonInterpreter"} <= set(names)
    assert not {"InvalidAction", "NoAction", "BaseAction"} & set(names)


def test_prompt_with_an_unknown_tool_is_one_error_line(tools_dir: Path) -> None:
    proc = _cli("-m", "chat_tools", "prompt", "--tools", "ChatCalk", cwd=tools_dir)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("lagent-like: error: ")
    assert "ChatCalc" in proc.stderr


def test_demo_runs_offline_over_the_real_interpreters(tmp_path: Path) -> None:
    proc = _cli("demo", "--color", "never", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "\033[" not in out
    # Turn 1: dirty JSON in a fence, recovered; the real notebook answers.
    assert "Observation [SUCCESS]: [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47]" in out
    # Turn 2: a wrong parameter name, refused with the valid names.
    assert (
        "Observation [ARGS_ERROR]: IPythonInterpreter: 'command' is required; "
        "'code' is not a parameter; parameters: command, timeout"
    ) in out
    # Turns 3 and 4: the notebook kept `primes`; the stateless interpreter checks primality.
    assert "Observation [SUCCESS]: 10466" in out
    assert "Observation [SUCCESS]: False" in out
    assert out.rstrip().endswith("The sum of their squares is 10466, which is not prime (it is even).")
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("── turn")] == [
        f"── turn {i}" for i in range(1, 6)
    ]


def test_demo_colours_on_request(tmp_path: Path) -> None:
    proc = _cli("demo", "--color", "always", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "\033[32mObservation [SUCCESS]: \033[0m10466" in proc.stdout


CHAT_REPLIES: list[Any] = [
    'Thought: add them\nAction: ChatCalc.add\nAction Input: {"a": 2, "b": 40}',
    "Final Answer: 42",
]


def test_chat_answers_one_question_through_the_tools(tools_dir: Path) -> None:
    with FakeOpenAIServer(CHAT_REPLIES) as server:
        proc = _cli(
            "-m", "chat_tools", "chat", "--base-url", server.base_url, "--model", "m", "--tools", "ChatCalc",
            "--color", "never", "What is 2 + 40?", cwd=tools_dir,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Observation [SUCCESS]: 42" in proc.stdout
    assert proc.stdout.splitlines()[-1] == "Final Answer: 42"
    assert server.requests[0]["messages"][-1] == {"role": "user", "content": "What is 2 + 40?"}
    assert "Authorization" not in server.headers[0]


def test_chat_reads_questions_from_stdin_and_keeps_the_conversation(tools_dir: Path) -> None:
    replies = ["Final Answer: Paris", "Final Answer: about 2.1 million"]
    with FakeOpenAIServer(replies) as server:
        proc = _cli(
            "-m", "chat_tools", "chat", "--base-url", server.base_url, "--model", "m", "--tools", "ChatCalc",
            "--color", "never", cwd=tools_dir, stdin="Capital of France?\n\nHow many people live there?\nexit\n",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [line for line in proc.stdout.splitlines() if line.startswith("Final Answer")] == [
        "Final Answer: Paris",
        "Final Answer: about 2.1 million",
    ]
    second = server.requests[1]["messages"]
    assert {"role": "user", "content": "Capital of France?"} in second
    assert {"role": "assistant", "content": "Paris"} in second
    assert second[-1] == {"role": "user", "content": "How many people live there?"}


def test_chat_uses_native_tool_calls_when_asked(tools_dir: Path) -> None:
    replies = [{"tool_calls": [{"name": "ChatCalc__add", "arguments": '{"a": 1, "b": 2}'}]}, "It is 3."]
    with FakeOpenAIServer(replies) as server:
        proc = _cli(
            "-m", "chat_tools", "chat", "--base-url", server.base_url, "--model", "m", "--tools", "ChatCalc",
            "--native", "--color", "never", "1 + 2?", cwd=tools_dir,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [tool["function"]["name"] for tool in server.requests[0]["tools"]] == ["ChatCalc__add"]
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"] == "3"
    assert proc.stdout.splitlines()[-1] == "Final Answer: It is 3."


def test_chat_without_an_answer_in_max_turns_exits_1(tools_dir: Path) -> None:
    loop = 'Action: ChatCalc.add\nAction Input: {"a": 1, "b": 1}'
    with FakeOpenAIServer([loop, loop]) as server:
        proc = _cli(
            "-m", "chat_tools", "chat", "--base-url", server.base_url, "--model", "m", "--tools", "ChatCalc",
            "--max-turns", "2", "--color", "never", "loop?", cwd=tools_dir,
        )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[-1] == "No final answer (max_turns)."


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("replies", "expected"),
    [
        pytest.param([{"status": 500}] * 2, "500", id="server-error"),
        pytest.param([{"status": 401, "error": "invalid key"}], "invalid key", id="client-error"),
        pytest.param(None, "127.0.0.1", id="nothing-listening"),
    ],
)
def test_chat_with_a_failing_server_is_one_error_line(
    tools_dir: Path, replies: Optional[list[Any]], expected: str
) -> None:
    common = ["-m", "chat_tools", "chat", "--model", "m", "--tools", "ChatCalc", "--retries", "1", "hi"]
    if replies is None:
        proc = _cli(*common, "--base-url", f"http://127.0.0.1:{_closed_port()}/v1", cwd=tools_dir)
    else:
        with FakeOpenAIServer(replies) as server:
            proc = _cli(*common, "--base-url", server.base_url, cwd=tools_dir)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("lagent-like: error: the model server failed: ")
    assert expected in proc.stderr


def test_chat_needs_a_server(tools_dir: Path) -> None:
    proc = _cli("chat", "--model", "m", "hi", cwd=tools_dir)
    assert proc.returncode == 2
    assert proc.stderr == "lagent-like: error: no server: pass --base-url URL (or set OPENAI_BASE_URL)\n"


def test_chat_takes_the_server_and_key_from_the_environment(tools_dir: Path) -> None:
    with FakeOpenAIServer(["Final Answer: ok"]) as server:
        proc = _cli(
            "-m", "chat_tools", "chat", "--model", "m", "--tools", "ChatCalc", "hi", cwd=tools_dir,
            env={"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test-123"},
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert server.headers[0]["Authorization"] == "Bearer sk-test-123"
    assert "sk-test-123" not in proc.stdout + proc.stderr
