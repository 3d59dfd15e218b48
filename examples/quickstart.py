"""Quick start: write a toolkit and a simple tool, describe them, run a model's calls.

Run ``python examples/quickstart.py``. It needs no network and no API key: the
``Weather`` toolkit returns canned data. The script prints the tool descriptions an
agent puts into its system prompt, then runs three calls the way a model would write
them (a clean one, a dirty one, one naming a tool that does not exist) and prints what
comes back: the ``state`` and ``valid`` codes, then the observation for the model.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from lagent_like import ActionExecutor, ActionReturn, ActionStatusCode, ActionValidCode, BaseAction, tool_api

#: Canned observations, in degrees Celsius.
_CITIES = {"Paris": (21, "sunny"), "Oslo": (9, "rain")}


class Weather(BaseAction):
    """Weather look-ups (canned data, no network)."""

    @tool_api
    def current(self, city: str, unit: Literal["C", "F"] = "C") -> dict[str, Any]:
        """Current weather of a city.

        Args:
            city: city name, e.g. 'Paris'
            unit: temperature unit
        """
        celsius, sky = _CITIES.get(city, (15, "cloudy"))
        temperature = celsius if unit == "C" else round(celsius * 9 / 5 + 32)
        return {"city": city, "temperature": temperature, "unit": unit, "sky": sky}


class Bold(BaseAction):
    """Markdown emphasis."""

    def run(self, text: str) -> str:
        """Make text bold.

        Args:
            text: the text to emphasise
        """
        return f"**{text}**"


def show(label: str, ret: ActionReturn) -> None:
    """Print one call's outcome: the codes, then the result or the error message."""
    state, valid = ActionStatusCode(ret.state).name, ActionValidCode(ret.valid).name
    observation = ret.format_result() if ret.state == ActionStatusCode.SUCCESS else ret.errmsg
    print(f"{label}: state={int(ret.state)} ({state}) valid={int(ret.valid)} ({valid})")
    print(f"  {observation}")


def main() -> None:
    """Build the executor, print the descriptions and run three calls."""
    executor = ActionExecutor(actions=[Weather(), Bold()])

    print("Tools for the system prompt:")
    print(json.dumps(executor.get_actions_info(), indent=2, ensure_ascii=False))

    show("valid", executor("Weather.current", '{"city": "Paris"}'))
    dirty = "Sure! Here are the arguments:\n```json\n{'city': 'Oslo', 'unit': 'F',}\n```"
    show("dirty JSON", executor("Weather.current", dirty))
    show("unknown tool", executor("WebSearch", '{"query": "weather in Paris"}'))


if __name__ == "__main__":
    main()
