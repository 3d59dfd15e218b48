"""``Required``/``NotRequired`` in TypedDicts: the key's type is kept and its requiredness honoured.

Both with annotations as objects (this module) and as strings (``from __future__ import
annotations`` in ``future_typeddict_tools.py``).
"""

import json
from typing import Any

import pytest
from typing_extensions import NotRequired, Required, TypedDict

from lagent_like import ActionExecutor, ActionStatusCode, BaseAction, tool_api
from tests.future_typeddict_tools import FutureKit

SUCCESS = ActionStatusCode.SUCCESS


class PlainTags(TypedDict):
    name: str
    tags: NotRequired[int]


class PlainLoose(TypedDict, total=False):
    name: Required[str]
    size: int


class PlainKit(BaseAction):
    """TypedDicts with key qualifiers, annotations as objects."""

    @tool_api
    def tag(self, item: PlainTags) -> str:
        """Tag an item.

        Args:
            item: the item
        """
        return repr(item)

    @tool_api
    def loose(self, item: PlainLoose) -> str:
        """A loose item.

        Args:
            item: the item
        """
        return repr(item)


KITS = [pytest.param(PlainKit, id="objects"), pytest.param(FutureKit, id="postponed")]


@pytest.mark.parametrize("kit", KITS)
def test_not_required_keys_keep_their_type_in_the_schema(kit: Any) -> None:
    schema = kit().json_schema("tag")["properties"]["item"]
    assert schema["properties"] == {"name": {"type": "string"}, "tags": {"type": "integer"}}
    assert schema["required"] == ["name"]
    loose = kit().json_schema("loose")["properties"]["item"]
    assert loose["properties"] == {"name": {"type": "string"}, "size": {"type": "integer"}}
    assert loose["required"] == ["name"]


@pytest.mark.parametrize("kit", KITS)
@pytest.mark.parametrize(
    ("api", "item", "outcome"),
    [
        pytest.param("tag", {"name": "a"}, "{'name': 'a'}", id="not-required-omitted"),
        pytest.param("tag", {"name": "a", "tags": "7"}, "{'name': 'a', 'tags': 7}", id="not-required-converted"),
        pytest.param("tag", {"name": "a", "tags": "x"}, "'item.tags' expected integer, got string 'x'",
                     id="not-required-checked"),
        pytest.param("tag", {"name": "a", "tags": {}}, "'item.tags' expected integer, got object {}",
                     id="not-required-object-refused"),
        pytest.param("loose", {"name": "a"}, "{'name': 'a'}", id="total-false-required-given"),
        pytest.param("loose", {"size": 1}, "'item' expected object (OWNER) with required keys ['name'], "
                     "got object {'size': 1}", id="total-false-required-missing"),
    ],
)  # fmt: skip
def test_key_qualifiers_are_honoured_when_checking(kit: Any, api: str, item: Any, outcome: str) -> None:
    ret = ActionExecutor([kit()])(f"{kit.__name__}.{api}", json.dumps({"item": item}))
    if outcome.startswith("{"):
        assert (ret.state, ret.result) == (SUCCESS, [{"type": "text", "content": outcome}])
    else:
        owner = kit.__name__.replace("Kit", "Loose")
        assert ret.errmsg == f"{kit.__name__}.{api}: " + outcome.replace("OWNER", owner)
