"""``RayActionExecutor`` (issue 7): tools in Ray actors, behind the async executor's interface.

One local Ray (2 CPUs, no dashboard) serves the whole module and one executor serves
the read-only tests, so the suite pays Ray's start-up once. Tests that change an
executor, or kill a replica, build their own. Tool classes are pickled by value so
that Ray's workers need not import this test module.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from lagent_like import (
    ActionReturn,
    ActionStatusCode,
    AsyncActionExecutor,
    BaseAction,
    ToolContext,
    ToolError,
    tool_api,
)

#: The module's Ray cluster never runs beside another worker's (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("ray_lock_module")

SLEEP = 0.1


class Sleeper(BaseAction):
    """Stands for a slow I/O-bound tool."""

    def run(self, tag: int, seconds: float = SLEEP) -> str:
        """Sleep, then say who answered, and when the call began and ended.

        Args:
            tag: echoed back, to check the order of results
            seconds: how long to sleep
        """
        began = time.monotonic()
        time.sleep(seconds)
        return f"{tag}:{os.getpid()}:{began}:{time.monotonic()}"


def _most_at_once(spans: list[tuple[float, float]]) -> int:
    """The most calls of one replica inside the tool at the same moment (its clock, its calls)."""
    events = sorted([(began, 1) for began, _ in spans] + [(ended, -1) for _, ended in spans])
    inside = most = 0
    for _, step in events:
        inside += step
        most = max(most, inside)
    return most


class Counter(BaseAction):
    """Counts per replica (the tool's own state) and per session (the context's state)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    @tool_api
    def add(self, n: int, context: ToolContext) -> dict[str, Any]:
        """Add ``n`` to the session's total.

        Args:
            n: how much to add
        """
        self.calls += 1
        context.state["total"] = context.state.get("total", 0) + n
        return {"pid": os.getpid(), "total": context.state["total"], "session": context.session_id}

    @tool_api
    def fail(self, how: str) -> str:
        """Fail on purpose.

        Args:
            how: 'tool' raises ToolError, anything else ValueError
        """
        if how == "tool":
            raise ToolError("the tool says no")
        raise ValueError(f"bad {how}")


class Crash(BaseAction):
    """Ends its own process when asked."""

    def run(self, die: bool = False) -> int:
        """Return the process id, or exit the interpreter at once.

        Args:
            die: call os._exit(1)
        """
        if die:
            os._exit(1)
        return os.getpid()


class Holder(BaseAction):
    """Takes and gives back values of any kind, some of which cannot be pickled."""

    def run(self, value: Any, give_back_a_lock: bool = False) -> Any:
        """Answer 'ok', or a record holding a lock.

        Args:
            value: anything
            give_back_a_lock: answer with a record that cannot be pickled
        """
        if give_back_a_lock:
            return ActionReturn(result=[{"type": "lock", "content": threading.Lock()}])
        return "ok"


@pytest.fixture(scope="module")
def ray_module() -> Iterator[Any]:
    ray = pytest.importorskip(
        "ray", reason="needs the 'ray' extra: pip install '.[ray]' (or 'lagent-like[ray]')"
    )
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def executor(ray_module: Any) -> Iterator[Any]:
    from lagent_like.ray.executor import RayActionExecutor

    with RayActionExecutor(
        [Sleeper(), Counter(), Crash(), Holder()], replicas={"Sleeper": 2, "Counter": 2}, max_concurrency=10
    ) as ray_executor:
        yield ray_executor


def _local() -> AsyncActionExecutor:
    return AsyncActionExecutor([Sleeper(), Counter(), Crash(), Holder()])


def test_batch_runs_across_replicas_in_parallel_with_results_in_input_order(executor: Any) -> None:
    calls = [("Sleeper", {"tag": i}) for i in range(40)]
    records = asyncio.run(executor.batch(calls))
    assert {r.state for r in records} == {ActionStatusCode.SUCCESS}
    answers = [r.result[0]["content"].split(":") for r in records]
    assert [int(tag) for tag, *_ in answers] == list(range(40))
    spans: dict[str, list[tuple[float, float]]] = {}
    for _, pid, began, ended in answers:
        spans.setdefault(pid, []).append((float(began), float(ended)))
    # Both replicas answered, each running several calls at once and never more than its
    # 10 slots (the calls' own begin/end order inside each replica, not the batch's time).
    assert len(spans) == 2
    assert all(1 < _most_at_once(s) <= 10 for s in spans.values()), {
        p: _most_at_once(s) for p, s in spans.items()
    }


