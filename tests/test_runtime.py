"""The call runtime (SPEC 8.4-8.9): errors, timeouts, retries, breakers, hooks, context, caps, batches."""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from lagent_like import ActionExecutor, ActionStatusCode, ActionValidCode, BaseAction, ToolSettings, tool_api
from lagent_like.actions.async_executor import AsyncActionExecutor
from lagent_like.exceptions import ToolError, ToolNotFoundError, TransientToolError
from lagent_like.runtime.context import ToolContext
from lagent_like.runtime.hooks import ApprovalHook, Hook
from lagent_like.runtime.policies import CircuitBreaker, RetryPolicy
from lagent_like.schema import ActionReturn

SUCCESS = ActionStatusCode.SUCCESS
API_ERROR = ActionStatusCode.API_ERROR
ARGS_ERROR = ActionStatusCode.ARGS_ERROR
TIMEOUT = ActionStatusCode.TIMEOUT


class FakeClock:
    """A clock that moves only when a test moves it."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def text_of(ret: ActionReturn) -> Any:
    assert ret.result is not None, ret
    assert len(ret.result) == 1
    return ret.result[0]["content"]


def wait_until(predicate: Any, limit: float = 30.0) -> bool:
    # ``limit`` only guards against a hang; the tests assert what the predicate sees.
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


# --- errors for the model (8.7) -------------------------------------------------------------


class RtFail(BaseAction):
    """Tools that fail."""

    @tool_api
    def model_error(self) -> str:
        """Fail with a message for the model."""
        raise ToolError("The city 'Atlantis' is unknown; try a real city.")

    @tool_api
    def crash(self) -> str:
        """Fail with an ordinary exception."""
        raise ValueError("bad value")


# Both the direct path (no policy) and the call core (a timeout set) must agree.
EXECUTOR_SETTINGS = [pytest.param({}, id="fast-path"), pytest.param({"timeout": 5.0}, id="call-core")]


@pytest.mark.parametrize("settings", EXECUTOR_SETTINGS)
def test_tool_error_message_is_the_errmsg_exactly(settings: dict[str, Any]) -> None:
    ret = ActionExecutor([RtFail()], **settings)("RtFail.model_error", "{}")
    assert ret.state == API_ERROR
    assert ret.errmsg == "The city 'Atlantis' is unknown; try a real city."
    assert ret.type == "RtFail"
    assert ret.valid == ActionValidCode.OPEN


@pytest.mark.parametrize("settings", EXECUTOR_SETTINGS)
def test_other_exceptions_are_summarised_as_type_and_message_with_the_traceback_logged(
    settings: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="lagent_like")
    ret = ActionExecutor([RtFail()], **settings)("RtFail.crash", "{}")
    assert ret.state == API_ERROR
    assert ret.errmsg == "ValueError: bad value"
    assert "Traceback" not in ret.errmsg
    logged = [r for r in caplog.records if r.name == "lagent_like"]
    assert [r.getMessage() for r in logged] == ["tool RtFail.crash raised"]
    assert logged[0].exc_info is not None
    assert logged[0].exc_info[0] is ValueError
    assert "Traceback" in caplog.text
    assert 'raise ValueError("bad value")' in caplog.text


def test_tool_error_is_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="lagent_like")
    ActionExecutor([RtFail()])("RtFail.model_error", "{}")
    assert [r for r in caplog.records if r.name == "lagent_like"] == []


def test_error_formatter_rewrites_tool_errors_and_other_exceptions() -> None:
    seen: list[tuple[type, str]] = []

    def formatter(exc: BaseException, ret: ActionReturn) -> str:
        seen.append((type(exc), ret.errmsg or ""))
        return f"[{type(exc).__name__}] {ret.errmsg} Please try something else."

    ex = ActionExecutor([RtFail()], error_formatter=formatter)
    model = ex("RtFail.model_error", "{}")
    crash = ex("RtFail.crash", "{}")
    assert model.state == API_ERROR
    assert (
        model.errmsg
        == "[ToolError] The city 'Atlantis' is unknown; try a real city. Please try something else."
    )
    assert crash.state == API_ERROR
    assert crash.errmsg == "[ValueError] ValueError: bad value Please try something else."
    assert seen == [
        (ToolError, "The city 'Atlantis' is unknown; try a real city."),
        (ValueError, "ValueError: bad value"),
    ]


def test_error_formatter_returning_none_keeps_the_message() -> None:
    ex = ActionExecutor([RtFail()], error_formatter=lambda exc, ret: None)
    assert ex("RtFail.crash", "{}").errmsg == "ValueError: bad value"


def test_a_raising_error_formatter_keeps_the_original_message_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="lagent_like")

    def formatter(exc: BaseException, ret: ActionReturn) -> str:
        raise RuntimeError("formatter broke")

    ex = ActionExecutor([RtFail()], error_formatter=formatter)
    model = ex("RtFail.model_error", "{}")
    crash = ex("RtFail.crash", "{}")
    assert model.state == API_ERROR
    assert model.errmsg == "The city 'Atlantis' is unknown; try a real city."
    assert crash.errmsg == "ValueError: bad value"
    failures = [r for r in caplog.records if r.getMessage().startswith("error_formatter failed")]
    assert len(failures) == 2
    assert all(r.name == "lagent_like" and r.exc_info[0] is RuntimeError for r in failures)


# --- timeouts (8.6) ---------------------------------------------------------------------------


class RtSlow(BaseAction):
    """A tool that takes its time: until the test releases it, or ``seconds``."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.done = threading.Event()

    @tool_api
    def wait(self, seconds: float) -> str:
        """Sleep.

        Args:
            seconds: how long
        """
        self.release.wait(seconds)
        self.done.set()
        return f"slept {seconds}"

    @tool_api
    def fast(self) -> str:
        """Answer at once."""
        return "fast"


class RtSlowAttr(BaseAction):
    __tool_settings__ = ToolSettings(timeout=0.2)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.release = threading.Event()
        self.done = threading.Event()

    def run(self, seconds: float) -> str:
        """Sleep until released, or ``seconds``.

        Args:
            seconds: how long
        """
        self.release.wait(seconds)
        self.done.set()
        return "done"


@pytest.fixture
def released() -> Iterator[list[Any]]:
    """Tools appended here have their ``release`` event set at the end of the test."""
    tools: list[Any] = []
    yield tools
    for tool in tools:
        tool.release.set()


def test_executor_default_timeout_gives_a_timeout_record(released: list[Any]) -> None:
    tool = RtSlow()
    released.append(tool)
    ex = ActionExecutor([tool], timeout=0.2)
    ret = ex("RtSlow.wait", '{"seconds": 30}')
    assert ret.state == TIMEOUT
    assert ret.errmsg == "'RtSlow.wait' timed out after 0.2 s"
    assert ret.result is None
    assert ret.type == "RtSlow"
    assert ret.args == {"seconds": 30}
    assert ret.valid == ActionValidCode.OPEN
    # The record came while the tool still ran: the executor did not wait for it.
    assert not tool.done.is_set()


