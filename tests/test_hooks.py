"""Hooks: ``Hook``, ``HookList``/``HookHandle`` and ``ApprovalHook``."""

from __future__ import annotations

import asyncio
import inspect
import threading
from types import SimpleNamespace
from typing import Any, Optional

import pytest

from lagent_like.runtime.hooks import ApprovalHook, Hook, HookHandle, HookList
from lagent_like.schema import ActionReturn, ActionStatusCode, ActionValidCode


class Named(Hook):
    def __init__(self, label: str) -> None:
        self.label = label

    def __repr__(self) -> str:
        return f"Named({self.label!r})"


class OnlyAfter:
    def after_action(self, name: str, action_return: ActionReturn, context: Any) -> None:
        return None


class NotAHook:
    before = None


def _needs_writes(name: str, args: dict[str, Any]) -> bool:
    return name.endswith(".write")


# --- Hook ---------------------------------------------------------------------------------


def test_base_hook_methods_do_nothing() -> None:
    hook = Hook()
    assert hook.before_action("Tool.run", {"x": 1}, None) is None
    assert hook.after_action("Tool.run", ActionReturn(), None) is None


# --- HookList and HookHandle --------------------------------------------------------------


def test_add_returns_an_active_handle_holding_the_hook() -> None:
    hooks = HookList()
    hook = Named("a")
    handle = hooks.add(hook)
    assert isinstance(handle, HookHandle)
    assert handle.hook is hook
    assert handle.active is True
    assert len(hooks) == 1
    assert bool(hooks) is True


def test_empty_hook_list_is_falsy_and_has_length_zero() -> None:
    hooks = HookList()
    assert len(hooks) == 0
    assert bool(hooks) is False
    assert hooks.snapshot() == ()


def test_handle_remove_removes_the_hook_and_a_second_call_does_nothing() -> None:
    hooks = HookList()
    a, b = Named("a"), Named("b")
    handle_a = hooks.add(a)
    hooks.add(b)
    handle_a.remove()
    assert handle_a.active is False
    assert hooks.snapshot() == (b,)
    handle_a.remove()
    hooks.remove(handle_a)
    assert hooks.snapshot() == (b,)
    assert len(hooks) == 1


def test_hooks_run_in_registration_order() -> None:
    hooks = HookList()
    a, b, c = Named("a"), Named("b"), Named("c")
    for hook in (a, b, c):
        hooks.add(hook)
    assert hooks.snapshot() == (a, b, c)


def test_same_hook_twice_appears_twice_and_each_handle_removes_its_own() -> None:
    hooks = HookList()
    a, b = Named("a"), Named("b")
    first = hooks.add(a)
    hooks.add(b)
    second = hooks.add(a)
    assert hooks.snapshot() == (a, b, a)
    second.remove()
    assert hooks.snapshot() == (a, b)
    assert first.active is True
    assert second.active is False
    first.remove()
    assert hooks.snapshot() == (b,)


def test_removing_hooks_while_iterating_a_snapshot_does_not_change_it() -> None:
    hooks = HookList()
    a, b, c = Named("a"), Named("b"), Named("c")
    handles = [hooks.add(hook) for hook in (a, b, c)]
    snapshot = hooks.snapshot()
    seen = []
    for hook in snapshot:
        seen.append(hook)
        for handle in handles:
            handle.remove()
        hooks.add(Named("late"))
    assert seen == [a, b, c]
    assert snapshot == (a, b, c)
    assert [h.label for h in hooks.snapshot()] == ["late", "late", "late"]


def test_clear_removes_everything_and_deactivates_handles() -> None:
    hooks = HookList()
    handles = [hooks.add(Named("a")), hooks.add(Named("b"))]
    hooks.clear()
    assert len(hooks) == 0
    assert hooks.snapshot() == ()
    assert [h.active for h in handles] == [False, False]
    handles[0].remove()
    assert len(hooks) == 0


def test_an_object_with_only_one_method_is_a_hook() -> None:
    hooks = HookList()
    hook = OnlyAfter()
    hooks.add(hook)
    assert hooks.snapshot() == (hook,)


def test_add_rejects_an_object_with_neither_method() -> None:
    hooks = HookList()
    with pytest.raises(
        TypeError,
        match=r"^HookList\.add: a NotAHook object is not a hook; a hook needs a 'before_action' "
        r"or an 'after_action' method \(or both\), e\.g\. a subclass of lagent_like\.Hook$",
    ):
        hooks.add(NotAHook())
    assert len(hooks) == 0


def test_add_rejects_a_non_callable_hook_attribute() -> None:
    hooks = HookList()
    with pytest.raises(TypeError, match=r"a SimpleNamespace object is not a hook"):
        hooks.add(SimpleNamespace(before_action="not callable"))


