"""Schema tools on a par with function tools: JSON numbers, schema defaults, ToolContext, raw arguments.

The tau-bench part replays what its airline tasks do (tools given as OpenAI function
schemas with an ``invoke(data, **kwargs)``; a task scores by hashing the data after
its actions) on small tools and data written for these tests: an integer sent for a
``"type": "number"`` must reach the tool as an integer, or the hash differs from the
one of calling the tool directly.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
from typing import Any

import pytest

from lagent_like import (
    ActionExecutor,
    AsyncActionExecutor,
    SchemaTool,
    ToolContext,
    ToolDefinitionError,
    tool_api,
    tool_from_schema,
)
from lagent_like.schema import ActionStatusCode
from lagent_like.toolkits._base_action import BaseAction, api_specs
from lagent_like.toolkits._schema_tool import schema_spec

SUCCESS = ActionStatusCode.SUCCESS
ARGS_ERROR = ActionStatusCode.ARGS_ERROR


def schema_of(properties: dict[str, Any], required: list[str], name: str = "probe") -> dict[str, Any]:
    """An OpenAI function definition with these parameters."""
    parameters = {"type": "object", "properties": properties, "required": required}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


# --- numbers keep their JSON type --------------------------------------------------------


def echo(**arguments: Any) -> str:
    """Returns what arrived, with each value's Python class."""
    return json.dumps({k: [v, type(v).__name__] for k, v in arguments.items()})


@pytest.mark.parametrize(
    ("prop", "sent", "received"),
    [
        pytest.param({"type": "number"}, "3", [3, "int"], id="integer-stays-int"),
        pytest.param({"type": "number"}, "2.5", [2.5, "float"], id="float-stays-float"),
        pytest.param({"type": "number"}, "3.0", [3.0, "float"], id="whole-float-stays-float"),
        pytest.param({"type": "number"}, '"3"', [3, "int"], id="integer-text-reads-as-int"),
        pytest.param({"type": "number"}, '"2.5"', [2.5, "float"], id="decimal-text-reads-as-float"),
        pytest.param({"type": "number", "minimum": 1}, "3", [3, "int"], id="with-bounds"),
        pytest.param({"type": ["number", "null"]}, "3", [3, "int"], id="nullable"),
        pytest.param({"type": ["number", "string"]}, "3", [3, "int"], id="number-or-string"),
        pytest.param(
            {"type": "array", "items": {"type": "number"}}, "[1, 2.5]", [[1, 2.5], "list"], id="items"
        ),
        pytest.param(
            {"type": "object", "properties": {"amount": {"type": "number"}}},
            '{"amount": 250}',
            [{"amount": 250}, "dict"],
            id="nested-property",
        ),
        pytest.param({"anyOf": [{"type": "number"}, {"type": "null"}]}, "3", [3, "int"], id="any-of"),
    ],
)
def test_an_integer_sent_for_a_number_reaches_a_schema_tool_as_an_integer(
    prop: dict[str, Any], sent: str, received: list[Any]
) -> None:
    tool = tool_from_schema(schema_of({"x": prop}, ["x"]), echo)
    ret = ActionExecutor([tool])("probe", f'{{"x": {sent}}}')
    assert (ret.errmsg, json.loads(ret.result[0]["content"])) == (None, {"x": received})


def test_an_integer_for_a_number_stays_an_integer_in_strict_mode() -> None:
    tool = SchemaTool(schema_of({"x": {"type": "number"}}, ["x"]), echo, validation="strict")
    ret = ActionExecutor([tool])("probe", '{"x": 3}')
    assert json.loads(ret.result[0]["content"]) == {"x": [3, "int"]}
    assert (
        ActionExecutor([tool])("probe", '{"x": "3"}').errmsg == "probe: 'x' expected number, got string '3'"
    )


def test_a_number_refuses_what_is_not_one() -> None:
    tool = tool_from_schema(schema_of({"x": {"type": "number"}}, ["x"]), echo)
    ret = ActionExecutor([tool])("probe", '{"x": true}')
    assert (ret.state, ret.errmsg) == (ARGS_ERROR, "probe: 'x' expected number, got boolean true")


@tool_api
def scale(factor: float) -> str:
    """Scale.

    Args:
        factor: the factor.
    """
    return repr(factor)


def test_a_float_annotation_still_builds_a_float_from_an_integer() -> None:
    # The function-tool behaviour is kept: pydantic (lax) and the Agents SDK make 3.0 of 3.
    assert ActionExecutor([scale])("scale", '{"factor": 3}').result[0]["content"] == "3.0"


