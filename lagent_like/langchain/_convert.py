"""LangChain both ways: lagent_like APIs as LangChain tools, LangChain tools in an executor.

Agents built on LangChain take ``langchain_core.tools.BaseTool`` objects; toolkits
written for LangChain are ``BaseTool`` objects too. This module converts in both
directions, so that either side's tools run under the other with the same results:

* :func:`to_langchain_tools` gives every enabled API of an executor as a ``BaseTool``
  named by its function-calling alias, described by the executor's JSON Schema, run
  through the executor (arguments checked, policies and hooks applied); a failed call
  comes back as the executor's message for the model (LangChain's
  ``handle_tool_error``).
* :func:`from_langchain` makes a ``BaseTool`` a simple lagent_like tool, described by
  LangChain's own OpenAI conversion; ``ActionExecutor`` accepts LangChain tools
  directly and converts them this way. A tool whose arguments schema is a pydantic
  model brings its validator, which decides alone (nothing converts the arguments
  first, so the tool accepts exactly what a direct call accepts); other tools are
  checked against the converted schema.

``langchain-core`` is an optional extra (``pip install 'lagent-like[langchain]'``, from a
clone ``pip install '.[langchain]'``), imported only when a conversion runs.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable

from .._private.install import install_hint
from ..exceptions import ToolDefinitionError, ToolError
from ..runtime._messages import native_calls
from ..schema import ActionReturn, ActionStatusCode
from ..types._families import COERCE, Refusal, accept
from ..types._pydantic import is_model, model_check
from ..types._validation import validator_of

if TYPE_CHECKING:
    from ..executors._action_executor import ActionExecutor
    from ..spec._api_spec import ApiSpec
    from ..toolkits._schema_tool import SchemaTool

__all__ = ["from_langchain", "is_langchain_tool", "to_langchain_tools"]

_MISSING = f"LangChain support needs the 'langchain' extra: {install_hint('langchain')}"


def is_langchain_tool(item: Any) -> bool:
    """Whether ``item`` is a ``langchain_core`` ``BaseTool`` (checked without importing LangChain)."""
    return any(
        cls.__name__ == "BaseTool" and cls.__module__.startswith("langchain_core.tools")
        for cls in type(item).__mro__
    )


def _langchain() -> Any:
    try:
        import langchain_core.tools
    except ImportError as exc:  # pragma: no cover - exercised without the extra only
        raise ImportError(_MISSING) from exc
    return langchain_core.tools


def from_langchain(tool: Any) -> SchemaTool:
    """A LangChain ``BaseTool`` as a simple lagent_like tool of the same name.

    The tool is described by LangChain's own OpenAI conversion of it; a call's checked
    arguments go to ``tool.invoke`` as a tool call (``tool.ainvoke`` for a tool with
    only a coroutine), and a failure (a ``ToolException``, or an error the tool handled
    itself) becomes the call's ``API_ERROR`` with the tool's message. When the tool's
    arguments schema is a pydantic model, that model checks the arguments (as the
    tool itself would, with no conversion first) and a refusal is one ``ARGS_ERROR``
    naming every failing field path.

    Raises:
        ToolDefinitionError: ``tool`` is not a LangChain tool, or its schema cannot be honoured.
    """
    from langchain_core.utils.function_calling import convert_to_openai_tool

    tools = _langchain()
    if not isinstance(tool, tools.BaseTool):
        raise ToolDefinitionError(
            "from_langchain", [f"expected a LangChain BaseTool, got {type(tool).__name__}"]
        )
    definition = convert_to_openai_tool(tool)
    failure = tools.ToolException

    def call_of(arguments: dict[str, Any]) -> dict[str, Any]:
        # Invoked as a tool call, the tool answers with a ToolMessage whose status tells
        # a failure it handled itself (handle_tool_error) from a result.
        return {"type": "tool_call", "id": "lagent_like", "name": tool.name, "args": arguments}

    def answer(message: Any) -> Any:
        if getattr(message, "status", "success") == "error":
            raise ToolError(str(message.content))
        return getattr(message, "content", message)

    only_async = getattr(tool, "func", True) is None and getattr(tool, "coroutine", None) is not None
    if only_async:

        async def arun(**arguments: Any) -> Any:
            try:
                return answer(await tool.ainvoke(call_of(arguments)))
            except failure as exc:
                raise ToolError(str(exc)) from exc

        return _tool_of(definition, arun, tool)

    def run(**arguments: Any) -> Any:
        try:
            return answer(tool.invoke(call_of(arguments)))
        except failure as exc:
            raise ToolError(str(exc)) from exc

    return _tool_of(definition, run, tool)


def _tool_of(definition: dict[str, Any], run: Callable[..., Any], tool: Any) -> SchemaTool:
    """The :class:`SchemaTool` of ``definition`` run by ``run``, checked by ``tool``'s own model if any."""
    from ..toolkits._schema_tool import SchemaTool

    # The schema the model sees: without arguments LangChain injects (InjectedToolArg).
    model = getattr(tool, "tool_call_schema", None)
    if not is_model(model):
        return SchemaTool(definition, run)
    checked: SchemaTool = _validated_tool_class()(definition, run, model)
    return checked


