"""Serve one toolkit to a native function-calling model (OpenAI shape), offline.

The model's turn is recorded here as the ``tool_calls`` an OpenAI-compatible server
returns, including a wrong argument type, so the example runs without a server or a
key: the executor exports the tools, runs the calls and answers with one tool message
per call, errors written for the model.
"""

from __future__ import annotations

import json
from typing import Literal

from lagent_like import ActionExecutor, BaseAction, tool_api


class Weather(BaseAction):
    """Weather look-ups."""

    @tool_api
    def current(self, city: str, unit: Literal["C", "F"] = "C") -> dict[str, object]:
        """Current weather of a city.

        Args:
            city: city name, e.g. 'Paris'
            unit: temperature unit
        """
        return {"city": city, "temperature": 21 if unit == "C" else 70, "unit": unit}


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: first addend
        b: second addend
    """
    return a + b


def main() -> None:
    executor = ActionExecutor([Weather(), add])
    tools = executor.to_openai_tools()
    print("tools:", json.dumps([t["function"]["name"] for t in tools]))
    print("Weather__current parameters:", json.dumps(tools[0]["function"]["parameters"], sort_keys=True))

    # What a model sends back (arguments as JSON text, as the OpenAI API does).
    tool_calls = [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "Weather__current", "arguments": '{"city": "Oslo"}'},
        },
        {"id": "call_2", "type": "function", "function": {"name": "add", "arguments": '{"a": "2", "b": 40}'}},
        {"id": "call_3", "type": "function", "function": {"name": "add", "arguments": '{"a": 2.5}'}},
    ]
    for message in executor.run_tool_calls(tool_calls):
        print(f"{message['tool_call_id']}: {message['content']}")


if __name__ == "__main__":
    main()
