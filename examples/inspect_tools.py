"""Look at tools and an agent run in the web inspector (needs ``pip install 'lagent-like[web]'``).

Run ``python examples/inspect_tools.py --serve`` and open the printed URL: the Tools tab
shows what a model is told about each API and lets you call it; the Traces tab shows
the recorded ReAct run below turn by turn. Without ``--serve`` the script makes one
call through the page's API, prints what came back, and stops.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

import requests
from typing_extensions import Literal

from lagent_like import ActionExecutor
from lagent_like.agents import AgentResult, ReAct


def forecast(city: str, days: int = 1, unit: Literal["C", "F"] = "C") -> str:
    """Forecast the weather in a city.

    Args:
        city: the city name
        days: how many days ahead
        unit: the temperature unit
    """
    return f"{city}: mild for {days} day(s), 18 {unit}"


def recorded_run(executor: ActionExecutor) -> AgentResult:
    """A ReAct run with scripted replies (a real model would write these), one unreadable."""
    replies = iter(
        [
            "Thought: I need the forecast.\nAction: forecast\nAction Input: {'city': 'Oslo', 'days': 2,}",
            "Thought: done\nAction Input: {}",
            "Final Answer: Two mild days in Oslo.",
        ]
    )
    return ReAct(lambda messages: next(replies), executor).run("Weather in Oslo for two days?")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help="keep serving until Ctrl-C")
    args = parser.parse_args()
    try:
        found = importlib.util.find_spec("starlette") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        sys.exit(f"{Path(__file__).name} needs the 'web' extra: pip install 'lagent-like[web]'")
    from lagent_like.web import InspectorServer

    executor = ActionExecutor([forecast])
    trace = Path(tempfile.mkdtemp()) / "oslo.json"
    recorded_run(executor).save(trace)  # what `lagent-like inspect --trace oslo.json` reads

    server = InspectorServer(executor, traces=[str(trace)]).start()
    print(f"open {server.url}")
    if args.serve:
        server.wait()
        return
    headers = {"Authorization": f"Bearer {server.token}"}
    answer = requests.post(
        f"{server.base_url}/api/call",
        json={"name": "forecast", "arguments": "{'city': 'Paris', unit: 'F'}"},
        headers=headers,
        timeout=10,
    ).json()
    print("state:", answer["record"]["state"], "result:", answer["items"][0]["content"])
    turns = requests.get(f"{server.base_url}/api/traces/1", headers=headers, timeout=10).json()["turns"]
    print("trace turns:", [turn["outcome"] for turn in turns])
    server.stop()


if __name__ == "__main__":
    main()