def test_calls_of_one_session_reach_one_replica_which_keeps_its_state(executor: Any, ray_module: Any) -> None:
    async def run() -> list[dict[str, Any]]:
        records = []
        for session, n in [("alice", 1), ("bob", 10), ("alice", 2), ("bob", 20), ("alice", 3)]:
            ret = await executor("Counter.add", {"n": n}, session_id=session)
            records.append(json.loads(ret.result[0]["content"]))
        return records

    records = asyncio.run(run())
    assert [(r["session"], r["total"]) for r in records] == [
        ("alice", 1),
        ("bob", 10),
        ("alice", 3),
        ("bob", 30),
        ("alice", 6),
    ]
    handles = executor.actor_handles("Counter")
    for session in ("alice", "bob"):
        pids = {r["pid"] for r in records if r["session"] == session}
        expected = ray_module.get(handles[executor.replica_for("Counter", session)].ping.remote())
        assert pids == {expected}


def test_ending_a_session_forgets_its_state_in_the_replica(executor: Any) -> None:
    async def total_after_two_calls() -> int:
        await executor("Counter.add", '{"n": 5}', session_id="carol")
        ret = await executor("Counter.add", '{"n": 5}', session_id="carol")
        return int(json.loads(ret.result[0]["content"])["total"])

    assert asyncio.run(total_after_two_calls()) == 10
    executor.end_session("carol")
    assert asyncio.run(total_after_two_calls()) == 10


@pytest.mark.parametrize(
    ("max_restarts", "how"),
    [
        (2, "Ray restarted the worker, and the next call runs on it"),
        (0, "the worker could not be restarted and was replaced by a new one; the next call runs on it"),
    ],
)
def test_a_dead_replica_is_restarted_and_its_call_comes_back_as_an_api_error(
    ray_module: Any, max_restarts: int, how: str
) -> None:
    from lagent_like.ray.executor import RayActionExecutor

    async def run() -> tuple[ActionReturn, ActionReturn, ActionReturn]:
        async with RayActionExecutor([Crash()], max_restarts=max_restarts) as crashing:
            before = await crashing("Crash", "{}", session_id="s")
            died = await crashing("Crash", '{"die": true}', session_id="s")
            after = await crashing("Crash", "{}", session_id="s")
        return before, died, after

    before, died, after = asyncio.run(run())
    assert died.state == ActionStatusCode.API_ERROR
    assert died.result is None
    assert died.args == {"die": True}
    assert died.type == "Crash"
    assert died.errmsg is not None
    assert died.errmsg.startswith("The Ray worker running Crash died during this call (")
    assert died.errmsg.endswith(f"; {how}. The call may or may not have taken effect; its result is lost.")
    assert after.state == ActionStatusCode.SUCCESS
    assert after.result is not None and before.result is not None
    assert after.result[0]["content"] != before.result[0]["content"]  # a new process


def test_bad_calls_and_failing_tools_come_back_exactly_as_on_the_local_executor(executor: Any) -> None:
    calls = [
        ("Nope", '{"tag": 1}'),
        ("Sleeper", '{"tag": '),
        ("Sleeper", '{"tga": 1}'),
        ("Sleeper", '{"tag": "one"}'),
        ("Counter.nope", "{}"),
        ("Counter.fail", '{"how": "tool"}'),
        ("Counter.fail", '{"how": "input"}'),
        ("NoAction", "nothing to do"),
        ("FinishAction", "the answer"),
        (None, "{}"),
    ]
    local = _local()
    for name, command in calls:
        expected = asyncio.run(local(name, command)).to_dict()  # type: ignore[arg-type]
        assert asyncio.run(executor(name, command)).to_dict() == expected, name


def test_descriptions_and_exports_equal_the_local_executors(executor: Any) -> None:
    local = _local()
    assert executor.get_actions_info() == local.get_actions_info()
    assert executor.to_openai_tools() == local.to_openai_tools()
    assert executor.to_anthropic_tools() == local.to_anthropic_tools()
    assert executor.to_mcp_tools() == local.to_mcp_tools()
    assert executor.action_names() == ["Sleeper", "Counter", "Crash", "Holder"]


def test_tool_calls_get_one_tool_message_each_as_on_the_local_executor(executor: Any) -> None:
    tool_calls = [
        {"id": "a", "type": "function", "function": {"name": "Counter__add", "arguments": '{"n": 1}'}},
        {"id": "b", "type": "function", "function": {"name": "Missing", "arguments": "{}"}},
        {
            "id": "c",
            "type": "function",
            "function": {"name": "Sleeper", "arguments": '{"tag": 7, "seconds": 0}'},
        },
    ]
    messages = asyncio.run(executor.run_tool_calls(tool_calls))
    expected = asyncio.run(_local().run_tool_calls(tool_calls))
    assert [m["tool_call_id"] for m in messages] == ["a", "b", "c"]
    assert messages[1] == expected[1]
    assert json.loads(messages[0]["content"])["total"] == 1
    assert messages[2]["content"].startswith("7:")


