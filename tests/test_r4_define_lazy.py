"""A tool class's ``__tool_description__`` is built on first read, once; its errors still come at definition."""

from __future__ import annotations

import threading
import warnings
from typing import Any

import pytest

from lagent_like import BaseAction, DefinitionWarning, ToolDefinitionError, get_tool_cls, tool_api
from lagent_like.toolkits import _base_action


class LazyEcho(BaseAction, register=False):
    """An echo tool."""

    def run(self, text: str, times: int = 1) -> str:
        """Repeat the text.

        Args:
            text (str): what to repeat
            times (int): how many times
        """
        return text * times


class LazyKit(BaseAction, register=False):
    """Text helpers."""

    @tool_api
    def upper(self, text: str) -> str:
        """Upper-case the text.

        Args:
            text (str): the text
        """
        return text.upper()

    @tool_api(name="lower_case")
    def lower(self, text: str) -> str:
        """Lower-case the text.

        Args:
            text (str): the text
        """
        return text.lower()


class LazyBare(BaseAction, register=False):
    """Does nothing described."""


ECHO = {
    "name": "LazyEcho",
    "description": "Repeat the text.",
    "parameters": [
        {"name": "text", "type": "STRING", "description": "what to repeat"},
        {"name": "times", "type": "NUMBER", "description": "how many times"},
    ],
    "required": ["text"],
}
KIT = {
    "name": "LazyKit",
    "description": "Text helpers.",
    "api_list": [
        {
            "name": "upper",
            "description": "Upper-case the text.",
            "parameters": [{"name": "text", "type": "STRING", "description": "the text"}],
            "required": ["text"],
        },
        {
            "name": "lower_case",
            "description": "Lower-case the text.",
            "parameters": [{"name": "text", "type": "STRING", "description": "the text"}],
            "required": ["text"],
        },
    ],
}
BARE = {"name": "LazyBare", "description": "Does nothing described.", "parameters": [], "required": []}


