"""Issue 20, item 2: hooks mean what the peers' callbacks mean.

A ``before_action`` that returns any value but ``None`` answers the call instead of
the tool (Google ADK's ``before_tool_callback``); an ``after_action`` may read the
tool's output and replace the result with a plain value; a hook that raises fails
closed; a hook whose signature does not fit is refused when it is registered.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Union

import pytest

from lagent_like import ActionExecutor, ActionReturn, ActionStatusCode, AsyncActionExecutor, Hook, ToolError
from lagent_like.exceptions import ToolDefinitionError
from lagent_like.runtime.hooks import ApprovalHook, HookList

Executor = Union[ActionExecutor, AsyncActionExecutor]


def call(executor: Executor, name: str, command: Any) -> ActionReturn:
    """One call through either executor."""
    ret = executor(name, command)
    if isinstance(executor, AsyncActionExecutor):
        ret = asyncio.run(ret)
    assert isinstance(ret, ActionReturn)
    return ret


EXECUTORS = [
    pytest.param(ActionExecutor, id="sync"),
    pytest.param(AsyncActionExecutor, id="async"),
]


class Stock:
    """Counts the calls of a ``stock`` tool and answers them with what it was given."""

    def __init__(self, value: Any = None) -> None:
        self.value = value
        self.calls = 0

    def answer(self, item: str) -> Any:
        self.calls += 1
        if item == "boom":
            raise KeyError(item)
        return self.value if self.value is not None else {"item": item, "units": 3}


def stock_tool(value: Any = None) -> tuple[Stock, Callable[..., Any]]:
    """A ``Stock`` and a plain function calling it, named ``stock`` (the executor's tool)."""
    counter = Stock(value)

    def stock(item: str) -> Any:
        """Units in stock.

        Args:
            item: the item's name
        """
        return counter.answer(item)

    return counter, stock


# --- before_action answers with any value but None ------------------------------------


class AnswerFirst(Hook):
    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def before_action(self, name: str, args: dict[str, Any], context: Any) -> Any:
        return self.answer


@pytest.mark.parametrize("executor_class", EXECUTORS)
@pytest.mark.parametrize(
    ("answer", "text"),
    [
        pytest.param(
            {"item": "pear", "units": 0, "cached": True},
            '{"item": "pear", "units": 0, "cached": true}',
            id="dict",
        ),
        pytest.param("sold out", "sold out", id="str"),
        pytest.param(0, "0", id="zero"),
        pytest.param(False, "False", id="false"),
        pytest.param([1, 2], "[1, 2]", id="list"),
    ],
)
def test_before_action_returning_a_value_answers_instead_of_the_tool(
    executor_class: type[Executor], answer: Any, text: str
) -> None:
    counter, stock = stock_tool()
    executor = executor_class([stock])
    executor.register_hook(AnswerFirst(answer))
    ret = call(executor, "stock", '{"item": "pear"}')
    assert counter.calls == 0
    assert ret == ActionReturn(
        args={"item": "pear"}, type="stock", result=[{"type": "text", "content": text}]
    )


def test_an_async_before_action_answering_with_a_value_works_on_the_sync_executor() -> None:
    class Later(Hook):
        async def before_action(self, name: str, args: dict[str, Any], context: Any) -> Any:
            await asyncio.sleep(0)
            return {"queued": args["item"]}

    counter, stock = stock_tool()
    executor = ActionExecutor([stock])
    executor.register_hook(Later())
    assert call(executor, "stock", '{"item": "pear"}').format_result() == '{"queued": "pear"}'
    assert counter.calls == 0


def test_a_before_action_answer_is_rendered_as_the_tool_would_render_it() -> None:
    answer = {"item": "pear", "units": 3}
    _, stock = stock_tool(answer)
    plain = ActionExecutor([stock], max_output_chars=12)
    hooked = ActionExecutor([stock_tool()[1]], max_output_chars=12)
    hooked.register_hook(AnswerFirst(answer))
    assert call(hooked, "stock", '{"item": "pear"}') == call(plain, "stock", '{"item": "pear"}')


def test_a_before_action_answer_skips_later_before_hooks_but_not_after_hooks() -> None:
    seen: list[str] = []

    class Later(Hook):
        def before_action(self, name: str, args: dict[str, Any], context: Any) -> None:
            seen.append("later.before")

        def after_action(self, name: str, action_return: ActionReturn, context: Any, output: Any) -> None:
            seen.append(f"later.after {action_return.format_result()} output={output!r}")

    _, stock = stock_tool()
    executor = ActionExecutor([stock])
    executor.register_hook(AnswerFirst("cached"))
    executor.register_hook(Later())
    assert call(executor, "stock", '{"item": "pear"}').format_result() == "cached"
    assert seen == ["later.after cached output='cached'"]


# --- after_action reads the output and replaces the result ----------------------------


class Look:
    def __init__(self) -> None:
        self.outputs: list[Any] = []

    def after_action(self, name: str, action_return: ActionReturn, context: Any, output: Any) -> None:
        self.outputs.append(output)


@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_after_action_with_an_output_parameter_receives_the_tools_return_value(
    executor_class: type[Executor],
) -> None:
    returned = {"item": "pear", "units": 3}
    _, stock = stock_tool(returned)
    look = Look()
    executor = executor_class([stock])
    executor.register_hook(look)
    call(executor, "stock", '{"item": "pear"}')
    assert look.outputs == [returned]
    assert look.outputs[0] is returned


class KeywordOnly:
    def __init__(self) -> None:
        self.outputs: list[Any] = []

    def after_action(
        self, name: str, action_return: ActionReturn, context: Any, *, output: Any = None
    ) -> None:
        self.outputs.append(output)


class AsyncLook:
    def __init__(self) -> None:
        self.outputs: list[Any] = []

    async def after_action(self, name: str, action_return: ActionReturn, context: Any, output: Any) -> None:
        await asyncio.sleep(0)
        self.outputs.append(output)


@pytest.mark.parametrize("hook_class", [KeywordOnly, AsyncLook], ids=["keyword-only", "async def"])
def test_output_may_be_keyword_only_or_awaited(hook_class: type[Any]) -> None:
    _, stock = stock_tool(["a", "b"])
    hook = hook_class()
    executor = ActionExecutor([stock])
    executor.register_hook(hook)
    call(executor, "stock", '{"item": "pear"}')
    assert hook.outputs == [["a", "b"]]


@pytest.mark.parametrize(
    ("command", "output"),
    [
        pytest.param('{"item": 1, "extra": 2}', None, id="argument error"),
        pytest.param('{"item": "boom"}', None, id="tool raised"),
        pytest.param('{"item": "pear"}', {"item": "pear", "units": 3}, id="tool returned"),
    ],
)
def test_output_is_none_when_the_record_was_made_from_no_value(command: str, output: Any) -> None:
    _, stock = stock_tool()
    look = Look()
    executor = ActionExecutor([stock])
    executor.register_hook(look)
    call(executor, "stock", command)
    assert look.outputs == [output]


def test_after_action_returning_a_value_replaces_the_result_for_later_hooks_and_the_caller() -> None:
    class Redact(Hook):
        def after_action(self, name: str, action_return: ActionReturn, context: Any, output: Any) -> Any:
            return {**output, "units": "***"}

    _, stock = stock_tool()
    look = Look()
    executor = ActionExecutor([stock])
    executor.register_hook(Redact())
    executor.register_hook(look)
    ret = call(executor, "stock", '{"item": "pear"}')
    assert ret == ActionReturn(
        args={"item": "pear"},
        type="stock",
        result=[{"type": "text", "content": '{"item": "pear", "units": "***"}'}],
    )
    assert look.outputs == [{"item": "pear", "units": "***"}]


def test_after_action_returning_a_value_turns_an_error_into_that_result() -> None:
    class Fallback(Hook):
        def after_action(self, name: str, action_return: ActionReturn, context: Any) -> Any:
            return "no stock data" if action_return.state != ActionStatusCode.SUCCESS else None

    _, stock = stock_tool()
    executor = ActionExecutor([stock])
    executor.register_hook(Fallback())
    assert call(executor, "stock", '{"item": "boom"}') == ActionReturn(
        args={"item": "boom"}, type="stock", result=[{"type": "text", "content": "no stock data"}]
    )


def test_a_hook_written_before_issue_20_keeps_working() -> None:
    log: list[str] = []

    class Audit(Hook):
        def before_action(self, name: str, args: dict[str, Any], context: Any) -> None:
            log.append(f"{name} {args}")

        def after_action(self, name: str, action_return: ActionReturn, context: Any) -> None:
            log.append(f"{name} -> {action_return.format_result()}")

    _, stock = stock_tool("3 units")
    executor = ActionExecutor([stock])
    executor.register_hook(Audit())
    assert call(executor, "stock", '{"item": "pear"}').format_result() == "3 units"
    assert log == ["stock {'item': 'pear'}", "stock -> 3 units"]


# --- a hook that raises fails closed --------------------------------------------------


class BrokenBefore(Hook):
    def before_action(self, name: str, args: dict[str, Any], context: Any) -> None:
        raise RuntimeError("audit log is full")


class BrokenAfter(Hook):
    def after_action(self, name: str, action_return: ActionReturn, context: Any) -> None:
        raise ValueError("cannot redact")


class Guard(Hook):
    def before_action(self, name: str, args: dict[str, Any], context: Any) -> None:
        raise ToolError("Ask for pears only.")


@pytest.mark.parametrize("executor_class", EXECUTORS)
@pytest.mark.parametrize(
    ("hook", "calls", "errmsg"),
    [
        pytest.param(
            BrokenBefore(),
            0,
            "stock did not run: the hook BrokenBefore.before_action failed: RuntimeError: audit log is full",
            id="before",
        ),
        pytest.param(
            BrokenAfter(),
            1,
            "the result of stock was withheld: the hook BrokenAfter.after_action failed: "
            "ValueError: cannot redact",
            id="after",
        ),
        pytest.param(Guard(), 0, "Ask for pears only.", id="ToolError"),
    ],
)
def test_a_raising_hook_fails_closed_and_the_record_names_it(
    executor_class: type[Executor], hook: Hook, calls: int, errmsg: str
) -> None:
    counter, stock = stock_tool()
    executor = executor_class([stock])
    executor.register_hook(hook)
    ret = call(executor, "stock", '{"item": "pear"}')
    assert counter.calls == calls
    assert ret == ActionReturn(
        args={"item": "pear"}, type="stock", errmsg=errmsg, state=ActionStatusCode.API_ERROR
    )


def test_a_failing_hook_is_logged_with_its_traceback_but_a_tool_error_is_not(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="lagent_like")
    _, stock = stock_tool()
    for hook in (BrokenBefore(), Guard()):
        executor = ActionExecutor([stock])
        executor.register_hook(hook)
        call(executor, "stock", '{"item": "pear"}')
    logged = [r for r in caplog.records if r.name == "lagent_like"]
    assert [(r.getMessage(), str(r.exc_info[1])) for r in logged if r.exc_info] == [
        ("stock did not run: the hook BrokenBefore.before_action failed", "audit log is full")
    ]


def test_an_approval_hook_whose_picker_raises_does_not_let_the_call_through() -> None:
    def needs_approval(name: str, args: dict[str, Any]) -> bool:
        raise KeyError("policy")

    counter, stock = stock_tool()
    executor = ActionExecutor([stock])
    executor.register_hook(ApprovalHook(needs_approval))
    ret = call(executor, "stock", '{"item": "pear"}')
    assert counter.calls == 0
    assert ret.errmsg == "stock did not run: the hook ApprovalHook.before_action failed: KeyError: 'policy'"


def test_after_hooks_after_a_failed_one_see_the_error_record() -> None:
    seen: list[Any] = []

    class Note(Hook):
        def after_action(self, name: str, action_return: ActionReturn, context: Any, output: Any) -> None:
            seen.append((action_return.state, output))

    _, stock = stock_tool()
    executor = ActionExecutor([stock])
    executor.register_hook(BrokenAfter())
    executor.register_hook(Note())
    call(executor, "stock", '{"item": "pear"}')
    assert seen == [(ActionStatusCode.API_ERROR, None)]


# --- signatures are checked when a hook is registered ---------------------------------


class TwoArgs:
    def before_action(self, name: str, args: dict[str, Any]) -> None: ...


class ExtraRequired:
    def after_action(self, name: str, action_return: ActionReturn, context: Any, extra: int) -> None: ...


class KeywordRequired:
    def before_action(self, name: str, args: dict[str, Any], context: Any, *, mode: str) -> None: ...


class OutputInThirdPlace:
    def after_action(self, name: str, action_return: ActionReturn, output: Any) -> None: ...


class NotCallable:
    before_action = "log it"

    def after_action(self, name: str, action_return: ActionReturn, context: Any) -> None: ...


@pytest.mark.parametrize(
    ("hook", "message"),
    [
        pytest.param(
            TwoArgs(),
            r"^TwoArgs\.before_action: cannot be called as before_action\(name, args, context\): "
            r"too many positional arguments$",
            id="too few parameters",
        ),
        pytest.param(
            ExtraRequired(),
            r"^ExtraRequired\.after_action: cannot be called as after_action\(name, action_return, context\): "
            r"missing a required argument: 'extra'$",
            id="an extra required parameter",
        ),
        pytest.param(
            KeywordRequired(),
            r"^KeywordRequired\.before_action: .*missing a required (keyword-only )?argument: 'mode'$",
            id="a required keyword-only parameter",
        ),
        pytest.param(
            OutputInThirdPlace(),
            r"^OutputInThirdPlace\.after_action: cannot be called as "
            r"after_action\(name, action_return, context, output=\.\.\.\): multiple values for argument 'output'$",
            id="output where the context goes",
        ),
        pytest.param(
            NotCallable(), r"^NotCallable\.before_action: must be a method, got str$", id="not callable"
        ),
    ],
)
def test_a_hook_whose_signature_does_not_fit_is_refused_at_registration(hook: Any, message: str) -> None:
    executor = ActionExecutor([stock_tool("3 units")[1]])
    with pytest.raises(ToolDefinitionError, match=message):
        executor.register_hook(hook)
    # Nothing was registered: the call runs as if the hook had never been given.
    assert call(executor, "stock", '{"item": "pear"}').format_result() == "3 units"


class StarArgs:
    def before_action(self, *args: Any) -> None: ...

    def after_action(self, *args: Any, **kwargs: Any) -> None: ...


class Defaults:
    def before_action(
        self, name: str, args: dict[str, Any], context: Any = None, verbose: bool = False
    ) -> None: ...


@pytest.mark.parametrize(
    ("hook", "outputs"),
    [
        pytest.param(StarArgs(), (False, False), id="*args: output only to a parameter named output"),
        pytest.param(Defaults(), (False, None), id="defaults"),
        pytest.param(KeywordOnly(), (None, True), id="keyword-only output"),
        pytest.param(Look(), (None, True), id="positional output"),
    ],
)
def test_hooks_that_can_take_the_arguments_are_accepted(hook: Any, outputs: tuple[Any, Any]) -> None:
    handle = HookList().add(hook)
    assert tuple(None if c is None else c.output for c in handle.calls) == outputs