# --- tau-bench: replaying a task directly and through the executor -----------------------

AIRLINE = {
    "users": {
        "mia_li": {
            "payment_methods": {
                "gift_card_1": {"source": "gift_card", "amount": 300},
                "credit_card_2": {"source": "credit_card"},
            },
            "reservations": ["RES001"],
        }
    },
    "reservations": {"RES001": {"user_id": "mia_li", "nonfree_baggages": 0, "payment_history": []}},
}


class UpdateBaggages:
    """tau-bench's shape: ``get_info()`` is an OpenAI function schema, ``invoke(data, **kwargs)`` runs."""

    @staticmethod
    def invoke(data: dict[str, Any], reservation_id: str, nonfree_baggages: int, payment_id: str) -> str:
        reservation = data["reservations"][reservation_id]
        user = data["users"][reservation["user_id"]]
        price = 50 * max(0, nonfree_baggages - reservation["nonfree_baggages"])
        if payment_id not in user["payment_methods"]:
            return "Error: payment method not found"
        reservation["nonfree_baggages"] = nonfree_baggages
        reservation["payment_history"].append({"payment_id": payment_id, "amount": price})
        return json.dumps(reservation)

    @staticmethod
    def get_info() -> dict[str, Any]:
        properties = {
            "reservation_id": {"type": "string"},
            "nonfree_baggages": {"type": "integer"},
            "payment_id": {"type": "string"},
        }
        return schema_of(properties, list(properties), "update_reservation_baggages")


class PayWithGiftCards:
    """Pays amounts from the user's gift cards (a ``"type": "number"`` amount, written into the data)."""

    @staticmethod
    def invoke(data: dict[str, Any], user_id: str, payment_methods: list[dict[str, Any]]) -> str:
        user = data["users"][user_id]
        for method in payment_methods:
            card = user["payment_methods"][method["payment_id"]]
            if card["amount"] < method["amount"]:
                return "Error: not enough balance"
            card["amount"] -= method["amount"]
        data["reservations"]["RES001"]["payment_history"].extend(payment_methods)
        return "ok"

    @staticmethod
    def get_info() -> dict[str, Any]:
        payment = {
            "type": "object",
            "properties": {"payment_id": {"type": "string"}, "amount": {"type": "number"}},
            "required": ["payment_id", "amount"],
        }
        properties = {"user_id": {"type": "string"}, "payment_methods": {"type": "array", "items": payment}}
        return schema_of(properties, ["user_id", "payment_methods"], "pay_with_gift_cards")


TOOLS = [UpdateBaggages, PayWithGiftCards]


def data_hash(data: Any) -> str:
    """tau-bench's score: a hash of the data's text, in which 250 and 250.0 differ."""

    def hashable(item: Any) -> Any:
        if isinstance(item, dict):
            return tuple((k, hashable(v)) for k, v in sorted(item.items()))
        if isinstance(item, list):
            return tuple(hashable(v) for v in item)
        return item

    return hashlib.sha256(str(hashable(data)).encode()).hexdigest()


def replay_directly(actions: list[tuple[str, dict[str, Any]]]) -> str:
    data = copy.deepcopy(AIRLINE)
    tools = {t.get_info()["function"]["name"]: t for t in TOOLS}
    for name, kwargs in actions:
        tools[name].invoke(data=data, **kwargs)
    return data_hash(data)


def replay_through_the_executor(actions: list[tuple[str, dict[str, Any]]]) -> str:
    data = copy.deepcopy(AIRLINE)

    def schema_tool(tool: Any) -> SchemaTool:
        return tool_from_schema(tool.get_info(), lambda **kwargs: tool.invoke(data=data, **kwargs))

    executor = ActionExecutor([schema_tool(t) for t in TOOLS])
    for name, kwargs in actions:
        assert executor(name, json.dumps(kwargs)).state == SUCCESS
    return data_hash(data)


@pytest.mark.parametrize(
    "actions",
    [
        pytest.param(
            [("pay_with_gift_cards", {"user_id": "mia_li", "payment_methods": [{"payment_id": "gift_card_1", "amount": 250}]})],
            id="integer-amount",
        ),
        pytest.param(
            [("pay_with_gift_cards", {"user_id": "mia_li", "payment_methods": [{"payment_id": "gift_card_1", "amount": 12.5}]})],
            id="decimal-amount",
        ),
        pytest.param(
            [("update_reservation_baggages", {"reservation_id": "RES001", "nonfree_baggages": 2, "payment_id": "credit_card_2"})],
            id="integer-parameter",
        ),
    ],
)  # fmt: skip
def test_a_tau_bench_task_scores_the_same_through_the_executor_as_called_directly(
    actions: list[tuple[str, dict[str, Any]]],
) -> None:
    assert replay_through_the_executor(actions) == replay_directly(actions)


