"""Run a batch of slow tool calls on a local Ray with ``RayActionExecutor``.

``Geocoder`` stands for a slow web API (each call sleeps 100 ms); it gets 2 replicas
(Ray actors) of 8 slots each, so a batch of 32 calls takes about 2 rounds of 100 ms
instead of 3.2 s. ``Notebook`` keeps notes per session in its ``ToolContext`` state:
calls of one session always reach the same replica, so the session finds its notes.
A bad call is answered in this process, before anything is sent to Ray.

Needs ``pip install 'lagent-like[ray]'``. Ray starts locally (2 CPUs, no dashboard)
and is shut down at the end; starting it takes most of the run time.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from lagent_like import BaseAction, ToolContext, tool_api
from lagent_like.ray.executor import RayActionExecutor

CALLS = 32


class Geocoder(BaseAction):
    """Looks places up (here: pretends to, slowly)."""

    def run(self, place: str) -> str:
        """Coordinates of a place.

        Args:
            place: a city or an address
        """
        time.sleep(0.1)
        return f"{place}: 48.85, 2.35"


class Notebook(BaseAction):
    """Notes that a session keeps between calls."""

    @tool_api
    def write(self, text: str, context: ToolContext) -> str:
        """Keep a note.

        Args:
            text: the note
        """
        context.state.setdefault("notes", []).append(text)
        return f"{len(context.state['notes'])} note(s) kept"

    @tool_api
    def read(self, context: ToolContext) -> list[str]:
        """All notes of this session."""
        return list(context.state.get("notes", []))


async def main() -> None:
    """Run the batch, the session and the bad call, and print what came back."""
    async with RayActionExecutor(
        [Geocoder(), Notebook()],
        replicas={"Geocoder": 2},
        max_concurrency=8,
        ray_init_kwargs={"log_to_driver": False},
    ) as executor:
        # The first calls wait for the actors to start; keep that out of the timing.
        await executor.batch([("Geocoder", {"place": "warm-up"})] * 2)

        calls = [("Geocoder", {"place": f"place {i}"}) for i in range(CALLS)]
        start = time.perf_counter()
        records = await executor.batch(calls)
        elapsed = time.perf_counter() - start
        print(f"{CALLS} calls of 100 ms on 2 x 8 slots: {elapsed:.2f} s (one by one: {CALLS * 0.1:.1f} s)")
        print("first:", records[0].format_result())
        print("last:", records[-1].format_result())

        for text in ("buy milk", "call Ana"):
            await executor("Notebook.write", {"text": text}, session_id="alice")
        notes = await executor("Notebook.read", {}, session_id="alice")
        print("alice's notes:", notes.format_result())
        other = await executor("Notebook.read", {}, session_id="bob")
        print("bob's notes:", other.format_result())

        bad = await executor("Geocoder", '{"plcae": "Paris"}')
        print("bad call:", bad.errmsg)


def _require_extra() -> None:
    """End with one line naming the extra to install, rather than a traceback."""
    import importlib.util

    try:
        found = importlib.util.find_spec("ray") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        sys.exit(f"{Path(__file__).name} needs the 'ray' extra: pip install 'lagent-like[ray]'")


if __name__ == "__main__":
    _require_extra()
    asyncio.run(main())
