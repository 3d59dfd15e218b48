"""``IPythonInteractiveManager``: Lagent 0.5's batch front end, one sandboxed shell per session."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest
from sandbox_helpers import appeared_within, host_pids_with, new_marker, sleeper

from lagent_like import ActionReturn, ActionStatusCode
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

NAME = "IPythonInteractiveManager"
NAME_ERROR = "NameError: name 'x' is not defined"


@pytest.fixture
def manager() -> Iterator[Any]:
    from lagent_like.tools.interpreters.ipython_manager import IPythonInteractiveManager

    tool = IPythonInteractiveManager(max_workers=3, timeout=2)
    yield tool
    tool.close()


def ok(command: str, content: str) -> ActionReturn:
    """Lagent's record of a command that answered ``content``."""
    return ActionReturn(args={"command": command}, type=NAME, result=[{"type": "text", "content": content}])


def test_the_description_is_lagents(manager: Any) -> None:
    assert manager.description == {
        "name": NAME,
        "description": "An interactive IPython shell manager for code execution",
        "parameters": [],
        "required": [],
        "parameter_description": "If you call this tool, you must pass arguments in the JSON format {key: value}, "
        "where the key is the parameter name.",
    }


def test_one_command_gives_one_record_in_session_0(manager: Any) -> None:
    assert manager("```python\nx = 20 + 1\nx * 2\n```") == ok("```python\nx = 20 + 1\nx * 2\n```", "42")
    assert manager("x", 0) == ok("x", "21")


def test_a_batch_keeps_each_sessions_names(manager: Any) -> None:
    assert manager(["x = 1", "x = 2", "y = 3"], session_ids=[0, 1, 2]) == [
        ok("x = 1", ""),
        ok("x = 2", ""),
        ok("y = 3", ""),
    ]
    first, second, third = manager(["x", "x + 10", "x"], session_ids=[0, 1, 2])
    assert (first, second) == (ok("x", "1"), ok("x + 10", "12"))
    assert (third.args, third.type, third.result, third.state) == (
        {"command": "x"},
        NAME,
        None,
        ActionStatusCode.API_ERROR,
    )
    assert third.errmsg is not None and third.errmsg.endswith(NAME_ERROR)


def test_a_timeout_fails_only_its_own_command(manager: Any) -> None:
    slow, fast = manager(["import time\ntime.sleep(30)", "6 * 7"], session_ids=["slow", "fast"])
    assert (slow.state, slow.errmsg) == (
        ActionStatusCode.API_ERROR,
        "The code interpreter encountered a timeout error.",
    )
    assert fast == ok("6 * 7", "42")


@pytest.mark.parametrize(
    ("commands", "session_ids", "message"),
    [
        pytest.param(
            ["1", "2"],
            [0],
            "the size of `session_ids` must equal that of `commands`: 2 commands, 1 session ids",
            id="too-few-ids",
        ),
        pytest.param(
            "1",
            [0, 1],
            "the size of `session_ids` must equal that of `commands`: 1 commands, 2 session ids",
            id="too-many",
        ),
        pytest.param(
            ["1", "2", "3"],
            [4, 5, 4],
            "the size of `session_ids` must equal that of `commands`, each id once: 4 repeated",
            id="repeated-id",
        ),
        pytest.param(
            ["1", "2"],
            [3, "3"],
            "the size of `session_ids` must equal that of `commands`, each id once: 3 repeated",
            id="same-session-as-int-and-str",
        ),
    ],
)
def test_session_ids_must_pair_one_different_id_with_each_command(
    manager: Any, commands: Any, session_ids: list[Any], message: str
) -> None:
    with pytest.raises(ValueError) as raised:
        manager(commands, session_ids)
    assert str(raised.value) == message


def test_close_leaves_no_process_and_the_manager_starts_afresh(manager: Any) -> None:
    marker = new_marker()
    command = (
        f"import subprocess, sys\np = subprocess.Popen({sleeper(marker)}, start_new_session=True)\nx = 1"
    )
    assert manager([command, "x = 2"], session_ids=[7, 8]) == [ok(command, ""), ok("x = 2", "")]
    assert len(appeared_within(marker)) == 1
    manager.close()
    assert host_pids_with(marker) == set()
    ret = manager("x", 7)
    assert ret.errmsg is not None and ret.errmsg.endswith(NAME_ERROR)


def test_max_workers_must_be_a_positive_integer() -> None:
    from lagent_like.tools.interpreters.ipython_manager import IPythonInteractiveManager

    with pytest.raises(ValueError, match=r"^max_workers must be a positive integer, got 0$"):
        IPythonInteractiveManager(max_workers=0)