def test_a_call_past_its_timeout_gets_the_local_executors_timeout_record(ray_module: Any) -> None:
    from lagent_like.ray.executor import RayActionExecutor

    async def run() -> ActionReturn:
        async with RayActionExecutor([Sleeper()], timeout=0.3) as slow:
            await slow("Sleeper", '{"tag": 0, "seconds": 0}')
            return await slow("Sleeper", '{"tag": 1, "seconds": 5}')

    ret = asyncio.run(run())
    assert ret.state == ActionStatusCode.TIMEOUT
    assert ret.errmsg == "'Sleeper' timed out after 0.3 s"
    assert ret.args == {"tag": 1, "seconds": 5.0}


def test_hooks_run_in_the_callers_process(executor: Any) -> None:
    seen: list[str] = []

    class Gate:
        def before_action(self, name: str, args: dict[str, Any], context: ToolContext) -> Any:
            seen.append(name)
            if args.get("tag") == 13:
                return ActionReturn(args, type="Sleeper", errmsg="refused", state=ActionStatusCode.API_ERROR)
            return None

    handle = executor.register_hook(Gate())
    try:
        refused = asyncio.run(executor("Sleeper", {"tag": 13}))
        passed = asyncio.run(executor("Sleeper", {"tag": 14, "seconds": 0}))
    finally:
        handle.remove()
    assert seen == ["Sleeper", "Sleeper"]
    assert refused.errmsg == "refused"
    assert passed.result is not None and passed.result[0]["content"].startswith("14:")


def test_tools_added_disabled_and_removed_at_run_time(ray_module: Any) -> None:
    from lagent_like.ray.executor import RayActionExecutor

    async def run() -> list[ActionReturn]:
        async with RayActionExecutor([Sleeper()]) as changing:
            changing.add_action(Crash())
            added = await changing("Crash", "{}")
            changing.disable("Crash")
            disabled = await changing("Crash", "{}")
            changing.del_action("Crash")
            removed = await changing("Crash", "{}")
            return [added, disabled, removed]

    added, disabled, removed = asyncio.run(run())
    assert added.state == ActionStatusCode.SUCCESS
    assert disabled.errmsg == "Tool 'Crash' is disabled. Available tools: Sleeper."
    assert removed.errmsg == "Unknown tool 'Crash'. Available tools: Sleeper."


@pytest.mark.parametrize(
    ("tool", "names_after"),
    [
        pytest.param(Crash, ["Sleeper"], id="new-tool-taken-out-again"),
        pytest.param(Sleeper, ["Sleeper"], id="replaced-tool-put-back"),
    ],
)
def test_a_tool_whose_replicas_cannot_start_leaves_the_executor_as_it_was(
    ray_module: Any, monkeypatch: pytest.MonkeyPatch, tool: type, names_after: list[str]
) -> None:
    from lagent_like.exceptions import ToolDefinitionError
    from lagent_like.ray.executor import RayActionExecutor

    async def run() -> tuple[list[str], bool, ActionReturn]:
        async with RayActionExecutor([Sleeper()]) as changing:
            kept = changing.actions["Sleeper"]

            def refuse(action: Any) -> Any:
                raise ToolDefinitionError("RayActionExecutor", ["no replica for this test"])

            monkeypatch.setattr(changing, "_new_pool", refuse)
            with pytest.raises(ToolDefinitionError, match="no replica for this test"):
                changing.add_action(tool())
            answer = await changing("Sleeper", '{"tag": 7, "seconds": 0}')
            return changing.action_names(), changing.actions["Sleeper"] is kept, answer

    names, same_tool, answer = asyncio.run(run())
    assert names == names_after
    assert same_tool
    assert answer.state == ActionStatusCode.SUCCESS


def test_an_argument_string_over_the_cap_never_reaches_the_replica(ray_module: Any) -> None:
    from lagent_like.ray.executor import RayActionExecutor

    command = '{"n": 1, "pad": "' + "x" * 40 + '"}'

    async def run() -> tuple[ActionReturn, ActionReturn]:
        async with RayActionExecutor([Counter()], max_argument_chars=20) as capped:
            refused = await capped("Counter.add", command, session_id="dave")
            counted = await capped("Counter.add", '{"n": 2}', session_id="dave")
            return refused, counted

    refused, counted = asyncio.run(run())
    local = asyncio.run(AsyncActionExecutor([Counter()], max_argument_chars=20)("Counter.add", command))
    assert refused.state == ActionStatusCode.ARGS_ERROR
    assert refused.errmsg == (
        f"Counter.add: the arguments are {len(command)} characters long, more than the 20 this "
        "executor accepts; send shorter arguments"
    )
    assert (refused.errmsg, refused.args) == (local.errmsg, local.args)
    assert counted.result is not None
    assert json.loads(counted.result[0]["content"])["total"] == 2  # the refused call added nothing


