"""Runtime settings changed after construction, constructor keywords, and tool-call ids."""

from __future__ import annotations

import asyncio
import time
from typing import Optional

from lagent_like import (
    ActionExecutor,
    ActionReturn,
    ActionStatusCode,
    ActionValidCode,
    AsyncActionExecutor,
    BaseAction,
    CircuitBreaker,
    RetryPolicy,
    ToolContext,
    ToolSettings,
    TransientToolError,
    tool_api,
)


class SetSlow(BaseAction):
    def run(self, seconds: float) -> str:
        """Sleep.

        Args:
            seconds: how long
        """
        time.sleep(seconds)
        return "done"


def test_executor_timeout_set_after_construction_applies() -> None:
    executor = ActionExecutor([SetSlow()])
    executor.timeout = 0.05
    assert executor("SetSlow", '{"seconds": 2}').state == ActionStatusCode.TIMEOUT
    executor.timeout = None
    assert executor("SetSlow", '{"seconds": 0.0}').state == ActionStatusCode.SUCCESS


def test_tool_timeout_changed_after_adding_applies_after_refresh() -> None:
    tool = SetSlow()
    executor = ActionExecutor([tool])
    tool.__tool_settings__ = ToolSettings(timeout=0.05)
    executor.refresh()
    assert executor("SetSlow", '{"seconds": 2}').errmsg == "'SetSlow' timed out after 0.05 s"


def test_constructor_keywords_set_every_runtime_setting() -> None:
    def factory() -> CircuitBreaker:
        return CircuitBreaker(3, 5.0)

    tool = SetSlow(timeout=1.5, retry=None, circuit_breaker=factory, blocking=False)
    assert tool.__tool_settings__ == ToolSettings(
        timeout=1.5, retry=None, circuit_breaker=factory, blocking=False
    )
    assert SetSlow().__tool_settings__ == ToolSettings()


class SetWho(BaseAction):
    """Reports the call it serves."""

    @tool_api
    def me(self, ctx: ToolContext, tag: Optional[str] = None) -> str:
        """Who am I.

        Args:
            tag: a label
        """
        return f"{ctx.call_id} {tag}"


CALLS = [
    {"id": "call_1", "type": "function", "function": {"name": "SetWho__me", "arguments": '{"tag": "a"}'}},
    {"id": "call_2", "type": "function", "function": {"arguments": "{}"}},
    {"id": "call_3", "type": "function", "function": {"name": "SetWho.me", "arguments": {"tag": [3]}}},
]
MESSAGES = [
    {"role": "tool", "tool_call_id": "call_1", "content": "call_1 a"},
    {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": "tool call 1 has no function name; send {'function': {'name': ..., 'arguments': ...}}",
    },
    {
        "role": "tool",
        "tool_call_id": "call_3",
        "content": "SetWho__me: 'tag' expected string or null, got array [3]",
    },
]


def test_run_tool_calls_passes_each_call_id_to_the_tool() -> None:
    assert ActionExecutor([SetWho()]).run_tool_calls(CALLS) == MESSAGES


def test_async_executor_runs_tool_calls_concurrently_in_order() -> None:
    assert asyncio.run(AsyncActionExecutor([SetWho()]).run_tool_calls(CALLS)) == MESSAGES


class SetOwnRecord(BaseAction):
    async def run(self) -> ActionReturn:
        """Answers with its own record."""
        return ActionReturn(result=[{"type": "text", "content": "mine"}], valid=ActionValidCode.CLOSED)


def test_async_batch_marks_known_tools_open_like_single_calls() -> None:
    executor = AsyncActionExecutor([SetOwnRecord()])
    single = asyncio.run(executor("SetOwnRecord", "{}"))
    batch = asyncio.run(executor.batch([("SetOwnRecord", "{}"), ("Missing", "{}")]))
    assert single.valid == batch[0].valid == ActionValidCode.OPEN
    assert batch[1].valid == ActionValidCode.INVALID


class SetFlaky(BaseAction):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def run(self) -> str:
        """Fails once, transiently."""
        self.calls += 1
        if self.calls == 1:
            raise TransientToolError("try again")
        return "ok"


class BrokenRetry(RetryPolicy):
    def should_retry(self, error: Optional[BaseException], state: int, attempt: int) -> bool:
        raise RuntimeError("policy bug")


class BrokenBreaker:
    def before_call(self) -> Optional[float]:
        raise RuntimeError("breaker bug")

    def record_success(self) -> None:
        raise RuntimeError("breaker bug")

    def record_failure(self) -> None:
        raise RuntimeError("breaker bug")


def _raising_sleep(seconds: float) -> None:
    raise RuntimeError("sleep bug")


def test_misbehaving_policies_never_take_the_executor_down() -> None:
    broken_retry = ActionExecutor([SetFlaky()], retry=BrokenRetry())
    ret = broken_retry("SetFlaky", "{}")
    assert (ret.state, ret.errmsg, ret.attempts) == (ActionStatusCode.API_ERROR, "try again", 1)
    broken_breaker = ActionExecutor([SetFlaky()], circuit_breaker=BrokenBreaker)  # type: ignore[arg-type]
    assert broken_breaker("SetFlaky", "{}").errmsg == "try again"
    assert broken_breaker("SetFlaky", "{}").format_result() == "ok"
    bad_sleep = ActionExecutor([SetFlaky()], retry=RetryPolicy(max_attempts=2), sleep=_raising_sleep)
    ret = bad_sleep("SetFlaky", "{}")
    assert (ret.format_result(), ret.attempts) == ("ok", 2)