def test_executor_stays_usable_after_a_timeout() -> None:
    tool = RtSlow()
    ex = ActionExecutor([tool], timeout=0.2)
    assert ex("RtSlow.wait", '{"seconds": 30}').state == TIMEOUT
    tool.release.set()
    after = ex("RtSlow.fast", "{}")
    assert after.state == SUCCESS
    assert text_of(after) == "fast"
    again = ex("RtSlow.wait", '{"seconds": 0.01}')
    assert again.state == SUCCESS
    assert text_of(again) == "slept 0.01"


class RtHang(BaseAction):
    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def run(self) -> str:
        """Hang until released."""
        self.release.wait(10)
        return "late"


class RtEcho(BaseAction):
    def run(self, text: str) -> str:
        """Repeat the text.

        Args:
            text: what to repeat
        """
        return text


def test_hung_tools_do_not_starve_later_calls_with_timeouts() -> None:
    hang = RtHang()
    ex = ActionExecutor([hang, RtEcho()], timeout=0.2, max_workers=2)
    try:
        assert ex("RtHang", "{}").state == TIMEOUT
        assert ex("RtHang", "{}").state == TIMEOUT
        ret = ex("RtEcho", '{"text": "still here"}')
        assert ret.state == SUCCESS, ret.errmsg
        assert text_of(ret) == "still here"
    finally:
        hang.release.set()


def test_tool_class_timeout_attribute_applies_without_an_executor_default(released: list[Any]) -> None:
    tool = RtSlowAttr()
    released.append(tool)
    ret = ActionExecutor([tool])("RtSlowAttr", '{"seconds": 30}')
    assert ret.state == TIMEOUT
    assert ret.errmsg == "'RtSlowAttr' timed out after 0.2 s"
    assert not tool.done.is_set()


def test_tool_class_timeout_attribute_wins_over_the_executor_default(released: list[Any]) -> None:
    tool = RtSlowAttr()
    released.append(tool)
    ret = ActionExecutor([tool], timeout=5.0)("RtSlowAttr", '{"seconds": 30}')
    assert ret.errmsg == "'RtSlowAttr' timed out after 0.2 s"
    assert not tool.done.is_set()


def test_constructor_timeout_overrides_the_class_attribute(released: list[Any]) -> None:
    tool = RtSlowAttr(timeout=0.3)
    released.append(tool)
    assert tool.__tool_settings__.timeout == 0.3
    assert RtSlowAttr.__tool_settings__.timeout == 0.2
    ex = ActionExecutor([tool])
    ret = ex("RtSlowAttr", '{"seconds": 30}')
    assert ret.state == TIMEOUT
    assert ret.errmsg == "'RtSlowAttr' timed out after 0.3 s"
    assert not tool.done.is_set()


def test_timeout_none_means_no_limit_even_under_an_executor_default() -> None:
    # The call outlives the executor's 0.1 s default and still answers.
    ex = ActionExecutor([RtSlowAttr(timeout=None)], timeout=0.1)
    ret = ex("RtSlowAttr", '{"seconds": 0.3}')
    assert ret.state == SUCCESS
    assert text_of(ret) == "done"


class RtAsyncSlow(BaseAction):
    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.cancelled = threading.Event()
        self.finished = threading.Event()

    async def run(self, seconds: float) -> str:
        """Sleep without blocking.

        Args:
            seconds: how long
        """
        self.started.set()
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        finally:
            self.finished.set()
        return "woke"


def test_async_tool_is_cancelled_on_timeout_by_the_async_executor() -> None:
    tool = RtAsyncSlow()

    async def main() -> tuple[ActionReturn, bool]:
        ex = AsyncActionExecutor([tool], timeout=0.2)
        ret = await ex("RtAsyncSlow", '{"seconds": 30}')
        # Cancelled by the executor, on this loop: not by ``asyncio.run`` closing it.
        return ret, tool.cancelled.is_set()

    ret, cancelled_before_the_loop_closed = asyncio.run(main())
    assert ret.state == TIMEOUT
    assert ret.errmsg == "'RtAsyncSlow' timed out after 0.2 s"
    assert cancelled_before_the_loop_closed
    assert tool.finished.is_set()


def test_async_tool_under_the_sync_executor_times_out() -> None:
    tool = RtAsyncSlow()
    ex = ActionExecutor([tool], timeout=0.2)
    ret = ex("RtAsyncSlow", '{"seconds": 30}')
    assert ret.state == TIMEOUT
    assert ret.errmsg == "'RtAsyncSlow' timed out after 0.2 s"
    assert tool.started.is_set()
    ok = ex("RtAsyncSlow", '{"seconds": 0.01}')
    assert ok.state == SUCCESS
    assert text_of(ok) == "woke"


def test_async_tool_is_cancelled_on_timeout_by_the_sync_executor() -> None:
    tool = RtAsyncSlow()
    ex = ActionExecutor([tool], timeout=0.2)
    ret = ex("RtAsyncSlow", '{"seconds": 30}')
    assert ret.state == TIMEOUT
    # The tool would finish by itself only after 30 s; cancelled, it ends now.
    assert tool.finished.wait(25)
    assert tool.cancelled.is_set()


# --- retries (8.6) ----------------------------------------------------------------------------


