"""``FunctionTool``: a plain function as a simple tool.

An executor accepts functions next to actions (``ActionExecutor([Calc(), my_function])``),
as the OpenAI Agents SDK and Google ADK do. Each becomes a simple tool named after the
function, described from its signature and docstring exactly as ``tool_api`` would,
without changing the function itself.

``FunctionTool`` is also the factory those libraries and LiveKit offer for closures
(``FunctionTool(make_setter("email"), name="set_email", description="...")``), and,
as in Google ADK, its runtime settings are attributes (``tool.timeout = 5.0``): a
``FunctionTool`` has no attributes of its own for them to clash with.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

from ..parsers import BaseParser, JsonParser
from ..runtime.settings import UNSET
from ..spec._describe import DescribeOptions, build_api_spec
from ._base_action import BaseAction, api_specs, settings_of
from ._tool_api import api_spec_of
from ._tool_state import Enable, settings_changed

__all__ = ["FunctionTool"]


class _Setting:
    """A runtime setting read and set as an attribute, kept in the tool's ``ToolSettings``.

    Setting it replaces ``__tool_settings__`` (checked as ``ToolSettings`` checks it) and
    has every executor holding the tool re-read it, so that it is honoured at once.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, tool: Optional[BaseAction], owner: type) -> Any:
        if tool is None:
            return self
        return getattr(settings_of(tool), self.name)

    def __set__(self, tool: BaseAction, value: Any) -> None:
        tool.__tool_settings__ = dataclasses.replace(settings_of(tool), **{self.name: value})
        settings_changed(tool)

    def __delete__(self, tool: BaseAction) -> None:
        self.__set__(tool, True if self.name == "blocking" else UNSET)  # back to the executor's


class FunctionTool(BaseAction, register=False):
    """A simple tool that calls one function.

    Its runtime settings are attributes as well as keywords: ``tool.timeout = 5.0``
    (seconds; ``None`` for no limit), ``tool.retry``, ``tool.circuit_breaker``,
    ``tool.blocking``, ``tool.validation``. A setting not set reads
    :data:`~lagent_like.runtime.settings.UNSET` (the executor's); ``del tool.timeout``
    returns it to the executor. Executors holding the tool pick a change up at once.

    Args:
        func: a ``@tool_api`` function or any function with type hints; sync or async.
        name: the tool name; defaults to the API name (the function's name).
        parser: the parser that reads a model's arguments.
        enable: whether the executor offers and runs this tool.
        description: what the tool does, for the model; defaults to the docstring's.
        **settings: runtime settings, as ``BaseAction`` takes them: ``timeout``,
            ``retry``, ``circuit_breaker``, ``blocking``, ``validation``.

    Raises:
        ToolDefinitionError: the function cannot be described, or a setting is invalid.
    """

    timeout = _Setting("timeout")
    retry = _Setting("retry")
    circuit_breaker = _Setting("circuit_breaker")
    blocking = _Setting("blocking")
    validation = _Setting("validation")

    def __init__(
        self,
        func: Callable[..., Any],
        name: Optional[str] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        *,
        description: Optional[str] = None,
        **settings: Any,
    ) -> None:
        spec = api_spec_of(func) or build_api_spec(func, DescribeOptions(name=name))
        changes: dict[str, Any] = {}
        if name is not None and name != spec.name:
            changes["name"] = name
        if description is not None and description != spec.summary:
            changes["summary"] = description
        if changes:
            spec = dataclasses.replace(spec, **changes)
        super().__init__(parser=parser, enable=enable, apis=spec, **settings)

    @property
    def function(self) -> Callable[..., Any]:
        """The function this tool calls."""
        func = api_specs(self)["run"].func
        assert func is not None  # a FunctionTool is made from one
        return func
