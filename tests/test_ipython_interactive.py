"""``IPythonInteractive``: Lagent 0.5's IPython shell tool, each session in a sandbox."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest
from sandbox_helpers import appeared_within, host_pids_with, new_marker, sleeper

from lagent_like import ActionExecutor, ActionStatusCode
from lagent_like.schema import ActionReturn
from lagent_like.tools.interpreters import _sandbox as sandbox

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("IPython") is None,
        reason="needs the 'ipython' extra: pip install '.[ipython]' (or 'lagent-like[ipython]')",
    ),
    pytest.mark.skipif(
        sandbox._probe() is not None, reason=f"no sandbox on this machine: {sandbox._probe()}"
    ),
]

SUCCESS = ActionStatusCode.SUCCESS
API_ERROR = ActionStatusCode.API_ERROR


@pytest.fixture
def shell() -> Iterator[Any]:
    from lagent_like.tools.interpreters.ipython_interactive import IPythonInteractive

    tool = IPythonInteractive(timeout=2)
    yield tool
    tool.close()


def text(ret: ActionReturn) -> Any:
    assert ret.state == SUCCESS, ret.errmsg
    assert ret.result is not None
    return ret.result[0]["content"]


def test_the_description_is_lagents(shell: Any) -> None:
    assert shell.description == {
        "name": "IPythonInteractive",
        "description": "Launch an IPython Interactive Shell to execute code.",
        "parameters": [
            {"name": "command", "type": "STRING", "description": "Python code snippet"},
            {
                "name": "timeout",
                "type": "NUMBER",
                "description": "timeout for execution.\nThis argument only works in the main thread. Defaults to ``None``.",
            },
        ],
        "required": ["command"],
        "parameter_description": "If you call this tool, you must pass arguments in the JSON format {key: value}, "
        "where the key is the parameter name.",
    }


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        pytest.param("21 * 2", "42", id="value"),
        pytest.param("print('a')\nprint('b')", "b", id="last-printed-line"),
        pytest.param("x = 1", "", id="nothing"),
        pytest.param("```python\nimport math\nmath.sqrt(100)\n```", "10.0", id="fenced"),
        pytest.param('{"code": "3 + 4"}', "7", id="json-code"),
    ],
)
def test_results_are_reported_as_lagent_does(shell: Any, command: str, answer: str) -> None:
    assert text(shell({"command": command})) == answer


def test_an_error_gives_the_traceback_without_colours(shell: Any) -> None:
    ret = shell({"command": "1 / 0"})
    assert ret.state == API_ERROR and ret.errmsg is not None
    assert ret.errmsg.startswith(
        "ZeroDivisionError                         Traceback (most recent call last)\n"
    )
    assert ret.errmsg.endswith("ZeroDivisionError: division by zero")
    assert "\x1b" not in ret.errmsg


def test_a_timeout_is_lagents_message_and_the_state_stays(shell: Any) -> None:
    assert text(shell({"command": "kept = 5"})) == ""
    ret = shell({"command": "import time\ntime.sleep(30)", "timeout": 100})
    assert (ret.state, ret.errmsg) == (API_ERROR, "The code interpreter encountered a timeout error.")
    assert text(shell({"command": "kept"})) == "5"


def test_the_shell_is_sandboxed_per_session(shell: Any) -> None:
    executor = ActionExecutor([shell])
    assert text(executor("IPythonInteractive", {"command": "secret = 'a'\nsecret"}, session_id="a")) == "a"
    ret = executor("IPythonInteractive", {"command": "secret"}, session_id="b")
    assert ret.errmsg is not None and ret.errmsg.endswith("NameError: name 'secret' is not defined")
    ret = executor(
        "IPythonInteractive", {"command": "import socket\nsocket.create_connection(('127.0.0.1', 9))"}
    )
    assert ret.errmsg is not None
    assert ret.errmsg.endswith(
        "ConnectionRefusedError: [Errno 111] Connection refused\n(network access is disabled for this tool)"
    )
    marker = new_marker()
    command = f"import subprocess, sys\np = subprocess.Popen({sleeper(marker)}, start_new_session=True)"
    assert text(executor("IPythonInteractive", {"command": command}, session_id="a")) == ""
    assert len(appeared_within(marker)) == 1
    shell.end_session("a")
    assert host_pids_with(marker) == set()


def test_the_sandbox_settings_go_to_ipython_interpreter_which_checks_them() -> None:
    from lagent_like.tools.interpreters.ipython_interactive import IPythonInteractive

    with pytest.raises(
        ValueError, match=r"^IPythonInteractive: isolation must be 'sandbox' or 'process', got 'vm'$"
    ):
        IPythonInteractive(isolation="vm")
    with pytest.raises(ValueError, match=r"^cpu_seconds must be a positive integer or None, got 0$"):
        IPythonInteractive(cpu_seconds=0)
    with pytest.raises(TypeError, match="pool_size"):
        IPythonInteractive(pool_size=2)  # type: ignore[call-arg]