@functools.cache
def _validated_tool_class() -> type:
    """The ``SchemaTool`` whose arguments a pydantic model checks (built once, on first use)."""
    from ..toolkits._base_action import BaseAction
    from ..toolkits._schema_tool import SchemaTool, schema_spec

    class ModelCheckedTool(SchemaTool, register=False):
        """A LangChain tool whose arguments schema (a pydantic model) checks its arguments."""

        def __init__(self, schema: dict[str, Any], handler: Callable[..., Any], model: Any) -> None:
            spec = _checked_by(schema_spec(schema, handler), model)
            self.__tool_handler__ = handler
            BaseAction.__init__(self, apis=spec)

    return ModelCheckedTool


def _checked_by(spec: ApiSpec, model: Any) -> ApiSpec:
    """``spec`` with its arguments checked by ``model`` alone: each parameter taken as sent."""
    unchecked = validator_of(accept)
    params = tuple(dataclasses.replace(p, check=unchecked, exact=None) for p in spec.params)
    return dataclasses.replace(spec, params=params, whole=_model_check(model))


def _model_check(model: Any) -> Callable[[Any], Any]:
    """The check of a call's whole arguments by ``model``: the arguments as sent, or a refusal."""
    validate = model_check(model, COERCE, top=True)

    def check(arguments: Any) -> Any:
        checked = validate(arguments)
        # LangChain validates them again as it calls the tool: what it receives is its own.
        return checked if type(checked) is Refusal else arguments

    return check


@functools.cache
def _tool_class() -> type:
    """The ``BaseTool`` subclass that runs an executor's API (built once, on first use)."""
    _langchain()  # a missing extra raises the ImportError that says what to install
    from langchain_core.tools import BaseTool, ToolException

    class LagentLikeTool(BaseTool):
        """One API of a lagent_like executor, as a LangChain tool."""

        executor: Any
        api_name: str
        handle_tool_error: Any = True

        def _run(self, *args: Any, **kwargs: Any) -> Any:
            kwargs.pop("run_manager", None)
            with native_calls():  # the model was given the aliases: messages name those
                ret = self.executor(self.api_name, kwargs)
            return _result(self.executor, ret, ToolException)

        async def _arun(self, *args: Any, **kwargs: Any) -> Any:
            kwargs.pop("run_manager", None)
            # An async executor's call is awaitable (asked, not imported: executors import this module).
            if inspect.iscoroutinefunction(type(self.executor).__call__):
                with native_calls():
                    ret = await self.executor(self.api_name, kwargs)
                return _result(self.executor, ret, ToolException)
            return await super()._arun(*args, **kwargs)

    return LagentLikeTool


def _result(executor: Any, ret: ActionReturn, failure: type[Exception]) -> str:
    if ret.state != ActionStatusCode.SUCCESS:
        executor._named_as_given([ret])
        raise failure(ret.errmsg or "")
    return ret.format_result()


def to_langchain_tools(executor: ActionExecutor) -> list[Any]:
    """The enabled APIs of ``executor`` as LangChain ``BaseTool`` objects.

    Each is named by its function-calling alias (``Tool__api``), described by the
    executor's description and JSON Schema, and runs its calls through ``executor``:
    the result is the record's text, a failed call the executor's message for the
    model (returned as the tool's output, LangChain's ``handle_tool_error``).

    Raises:
        ImportError: ``langchain-core`` is not installed.
    """
    cls = _tool_class()
    return [
        cls(
            name=tool["function"]["name"],
            description=tool["function"]["description"] or tool["function"]["name"],
            args_schema=tool["function"]["parameters"],
            executor=executor,
            api_name=tool["function"]["name"],
        )
        for tool in executor.to_openai_tools()
    ]
