"""MCP round trip: serve a toolkit over MCP, then use it from another process's executor.

Run ``python examples/mcp_roundtrip.py`` (needs ``pip install 'lagent-like[mcp]'``).
The script plays both sides. Started with ``--serve`` it is an MCP server offering the
``Units`` toolkit over stdio, as MCP hosts launch servers. Started plainly, it launches
itself with ``--serve`` through :class:`~lagent_like.mcp.MCPToolkit`, shows the tools
as a model would see them and the MCP metadata kept with them (a title and
read-only hints declared with ``@tool_api``), and runs three calls: a good one, one the local schema
check refuses before anything is sent, and one the remote tool rejects.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Literal

from lagent_like import ActionExecutor, ActionStatusCode, BaseAction, ToolError, tool_api

_FACTORS = {"m": 1.0, "km": 1000.0, "mi": 1609.344, "ft": 0.3048}


class Units(BaseAction):
    """Unit conversions."""

    @tool_api(title="Length converter", annotations={"readOnlyHint": True, "idempotentHint": True})
    def length(
        self, value: float, source: Literal["m", "km", "mi", "ft"], target: Literal["m", "km", "mi", "ft"]
    ) -> str:
        """Convert a length between units.

        Args:
            value: the length to convert
            source: the unit of ``value``
            target: the unit wanted
        """
        return f"{value * _FACTORS[source] / _FACTORS[target]:.4g} {target}"

    @tool_api
    def temperature(self, celsius: float) -> str:
        """Convert Celsius to Fahrenheit.

        Args:
            celsius: degrees Celsius, at least absolute zero
        """
        if celsius < -273.15:
            raise ToolError(f"{celsius} C is below absolute zero")
        return f"{celsius * 9 / 5 + 32:.1f} F"


def serve() -> None:
    """The server side: offer ``Units`` over MCP on stdin/stdout."""
    from lagent_like.mcp import serve_mcp

    serve_mcp(ActionExecutor([Units()]))


def main() -> None:
    """The client side: start the server, list its tools, call them."""
    from lagent_like.mcp import MCPToolkit

    with MCPToolkit(sys.executable, [__file__, "--serve"], name="Remote") as remote:
        executor = ActionExecutor([remote])
        print("Tools offered to the model (OpenAI format):")
        for tool in executor.to_openai_tools():
            function = tool["function"]
            print(f"  {function['name']}: {function['description']}")
            print(f"    parameters: {json.dumps(function['parameters'])}")
        print("\nMCP metadata the toolkit keeps (served again as it came):")
        for name in remote.tool_names:
            print(f"  {name}: {json.dumps(remote.mcp_extras(name))}")
        calls = [
            ("Remote.Units__length", '{"value": 5, "source": "km", "target": "mi"}'),
            ("Remote.Units__length", '{"value": 5, "source": "km", "target": "parsec"}'),
            ("Remote.Units__temperature", '{"celsius": -300}'),
        ]
        for name, arguments in calls:
            ret = executor(name, arguments)
            state = ActionStatusCode(ret.state).name
            print(f"\n{name} {arguments}\n  state: {state}\n  observation: {ret.format_result()}")


def _require_extra() -> None:
    """End with one line naming the extra to install, rather than a traceback."""
    import importlib.util

    try:
        found = importlib.util.find_spec("mcp") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        sys.exit(f"{Path(__file__).name} needs the 'mcp' extra: pip install 'lagent-like[mcp]'")


if __name__ == "__main__":
    _require_extra()
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        main()
