"""``MCPToolkit`` against a server written with the SDK's own ``Server`` that misbehaves.

The server (``tests/mcp_sdk_server.py``) returns structured output breaking its own
schema, adds a tool at run time (``list_changed``), dies in the middle of a call and
paginates its tool list; each test starts it and stops it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

from lagent_like import ActionExecutor, ActionStatusCode
from lagent_like.mcp import MCPToolkit

SERVER = Path(__file__).resolve().parent / "mcp_sdk_server.py"
LIMIT = 30


@pytest.fixture
def toolkit(tmp_path: Path) -> Iterator[MCPToolkit]:
    errlog = (tmp_path / "stderr.txt").open("w")
    try:
        with MCPToolkit(
            sys.executable,
            [str(SERVER), str(tmp_path / "generation")],
            name="Odd",
            timeout=LIMIT,
            errlog=errlog,
        ) as made:
            yield made
    finally:
        errlog.close()


def test_toolkit_reads_every_page_of_the_tool_list(toolkit: MCPToolkit) -> None:
    assert toolkit.tool_names == ["count", "broken", "grow", "die", "stats", "gen1"]


def test_bad_structured_output_is_an_error_record_and_keeps_the_connection(toolkit: MCPToolkit) -> None:
    executor = ActionExecutor([toolkit])
    before = executor("Odd.stats", "{}").format_result()
    bad = executor("Odd.broken", "{}")
    good = executor("Odd.count", '{"text": "one two three"}')
    after = executor("Odd.stats", "{}").format_result()
    assert (bad.state, bad.errmsg) == (
        ActionStatusCode.API_ERROR,
        "the MCP server's structured result breaks the tool's output schema at 'n': 'many' is not of type 'integer'",
    )
    assert (good.state, good.format_result()) == (ActionStatusCode.SUCCESS, '{"words": 3}')
    # The same server process answered throughout, and listed its tools only for the first connection.
    assert (before, after, toolkit.tool_names[-1]) == ("lists 3", "lists 3", "gen1")


def test_tools_added_at_run_time_are_offered(toolkit: MCPToolkit) -> None:
    executor = ActionExecutor([toolkit])
    toolkit.on_tools_changed(executor.refresh)
    grown = executor("Odd.grow", "{}")
    deadline = time.monotonic() + LIMIT
    while "extra" not in toolkit.tool_names and time.monotonic() < deadline:
        time.sleep(0.02)
    extra = executor("Odd.extra", "{}")
    assert (grown.format_result(), toolkit.tool_names[-1]) == ("grown", "extra")
    assert (extra.state, extra.format_result()) == (ActionStatusCode.SUCCESS, "extra")
    assert "Odd.extra" in executor.api_names()


def test_a_server_dying_mid_call_is_reported_then_reconnected_and_relisted(toolkit: MCPToolkit) -> None:
    executor = ActionExecutor([toolkit])
    changes: list[list[str]] = []
    toolkit.on_tools_changed(lambda: changes.append(toolkit.tool_names))
    toolkit.on_tools_changed(executor.refresh)
    died = executor("Odd.die", "{}")
    counts = [executor("Odd.count", '{"text": "a b"}').format_result() for _ in range(3)]
    stats = executor("Odd.stats", "{}").format_result()
    gen2 = executor("Odd.gen2", "{}")
    gen1 = executor("Odd.gen1", "{}")
    assert (died.state, died.errmsg) == (
        ActionStatusCode.HTTP_ERROR,
        f"the connection to the MCP server {sys.executable} {SERVER} {toolkit._args[1]} was lost",
    )
    assert counts == ['{"words": 2}'] * 3
    # One listing (three pages) on reconnecting, none per call.
    assert stats == "lists 3"
    assert changes == [["count", "broken", "grow", "die", "stats", "gen2"]]
    assert (gen2.state, gen2.format_result()) == (ActionStatusCode.SUCCESS, "gen2")
    assert (gen1.state, gen1.errmsg) == (
        ActionStatusCode.API_ERROR,
        "Odd has no API 'gen1'. Did you mean 'gen2'? Call one of: Odd.count, Odd.broken, Odd.grow, Odd.die, "
        "Odd.stats, Odd.gen2",
    )