# --- the schema's defaults ------------------------------------------------------------------

SEARCH_PROPERTIES = {
    "query": {"type": "string"},
    "limit": {"type": "integer", "default": 5},
    "tags": {"type": "array", "items": {"type": "string"}, "default": []},
}


class Recorder:
    """A handler that records the keyword arguments of every call."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> str:
        self.calls.append(kwargs)
        kwargs.get("tags", []).append("seen")  # a handler that changes what it was given
        return "ok"


@pytest.mark.parametrize(
    ("sent", "received"),
    [
        pytest.param(
            '{"query": "q"}', {"query": "q", "limit": 5, "tags": ["seen"]}, id="omitted-take-defaults"
        ),
        pytest.param(
            '{"query": "q", "limit": 2}', {"query": "q", "limit": 2, "tags": ["seen"]}, id="given-wins"
        ),
        pytest.param(
            '{"query": "q", "tags": ["a"]}',
            {"query": "q", "limit": 5, "tags": ["a", "seen"]},
            id="given-list",
        ),
    ],
)
def test_an_omitted_argument_takes_the_schema_default(sent: str, received: dict[str, Any]) -> None:
    handler = Recorder()
    tool = tool_from_schema(schema_of(SEARCH_PROPERTIES, ["query"]), handler)
    assert ActionExecutor([tool])("probe", sent).state == SUCCESS
    assert handler.calls == [received]


def test_a_mutable_default_is_fresh_for_every_call() -> None:
    handler = Recorder()
    executor = ActionExecutor([tool_from_schema(schema_of(SEARCH_PROPERTIES, ["query"]), handler)])
    executor("probe", '{"query": "a"}')
    executor("probe", '{"query": "b"}')
    assert [c["tags"] for c in handler.calls] == [["seen"], ["seen"]]
    assert SEARCH_PROPERTIES["tags"]["default"] == []


def test_the_record_keeps_the_arguments_the_model_sent() -> None:
    tool = tool_from_schema(schema_of(SEARCH_PROPERTIES, ["query"]), Recorder())
    assert ActionExecutor([tool])("probe", '{"query": "q"}').args == {"query": "q"}


def test_a_handler_parameter_without_default_is_fine_when_the_schema_gives_one() -> None:
    def search(query: str, limit: int) -> str:
        return f"{query}:{limit}"

    tool = tool_from_schema(
        schema_of({"query": {"type": "string"}, "limit": SEARCH_PROPERTIES["limit"]}, ["query"]), search
    )
    assert ActionExecutor([tool])("probe", '{"query": "q"}').result[0]["content"] == "q:5"


def test_a_handler_default_applies_where_the_schema_gives_none() -> None:
    def search(query: str, limit: int = 9) -> str:
        return f"{query}:{limit}"

    tool = tool_from_schema(
        schema_of({"query": {"type": "string"}, "limit": {"type": "integer"}}, ["query"]), search
    )
    assert ActionExecutor([tool])("probe", '{"query": "q"}').result[0]["content"] == "q:9"


def test_an_async_handler_gets_the_defaults_too() -> None:
    async def search(query: str, limit: int) -> str:
        await asyncio.sleep(0)
        return f"{query}:{limit}"

    tool = tool_from_schema(
        schema_of({"query": {"type": "string"}, "limit": SEARCH_PROPERTIES["limit"]}, ["query"]), search
    )
    assert ActionExecutor([tool])("probe", '{"query": "q"}').result[0]["content"] == "q:5"


def test_the_defaults_are_part_of_the_spec_and_the_export() -> None:
    tool = tool_from_schema(schema_of(SEARCH_PROPERTIES, ["query"]), Recorder())
    assert api_specs(tool)["run"].defaults == {"limit": 5, "tags": []}
    assert tool.json_schema()["properties"]["limit"] == {"type": "integer", "default": 5}


def test_a_spec_for_a_handler_that_applies_its_own_defaults_passes_the_arguments_as_sent() -> None:
    # An MCP server applies its schema's defaults: the client forwards what the model sent.
    handler = Recorder()
    spec = schema_spec(schema_of(SEARCH_PROPERTIES, ["query"]), handler, fill_defaults=False)
    assert ActionExecutor([BaseAction(apis=spec)])("probe", '{"query": "q"}').state == SUCCESS
    assert handler.calls == [{"query": "q"}]


# --- a ToolContext parameter ----------------------------------------------------------------


def remember(city: str, context: ToolContext) -> str:
    """Counts the calls of a session in its state."""
    context.state["calls"] = context.state.get("calls", 0) + 1
    return f"{city} {context.tool_name} {context.session_id} {context.state['calls']}"


def test_a_handler_parameter_annotated_tool_context_receives_the_call_context() -> None:
    executor = ActionExecutor(
        [tool_from_schema(schema_of({"city": {"type": "string"}}, ["city"], "remember"), remember)]
    )
    outputs = [
        executor("remember", '{"city": "Oslo"}', session_id=s).result[0]["content"] for s in ("a", "a", "b")
    ]
    assert outputs == ["Oslo remember a 1", "Oslo remember a 2", "Oslo remember b 1"]


def test_the_tool_context_parameter_is_never_described_nor_exported() -> None:
    tool = tool_from_schema(schema_of({"city": {"type": "string"}}, ["city"], "remember"), remember)
    assert [p["name"] for p in tool.description["parameters"]] == ["city"]
    assert list(tool.json_schema()["properties"]) == ["city"]
    ret = ActionExecutor([tool])("remember", '{"city": "Oslo", "context": 1}')
    assert ret.errmsg == "remember: 'context' is not a parameter; parameters: city"


def test_a_tool_context_parameter_that_is_also_a_property_is_refused() -> None:
    with pytest.raises(
        ToolDefinitionError, match="'context' is annotated ToolContext but is also a property"
    ):
        tool_from_schema(schema_of({"city": {"type": "string"}, "context": {}}, ["city"]), remember)


# --- a raw_arguments handler (LiveKit's raw_schema tools) ----------------------------------


def test_a_raw_arguments_handler_receives_the_checked_arguments_as_one_dict() -> None:
    received = []

    def search(raw_arguments: dict[str, Any]) -> str:
        received.append(raw_arguments)
        return "ok"

    tool = tool_from_schema(schema_of(SEARCH_PROPERTIES, ["query"]), search)
    assert ActionExecutor([tool])("probe", '{"query": "q", "limit": "2"}').state == SUCCESS
    assert received == [{"query": "q", "limit": 2, "tags": []}]


def test_a_raw_arguments_handler_may_take_the_tool_context() -> None:
    async def search(raw_arguments: dict[str, Any], context: ToolContext) -> str:
        return f"{sorted(raw_arguments)} {context.tool_name}"

    tool = tool_from_schema(schema_of(SEARCH_PROPERTIES, ["query"], "search"), search)
    assert (
        ActionExecutor([tool])("search", '{"query": "q"}').result[0]["content"]
        == "['limit', 'query', 'tags'] search"
    )


@pytest.mark.parametrize(
    ("handler", "problem"),
    [
        pytest.param(
            lambda raw_arguments, mode: None,
            "the handler's parameter 'mode' has no default; a handler taking 'raw_arguments' receives only it",
            id="another-parameter",
        ),
        pytest.param(
            lambda raw_arguments, /: None,
            "the handler's parameter 'raw_arguments' is positional-only; it comes by keyword",
            id="positional-only",
        ),
    ],
)
def test_a_raw_arguments_handler_that_cannot_be_called_so_is_refused(handler: Any, problem: str) -> None:
    with pytest.raises(ToolDefinitionError, match=problem):
        tool_from_schema(schema_of(SEARCH_PROPERTIES, ["query"]), handler)


def test_a_property_named_raw_arguments_is_an_ordinary_argument() -> None:
    def probe(raw_arguments: str) -> str:
        return raw_arguments

    tool = tool_from_schema(schema_of({"raw_arguments": {"type": "string"}}, ["raw_arguments"]), probe)
    assert ActionExecutor([tool])("probe", '{"raw_arguments": "x"}').result[0]["content"] == "x"


def test_the_async_executor_fills_defaults_and_the_context_too() -> None:
    async def search(query: str, limit: int, context: ToolContext) -> str:
        return f"{query}:{limit} {context.session_id}"

    properties = {"query": {"type": "string"}, "limit": SEARCH_PROPERTIES["limit"]}
    executor = AsyncActionExecutor([tool_from_schema(schema_of(properties, ["query"]), search)])
    ret = asyncio.run(executor("probe", '{"query": "q"}', session_id="s1"))
    assert ret.result[0]["content"] == "q:5 s1"
