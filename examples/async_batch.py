"""Run one turn's tool calls concurrently with an ``AsyncActionExecutor``, offline.

A model asked for five calls at once. The toolkit's APIs stand for network calls:
``weather`` answers quickly, ``flights`` hangs past the executor's timeout, and
``hotels`` is rate limited, raising ``TransientToolError`` twice before it answers. One
call also has a bad argument. ``await executor.batch(calls)`` runs all five at the same
time, applies the timeout and the retry policy to each, and returns the records in the
order of the calls: the turn takes about as long as its slowest call, not the sum.
"""

from __future__ import annotations

import asyncio
import json
import time

from lagent_like import AsyncActionExecutor, BaseAction, RetryPolicy, TransientToolError, tool_api

TIMEOUT = 0.3  # seconds the executor waits for any one call


class Travel(BaseAction):
    """Travel planning: weather, flights and hotels."""

    def __init__(self) -> None:
        super().__init__()
        self.hotel_failures = 2  # the hotel service refuses the first two requests

    @tool_api
    async def weather(self, city: str) -> str:
        """Today's weather in a city.

        Args:
            city: city name, e.g. 'Lisbon'
        """
        await asyncio.sleep(0.01)
        return f"{city}: 24 C, sunny"

    @tool_api
    async def flights(self, origin: str, destination: str) -> str:
        """Flights between two cities.

        Args:
            origin: departure city
            destination: arrival city
        """
        await asyncio.sleep(10)  # a search that never comes back in time
        return f"{origin} -> {destination}: 3 flights"

    @tool_api
    async def hotels(self, city: str, nights: int = 1) -> str:
        """Hotels with free rooms.

        Args:
            city: city name
            nights: how many nights
        """
        await asyncio.sleep(0.01)
        if self.hotel_failures > 0:
            self.hotel_failures -= 1
            raise TransientToolError("hotel service busy; try again shortly")
        return f"{city}: 2 hotels free for {nights} night(s)"


async def main() -> None:
    executor = AsyncActionExecutor(
        [Travel()],
        timeout=TIMEOUT,
        # Retry transient errors (TransientToolError, ConnectionError...) up to 3 attempts
        # in all; a call that timed out is not tried again, to keep the turn short.
        retry=RetryPolicy(max_attempts=3, base_delay=0.05, retry_timeouts=False),
    )
    calls = [
        ("Travel.weather", '{"city": "Lisbon"}'),
        ("Travel.flights", '{"origin": "Paris", "destination": "Lisbon"}'),
        ("Travel.hotels", '{"city": "Lisbon", "nights": "3"}'),
        ("Travel.weather", '{"city": "Porto"}'),
        ("Travel.weather", '{"town": "Faro"}'),  # a wrong parameter name
    ]

    start = time.perf_counter()
    records = await executor.batch(calls)
    elapsed = time.perf_counter() - start

    for (name, _), record in zip(calls, records):
        state = getattr(record.state, "name", record.state)
        text = record.format_result() if record.result else record.errmsg
        print(f"{name}: {state} attempts={record.attempts} {text}")

    # Each record carries the arguments it was called with: check them against the calls.
    in_order = [json.loads(command).get("city") for _, command in calls] == [
        (record.args or {}).get("city") for record in records
    ]
    print(f"all {len(calls)} calls returned in input order" if in_order else "calls returned out of order")
    # The calls overlap: the turn lasts about as long as its slowest call, cut at TIMEOUT.
    print("wall time under 1 s" if elapsed < 1.0 else f"wall time {elapsed:.1f} s, expected under 1 s")


if __name__ == "__main__":
    asyncio.run(main())
