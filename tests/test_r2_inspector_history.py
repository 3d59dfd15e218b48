"""The inspector's call history, kept by its state: what was sent, latest first, bounded."""

from __future__ import annotations

import pytest
import requests

pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

from test_r2_inspector_catalogue import r2_ship, r2_weigh

from lagent_like import ActionExecutor, ActionStatusCode
from lagent_like.web import InspectorServer, state
from lagent_like.web.state import InspectorError, InspectorState


def test_history_keeps_each_call_as_sent_latest_first() -> None:
    inspector = InspectorState(ActionExecutor([r2_ship, r2_weigh]))
    inspector.call("r2_weigh", {"grams": 5})
    inspector.call("r2_weigh", "```json\n{'grams': 'many'}\n```")
    calls = inspector.history()
    assert [(c["id"], c["name"], c["arguments"], c["state"]) for c in calls] == [
        (2, "r2_weigh", "```json\n{'grams': 'many'}\n```", ActionStatusCode.ARGS_ERROR),
        (1, "r2_weigh", {"grams": 5}, ActionStatusCode.SUCCESS),
    ]
    assert all(isinstance(c["seconds"], float) for c in calls)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        pytest.param("nope", {}, id="unknown-api"),
        pytest.param("r2_weigh", 5, id="arguments-neither-text-nor-object"),
    ],
)
def test_a_refused_request_is_not_a_call_in_the_history(name: str, arguments: object) -> None:
    inspector = InspectorState(ActionExecutor([r2_weigh]))
    with pytest.raises(InspectorError):
        inspector.call(name, arguments)
    assert inspector.history() == []


def test_history_keeps_only_the_latest_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state, "HISTORY_SIZE", 2)
    inspector = InspectorState(ActionExecutor([r2_weigh]))
    for grams in (1, 2, 3):
        inspector.call("r2_weigh", {"grams": grams})
    assert [(c["id"], c["arguments"]) for c in inspector.history()] == [(3, {"grams": 3}), (2, {"grams": 2})]


def test_history_route_answers_with_the_token_only() -> None:
    with InspectorServer(ActionExecutor([r2_weigh])) as server:
        server.state.call("r2_weigh", '{"grams": 7}')
        base = server.url.split("?", 1)[0].rstrip("/")
        token = server.url.split("token=", 1)[1]
        refused = requests.get(base + "/api/history", timeout=10)
        answered = requests.get(
            base + "/api/history", headers={"Authorization": f"Bearer {token}"}, timeout=10
        )
    assert refused.status_code == 401
    assert [(c["id"], c["name"], c["arguments"]) for c in answered.json()] == [
        (1, "r2_weigh", '{"grams": 7}')
    ]