def _key_order(value: Any) -> Any:
    if isinstance(value, dict):
        return [(key, _key_order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_key_order(item) for item in value]
    return None


def _fresh(cls: type) -> Any:
    """A subclass of ``cls`` whose description nobody has read yet (the tests share classes)."""
    return type(cls)(
        cls.__name__, (cls,), {"__doc__": cls.__doc__, "__tool_name__": cls.__name__}, register=False
    )


@pytest.mark.parametrize(
    ("cls", "expected"),
    [
        pytest.param(LazyEcho, ECHO, id="simple-tool"),
        pytest.param(LazyKit, KIT, id="toolkit"),
        pytest.param(LazyBare, BARE, id="no-api"),
    ],
)
def test_the_description_built_on_first_read_is_the_eager_one(cls: type, expected: dict[str, Any]) -> None:
    assert cls.__tool_description__ == expected
    assert _key_order(cls.__tool_description__) == _key_order(expected)
    assert cls().description["name"] == expected["name"]


@pytest.mark.parametrize(
    "read",
    [
        pytest.param(lambda cls: cls.__tool_description__, id="from-the-class"),
        pytest.param(lambda cls: cls().__tool_description__, id="from-an-instance"),
        pytest.param(lambda cls: cls().description, id="an-instance-s-copy"),
    ],
)
def test_the_description_is_built_once_then_held_on_the_class(
    read: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cls = _fresh(LazyEcho)
    builds = []
    build = _base_action._tool_description
    monkeypatch.setattr(_base_action, "_tool_description", lambda *a: builds.append(a) or build(*a))
    assert vars(cls)["__tool_description__"] is _base_action._DESCRIPTION_ON_FIRST_READ
    read(cls)
    first = cls.__tool_description__
    assert vars(cls)["__tool_description__"] is first
    assert cls.__tool_description__ is first
    assert len(builds) == 1
    assert first == ECHO


def test_threads_reading_a_new_description_together_get_one_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    cls = _fresh(LazyKit)
    builds = []
    build = _base_action._tool_description
    monkeypatch.setattr(_base_action, "_tool_description", lambda *a: builds.append(a) or build(*a))
    start = threading.Barrier(8)
    seen: list[Any] = []

    def read() -> None:
        start.wait()
        seen.append(cls.__tool_description__)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8
    assert all(value is seen[0] for value in seen)
    assert len(builds) == 1
    assert seen[0] == KIT


def louder_run(self: Any, text: str) -> str:
    """Shout the text.

    Args:
        text (str): what to shout
    """
    return text.upper()


@pytest.mark.parametrize(
    "parent_read_first", [pytest.param(True, id="parent-read"), pytest.param(False, id="not")]
)
def test_a_subclass_has_its_own_description_whichever_class_is_read_first(parent_read_first: bool) -> None:
    parent = _fresh(LazyEcho)
    if parent_read_first:
        assert parent.__tool_description__["name"] == "LazyEcho"
    louder = type(parent)("LazyLouder", (parent,), {"run": louder_run}, register=False)
    assert louder.__tool_description__ == {
        "name": "LazyLouder",
        "description": "Shout the text.",
        "parameters": [{"name": "text", "type": "STRING", "description": "what to shout"}],
        "required": ["text"],
    }
    assert parent.__tool_description__["name"] == "LazyEcho"


def test_a_registered_class_is_found_by_name_before_its_description_is_read() -> None:
    class LazyRegistered(BaseAction):
        """Registered."""

        __tool_name__ = "lazy_registered_r4"

        def run(self) -> str:
            """Say hi."""
            return "hi"

    assert vars(LazyRegistered)["__tool_description__"] is _base_action._DESCRIPTION_ON_FIRST_READ
    assert get_tool_cls("lazy_registered_r4") is LazyRegistered
    assert LazyRegistered.__tool_description__["name"] == "lazy_registered_r4"


def _run_and_apis() -> type:
    class LazyBoth(BaseAction, register=False):
        def run(self) -> str:
            """Run."""
            return ""

        @tool_api
        def other(self) -> str:
            """Other."""
            return ""

    return LazyBoth


def _clashing_names() -> type:
    class LazyClash(BaseAction, register=False):
        @tool_api(name="same")
        def first(self) -> str:
            """First."""
            return ""

        @tool_api(name="same")
        def second(self) -> str:
            """Second."""
            return ""

    return LazyClash


def _empty_name() -> type:
    class LazyNoName(BaseAction, register=False):
        __tool_name__ = 3

        def run(self) -> str:
            """Run."""
            return ""

    return LazyNoName


def _async_end_session() -> type:
    class LazyAsyncEnd(BaseAction, register=False):
        def run(self) -> str:
            """Run."""
            return ""

        async def end_session(self, session_id: str) -> None:
            return None

    return LazyAsyncEnd


@pytest.mark.parametrize(
    ("define", "message"),
    [
        pytest.param(
            _run_and_apis,
            "_run_and_apis.<locals>.LazyBoth: defines run and the tool APIs ['other']; a class is either "
            "a simple tool (one run method) or a toolkit (@tool_api methods), not both",
            id="run-and-apis",
        ),
        pytest.param(
            _clashing_names,
            "_clashing_names.<locals>.LazyClash: several methods use the API names ['same']",
            id="one-api-name-twice",
        ),
        pytest.param(
            _empty_name,
            "_empty_name.<locals>.LazyNoName: __tool_name__ must be a non-empty string, got 3",
            id="bad-tool-name",
        ),
        pytest.param(
            _async_end_session,
            "_async_end_session.<locals>.LazyAsyncEnd.end_session: end_session must be a plain method: "
            "executor.end_session(id) calls it without awaiting (start asynchronous cleanup from it if needed)",
            id="async-end-session",
        ),
    ],
)
def test_what_is_wrong_with_a_class_is_still_refused_when_it_is_defined(define: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        define()
    assert str(caught.value) == message


def test_a_plain_end_session_override_is_accepted() -> None:
    class LazyPlainEnd(BaseAction, register=False):
        def run(self) -> str:
            """Run."""
            return ""

        def end_session(self, session_id: str) -> None:
            return None

    assert LazyPlainEnd.__tool_apis__["run"].name == "run"


def _setting_in_a_property_setter() -> type:
    class LazySetter(BaseAction, register=False):
        def run(self) -> str:
            """Run."""
            return ""

        @property
        def limit(self) -> int:
            return 1

        @limit.setter
        def limit(self, value: int) -> None:
            self.timeout = value

    return LazySetter


def _setting_in_a_static_method() -> type:
    class LazyStatic(BaseAction, register=False):
        def run(self) -> str:
            """Run."""
            return ""

        @staticmethod
        def configure(tool: Any) -> None:
            tool.max_retries = 3

    return LazyStatic


def _setting_in_the_body() -> type:
    class LazyBody(BaseAction, register=False):
        timeout = 5.0

        def run(self) -> str:
            """Run."""
            return ""

    return LazyBody


@pytest.mark.parametrize(
    ("define", "note"),
    [
        pytest.param(
            _setting_in_a_property_setter,
            "_setting_in_a_property_setter.<locals>.LazySetter: self.timeout = ... in a method is read by "
            "nothing in the tool, and the executor does not read it as a runtime setting; to set the "
            "tool's timeout, use __tool_settings__ = ToolSettings(timeout=...) or the constructor keyword "
            "LazySetter(timeout=...)",
            id="property-setter",
        ),
        pytest.param(
            _setting_in_a_static_method,
            "_setting_in_a_static_method.<locals>.LazyStatic: self.max_retries = ... in a method is read by "
            "nothing in the tool, and the executor does not read it as a runtime setting; to set the "
            "tool's retry, use __tool_settings__ = ToolSettings(retry=...) or the constructor keyword "
            "LazyStatic(retry=...)",
            id="static-method",
        ),
        pytest.param(
            _setting_in_the_body,
            "_setting_in_the_body.<locals>.LazyBody: timeout = 5.0 in the class body is read by nothing in "
            "the tool, and the executor does not read it as a runtime setting; to set the tool's timeout, "
            "use __tool_settings__ = ToolSettings(timeout=...) or the constructor keyword "
            "LazyBody(timeout=...)",
            id="class-body",
        ),
    ],
)
def test_an_unread_setting_still_warns_when_the_class_is_defined(define: Any, note: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        define()
    assert [str(w.message) for w in caught if w.category is DefinitionWarning] == [note]


class LazyParentKit(BaseAction, register=False):
    """Two APIs."""

    @tool_api
    def first(self) -> str:
        """First."""
        return "1"

    @tool_api
    def second(self) -> str:
        """Second."""
        return "2"


def _second_again(self: Any) -> str:
    """Second, overridden."""
    return "2!"


@pytest.mark.parametrize(
    ("value", "attrs", "names"),
    [
        pytest.param("not an API", ["first"], ["first"], id="a-text"),
        pytest.param(None, ["first"], ["first"], id="none"),
        pytest.param(("a", "tuple"), ["first"], ["first"], id="a-tuple"),
        # An override without @tool_api stays an API, described from its own function.
        pytest.param(_second_again, ["first", "second"], ["first", "_second_again"], id="a-function"),
    ],
)
def test_a_class_body_value_overriding_an_api_replaces_it_as_before(
    value: Any, attrs: list[str], names: list[str]
) -> None:
    child = type(LazyParentKit)("LazyChildKit", (LazyParentKit,), {"second": value}, register=False)
    assert list(child.__tool_apis__) == attrs
    assert [api["name"] for api in child.__tool_description__["api_list"]] == names
