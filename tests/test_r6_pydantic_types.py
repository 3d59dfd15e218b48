"""Pydantic's own types as parameters (``HttpUrl``, ``SecretStr``, ``AnyUrl``...) are read by pydantic.

The peers built on pydantic (the OpenAI Agents SDK, LangChain) take a URL parameter
from its JSON string; here ``HttpUrl`` or ``SecretStr`` refused every value (an
``isinstance`` check) while the export described it as taking anything. Such a class
(any class with pydantic's ``__get_pydantic_core_schema__`` hook) is now described by
pydantic's schema and checked by pydantic, as a model is.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pydantic = pytest.importorskip("pydantic", reason="needs pydantic: pip install pydantic")

from _annotated import quiet_executor  # noqa: E402

from lagent_like import ActionExecutor, ActionStatusCode  # noqa: E402


def executor_for(annotation: Any) -> ActionExecutor:
    return quiet_executor(annotation, lambda v: f"{type(v).__name__} {v}")


@pytest.mark.parametrize(
    ("annotation", "sent", "received"),
    [
        pytest.param(pydantic.HttpUrl, "https://example.org", "HttpUrl https://example.org/", id="HttpUrl"),
        pytest.param(pydantic.SecretStr, "hunter2", "SecretStr **********", id="SecretStr"),
        pytest.param(
            list[pydantic.AnyUrl], ["ftp://a.b"], "list [AnyUrl('ftp://a.b/')]", id="list-of-AnyUrl"
        ),
    ],
)
def test_a_pydantic_type_parameter_is_read_from_its_json_form(
    annotation: Any, sent: Any, received: str
) -> None:
    record = executor_for(annotation)("take", json.dumps({"v": sent}))
    assert record.state == ActionStatusCode.SUCCESS, record.errmsg
    assert record.result[0]["content"] == received


def test_a_pydantic_type_is_described_by_pydantic_and_refuses_as_pydantic() -> None:
    executor = executor_for(pydantic.HttpUrl)
    schema = executor.to_openai_tools()[0]["function"]["parameters"]["properties"]["v"]
    assert schema == {
        "format": "uri",
        "maxLength": 2083,
        "minLength": 1,
        "type": "string",
        "description": "the value.",
    }
    assert executor.get_actions_info()[0]["parameters"][0]["type"] == "STRING"
    record = executor("take", json.dumps({"v": "nope"}))
    assert record.state == ActionStatusCode.ARGS_ERROR
    assert (
        record.errmsg
        == "take: 'v' input should be a valid URL, relative URL without a base (got string 'nope')"
    )


def test_a_secret_does_not_reach_the_record() -> None:
    record = executor_for(pydantic.SecretStr)("take", json.dumps({"v": "hunter2"}))
    assert record.args == {"v": "**********"}
