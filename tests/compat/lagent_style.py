# mypy: disable-error-code="untyped-decorator"
"""Toolkits written the way Lagent's own actions and tutorial write them, and calls to them.

The same source defines them on Lagent (to record fixtures with
``record_lagent_fixtures.py``) and on lagent_like (to check against those fixtures):
:func:`build` takes the library's ``BaseAction``, ``tool_api`` and ``ActionReturn``.
Nothing here is copied from Lagent; only its style is followed: Google docstrings with
types in parentheses (Lagent 0.2.4 cannot read an ``Args`` entry without one),
``Annotated`` descriptions, ``explode_return`` and
``returns_named_value``, ``run`` tools and ``@tool_api`` toolkits, a tool returning
an ``ActionReturn`` of its own.
"""

from typing import Any, Optional

from typing_extensions import Annotated


def build(base: Any, tool_api: Any, action_return: Any, class_options: dict[str, Any]) -> dict[str, Any]:
    """Define the toolkits on one library; returns name -> class.

    Args:
        base: the library's ``BaseAction``.
        tool_api: the library's ``tool_api``.
        action_return: the library's ``ActionReturn``.
        class_options: keywords for each ``class`` statement (``register=False`` on
            lagent_like, nothing on Lagent, whose metaclass takes none).
    """

    class Emphasis(base, **class_options):  # type: ignore[misc, valid-type]
        """Make text stand out."""

        def run(self, text: str) -> str:
            """Make text bold.

            Args:
                text (str): input content

            Returns:
                str: the bold text
            """
            return "**" + text + "**"

    class Arithmetic(base, **class_options):  # type: ignore[misc, valid-type]
        """Integer arithmetic, typed in the docstrings only."""

        @tool_api
        def add(self, a, b):  # type: ignore[no-untyped-def]
            """Add two numbers.

            Args:
                a (int): augend
                b (int): addend

            Returns:
                int: the sum
            """
            return a + b

        @tool_api
        def divide(self, a, b=2):  # type: ignore[no-untyped-def]
            """Divide a by b.

            Args:
                a (float): dividend
                b (float): divisor, two unless given
            """
            return a / b

    class CityInfo(base, **class_options):  # type: ignore[misc, valid-type]
        """Facts about cities."""

        @tool_api(explode_return=True)
        def profile(
            self,
            city: Annotated[str, "the city name"],
            year: Optional[int] = None,
        ) -> dict:  # type: ignore[type-arg]
            """Population and country of a city.

            Args:
                city (str): ignored, the annotation describes it
                year (int): the census year

            Returns:
                dict: the city's profile
                    - population (int): inhabitants
                    - country (str): the country it lies in
            """
            return {"city": city, "population": 2_100_000, "country": "France", "year": year}

        @tool_api(returns_named_value=True)
        def coordinates(self, city: str) -> tuple:  # type: ignore[type-arg]
            """Latitude and longitude of a city.

            Args:
                city (str): the city name

            Returns:
                lat (float): degrees north
                lon (float): degrees east
            """
            return (48.85, 2.35)

        @tool_api
        def tags(self, city: str, limit: int = 2) -> str:
            """Tags of a city, comma-separated.

            Args:
                city (str): the city name
                limit (int): how many tags
            """
            return ",".join(["capital", "river", "museums"][:limit])

        @tool_api
        def checked(self, city: str, strict: bool = False) -> Any:
            """A record the tool builds itself.

            Args:
                city (str): the city name
                strict (bool): whether unknown cities fail
            """
            if strict and city != "Paris":
                raise ValueError(f"unknown city: {city}")
            return action_return(result=[{"type": "text", "content": f"{city} checked"}])

    return {"Emphasis": Emphasis, "Arithmetic": Arithmetic, "CityInfo": CityInfo}


#: The executors of the suite: a name, then (class, parser) per action. Parsers are
#: named ("json", "tuple") and resolved on each library.
EXECUTORS: dict[str, list[tuple[str, str]]] = {
    "json": [("Emphasis", "json"), ("Arithmetic", "json"), ("CityInfo", "json")],
    "tuple": [("Emphasis", "tuple"), ("Arithmetic", "tuple"), ("CityInfo", "tuple")],
}

#: Calls per executor: ``(id, name, command)``, run as ``executor(name, command)``.
CALLS: dict[str, list[tuple[str, str, str]]] = {
    "json": [
        ("run-tool", "Emphasis", '{"text": "hi"}'),
        ("run-tool-non-ascii", "Emphasis", '{"text": "你好"}'),
        ("toolkit-int", "Arithmetic.add", '{"a": 1, "b": 2}'),
        ("toolkit-default", "Arithmetic.divide", '{"a": 9}'),
        ("fenced-json", "Arithmetic.add", '```json\n{"a": 4, "b": 5}\n```'),
        ("dict-return", "CityInfo.profile", '{"city": "Paris"}'),
        ("tuple-return", "CityInfo.coordinates", '{"city": "Paris"}'),
        ("str-return", "CityInfo.tags", '{"city": "Paris", "limit": 1}'),
        ("own-record", "CityInfo.checked", '{"city": "Lyon"}'),
        ("tool-raises", "CityInfo.checked", '{"city": "Lyon", "strict": true}'),
        ("tool-raises-type-error", "Arithmetic.add", '{"a": 1, "b": "x"}'),
        ("division-by-zero", "Arithmetic.divide", '{"a": 1.5, "b": 0.0}'),
        ("missing-argument", "Arithmetic.add", '{"a": 1}'),
        ("unknown-argument", "Arithmetic.add", '{"a": 1, "b": 2, "c": 3}'),
        ("invalid-json", "Arithmetic.add", "{a: 1"),
        ("unknown-api", "Arithmetic.power", '{"a": 1}'),
        ("unknown-tool", "Nothing", '{"a": 1}'),
        ("no-action", "NoAction", "I just talk"),
        ("finish", "FinishAction", "the answer is 42"),
    ],
    "tuple": [
        ("run-tool", "Emphasis", "('hi',)"),
        ("toolkit-int", "Arithmetic.add", "(1, 2)"),
        ("toolkit-default", "Arithmetic.divide", "(9,)"),
        ("too-few", "Arithmetic.add", "(1,)"),
        ("too-many", "Arithmetic.add", "(1, 2, 3)"),
        ("not-a-literal", "Arithmetic.add", "(a, b)"),
    ],
}
