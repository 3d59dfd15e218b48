"""Types from typing-extensions work although the package reads ``typing`` on 3.10+."""

from __future__ import annotations

import typing_extensions as te

from lagent_like import ActionExecutor, ActionStatusCode, BaseAction, tool_api


class CompatPoint(te.TypedDict):
    x: int
    y: int


class CompatPlot(BaseAction):
    """Plotting."""

    @tool_api
    def mark(self, point: CompatPoint, style: te.Literal["dot", "cross"] = "dot") -> str:
        """Mark a point.

        Args:
            point: where
            style: how
        """
        return f"{point['x']},{point['y']} {style}"


def test_typing_extensions_typeddict_and_literal_are_described_and_checked() -> None:
    plot = CompatPlot()
    assert [(p["name"], p["type"]) for p in plot.description["api_list"][0]["parameters"]] == [
        ("point", "OBJECT"),
        ("style", "STRING"),
    ]
    assert plot.json_schema("mark")["properties"]["point"]["required"] == ["x", "y"]
    executor = ActionExecutor([plot])
    assert executor("CompatPlot.mark", '{"point": {"x": "1", "y": 2}}').format_result() == "1,2 dot"
    refused = executor("CompatPlot.mark", '{"point": {"x": 1}, "style": "line"}')
    assert refused.state == ActionStatusCode.ARGS_ERROR
    assert refused.errmsg == (
        "CompatPlot.mark: 'point' expected object (CompatPoint) with required keys ['y'], got object {'x': 1}; "
        "'style' expected one of ['dot', 'cross'], got string 'line'"
    )