class RtFlaky(BaseAction):
    """Raises the scripted exceptions in turn, then answers."""

    def __init__(self, *script: BaseException, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.calls = 0

    def run(self) -> str:
        """Try once."""
        self.calls += 1
        if self.script:
            raise self.script.pop(0)
        return f"ok after {self.calls}"


# base 0.5 doubling, jitter 0.5, random() = 0.75: each delay is moved up by 25 %, exactly.
POLICY = RetryPolicy(max_attempts=4, base_delay=0.5, max_delay=8.0, jitter=0.5)


def retrying(tool: BaseAction, delays: list[float], **settings: Any) -> ActionExecutor:
    return ActionExecutor([tool], retry=POLICY, sleep=delays.append, random=lambda: 0.75, **settings)


def test_transient_errors_are_retried_up_to_max_attempts_with_exact_back_off() -> None:
    tool = RtFlaky(*(TransientToolError("rate limited, slow down") for _ in range(10)))
    delays: list[float] = []
    ret = retrying(tool, delays)("RtFlaky", "{}")
    assert ret.state == API_ERROR
    assert ret.errmsg == "rate limited, slow down"
    assert ret.attempts == 4
    assert tool.calls == 4
    assert delays == [0.625, 1.25, 2.5]


def test_back_off_is_capped_by_max_delay() -> None:
    tool = RtFlaky(*(TransientToolError("busy") for _ in range(10)))
    delays: list[float] = []
    policy = RetryPolicy(max_attempts=5, base_delay=1.0, max_delay=2.0, jitter=0.0)
    ex = ActionExecutor([tool], retry=policy, sleep=delays.append, random=lambda: 0.99)
    assert ex("RtFlaky", "{}").attempts == 5
    assert delays == [1.0, 2.0, 2.0, 2.0]


def test_success_on_the_second_attempt_ends_the_retries() -> None:
    tool = RtFlaky(TransientToolError("flaky"))
    delays: list[float] = []
    ret = retrying(tool, delays)("RtFlaky", "{}")
    assert ret.state == SUCCESS
    assert text_of(ret) == "ok after 2"
    assert ret.errmsg is None
    assert ret.attempts == 2
    assert tool.calls == 2
    assert delays == [0.625]


def test_a_plain_tool_error_is_not_retried() -> None:
    tool = RtFlaky(ToolError("wrong city"), ToolError("wrong city"))
    delays: list[float] = []
    ret = retrying(tool, delays)("RtFlaky", "{}")
    assert ret.state == API_ERROR
    assert ret.errmsg == "wrong city"
    assert ret.attempts == 1
    assert tool.calls == 1
    assert delays == []


def test_other_exceptions_are_not_retried() -> None:
    tool = RtFlaky(KeyError("x"), KeyError("x"))
    delays: list[float] = []
    ret = retrying(tool, delays)("RtFlaky", "{}")
    assert ret.errmsg == "KeyError: 'x'"
    assert ret.attempts == 1
    assert delays == []


def test_retry_on_connection_error() -> None:
    tool = RtFlaky(ConnectionError("reset by peer"), ConnectionError("reset by peer"))
    delays: list[float] = []
    policy = RetryPolicy(max_attempts=3, base_delay=0.5, jitter=0.0, retry_on=ConnectionError)
    ex = ActionExecutor([tool], retry=policy, sleep=delays.append, random=lambda: 0.5)
    ret = ex("RtFlaky", "{}")
    assert ret.state == SUCCESS
    assert text_of(ret) == "ok after 3"
    assert ret.attempts == 3
    assert delays == [0.5, 1.0]


def test_retry_on_limits_what_is_retried() -> None:
    tool = RtFlaky(TransientToolError("busy"), TransientToolError("busy"))
    delays: list[float] = []
    policy = RetryPolicy(max_attempts=3, retry_on=(ConnectionError,))
    ex = ActionExecutor([tool], retry=policy, sleep=delays.append, random=lambda: 0.5)
    ret = ex("RtFlaky", "{}")
    assert ret.errmsg == "busy"
    assert ret.attempts == 1
    assert delays == []


def test_last_connection_error_is_reported_when_attempts_run_out() -> None:
    tool = RtFlaky(*(ConnectionError(f"reset {i}") for i in range(5)))
    delays: list[float] = []
    ret = retrying(tool, delays)("RtFlaky", "{}")
    assert ret.state == API_ERROR
    assert ret.errmsg == "ConnectionError: reset 3"
    assert ret.attempts == 4


class RtSlowOnce(BaseAction):
    """Slow on the first ``slow`` calls, quick afterwards."""

    __tool_settings__ = ToolSettings(timeout=0.15)

    def __init__(self, slow: int) -> None:
        super().__init__()
        self.slow = slow
        self.calls = 0
        self.late_answers = 0
        self.release = threading.Event()
        self._lock = threading.Lock()

    def run(self) -> str:
        """Answer, maybe late (once the test releases the slow calls)."""
        with self._lock:
            self.calls += 1
            number = self.calls
        if number <= self.slow:
            self.release.wait(30)
            with self._lock:
                self.late_answers += 1
        return f"answer {number}"


def test_timeouts_are_retried(released: list[Any]) -> None:
    tool = RtSlowOnce(slow=10)
    released.append(tool)
    delays: list[float] = []
    policy = RetryPolicy(max_attempts=3, base_delay=0.5, jitter=0.0)
    ex = ActionExecutor([tool], retry=policy, sleep=delays.append, random=lambda: 0.5)
    ret = ex("RtSlowOnce", "{}")
    assert ret.state == TIMEOUT
    assert ret.errmsg == "'RtSlowOnce' timed out after 0.15 s"
    assert ret.attempts == 3
    assert tool.calls == 3
    assert delays == [0.5, 1.0]
    # No attempt waited for a timed-out one to end.
    assert tool.late_answers == 0


def test_a_timed_out_attempt_followed_by_a_quick_one_succeeds(released: list[Any]) -> None:
    tool = RtSlowOnce(slow=1)
    released.append(tool)
    delays: list[float] = []
    ex = ActionExecutor([tool], retry=RetryPolicy(max_attempts=3, jitter=0.0), sleep=delays.append)
    ret = ex("RtSlowOnce", "{}")
    assert ret.state == SUCCESS
    assert text_of(ret) == "answer 2"
    assert ret.attempts == 2
    assert delays == [0.5]


def test_timeouts_are_not_retried_when_retry_timeouts_is_off(released: list[Any]) -> None:
    tool = RtSlowOnce(slow=10)
    released.append(tool)
    delays: list[float] = []
    policy = RetryPolicy(max_attempts=3, retry_timeouts=False)
    ex = ActionExecutor([tool], retry=policy, sleep=delays.append)
    ret = ex("RtSlowOnce", "{}")
    assert ret.state == TIMEOUT
    assert ret.attempts == 1
    assert delays == []


def test_tool_retry_attribute_overrides_the_executor_and_none_disables_it() -> None:
    delays: list[float] = []
    own = RtFlaky(TransientToolError("busy"), retry=RetryPolicy(max_attempts=2, base_delay=0.25, jitter=0.0))
    ex = ActionExecutor([own], retry=POLICY, sleep=delays.append, random=lambda: 0.75)
    assert ex("RtFlaky", "{}").attempts == 2
    assert delays == [0.25]
    off = RtFlaky(TransientToolError("busy"), retry=None)
    ex = ActionExecutor([off], retry=POLICY, sleep=delays.append, random=lambda: 0.75)
    ret = ex("RtFlaky", "{}")
    assert ret.errmsg == "busy"
    assert ret.attempts == 1
    assert delays == [0.25]


def test_attempts_is_one_without_a_retry_policy() -> None:
    assert ActionExecutor([RtEcho()])("RtEcho", '{"text": "x"}').attempts == 1
    assert ActionExecutor([RtEcho()], timeout=1.0)("RtEcho", '{"text": "x"}').attempts == 1


def test_real_sleep_is_used_between_attempts_when_none_is_injected() -> None:
    tool = RtFlaky(TransientToolError("busy"))
    policy = RetryPolicy(max_attempts=2, base_delay=0.1, jitter=0.0)
    start = time.monotonic()
    ret = ActionExecutor([tool], retry=policy)("RtFlaky", "{}")
    assert ret.state == SUCCESS
    assert time.monotonic() - start >= 0.1  # a lower bound only: the real pause happened


# --- circuit breaker (8.6) ----------------------------------------------------------------


class RtService(BaseAction):
    def __init__(self) -> None:
        super().__init__()
        self.down = True
        self.calls = 0

    def run(self, n: int) -> str:
        """Call the service.

        Args:
            n: a number
        """
        self.calls += 1
        if self.down:
            raise ToolError("service down")
        return f"up {n}"


def breaker_executor(clock: FakeClock, tool: BaseAction) -> ActionExecutor:
    return ActionExecutor(
        [tool], circuit_breaker=lambda: CircuitBreaker(failure_threshold=2, reset_timeout=10, clock=clock)
    )


def test_breaker_opens_after_the_threshold_and_answers_at_once() -> None:
    clock = FakeClock(100.0)
    tool = RtService()
    ex = breaker_executor(clock, tool)
    assert ex.breaker_state("RtService") is None
    first = ex("RtService", '{"n": 1}')
    assert first.errmsg == "service down"
    assert ex.breaker_state("RtService") == {
        "state": "closed",
        "failures": 1,
        "opened_at": None,
        "retry_at": None,
    }
    assert ex("RtService", '{"n": 2}').errmsg == "service down"
    assert ex.breaker_state("RtService") == {
        "state": "open",
        "failures": 2,
        "opened_at": 100.0,
        "retry_at": 110.0,
    }
    clock.now = 103.0
    refused = ex("RtService", '{"n": 3}')
    assert tool.calls == 2  # answered without calling the tool
    assert refused.state == API_ERROR
    assert refused.errmsg == "RtService is failing and paused; try again in 7.0 s (circuit open)"
    assert refused.type == "RtService"
    assert refused.args == {"n": 3}
    assert refused.result is None
    assert refused.valid == ActionValidCode.OPEN
    clock.now = 109.5
    assert ex("RtService", '{"n": 4}').errmsg == (
        "RtService is failing and paused; try again in 0.5 s (circuit open)"
    )
    assert tool.calls == 2


def test_breaker_message_never_says_to_try_again_in_zero_seconds() -> None:
    clock = FakeClock(100.0)
    tool = RtService()
    ex = breaker_executor(clock, tool)
    ex("RtService", '{"n": 1}')
    ex("RtService", '{"n": 1}')
    clock.now = 109.99
    refused = ex("RtService", '{"n": 1}')
    assert tool.calls == 2
    assert refused.errmsg == "RtService is failing and paused; try again in 0.1 s (circuit open)"


def test_breaker_half_open_trial_success_closes_it() -> None:
    clock = FakeClock(100.0)
    tool = RtService()
    ex = breaker_executor(clock, tool)
    ex("RtService", '{"n": 1}')
    ex("RtService", '{"n": 1}')
    clock.now = 110.0
    tool.down = False
    trial = ex("RtService", '{"n": 5}')
    assert trial.state == SUCCESS
    assert text_of(trial) == "up 5"
    assert tool.calls == 3
    assert ex.breaker_state("RtService") == {
        "state": "closed",
        "failures": 0,
        "opened_at": None,
        "retry_at": None,
    }
    assert ex("RtService", '{"n": 6}').state == SUCCESS


def test_breaker_half_open_trial_failure_reopens_it() -> None:
    clock = FakeClock(100.0)
    tool = RtService()
    ex = breaker_executor(clock, tool)
    ex("RtService", '{"n": 1}')
    ex("RtService", '{"n": 1}')
    clock.now = 112.0
    trial = ex("RtService", '{"n": 1}')
    assert trial.errmsg == "service down"
    assert tool.calls == 3
    assert ex.breaker_state("RtService") == {
        "state": "open",
        "failures": 3,
        "opened_at": 112.0,
        "retry_at": 122.0,
    }
    clock.now = 113.0
    refused = ex("RtService", '{"n": 1}')
    assert refused.errmsg == "RtService is failing and paused; try again in 9.0 s (circuit open)"
    assert tool.calls == 3


def test_argument_errors_do_not_count_as_breaker_failures() -> None:
    clock = FakeClock(100.0)
    tool = RtService()
    ex = breaker_executor(clock, tool)
    ex("RtService", '{"n": 1}')
    for bad in ('{"n": "many"}', "{}", "not json", '{"n": 1, "m": 2}'):
        assert ex("RtService", bad).state == ARGS_ERROR
    assert tool.calls == 1
    assert ex.breaker_state("RtService")["state"] == "closed"
    assert ex.breaker_state("RtService")["failures"] == 1


def test_a_success_resets_the_consecutive_failure_count() -> None:
    clock = FakeClock(100.0)
    tool = RtService()
    ex = breaker_executor(clock, tool)
    ex("RtService", '{"n": 1}')
    tool.down = False
    ex("RtService", '{"n": 1}')
    tool.down = True
    ex("RtService", '{"n": 1}')
    assert ex.breaker_state("RtService")["state"] == "closed"
    assert ex.breaker_state("RtService")["failures"] == 1


def test_timeouts_count_as_breaker_failures(released: list[Any]) -> None:
    clock = FakeClock(100.0)
    slow = RtSlow()
    released.append(slow)
    ex = ActionExecutor(
        [slow],
        timeout=0.1,
        circuit_breaker=lambda: CircuitBreaker(failure_threshold=2, reset_timeout=10, clock=clock),
    )
    assert ex("RtSlow.wait", '{"seconds": 30}').state == TIMEOUT
    assert ex("RtSlow.wait", '{"seconds": 30}').state == TIMEOUT
    assert ex.breaker_state("RtSlow.wait")["state"] == "open"
    assert ex("RtSlow.wait", '{"seconds": 0}').errmsg == (
        "RtSlow.wait is failing and paused; try again in 10.0 s (circuit open)"
    )
    # One breaker per API: the other API of the toolkit is not affected.
    assert ex("RtSlow.fast", "{}").state == SUCCESS
    assert ex.breaker_state("RtSlow.fast")["state"] == "closed"


def test_a_call_with_retries_counts_once_for_the_breaker() -> None:
    clock = FakeClock(100.0)
    tool = RtFlaky(*(TransientToolError("busy") for _ in range(10)))
    delays: list[float] = []
    ex = ActionExecutor(
        [tool],
        retry=RetryPolicy(max_attempts=3),
        sleep=delays.append,
        circuit_breaker=lambda: CircuitBreaker(failure_threshold=2, reset_timeout=10, clock=clock),
    )
    assert ex("RtFlaky", "{}").attempts == 3
    assert ex.breaker_state("RtFlaky")["failures"] == 1


_ATTR_CLOCK = FakeClock(100.0)


class RtServicePartial(RtService):
    __tool_settings__ = ToolSettings(
        circuit_breaker=functools.partial(
            CircuitBreaker, failure_threshold=2, reset_timeout=10, clock=_ATTR_CLOCK
        )
    )


class RtServiceLambda(RtService):
    __tool_settings__ = ToolSettings(
        circuit_breaker=lambda: CircuitBreaker(failure_threshold=2, reset_timeout=10, clock=_ATTR_CLOCK)
    )


def run_breaker_cycle(ex: ActionExecutor, tool: RtService, name: str) -> None:
    _ATTR_CLOCK.now = 100.0
    assert ex(name, '{"n": 1}').errmsg == "service down"
    assert ex(name, '{"n": 1}').errmsg == "service down"
    assert ex.breaker_state(name)["state"] == "open"
    _ATTR_CLOCK.now = 104.0
    assert ex(name, '{"n": 1}').errmsg == f"{name} is failing and paused; try again in 6.0 s (circuit open)"
    assert tool.calls == 2
    _ATTR_CLOCK.now = 110.0
    tool.down = False
    assert ex(name, '{"n": 1}').state == SUCCESS
    assert ex.breaker_state(name)["state"] == "closed"


def test_tool_circuit_breaker_attribute_without_an_executor_factory() -> None:
    tool = RtServicePartial()
    run_breaker_cycle(ActionExecutor([tool]), tool, "RtServicePartial")


def test_tool_circuit_breaker_none_disables_the_executor_factory() -> None:
    tool = RtService()
    tool.__tool_settings__ = ToolSettings(circuit_breaker=None)
    ex = breaker_executor(FakeClock(), tool)
    for _ in range(4):
        assert ex("RtService", '{"n": 1}').errmsg == "service down"
    assert tool.calls == 4
    assert ex.breaker_state("RtService") is None


def test_tool_circuit_breaker_attribute_may_be_a_plain_function() -> None:
    tool = RtServiceLambda()
    run_breaker_cycle(ActionExecutor([tool]), tool, "RtServiceLambda")


def test_breaker_state_accepts_aliases_and_is_a_snapshot() -> None:
    clock = FakeClock(100.0)
    ex = ActionExecutor(
        [RtSlow()],
        circuit_breaker=lambda: CircuitBreaker(failure_threshold=2, reset_timeout=10, clock=clock),
    )
    ex("RtSlow.fast", "{}")
    snap = ex.breaker_state("RtSlow__fast")
    assert snap == ex.breaker_state("RtSlow.fast")
    assert snap == {"state": "closed", "failures": 0, "opened_at": None, "retry_at": None}
    snap["state"] = "open"
    assert ex.breaker_state("RtSlow.fast")["state"] == "closed"
    assert ex.breaker_state("Nope") is None


# --- hooks (8.8) --------------------------------------------------------------------------------


class RtCounter(BaseAction):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def run(self, n: int) -> str:
        """Count.

        Args:
            n: a number
        """
        self.calls.append(n)
        return f"n={n}"


class Recorder(Hook):
    def __init__(self, label: str, log: list[str]) -> None:
        self.label = label
        self.log = log

    def before_action(self, name: str, args: dict[str, Any], context: Any) -> None:
        self.log.append(f"{self.label}.before {name} {args}")

    def after_action(self, name: str, action_return: ActionReturn, context: Any) -> None:
        self.log.append(f"{self.label}.after {name} {action_return.state}")


def test_hooks_run_in_registration_order_around_the_tool() -> None:
    log: list[str] = []
    tool = RtCounter()
    ex = ActionExecutor([tool])
    ex.register_hook(Recorder("A", log))
    ex.register_hook(Recorder("B", log))
    ret = ex("RtCounter", '{"n": 3}')
    assert text_of(ret) == "n=3"
    assert log == [
        "A.before RtCounter {'n': 3}",
        "B.before RtCounter {'n': 3}",
        "A.after RtCounter 0",
        "B.after RtCounter 0",
    ]
    assert tool.calls == [3]


def test_before_action_short_circuits_and_after_hooks_still_run() -> None:
    log: list[str] = []
    tool = RtCounter()
    cached = ActionReturn(args={"n": 3}, type="RtCounter", result=[{"type": "text", "content": "cached"}])

    class Cache(Hook):
        def before_action(self, name: str, args: dict[str, Any], context: Any) -> ActionReturn:
            log.append("cache.before")
            return cached

        def after_action(self, name: str, action_return: ActionReturn, context: Any) -> None:
            log.append(f"cache.after {action_return is cached}")

    ex = ActionExecutor([tool])
    ex.register_hook(Cache())
    ex.register_hook(Recorder("B", log))
    ret = ex("RtCounter", '{"n": 3}')
    assert ret is cached
    assert text_of(ret) == "cached"
    assert tool.calls == []
    assert log == ["cache.before", "cache.after True", "B.after RtCounter 0"]


def test_after_action_replaces_the_record_for_later_hooks_and_the_caller() -> None:
    seen: list[Any] = []

    class Redact(Hook):
        def after_action(self, name: str, action_return: ActionReturn, context: Any) -> ActionReturn:
            return ActionReturn(
                args=action_return.args, type=name, result=[{"type": "text", "content": "***"}]
            )

    class Look(Hook):
        def after_action(self, name: str, action_return: ActionReturn, context: Any) -> None:
            seen.append(action_return.result)

    ex = ActionExecutor([RtCounter()])
    ex.register_hook(Redact())
    ex.register_hook(Look())
    ret = ex("RtCounter", '{"n": 3}')
    assert ret.result == [{"type": "text", "content": "***"}]
    assert ret.args == {"n": 3}
    assert seen == [[{"type": "text", "content": "***"}]]


def test_a_raising_hook_fails_the_call_closed_and_names_the_hook(caplog: pytest.LogCaptureFixture) -> None:
    # Issue 20: a hook that raises no longer is skipped; the call fails closed.
    caplog.set_level(logging.WARNING, logger="lagent_like")
    log: list[str] = []

    class Broken(Hook):
        def before_action(self, name: str, args: dict[str, Any], context: Any) -> None:
            raise RuntimeError("before broke")

        def after_action(self, name: str, action_return: ActionReturn, context: Any) -> None:
            raise RuntimeError("after broke")

    tool = RtCounter()
    ex = ActionExecutor([tool])
    ex.register_hook(Broken())
    ex.register_hook(Recorder("B", log))
    ret = ex("RtCounter", '{"n": 4}')
    assert ret.state == API_ERROR
    assert ret.errmsg == (
        "the result of RtCounter was withheld: the hook Broken.after_action failed: RuntimeError: after broke"
    )
    assert tool.calls == []
    assert log == ["B.after RtCounter -1002"]
    failures = [r for r in caplog.records if r.name == "lagent_like" and "failed" in r.getMessage()]
    assert [str(r.exc_info[1]) for r in failures] == ["before broke", "after broke"]


def test_removed_hooks_stop_running() -> None:
    log: list[str] = []
    ex = ActionExecutor([RtCounter()])
    handle = ex.register_hook(Recorder("A", log))
    ex("RtCounter", '{"n": 1}')
    handle.remove()
    handle.remove()
    ex("RtCounter", '{"n": 2}')
    assert log == ["A.before RtCounter {'n': 1}", "A.after RtCounter 0"]
    assert handle.active is False


class RtKit(BaseAction):
    """A toolkit."""

    @tool_api
    def add(self, a: int, b: int = 1) -> int:
        """Add.

        Args:
            a: first
            b: second
        """
        return a + b


def test_hooks_see_canonical_names_validated_args_and_the_context() -> None:
    seen: list[tuple[str, str, dict[str, Any], Any]] = []

    class Look(Hook):
        def before_action(self, name: str, args: dict[str, Any], context: Any) -> None:
            seen.append(("before", name, dict(args), context))

        def after_action(self, name: str, action_return: ActionReturn, context: Any) -> None:
            seen.append(("after", name, dict(action_return.args or {}), context))

    ex = ActionExecutor([RtKit(), RtEcho()])
    ex.register_hook(Look())
    assert text_of(ex("RtKit__add", '{"a": "3"}', session_id="s1", call_id="call_9")) == "4"
    assert text_of(ex("RtEcho.run", {"text": "hi"})) == "hi"
    assert [(when, name, args) for when, name, args, _ in seen] == [
        ("before", "RtKit.add", {"a": 3}),
        ("after", "RtKit.add", {"a": 3}),
        ("before", "RtEcho", {"text": "hi"}),
        ("after", "RtEcho", {"text": "hi"}),
    ]
    ctx = seen[0][3]
    assert isinstance(ctx, ToolContext)
    assert seen[1][3] is ctx
    assert (ctx.session_id, ctx.tool_name, ctx.api_name, ctx.call_id) == ("s1", "RtKit", "add", "call_9")
    assert ctx.executor is ex
    assert ctx.state is ex.session_state("s1")
    other = seen[2][3]
    assert (other.session_id, other.tool_name, other.api_name, other.call_id) == (
        "default",
        "RtEcho",
        "run",
        None,
    )


def test_hooks_do_not_run_for_argument_errors_before_but_do_after() -> None:
    log: list[str] = []
    tool = RtCounter()
    ex = ActionExecutor([tool])
    ex.register_hook(Recorder("A", log))
    ret = ex("RtCounter", '{"n": "lots"}')
    assert ret.state == ARGS_ERROR
    assert log == ["A.after RtCounter -1001"]
    assert tool.calls == []


def test_async_hook_methods_work_on_the_sync_executor() -> None:
    log: list[str] = []

    class AsyncHook:
        async def before_action(self, name: str, args: dict[str, Any], context: Any) -> Any:
            await asyncio.sleep(0)
            log.append(f"before {name}")
            if args["n"] < 0:
                return ActionReturn(args=args, type="RtCounter", errmsg="negative", state=API_ERROR)
            return None

        async def after_action(self, name: str, action_return: ActionReturn, context: Any) -> ActionReturn:
            await asyncio.sleep(0)
            log.append(f"after {name}")
            return ActionReturn(
                args=action_return.args,
                type=action_return.type,
                result=[
                    {
                        "type": "text",
                        "content": f"async {action_return.format_result() or action_return.errmsg}",
                    }
                ],
                state=action_return.state,
            )

    tool = RtCounter()
    ex = ActionExecutor([tool])
    ex.register_hook(AsyncHook())
    ret = ex("RtCounter", '{"n": 2}')
    assert text_of(ret) == "async n=2"
    blocked = ex("RtCounter", '{"n": -1}')
    assert text_of(blocked) == "async negative"
    assert tool.calls == [2]
    assert log == ["before RtCounter", "after RtCounter", "before RtCounter", "after RtCounter"]


class RtShell(BaseAction):
    """A shell."""

    def __init__(self) -> None:
        super().__init__()
        self.ran: list[str] = []

    @tool_api
    def execute(self, cmd: str) -> str:
        """Run a command.

        Args:
            cmd: the command
        """
        self.ran.append(cmd)
        return f"ran {cmd}"

    @tool_api
    def read(self, path: str) -> str:
        """Read a file.

        Args:
            path: the file
        """
        return f"contents of {path}"


def needs_approval(name: str, args: dict[str, Any]) -> bool:
    return name == "RtShell.execute"


def test_approval_hook_without_callback_holds_the_call_back() -> None:
    shell = RtShell()
    ex = ActionExecutor([shell])
    ex.register_hook(ApprovalHook(needs_approval))
    ret = ex("RtShell.execute", '{"cmd": "rm -rf /"}')
    assert ret.state == ActionStatusCode.APPROVAL_REQUIRED
    assert ret.errmsg == "RtShell.execute needs approval before it runs; ask the user to approve it"
    assert ret.args == {"cmd": "rm -rf /"}
    assert ret.type == "RtShell"
    assert shell.ran == []
    assert text_of(ex("RtShell.read", '{"path": "a.txt"}')) == "contents of a.txt"


@pytest.mark.parametrize("verdict", [True, False])
def test_approval_hook_with_approve_callback(verdict: bool) -> None:
    shell = RtShell()
    asked: list[tuple[str, dict[str, Any], Any]] = []

    def approve(name: str, args: dict[str, Any], context: Any) -> bool:
        asked.append((name, dict(args), context))
        return verdict

    hook = ApprovalHook(needs_approval, approve)
    ex = ActionExecutor([shell])
    ex.register_hook(hook)
    ret = ex("RtShell.execute", '{"cmd": "ls"}')
    if verdict:
        assert ret.state == SUCCESS
        assert text_of(ret) == "ran ls"
        assert shell.ran == ["ls"]
    else:
        assert ret.state == API_ERROR
        assert ret.errmsg == "RtShell.execute was not approved, so it did not run"
        assert shell.ran == []
    assert hook.decisions == [("RtShell.execute", {"cmd": "ls"}, verdict)]
    assert [(name, args) for name, args, _ in asked] == [("RtShell.execute", {"cmd": "ls"})]
    assert isinstance(asked[0][2], ToolContext)


def test_approval_hook_with_async_approve_on_the_sync_executor() -> None:
    shell = RtShell()

    async def approve(name: str, args: dict[str, Any], context: Any) -> bool:
        return args["cmd"] == "ls"

    ex = ActionExecutor([shell])
    ex.register_hook(ApprovalHook(needs_approval, approve))
    assert text_of(ex("RtShell.execute", '{"cmd": "ls"}')) == "ran ls"
    assert (
        ex("RtShell.execute", '{"cmd": "rm"}').errmsg == "RtShell.execute was not approved, so it did not run"
    )
    assert shell.ran == ["ls"]


# --- context (8.4) ------------------------------------------------------------------------------


class RtNotes(BaseAction):
    def run(self, text: str, ctx: ToolContext) -> str:
        """Keep a note for this session.

        Args:
            text: the note
        """
        notes = ctx.state.setdefault("notes", [])
        notes.append(text)
        executor = "executor" if ctx.executor is not None else "no executor"
        return f"{ctx.session_id}|{ctx.tool_name}|{ctx.api_name}|{ctx.call_id}|{executor}|{','.join(notes)}"


def test_context_parameter_is_not_described() -> None:
    ex = ActionExecutor([RtNotes()])
    (info,) = ex.get_actions_info()
    assert [p["name"] for p in info["parameters"]] == ["text"]
    assert info["required"] == ["text"]
    assert ex.json_schema("RtNotes") == {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "the note"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    assert RtNotes().json_schema() == ex.json_schema("RtNotes")
    (openai,) = ex.to_openai_tools()
    assert openai["function"]["parameters"]["properties"].keys() == {"text"}


def test_context_parameter_is_not_validated_nor_settable_by_the_model() -> None:
    ex = ActionExecutor([RtNotes()])
    assert ex("RtNotes", '{"text": "a"}').state == SUCCESS
    spoof = ex("RtNotes", '{"text": "a", "ctx": {"session_id": "other"}}')
    assert spoof.state == ARGS_ERROR
    assert spoof.errmsg == "RtNotes: 'ctx' is not a parameter; parameters: text"


class RtSpy(BaseAction):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[ToolContext] = []

    def run(self, x: int, context: ToolContext) -> str:
        """Spy.

        Args:
            x: a number
        """
        self.seen.append(context)
        return "ok"


def test_context_carries_session_state_names_call_id_and_executor() -> None:
    spy = RtSpy()
    ex = ActionExecutor([spy])
    ex("RtSpy", '{"x": 1}', session_id="alice", call_id="call_1")
    (ctx,) = spy.seen
    assert isinstance(ctx, ToolContext)
    assert ctx.session_id == "alice"
    assert ctx.tool_name == "RtSpy"
    assert ctx.api_name == "run"
    assert ctx.call_id == "call_1"
    assert ctx.executor is ex
    assert ctx.state is ex.session_state("alice")


def test_session_state_persists_within_a_session_and_is_isolated_between_sessions() -> None:
    ex = ActionExecutor([RtNotes()])
    assert text_of(ex("RtNotes", '{"text": "a"}', session_id="alice")) == "alice|RtNotes|run|None|executor|a"
    assert text_of(ex("RtNotes", '{"text": "b"}', session_id="bob", call_id="c2")) == (
        "bob|RtNotes|run|c2|executor|b"
    )
    assert (
        text_of(ex("RtNotes", '{"text": "c"}', session_id="alice")) == "alice|RtNotes|run|None|executor|a,c"
    )
    assert text_of(ex("RtNotes", '{"text": "d"}')) == "default|RtNotes|run|None|executor|d"
    assert ex.session_state("alice") == {"notes": ["a", "c"]}
    assert ex.session_state("bob") == {"notes": ["b"]}
    assert ex.session_state() == {"notes": ["d"]}
    other = ActionExecutor([RtNotes()])
    assert (
        text_of(other("RtNotes", '{"text": "z"}', session_id="alice")) == "alice|RtNotes|run|None|executor|z"
    )


def test_end_session_clears_its_state_only() -> None:
    ex = ActionExecutor([RtNotes()])
    ex("RtNotes", '{"text": "a"}', session_id="alice")
    ex("RtNotes", '{"text": "b"}', session_id="bob")
    ex.end_session("alice")
    ex.end_session("never-started")
    assert text_of(ex("RtNotes", '{"text": "c"}', session_id="alice")) == "alice|RtNotes|run|None|executor|c"
    assert ex.session_state("bob") == {"notes": ["b"]}


def test_direct_call_gets_a_fresh_context_each_time() -> None:
    tool = RtNotes()
    assert text_of(tool('{"text": "a"}')) == "default|RtNotes|run|None|no executor|a"
    assert text_of(tool('{"text": "b"}')) == "default|RtNotes|run|None|no executor|b"


def test_batch_passes_session_and_tool_call_ids_to_the_context() -> None:
    ex = ActionExecutor([RtNotes()])
    calls = [
        {"id": "call_a", "type": "function", "function": {"name": "RtNotes", "arguments": '{"text": "x"}'}},
        ("RtNotes", '{"text": "y"}'),
    ]
    first, second = ex.batch(calls, session_id="s")
    assert text_of(first).startswith("s|RtNotes|run|call_a|executor|")
    assert text_of(second).startswith("s|RtNotes|run|None|executor|")
    assert sorted(ex.session_state("s")["notes"]) == ["x", "y"]


# --- output cap -----------------------------------------------------------------------------------


class RtBig(BaseAction):
    def run(self, size: int) -> str:
        """Produce text.

        Args:
            size: half the length
        """
        return "a" * size + "b" * size


def test_long_results_keep_head_and_tail_with_a_notice() -> None:
    ex = ActionExecutor([RtBig()], max_output_chars=20)
    ret = ex("RtBig", '{"size": 30}')
    assert ret.state == SUCCESS
    assert ret.result == [
        {
            "type": "text",
            "content": "a" * 10 + "\n... [40 characters cut; the full output is kept] ...\n" + "b" * 10,
        }
    ]
    assert ret.full_result == [{"type": "text", "content": "a" * 30 + "b" * 30}]
    assert ret.format_result().startswith("aaaaaaaaaa\n... [40 characters cut;")


def test_odd_caps_keep_the_larger_part_at_the_tail() -> None:
    ex = ActionExecutor([RtBig()], max_output_chars=7)
    ret = ex("RtBig", '{"size": 10}')
    assert text_of(ret) == "aaa\n... [13 characters cut; the full output is kept] ...\nbbbb"


@pytest.mark.parametrize("size", [0, 5, 10])
def test_short_results_are_untouched(size: int) -> None:
    ex = ActionExecutor([RtBig()], max_output_chars=20)
    ret = ex("RtBig", f'{{"size": {size}}}')
    assert text_of(ret) == "a" * size + "b" * size
    assert ret.full_result is None


def test_output_cap_leaves_errors_alone() -> None:
    ex = ActionExecutor([RtFail()], max_output_chars=5)
    ret = ex("RtFail.model_error", "{}")
    assert ret.errmsg == "The city 'Atlantis' is unknown; try a real city."
    assert ret.full_result is None


# --- live updates (8.9) -----------------------------------------------------------------------


def test_disable_and_enable_are_reflected_immediately() -> None:
    ex = ActionExecutor([RtEcho(), RtKit()])
    ex.to_openai_tools()
    ex.disable("RtKit")
    assert [i["name"] for i in ex.get_actions_info()] == ["RtEcho"]
    assert [t["function"]["name"] for t in ex.to_openai_tools()] == ["RtEcho"]
    assert [t["name"] for t in ex.to_anthropic_tools()] == ["RtEcho"]
    refused = ex("RtKit.add", '{"a": 1}')
    assert refused.valid == ActionValidCode.INVALID
    assert refused.errmsg.startswith("Tool 'RtKit.add' is disabled.")
    ex.enable("RtKit")
    assert [i["name"] for i in ex.get_actions_info()] == ["RtEcho", "RtKit.add"]
    assert [t["function"]["name"] for t in ex.to_openai_tools()] == ["RtEcho", "RtKit__add"]
    assert text_of(ex("RtKit.add", '{"a": 1}')) == "2"


@pytest.mark.parametrize("method", ["enable", "disable"])
def test_enable_and_disable_unknown_names_raise_tool_not_found(method: str) -> None:
    ex = ActionExecutor([RtEcho()])
    with pytest.raises(ToolNotFoundError) as info:
        getattr(ex, method)("RtEchoo")
    assert str(info.value) == "no tool named 'RtEchoo' in this executor; did you mean 'RtEcho'?"
    assert info.value.name == "RtEchoo"


class RtGate(BaseAction):
    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.entered = 0
        self._lock = threading.Lock()

    def run(self, i: int) -> str:
        """Wait at the gate.

        Args:
            i: a number
        """
        with self._lock:
            self.entered += 1
        self.release.wait(5)
        return f"through {i}"


def test_add_and_del_during_a_running_batch() -> None:
    gate = RtGate()
    ex = ActionExecutor([gate, RtEcho()], max_workers=4)
    results: list[list[ActionReturn]] = []
    runner = threading.Thread(
        target=lambda: results.append(ex.batch([("RtGate", {"i": i}) for i in range(4)]))
    )
    runner.start()
    try:
        assert wait_until(lambda: gate.entered == 4)
        ex.del_action("RtGate")
        ex.add_action(RtKit())
        ex.disable("RtEcho")
        assert [i["name"] for i in ex.get_actions_info()] == ["RtKit.add"]
        assert ex("RtGate", '{"i": 9}').valid == ActionValidCode.INVALID
    finally:
        gate.release.set()
        runner.join(5)
    assert not runner.is_alive()
    (records,) = results
    assert [text_of(r) for r in records] == [f"through {i}" for i in range(4)]
    assert all(r.state == SUCCESS and r.valid == ActionValidCode.OPEN for r in records)
    assert gate.entered == 4
    assert text_of(ex("RtKit.add", '{"a": 41}')) == "42"


def test_replacing_a_tool_while_calls_run_from_other_threads() -> None:
    ex = ActionExecutor([RtEcho()])
    stop = threading.Event()
    bad: list[ActionReturn] = []

    def hammer() -> None:
        while not stop.is_set():
            ret = ex("RtEcho", '{"text": "x"}')
            if ret.state != SUCCESS or text_of(ret) != "x":
                bad.append(ret)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        for _ in range(200):
            ex.add_action(RtEcho())
            ex.add_action(RtKit())
            ex.del_action("RtKit")
    finally:
        stop.set()
        for t in threads:
            t.join(5)
    assert bad == []


# --- batch (8.5) --------------------------------------------------------------------------------


def test_batch_accepts_pairs_and_openai_calls_and_keeps_input_order() -> None:
    ex = ActionExecutor([RtEcho(), RtKit()])
    records = ex.batch(
        [
            ("RtEcho", '{"text": "one"}'),
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "RtKit__add", "arguments": '{"a": 1, "b": 1}'},
            },
            ["RtKit.add", {"a": 2}],
            {"id": "c4", "type": "function", "function": {"name": "RtEcho", "arguments": {"text": "four"}}},
            ("Nope", "{}"),
        ]
    )
    assert [r.format_result() for r in records[:4]] == ["one", "2", "3", "four"]
    assert records[4].valid == ActionValidCode.INVALID
    assert ex.batch([]) == []


