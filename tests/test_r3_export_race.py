"""An MCP export taken while another thread removes a tool is of the snapshot, never a KeyError."""

from __future__ import annotations

from typing import Any

import pytest

from lagent_like import ActionExecutor


def kept_tool(text: str) -> str:
    """Keep a text.

    Args:
        text: what to keep.
    """
    return text


def dropped_tool(text: str) -> str:
    """Drop a text.

    Args:
        text: what to drop.
    """
    return text


def test_a_tool_removed_while_the_mcp_export_is_built_leaves_it_out_of_the_next_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    executor = ActionExecutor([kept_tool, dropped_tool])
    rows_of = executor._flags_and_rows  # what a first export reads, a block of tools at a time
    removed = []

    def rows_then_removal(*args: Any) -> Any:
        found = rows_of(*args)
        executor.del_action("dropped_tool")  # as another thread would, between rows and entries
        removed.append(True)
        return found

    monkeypatch.setattr(executor, "_flags_and_rows", rows_then_removal)
    assert [tool["name"] for tool in executor.to_mcp_tools()] == ["kept_tool", "dropped_tool"]
    assert removed == [True]
    monkeypatch.setattr(executor, "_flags_and_rows", rows_of)
    assert [tool["name"] for tool in executor.to_mcp_tools()] == ["kept_tool"]
