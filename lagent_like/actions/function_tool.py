"""``FunctionTool``: a plain function as a simple tool.

An executor accepts functions next to actions (``ActionExecutor([Calc(), my_function])``),
as the OpenAI Agents SDK and Google ADK do. Each becomes a simple tool named after the
function, described from its signature and docstring exactly as ``tool_api`` would,
without changing the function itself.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

from ..spec.describe import DescribeOptions, build_api_spec
from .base_action import BaseAction, api_specs
from .parser import BaseParser, JsonParser
from .tool_api import api_spec_of

__all__ = ["FunctionTool"]


class FunctionTool(BaseAction, register=False):
    """A simple tool that calls one function.

    Args:
        func: a ``@tool_api`` function or any function with type hints; sync or async.
        name: the tool name; defaults to the API name (the function's name).
        parser: the parser that reads a model's arguments.
        enable: whether the executor offers and runs this tool.

    Raises:
        ToolDefinitionError: the function cannot be described.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        name: Optional[str] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
    ) -> None:
        spec = api_spec_of(func) or build_api_spec(func, DescribeOptions())
        if name is not None and name != spec.name:
            spec = dataclasses.replace(spec, name=name)
        super().__init__(parser=parser, enable=enable, apis=spec)

    @property
    def function(self) -> Callable[..., Any]:
        """The function this tool calls."""
        func = api_specs(self)["run"].func
        assert func is not None  # a FunctionTool is made from one
        return func