def test_a_failing_and_a_slow_call_do_not_delay_or_lose_the_others(released: list[Any]) -> None:
    slow = RtSlowAttr()
    released.append(slow)
    ex = ActionExecutor([RtEcho(), RtFail(), slow], max_workers=4)
    calls = [
        ("RtEcho", '{"text": "first"}'),
        ("RtSlowAttr", '{"seconds": 30}'),
        ("RtFail.crash", "{}"),
        ("RtEcho", '{"text": "last"}'),
    ]
    records = ex.batch(calls)
    assert [r.state for r in records] == [SUCCESS, TIMEOUT, API_ERROR, SUCCESS]
    assert text_of(records[0]) == "first"
    assert records[1].errmsg == "'RtSlowAttr' timed out after 0.2 s"
    assert records[2].errmsg == "ValueError: bad value"
    assert text_of(records[3]) == "last"
    # The batch answered while the slow call still ran: it waited for its timeout only.
    assert not slow.done.is_set()


class RtRounds(BaseAction):
    """Calls pass in rounds of ``parties`` at once (a barrier), counting the calls in flight."""

    def __init__(self, parties: int) -> None:
        super().__init__()
        self.barrier = threading.Barrier(parties, timeout=30)
        self.active = 0
        self.peak = 0
        self._lock = threading.Lock()

    def run(self, i: int) -> str:
        """Wait for a full round.

        Args:
            i: a number
        """
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        try:
            self.barrier.wait()  # a round with fewer parties breaks the barrier: an error record
        finally:
            with self._lock:
                self.active -= 1
        return str(i)


