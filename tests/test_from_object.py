"""``BaseAction.from_object``: an existing object's public methods as a toolkit, called on it."""

from __future__ import annotations

import asyncio
import copy
from typing import Any, Optional

import pytest

from lagent_like import (
    ActionExecutor,
    ActionStatusCode,
    AsyncActionExecutor,
    BaseAction,
    DefinitionWarning,
    JsonParser,
    ObjectToolkit,
    ToolDefinitionError,
    tool_api,
)


class Inventory:
    """Stock levels of a small shop."""

    def __init__(self) -> None:
        self.stock: dict[str, int] = {"apple": 3}
        self.property_reads = 0

    @property
    def total(self) -> int:
        self.property_reads += 1
        return sum(self.stock.values())

    def add(self, item: str, count: int = 1) -> int:
        """Add items to the stock.

        Args:
            item: the item name
            count: how many to add

        Returns:
            int: the new stock of the item
        """
        self.stock[item] = self.stock.get(item, 0) + count
        return self.stock[item]

    def level(self, item: str) -> int:
        """Stock of one item.

        Args:
            item: the item name
        """
        return self.stock.get(item, 0)

    @staticmethod
    def unit(item: str) -> str:
        """The unit an item is counted in.

        Args:
            item: the item name
        """
        return "kg" if item == "flour" else "piece"

    @classmethod
    def shop(cls) -> str:
        """The shop's name."""
        return cls.__name__

    async def restock(self, item: str) -> int:
        """Restock an item to ten.

        Args:
            item: the item name
        """
        self.stock[item] = 10
        return 10

    def _audit(self) -> None:
        """Private: never exposed."""


def test_public_methods_are_described_from_hints_and_docstrings() -> None:
    toolkit = BaseAction.from_object(Inventory(), parser=JsonParser)
    assert isinstance(toolkit, ObjectToolkit)
    assert toolkit.name == "Inventory"
    assert toolkit.description["description"] == "Stock levels of a small shop."
    apis = {api["name"]: api for api in toolkit.description["api_list"]}
    assert list(apis) == ["add", "level", "unit", "shop", "restock"]
    assert apis["add"] == {
        "name": "add",
        "description": "Add items to the stock.",
        "parameters": [
            {"name": "item", "type": "STRING", "description": "the item name"},
            {"name": "count", "type": "NUMBER", "description": "how many to add"},
        ],
        "required": ["item"],
        "parameter_description": JsonParser.PARAMETER_DESCRIPTION,
    }
    assert apis["unit"]["parameters"] == [{"name": "item", "type": "STRING", "description": "the item name"}]
    assert apis["shop"]["parameters"] == []


def test_calls_run_on_the_instance_and_nothing_else_touches_it() -> None:
    inventory = Inventory()
    before = copy.deepcopy(vars(inventory))
    executor = ActionExecutor([BaseAction.from_object(inventory)])
    assert vars(inventory) == before  # describing read nothing through properties
    ret = executor("Inventory.add", '{"item": "pear", "count": 2}')
    assert (ret.state, ret.result) == (ActionStatusCode.SUCCESS, [{"type": "text", "content": "2"}])
    assert executor("Inventory.level", '{"item": "pear"}').result == [{"type": "text", "content": "2"}]
    assert executor("Inventory.unit", '{"item": "flour"}').result == [{"type": "text", "content": "kg"}]
    assert executor("Inventory.shop", "{}").result == [{"type": "text", "content": "Inventory"}]
    assert inventory.stock == {"apple": 3, "pear": 2}
    assert inventory.property_reads == 0
    assert set(vars(inventory)) == {"stock", "property_reads"}


def test_async_methods_are_awaited_on_the_instance() -> None:
    inventory = Inventory()
    executor = AsyncActionExecutor([BaseAction.from_object(inventory, include=["restock"])])
    ret = asyncio.run(executor("Inventory.restock", '{"item": "apple"}'))
    assert (ret.state, ret.result) == (ActionStatusCode.SUCCESS, [{"type": "text", "content": "10"}])
    assert inventory.stock == {"apple": 10}


def test_bad_arguments_become_records_without_calling_the_method() -> None:
    inventory = Inventory()
    ret = BaseAction.from_object(inventory)('{"item": "pear", "count": "many"}', "add")
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.errmsg == "Inventory.add: 'count' expected integer, got string 'many'"
    assert inventory.stock == {"apple": 3}


