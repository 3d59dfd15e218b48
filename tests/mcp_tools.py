"""Tools served over MCP by the tests (``python -m lagent_like -m mcp_tools serve-mcp``).

They cover what must survive the MCP round trip: a toolkit and a simple tool, enums,
nested objects (``$defs``/``$ref``), optional parameters with defaults, descriptions,
and tools that fail.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any, List, Optional

from typing_extensions import Literal, TypedDict

from lagent_like import BaseAction, SchemaTool, ToolContext, ToolError, tool_api


class Point(TypedDict):
    """A point on the plane."""

    x: int
    y: int


@dataclasses.dataclass
class Box:
    """A rectangle's size."""

    width: float
    height: float


class McpCalc(BaseAction):
    """Arithmetic for tests."""

    @tool_api
    def add(self, a: int, b: int = 1) -> int:
        """Add two integers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b

    @tool_api
    def scale(self, point: Point, box: Box, factor: Optional[float] = None) -> dict:  # type: ignore[type-arg]
        """Scale a point and a box.

        Args:
            point: the point to scale
            box: the box to scale
            factor: the scale factor (default 2)
        """
        f = 2.0 if factor is None else factor
        return {"x": point["x"] * f, "y": point["y"] * f, "area": box.width * box.height * f * f}

    @tool_api
    def fail(self, message: str) -> str:
        """Always fail with the given message.

        Args:
            message: what to say
        """
        raise ToolError(message)

    @tool_api
    def pid(self) -> int:
        """The server's process id."""
        return os.getpid()


class McpEcho(BaseAction):
    """Echo text in a chosen case."""

    def run(
        self, text: str, case: Literal["upper", "lower"] = "upper", tags: Optional[List[str]] = None
    ) -> str:
        """Echo text in a chosen case.

        Args:
            text: the text to echo
            case: the letter case of the answer
            tags: labels appended in brackets
        """
        out = text.upper() if case == "upper" else text.lower()
        return out + "".join(f" [{t}]" for t in tags or [])


#: A schema no Python signature produces: ``$defs`` with a local ``$ref``, enums, nesting.
ROUTE_SCHEMA = {
    "name": "McpRoute",
    "description": "Plan a route between two places.",
    "parameters": {
        "type": "object",
        "$defs": {
            "Place": {
                "type": "object",
                "description": "a named place",
                "properties": {
                    "name": {"type": "string", "description": "the place's name"},
                    "kind": {"type": "string", "enum": ["city", "port", "airport"]},
                },
                "required": ["name"],
                "additionalProperties": False,
            }
        },
        "properties": {
            "origin": {"$ref": "#/$defs/Place", "description": "where to start"},
            "destination": {"$ref": "#/$defs/Place"},
            "mode": {"type": "string", "enum": ["car", "train"], "description": "how to travel"},
        },
        "required": ["origin", "destination"],
        "additionalProperties": False,
    },
}


def _route(origin: dict[str, Any], destination: dict[str, Any], mode: str = "car") -> str:
    return f"{origin['name']} -> {destination['name']} by {mode}"


class McpRoute(SchemaTool):
    """A schema-defined tool the CLI can build without arguments."""

    def __init__(self) -> None:
        super().__init__(ROUTE_SCHEMA, _route)


class McpSlow(BaseAction):
    """Sleep, for timeout tests."""

    def run(self, seconds: float) -> str:
        """Sleep, then say so.

        Args:
            seconds: how long to sleep
        """
        time.sleep(seconds)
        return f"slept {seconds}"


class McpCounter(BaseAction):
    """Count calls per session."""

    def run(self, context: ToolContext) -> str:
        """Count this session's calls."""
        context.state["n"] = context.state.get("n", 0) + 1
        return f"{context.session_id} call {context.state['n']} (request {context.call_id})"


class McpSurrogate(BaseAction):
    """Answer with text that is not valid Unicode."""

    def run(self, text: str) -> str:
        """Wrap the text in unpaired surrogates.

        Args:
            text: the text to wrap
        """
        return "\ud800" + text + "\udfff"


class McpMemo(BaseAction):
    """Remember a value per session."""

    def run(self, context: ToolContext, value: Optional[str] = None) -> str:
        """Store a value when one is given; answer with the stored one.

        Args:
            value: the value to store
        """
        if value is not None:
            context.state["value"] = value
        return str(context.state.get("value"))


class Area(TypedDict):
    """An area and its unit."""

    value: float
    unit: str


class McpShapes(BaseAction):
    """Geometry with MCP metadata: titles, hints and structured results."""

    @tool_api(title="Rectangle area", annotations={"readOnlyHint": True, "idempotentHint": True})
    def area(self, width: float, height: float) -> Area:
        """The area of a rectangle.

        Args:
            width: the width in metres
            height: the height in metres
        """
        return {"value": width * height, "unit": "m2"}

    @tool_api(annotations={"destructiveHint": False, "openWorldHint": False})
    def box(self, side: float) -> Box:
        """A square box.

        Args:
            side: the side in metres
        """
        return Box(width=side, height=side)

    @tool_api
    def label(self, text: str) -> str:
        """A plain label.

        Args:
            text: the label
        """
        return text


class McpScript(BaseAction):
    """Pretends to run code: a tool that says it executes what it is given."""

    runs_code = True

    def run(self, code: str) -> str:
        """Run code (here: only echo it).

        Args:
            code: the code to run
        """
        return f"would run {code!r}"


# -- helpers of the tests (not tools) ------------------------------------------------

#: The bearer token the tests' HTTP servers require.
TOKEN = "test-token-0123456789"