def test_a_closed_executor_refuses_calls(ray_module: Any) -> None:
    from lagent_like.ray.executor import RayActionExecutor

    closed = RayActionExecutor([Crash()])
    closed.close()
    closed.close()
    with pytest.raises(RuntimeError, match="this RayActionExecutor is closed"):
        asyncio.run(closed("Crash", "{}"))


def test_a_closed_executor_refuses_a_lagent05_message_before_any_hook_runs(ray_module: Any) -> None:
    from lagent_like.ray.executor import RayActionExecutor
    from lagent_like.schema import AgentMessage, FunctionCall

    seen: list[str] = []

    class Noting:
        def before_action(self, executor: Any, message: Any, session_id: int) -> None:
            seen.append("before")

    closed = RayActionExecutor([Crash()], hooks=[Noting()])
    closed.close()
    message = AgentMessage(sender="agent", content=FunctionCall(name="Crash", parameters={}))
    with pytest.raises(RuntimeError, match="this RayActionExecutor is closed"):
        asyncio.run(closed(message, session_id=0))
    assert seen == []


def test_settings_naming_unknown_tools_or_not_positive_are_rejected(ray_module: Any) -> None:
    from lagent_like.ray.executor import RayActionExecutor

    with pytest.raises(
        ValueError, match=r"replicas names tools this executor does not hold: 'Sleepr' \(did you"
    ):
        RayActionExecutor([Sleeper()], replicas={"Sleepr": 2})
    with pytest.raises(ValueError, match="max_concurrency must be positive ints, got every tool: 0"):
        RayActionExecutor([Sleeper()], max_concurrency=0)


def test_without_ray_the_executor_asks_for_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from lagent_like.ray.executor import RayActionExecutor

    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    with pytest.raises(ImportError, match=r"install lagent-like\[ray\]"):
        RayActionExecutor([Sleeper()])


def test_importing_the_package_and_the_module_does_not_import_ray() -> None:
    code = "import sys, lagent_like, lagent_like.ray.executor; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "False\n"


def test_a_call_that_cannot_cross_to_ray_fails_alone(executor: Any) -> None:
    calls = [
        ("Holder", {"value": 1}),
        ("Holder", {"value": threading.Lock()}),
        ("Holder", {"value": 3, "give_back_a_lock": True}),
        ("Holder", {"value": 4}),
    ]
    first, unsent, unreturned, last = asyncio.run(executor.batch(calls))
    assert first.result == last.result == [{"type": "text", "content": "ok"}]
    assert unsent.state == ActionStatusCode.API_ERROR
    assert unsent.errmsg is not None
    assert unsent.errmsg.startswith("The Ray worker running Holder could not answer: TypeError: ")
    assert unreturned.state == ActionStatusCode.API_ERROR
    assert unreturned.args == {"value": 3, "give_back_a_lock": True}
    assert unreturned.errmsg is not None
    assert unreturned.errmsg.startswith(
        "the tool's result cannot be sent back from its Ray worker: TypeError: "
    )


class Refusal(Exception):
    """An exception class of the tool's own module (sent to Ray by value, like the tool)."""


class Refuser(BaseAction):
    """Raises its own exception class."""

    def run(self, why: str) -> str:
        """Refuse.

        Args:
            why: the reason given
        """
        raise Refusal(why)


def _name_the_error(error: BaseException, record: ActionReturn) -> str:
    return f"{type(error).__name__} ({isinstance(error, Refusal)}): {record.errmsg}"


def test_the_error_formatter_gets_the_tools_own_exception_as_on_the_local_executor(ray_module: Any) -> None:
    from lagent_like.ray.executor import RayActionExecutor

    async def run() -> tuple[ActionReturn, ActionReturn]:
        local = AsyncActionExecutor([Refuser()], error_formatter=_name_the_error)
        async with RayActionExecutor([Refuser()], error_formatter=_name_the_error) as remote:
            return await remote("Refuser", '{"why": "no"}'), await local("Refuser", '{"why": "no"}')

    remote, local = asyncio.run(run())
    assert remote.errmsg == "Refusal (True): Refusal: no"
    assert remote.to_dict() == local.to_dict()