@pytest.mark.parametrize(
    ("options", "apis", "name", "description"),
    [
        pytest.param(
            {"include": ["level", "add"]}, ["level", "add"], "Inventory", None, id="include-in-order"
        ),
        pytest.param({"include": "level"}, ["level"], "Inventory", None, id="include-one-name"),
        pytest.param(
            {"exclude": ["restock", "shop", "unit"]}, ["add", "level"], "Inventory", None, id="exclude"
        ),
        pytest.param(
            {"include": ["add", "level"], "exclude": ["add"]}, ["level"], "Inventory", None, id="both"
        ),
        pytest.param(
            {"include": ["level"], "name": "Shop", "description": "The shop."},
            ["level"],
            "Shop",
            "The shop.",
            id="name-and-description",
        ),
    ],
)
def test_include_exclude_name_and_description_choose_what_is_exposed(
    options: dict[str, Any], apis: list[str], name: str, description: Optional[str]
) -> None:
    toolkit = BaseAction.from_object(Inventory(), **options)
    assert [api["name"] for api in toolkit.description["api_list"]] == apis
    assert toolkit.name == name
    assert toolkit.description["description"] == (description or "Stock levels of a small shop.")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        pytest.param(
            {"include": ["add", "remove", "total"]},
            r"^from_object\(Inventory\): include names \['remove', 'total'\], which are not methods; "
            r"public methods are \['add', 'level', 'unit', 'shop', 'restock'\]",
            id="include-unknown-or-property",
        ),
        pytest.param(
            {"exclude": ["remove"]},
            r"^from_object\(Inventory\): exclude names \['remove'\], which are not among the methods",
            id="exclude-unknown",
        ),
        pytest.param(
            {"include": [], "exclude": None},
            r"^from_object\(Inventory\): has no public method to expose as an API",
            id="nothing-left",
        ),
    ],
)
def test_names_that_are_not_methods_raise_naming_the_class(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        BaseAction.from_object(Inventory(), **options)


class Legacy:
    """A class with a method no model could call."""

    def ping(self) -> str:
        """Answer pong."""
        return "pong"

    def scale(self, x: float, /) -> float:
        """Double a number."""
        return 2 * x


def test_a_method_that_cannot_be_described_is_left_out_with_a_warning() -> None:
    with pytest.warns(DefinitionWarning, match=r"^from_object\(Legacy\) leaves out scale: parameter 'x' is "):
        toolkit = BaseAction.from_object(Legacy())
    assert [api["name"] for api in toolkit.description["api_list"]] == ["ping"]


def test_a_method_named_in_include_that_cannot_be_described_raises() -> None:
    with pytest.raises(
        ToolDefinitionError, match=r"^from_object\(Legacy\): parameter 'x' is positional-only"
    ):
        BaseAction.from_object(Legacy(), include=["scale"])


class Proxy:
    """Forwards unknown attributes, counting each lookup."""

    lookups = 0

    def __getattr__(self, name: str) -> Any:
        type(self).lookups += 1
        raise AttributeError(name)

    def echo(self, text: str) -> str:
        """Echo a text.

        Args:
            text: what to echo
        """
        return text


def test_describing_never_runs_the_objects_attribute_hooks() -> None:
    proxy = Proxy()
    toolkit = BaseAction.from_object(proxy)
    assert toolkit('{"text": "hi"}', "echo").result == [{"type": "text", "content": "hi"}]
    assert Proxy.lookups == 0
    assert isinstance(toolkit, ObjectToolkit)
    assert toolkit.wrapped is proxy


class LegacyWeatherClient:
    """Client of a weather service, from a third-party package.
    Args:
        None
    """

    def __init__(self) -> None:
        self.calls: list[str] = []

    def forecast(self, city: str, days: int = 1) -> str:
        """Forecast for a city.
        Args:
            city (str): the city name
            days (int): how many days
            units (str): removed in 2.0
        Returns:
            str: the forecast
        """
        self.calls.append(city)
        return f"{city}: sunny for {days} day(s)"

    def status(self) -> str:
        """Whether the service is up.

        Args:
            None

        Raises:
            ConnectionError: the service cannot be reached
        """
        return "up"


FORECAST_API: dict[str, Any] = {
    "name": "forecast",
    "description": "Forecast for a city.",
    "parameters": [
        {"name": "city", "type": "STRING", "description": "the city name"},
        {"name": "days", "type": "NUMBER", "description": "how many days"},
    ],
    "required": ["city"],
}
STATUS_API: dict[str, Any] = {
    "name": "status",
    "description": "Whether the service is up.",
    "parameters": [],
    "required": [],
}
APIS = [FORECAST_API, STATUS_API]


def test_a_third_party_class_with_real_world_docstrings_loads_with_from_object() -> None:
    client = LegacyWeatherClient()
    with pytest.warns(DefinitionWarning) as caught:
        toolkit = BaseAction.from_object(client)
    assert [str(w.message) for w in caught] == [
        "LegacyWeatherClient.forecast: the docstring describes ['units'], which the signature does not have "
        "(left out); parameters are ['city', 'days']"
    ]
    assert toolkit.description == {
        "name": "LegacyWeatherClient",
        "description": "Client of a weather service, from a third-party package.",
        "api_list": [dict(api, parameter_description=JsonParser.PARAMETER_DESCRIPTION) for api in APIS],
    }
    executor = ActionExecutor(toolkit)
    assert executor("LegacyWeatherClient.forecast", {"city": "Oslo", "days": 2}).result == [
        {"type": "text", "content": "Oslo: sunny for 2 day(s)"}
    ]
    assert client.calls == ["Oslo"]


def test_a_third_party_class_with_real_world_docstrings_loads_by_subclassing() -> None:
    with pytest.warns(
        DefinitionWarning, match=r"^LegacyWeatherClient.forecast: the docstring describes \['units'\]"
    ):

        class WeatherToolkit(BaseAction, LegacyWeatherClient, register=False):
            """Weather, through the legacy client.
            Args:
                None
            """

            def __init__(self) -> None:
                LegacyWeatherClient.__init__(self)
                BaseAction.__init__(self)

            forecast = tool_api(_copy_function(LegacyWeatherClient.forecast))
            status = tool_api(_copy_function(LegacyWeatherClient.status))

    toolkit = WeatherToolkit()
    assert toolkit.description == {
        "name": "WeatherToolkit",
        "description": "Weather, through the legacy client.",
        "api_list": [dict(api, parameter_description=JsonParser.PARAMETER_DESCRIPTION) for api in APIS],
    }
    assert toolkit('{"city": "Rome"}', "forecast").result == [
        {"type": "text", "content": "Rome: sunny for 1 day(s)"}
    ]
    assert toolkit.calls == ["Rome"]
    assert not hasattr(LegacyWeatherClient.forecast, "api_description")  # the third party's stays as it was


def _copy_function(func: Any) -> Any:
    """A copy of a function, so that decorating it leaves the original untouched."""
    import functools
    import types

    copy = types.FunctionType(
        func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__
    )
    return functools.update_wrapper(copy, func, updated=())