def test_add_rejects_a_hook_class_instead_of_an_instance() -> None:
    hooks = HookList()
    with pytest.raises(
        TypeError,
        match=r"^HookList\.add: got the class Named, not an instance; register Named\(\) instead$",
    ):
        hooks.add(Named)


def test_remove_rejects_a_handle_of_another_list() -> None:
    mine, theirs = HookList(), HookList()
    handle = theirs.add(Named("a"))
    with pytest.raises(
        ValueError,
        match=r"^HookList\.remove: <HookHandle Named\('a'\) \(active\)> belongs to another HookList$",
    ):
        mine.remove(handle)
    assert handle.active is True
    assert len(theirs) == 1


def test_reprs() -> None:
    hooks = HookList()
    handle = hooks.add(Named("a"))
    assert repr(hooks) == "HookList([Named('a')])"
    assert repr(handle) == "<HookHandle Named('a') (active)>"
    handle.remove()
    assert repr(handle) == "<HookHandle Named('a') (removed)>"


def test_concurrent_adds_and_removes_from_eight_threads_stay_consistent() -> None:
    hooks = HookList()
    keeper = Named("keeper")
    hooks.add(keeper)
    per_thread = 200
    barrier = threading.Barrier(8)
    kept: list[list[HookHandle]] = [[] for _ in range(8)]

    def work(index: int) -> None:
        barrier.wait()
        for i in range(per_thread):
            handle = hooks.add(Named(f"{index}-{i}"))
            if i % 2:
                handle.remove()
                handle.remove()
            else:
                kept[index].append(handle)
            hooks.snapshot()

    threads = [threading.Thread(target=work, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(hooks) == 1 + 8 * per_thread // 2
    snapshot = hooks.snapshot()
    assert snapshot[0] is keeper
    assert {id(h) for h in snapshot[1:]} == {id(handle.hook) for handles in kept for handle in handles}
    for handles in kept:
        # Each thread's hooks stay in the order that thread added them.
        positions = [snapshot.index(handle.hook) for handle in handles]
        assert positions == sorted(positions)
        assert all(handle.active for handle in handles)


# --- ApprovalHook -------------------------------------------------------------------------


def test_approval_hook_lets_calls_that_need_no_approval_through() -> None:
    hook = ApprovalHook(_needs_writes)
    assert hook.before_action("FileTool.read", {"path": "a.txt"}, None) is None
    assert hook.decisions == []


def test_approval_hook_without_callback_asks_for_approval() -> None:
    hook = ApprovalHook(_needs_writes)
    args = {"path": "a.txt", "text": "hi"}
    result = hook.before_action("FileTool.write", args, SimpleNamespace(session_id="s"))
    assert result == ActionReturn(
        args={"path": "a.txt", "text": "hi"},
        type="FileTool",
        errmsg="FileTool.write needs approval before it runs; ask the user to approve it",
        state=ActionStatusCode.APPROVAL_REQUIRED,
    )
    assert isinstance(result, ActionReturn)
    assert result.state == -1004
    assert result.valid is ActionValidCode.OPEN
    assert result.result is None
    assert hook.decisions == []


def test_approval_hook_uses_the_whole_name_as_type_for_a_simple_tool() -> None:
    hook = ApprovalHook(lambda name, args: True)
    result = hook.before_action("Shell", {"cmd": "ls"}, None)
    assert isinstance(result, ActionReturn)
    assert result.type == "Shell"
    assert result.errmsg == "Shell needs approval before it runs; ask the user to approve it"


def test_approval_hook_sync_approve_true_lets_the_call_run() -> None:
    calls: list[tuple[str, dict[str, Any], Any]] = []
    context = SimpleNamespace(session_id="s")

    def approve(name: str, args: dict[str, Any], ctx: Any) -> bool:
        calls.append((name, args, ctx))
        return True

    hook = ApprovalHook(_needs_writes, approve)
    assert hook.before_action("FileTool.write", {"path": "a.txt"}, context) is None
    assert calls == [("FileTool.write", {"path": "a.txt"}, context)]
    assert hook.decisions == [("FileTool.write", {"path": "a.txt"}, True)]


def test_approval_hook_sync_approve_false_refuses_the_call() -> None:
    hook = ApprovalHook(_needs_writes, lambda name, args, ctx: False)
    result = hook.before_action("FileTool.write", {"path": "a.txt"}, None)
    assert result == ActionReturn(
        args={"path": "a.txt"},
        type="FileTool",
        errmsg="FileTool.write was not approved, so it did not run",
        state=ActionStatusCode.API_ERROR,
    )
    assert hook.decisions == [("FileTool.write", {"path": "a.txt"}, False)]


def test_approval_hook_treats_a_none_verdict_as_denied() -> None:
    def forgetful(name: str, args: dict[str, Any], ctx: Any) -> Any:
        return None

    hook = ApprovalHook(_needs_writes, forgetful)
    result = hook.before_action("FileTool.write", {}, None)
    assert isinstance(result, ActionReturn)
    assert result.state is ActionStatusCode.API_ERROR
    assert hook.decisions == [("FileTool.write", {}, False)]


def test_approval_hook_does_not_ask_approve_for_calls_that_need_no_approval() -> None:
    def approve(name: str, args: dict[str, Any], ctx: Any) -> bool:
        raise AssertionError("approve must not be called")

    hook = ApprovalHook(_needs_writes, approve)
    assert hook.before_action("FileTool.read", {}, None) is None
    assert hook.decisions == []


def test_approval_hook_async_approve_returns_a_coroutine_that_resolves() -> None:
    async def approve(name: str, args: dict[str, Any], ctx: Any) -> bool:
        await asyncio.sleep(0)
        return bool(args["path"] != "secret.txt")

    hook = ApprovalHook(_needs_writes, approve)
    allowed = hook.before_action("FileTool.write", {"path": "a.txt"}, None)
    refused = hook.before_action("FileTool.write", {"path": "secret.txt"}, None)
    assert inspect.iscoroutine(allowed)
    assert inspect.iscoroutine(refused)
    assert hook.decisions == []

    async def resolve() -> tuple[Optional[ActionReturn], Optional[ActionReturn]]:
        assert inspect.iscoroutine(allowed) and inspect.iscoroutine(refused)
        return await allowed, await refused

    allowed_result, refused_result = asyncio.run(resolve())
    assert allowed_result is None
    assert refused_result == ActionReturn(
        args={"path": "secret.txt"},
        type="FileTool",
        errmsg="FileTool.write was not approved, so it did not run",
        state=ActionStatusCode.API_ERROR,
    )
    assert hook.decisions == [
        ("FileTool.write", {"path": "a.txt"}, True),
        ("FileTool.write", {"path": "secret.txt"}, False),
    ]


def test_approval_hook_async_approve_needing_no_approval_stays_sync() -> None:
    async def approve(name: str, args: dict[str, Any], ctx: Any) -> bool:
        raise AssertionError("approve must not be called")

    hook = ApprovalHook(_needs_writes, approve)
    assert hook.before_action("FileTool.read", {}, None) is None


def test_approval_hook_records_a_copy_of_the_arguments() -> None:
    hook = ApprovalHook(_needs_writes, lambda name, args, ctx: True)
    args = {"path": "a.txt"}
    hook.before_action("FileTool.write", args, None)
    args["path"] = "changed.txt"
    assert hook.decisions == [("FileTool.write", {"path": "a.txt"}, True)]


def test_approval_hook_records_decisions_from_many_threads() -> None:
    hook = ApprovalHook(_needs_writes, lambda name, args, ctx: args["n"] % 2 == 0)
    barrier = threading.Barrier(8)

    def work(index: int) -> None:
        barrier.wait()
        for i in range(100):
            hook.before_action("FileTool.write", {"n": index * 100 + i}, None)

    threads = [threading.Thread(target=work, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(d[1]["n"] for d in hook.decisions) == list(range(800))
    assert all(d[2] is (d[1]["n"] % 2 == 0) for d in hook.decisions)


def test_approval_hook_after_action_does_nothing() -> None:
    hook = ApprovalHook(_needs_writes)
    assert hook.after_action("FileTool.write", ActionReturn(), None) is None


def test_approval_hook_is_accepted_by_a_hook_list() -> None:
    hooks = HookList()
    hook = ApprovalHook(_needs_writes)
    hooks.add(hook)
    assert hooks.snapshot() == (hook,)


def test_approval_hook_rejects_non_callable_arguments() -> None:
    with pytest.raises(
        TypeError,
        match=r"^ApprovalHook: needs_approval must be callable as needs_approval\(name, args\), got bool$",
    ):
        ApprovalHook(True)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError,
        match=r"^ApprovalHook: approve must be None or callable as approve\(name, args, context\), got str$",
    ):
        ApprovalHook(_needs_writes, "yes")  # type: ignore[arg-type]


def test_approval_message_helpers() -> None:
    assert (
        ApprovalHook.approval_required_message("T.a")
        == "T.a needs approval before it runs; ask the user to approve it"
    )
    assert ApprovalHook.denied_message("T.a") == "T.a was not approved, so it did not run"