def test_batch_runs_sync_tools_in_parallel_up_to_max_workers() -> None:
    tool = RtRounds(8)
    ex = ActionExecutor([tool], max_workers=8)
    records = ex.batch([("RtRounds", {"i": i}) for i in range(32)])
    assert [text_of(r) for r in records] == [str(i) for i in range(32)]
    # Four rounds of 8 at once: 8 in flight, never more.
    assert tool.peak == 8


def test_batch_max_concurrency_limits_the_parallelism() -> None:
    tool = RtRounds(2)
    ex = ActionExecutor([tool], max_workers=8)
    records = ex.batch([("RtRounds", {"i": i}) for i in range(8)], max_concurrency=2)
    assert [text_of(r) for r in records] == [str(i) for i in range(8)]
    assert tool.peak == 2


class RtSquare(BaseAction):
    def run(self, n: int) -> str:
        """Square.

        Args:
            n: a number
        """
        return f"{n}:{n * n}"


@pytest.mark.parametrize("with_hook", [False, True], ids=["fast-path", "call-core"])
def test_many_threads_lose_and_mix_no_results(with_hook: bool) -> None:
    ex = ActionExecutor([RtSquare()])
    if with_hook:
        ex.register_hook(Hook())
    threads_n, calls_n = 16, 1000
    results: dict[int, list[str]] = {}
    start = threading.Barrier(threads_n)

    def worker(t: int) -> None:
        start.wait()
        mine = []
        for i in range(calls_n):
            n = t * calls_n + i
            ret = ex("RtSquare", f'{{"n": {n}}}')
            mine.append(ret.result[0]["content"] if ret.result else f"error {ret.errmsg}")
        results[t] = mine

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(threads_n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(results) == list(range(threads_n))
    for t in range(threads_n):
        expected = [f"{n}:{n * n}" for n in range(t * calls_n, (t + 1) * calls_n)]
        assert results[t] == expected


# --- the fast path --------------------------------------------------------------------------------


class RtModes(BaseAction):
    def run(self, mode: str, n: int = 1) -> Any:
        """Answer in the given mode.

        Args:
            mode: what to do
            n: a number
        """
        if mode == "text":
            return f"text {n}"
        if mode == "number":
            return n * 2
        if mode == "dict":
            return {"n": n, "word": "zwölf"}
        if mode == "items":
            return [{"type": "image", "content": "http://x/y.png"}]
        if mode == "none":
            return None
        if mode == "tool_error":
            raise ToolError("tool says no")
        if mode == "crash":
            raise ZeroDivisionError("division by zero")
        if mode == "http":
            return ActionReturn(errmsg="404 Not Found", state=ActionStatusCode.HTTP_ERROR)
        if mode == "own":
            return ActionReturn(args={"custom": True}, result=[{"type": "text", "content": "own"}])
        raise AssertionError(mode)


FAST_PATH_COMMANDS = [
    '{"mode": "text", "n": "3"}',
    '{"mode": "number", "n": 4}',
    '{"mode": "dict"}',
    '{"mode": "items"}',
    '{"mode": "none"}',
    '{"mode": "tool_error"}',
    '{"mode": "crash"}',
    '{"mode": "http"}',
    '{"mode": "own"}',
    '{"mode": "text", "n": "three"}',
    '{"n": 1}',
    '{"mode": "text", "extra": 1}',
    "{not json",
    "",
    None,
    42,
]


@pytest.mark.parametrize("command", FAST_PATH_COMMANDS)
def test_fast_path_gives_the_same_record_as_the_call_core(command: Any) -> None:
    plain = ActionExecutor([RtModes()])
    hooked = ActionExecutor([RtModes()])
    hooked.register_hook(Hook())
    fast = plain("RtModes", command)
    core = hooked("RtModes", command)
    assert fast.to_dict() == core.to_dict()


def test_fast_path_covers_every_state() -> None:
    plain = ActionExecutor([RtModes()])
    states = {int(plain("RtModes", c).state) for c in FAST_PATH_COMMANDS}
    assert states == {SUCCESS, API_ERROR, ARGS_ERROR, ActionStatusCode.HTTP_ERROR}


def test_fast_path_and_call_core_agree_on_unknown_and_disabled_tools() -> None:
    plain = ActionExecutor([RtModes()])
    hooked = ActionExecutor([RtModes()])
    hooked.register_hook(Hook())
    for ex in (plain, hooked):
        ex.disable("RtModes")
    for name in ("RtModes", "Nope", "RtModes.other"):
        assert plain(name, "{}").to_dict() == hooked(name, "{}").to_dict()
