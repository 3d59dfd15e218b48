"""``ActionReturn`` and its status codes."""

from __future__ import annotations

import json

import pytest

from lagent_like import ActionReturn, ActionStatusCode, ActionValidCode


@pytest.mark.parametrize(
    ("code", "value"),
    [
        pytest.param(ActionStatusCode.ING, 1, id="ING"),
        pytest.param(ActionStatusCode.SUCCESS, 0, id="SUCCESS"),
        pytest.param(ActionStatusCode.HTTP_ERROR, -1000, id="HTTP_ERROR"),
        pytest.param(ActionStatusCode.ARGS_ERROR, -1001, id="ARGS_ERROR"),
        pytest.param(ActionStatusCode.API_ERROR, -1002, id="API_ERROR"),
        pytest.param(ActionValidCode.FINISH, 1, id="FINISH"),
        pytest.param(ActionValidCode.OPEN, 0, id="OPEN"),
        pytest.param(ActionValidCode.CLOSED, -1, id="CLOSED"),
        pytest.param(ActionValidCode.INVALID, -2, id="INVALID"),
        pytest.param(ActionValidCode.ABSENT, -3, id="ABSENT"),
    ],
)
def test_status_and_valid_codes_have_lagent_values(code: int, value: int) -> None:
    assert code == value


def test_defaults() -> None:
    ret = ActionReturn()
    assert (ret.args, ret.url, ret.type, ret.result, ret.errmsg, ret.thought) == (None,) * 6
    assert ret.state is ActionStatusCode.SUCCESS
    assert ret.valid is ActionValidCode.OPEN


def test_format_result_joins_text_and_renders_other_items() -> None:
    ret = ActionReturn(
        result=[
            {"type": "text", "content": "line one"},
            {"type": "image", "content": "/tmp/plot.png"},
            {"type": "text", "content": "line two"},
        ]
    )
    assert ret.format_result() == "line one\n[image](/tmp/plot.png)\nline two"


def test_format_result_renders_only_the_result_as_lagent_does() -> None:
    assert ActionReturn(errmsg="bad", state=ActionStatusCode.API_ERROR).format_result() == ""
    assert ActionReturn().format_result() == ""


def test_round_trip_through_json() -> None:
    ret = ActionReturn(
        args={"city": "Zürich"},
        url="https://example.invalid",
        type="Weather",
        result=[{"type": "text", "content": "sunny"}],
        errmsg=None,
        state=ActionStatusCode.ARGS_ERROR,
        thought="look it up",
        valid=ActionValidCode.INVALID,
    )
    data = json.loads(json.dumps(ret.to_dict()))
    assert data["state"] == -1001 and data["valid"] == -2
    back = ActionReturn.from_dict(data)
    assert back == ret
    assert back.state is ActionStatusCode.ARGS_ERROR
    assert back.valid is ActionValidCode.INVALID


def test_extension_codes_survive_as_ints() -> None:
    back = ActionReturn.from_dict({"state": -1003, "valid": 7})
    assert (back.state, back.valid) == (-1003, 7)


def test_from_dict_refuses_unknown_keys() -> None:
    with pytest.raises(TypeError, match=r"unknown keys \['colour'\]"):
        ActionReturn.from_dict({"colour": "red"})
