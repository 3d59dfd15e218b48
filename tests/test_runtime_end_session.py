"""Issue 21 item 6: ``executor.end_session(id)`` ends the session in every tool.

Each tool's ``end_session`` hook runs (one that fails is logged, the others still run):
an ``IPythonInterpreter`` kills that session's sandbox and every process in it, an
``MCPToolkit`` ends that session's MCP session; other sessions are untouched.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from sandbox_helpers import appeared_within, host_pids_with, new_marker, sleeper

from lagent_like import ActionExecutor, AsyncActionExecutor, BaseAction, tool_api
from lagent_like.exceptions import ToolDefinitionError
from lagent_like.schema import ActionReturn
from lagent_like.tools.interpreters import _sandbox as sandbox

EXECUTORS = [
    pytest.param(ActionExecutor, id="sync-executor"),
    pytest.param(AsyncActionExecutor, id="async-executor"),
]


def _call(executor: Any, name: str, args: Any, session_id: str) -> ActionReturn:
    """One call through either executor kind."""
    ret = executor(name, args, session_id=session_id)
    return asyncio.run(ret) if asyncio.iscoroutine(ret) else ret


def _text(ret: ActionReturn) -> Any:
    assert ret.errmsg is None, ret.errmsg
    return ret.format_result()


# -- the hook --------------------------------------------------------------------------


class Keeper(BaseAction, register=False):
    """Keeps something per session, as an interpreter keeps a process."""

    def __init__(self) -> None:
        super().__init__()
        self.ended: list[str] = []

    def run(self) -> str:
        """Do nothing."""
        return "ok"

    def end_session(self, session_id: str) -> None:
        self.ended.append(session_id)


class Breaker(BaseAction, register=False):
    """Fails to release its session."""

    def run(self) -> str:
        """Do nothing."""
        return "ok"

    def end_session(self, session_id: str) -> None:
        raise RuntimeError("the disk is gone")


class Meeting(BaseAction, register=False):
    """A toolkit whose model-facing API happens to be called end_session."""

    def __init__(self) -> None:
        super().__init__()
        self.reasons: list[str] = []

    @tool_api
    def end_session(self, reason: str) -> str:
        """End the meeting.

        Args:
            reason: why it ends.
        """
        self.reasons.append(reason)
        return "ended"


@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_end_session_tells_every_tool_and_survives_one_that_fails(
    executor_class: Any, caplog: pytest.LogCaptureFixture
) -> None:
    keeper, meeting = Keeper(), Meeting()
    executor = executor_class([Breaker(), keeper, meeting])
    executor.session_state("a")["x"] = 1
    executor.session_state("b")["x"] = 2
    with caplog.at_level(logging.WARNING, logger="lagent_like"):
        executor.end_session("a")
    assert keeper.ended == ["a"]
    assert meeting.reasons == []  # a model's API is not the hook
    assert [r.getMessage() for r in caplog.records] == [
        "ending session 'a' of tool Breaker failed: the disk is gone"
    ]
    assert executor.session_state("a") == {}
    assert executor.session_state("b") == {"x": 2}


def test_a_ray_replica_ends_the_session_in_its_copy_of_the_tool() -> None:
    from lagent_like.ray.replica import ToolWorker

    keeper = Keeper()
    replica = ToolWorker(keeper, slots=1)  # the actor's body; Ray is not needed to run it
    asyncio.run(replica.end_session("a"))
    assert keeper.ended == ["a"]


def test_an_async_end_session_hook_is_refused_at_definition() -> None:
    with pytest.raises(
        ToolDefinitionError,
        match=r"\.Pool\.end_session: end_session must be a plain method: executor\.end_session\(id\) "
        r"calls it without awaiting",
    ):

        class Pool(BaseAction):
            """Keeps connections."""

            def run(self) -> str:
                """Do nothing."""
                return "ok"

            async def end_session(self, session_id: str) -> None:
                pass


# -- IPython sandboxes -----------------------------------------------------------------

needs_sandbox = pytest.mark.skipif(
    sandbox._probe() is not None, reason=f"no sandbox on this machine: {sandbox._probe()}"
)


@pytest.fixture
def ipython() -> Iterator[Any]:
    from lagent_like.tools.interpreters.ipython_interpreter import IPythonInterpreter

    tool = IPythonInterpreter(timeout=20)
    yield tool
    tool.close()


@needs_sandbox
@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_end_session_kills_that_sessions_sandbox_and_leaves_the_others(
    executor_class: Any, ipython: Any
) -> None:
    executor = executor_class([ipython])
    markers = {session: new_marker() for session in ("a", "b")}
    for session, marker in markers.items():
        code = f"import subprocess, sys\nx = {session!r}\np = subprocess.Popen({sleeper(marker)})"
        assert _text(_call(executor, "IPythonInterpreter", {"command": code}, session)) == ""
        assert len(appeared_within(marker)) == 1
    worker_a = ipython._workers["a"]
    executor.end_session("a")
    assert host_pids_with(markers["a"]) == set()
    assert worker_a.proc.poll() is not None
    assert sorted(ipython._workers) == ["b"]
    assert len(host_pids_with(markers["b"])) == 1
    assert _text(_call(executor, "IPythonInterpreter", {"command": "x"}, "b")) == "'b'"
    fresh = _call(executor, "IPythonInterpreter", {"command": "x"}, "a")
    assert fresh.errmsg is not None and fresh.errmsg.endswith("NameError: name 'x' is not defined")
    executor.end_session("b")
    assert host_pids_with(markers["b"]) == set()


@needs_sandbox
@pytest.mark.skipif(importlib.util.find_spec("IPython") is None, reason="needs the [ipython] extra")
def test_end_session_stops_that_sessions_shell_of_an_ipython_manager() -> None:
    from lagent_like.tools.interpreters.ipython_manager import IPythonInteractiveManager

    manager = IPythonInteractiveManager()
    try:
        assert [r.errmsg for r in manager(["x = 1", "x = 2"], session_ids=[0, 1])] == [None, None]
        ActionExecutor([manager]).end_session("0")
        first, second = manager(["x", "x"], session_ids=[0, 1])
    finally:
        manager.close()
    assert first.errmsg is not None and first.errmsg.endswith("NameError: name 'x' is not defined")
    assert _text(second) == "2"


# -- MCP sessions ----------------------------------------------------------------------

needs_mcp = pytest.mark.skipif(importlib.util.find_spec("mcp") is None, reason="needs the [mcp] extra")
TESTS = Path(__file__).resolve().parent
MEMO_SERVER = ["-m", "lagent_like", "-m", "mcp_tools", "serve-mcp", "--tools", "McpMemo"]


def _memo_toolkit(shared_session: bool) -> Any:
    from lagent_like.mcp import MCPToolkit

    env = {"PYTHONPATH": os.pathsep.join([str(TESTS), str(TESTS.parent)])}
    return MCPToolkit(sys.executable, MEMO_SERVER, env=env, timeout=30, shared_session=shared_session)


def _memo(executor: Any, session: str, value: Optional[str] = None) -> str:
    args = {} if value is None else {"value": value}
    return str(_text(_call(executor, "MCP.McpMemo", args, session)))


@needs_mcp
def test_end_session_ends_that_sessions_mcp_session_only() -> None:
    with _memo_toolkit(shared_session=False) as toolkit:
        executor = ActionExecutor([toolkit])
        assert _memo(executor, "a", "secret of a") == "secret of a"
        assert _memo(executor, "b") == "None"  # b has an MCP session of its own
        assert _memo(executor, "b", "b's") == "b's"
        assert toolkit.open_sessions == ["a", "b", "default"]
        executor.end_session("a")
        assert toolkit.open_sessions == ["b", "default"]
        assert _memo(executor, "a") == "None"  # a fresh MCP session
        assert _memo(executor, "b") == "b's"


@needs_mcp
def test_a_shared_mcp_session_serves_every_session_and_outlives_end_session() -> None:
    with _memo_toolkit(shared_session=True) as toolkit:
        executor = AsyncActionExecutor([toolkit])  # its calls carry their session too
        assert _memo(executor, "a", "shared") == "shared"
        assert _memo(executor, "b") == "shared"
        executor.end_session("a")
        assert toolkit.open_sessions == [""]
        assert _memo(executor, "a") == "shared"
