"""The inspector's Servers panel: what a server given on the page may reach and inherit.

DNS rebinding: a name may answer a loopback address when the page checks it and a
private one when the connection is made. The page's toolkit resolves, checks and
connects in one step, so the second answer is refused before any packet leaves. A
command started from the page gets the MCP SDK's small default environment, never the
inspector's own (its API keys and tokens).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from _servers import serving
from net_guard import Guard

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

import lagent_like
from lagent_like import ActionExecutor
from lagent_like.web import InspectorState

HERE = Path(__file__).parent
SERVER = str(HERE / "r3_inspector_mcp_server.py")
ENV_SERVER = HERE / "r4_left_env_server.py"
ROOT = Path(lagent_like.__file__).parent.parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
HTTP_TOKEN = "r4-left-token"


def http_server(name: str, tools: str) -> AbstractContextManager[str]:
    """The test server over streamable HTTP on 127.0.0.1; yields its URL, stops it after."""
    return serving([sys.executable, SERVER, name, tools, "--http", HTTP_TOKEN], ENV, what="the test server")


@pytest.fixture
def state() -> Iterator[InspectorState]:
    """An inspector state over no tools."""
    made = InspectorState(ActionExecutor([]))
    yield made
    made.servers.close()


REFUSED = (
    "cannot connect to the MCP server http://rebind.test:8000/mcp: AddressRefused: rebind.test "
    "resolves to 10.0.0.1, a private or local address; not opened"
)


def test_a_name_rebound_to_a_private_address_after_the_check_is_refused_at_connect(
    guard: Guard, state: InspectorState
) -> None:
    # The page's check sees 127.0.0.1; every later lookup (the connection's) sees 10.0.0.1.
    looked_up: list[str] = []

    def rebinding() -> list[str]:
        looked_up.append("rebind.test")
        return ["127.0.0.1"] if len(looked_up) == 1 else ["10.0.0.1"]

    guard.names["rebind.test"] = rebinding
    entry = state.servers.connect("http://rebind.test:8000/mcp")
    assert (entry["status"], entry["error"], entry["tools"]) == ("failed", REFUSED, [])
    assert guard.attempts == []  # no connection to any address, the private one least of all
    assert len(looked_up) == 2  # the page's check, then the connection's own lookup


def test_a_url_from_the_page_connects_lists_and_calls_over_the_pinned_connection(
    guard: Guard, state: InspectorState, tmp_path: Path
) -> None:
    tools = tmp_path / "tools.txt"
    tools.write_text("alpha\n", encoding="utf-8")
    with http_server("desk", str(tools)) as url:
        entry = state.servers.connect(url, HTTP_TOKEN)
        assert (entry["status"], entry["name"], entry["tools"]) == ("connected", "desk", ["alpha"])
        answer = state.call("desk.alpha", '{"text": "hi", "times": 2}')
        assert answer["record"]["result"] == [{"type": "text", "content": "alpha: hi alpha: hi"}]
        state.servers.disconnect(entry["id"])
    assert guard.refused() == []


class StartToolkit:
    """Stands for a toolkit the inspector was started with (``--mcp URL``)."""

    name = "private_desk"
    tool_names = ()

    def close(self) -> None:
        """Nothing to close."""


def test_a_url_given_at_start_is_the_operators_and_is_reconnected_without_the_page_rule(
    guard: Guard, state: InspectorState
) -> None:
    # A private --mcp URL is allowed; reconnecting it from the page must not be refused.
    guard.names["private.test"] = lambda: ["10.0.0.1"]
    state.servers.adopt([(StartToolkit(), "http://private.test:8000/mcp")])
    entry = state.servers.reconnect("1")
    assert (entry["status"], entry["at_start"]) == ("failed", True)
    assert "not opened" not in entry["error"]
    assert guard.refused() == [("10.0.0.1", 8000)]  # tried (and stopped by the test's guard)


def test_a_command_from_the_page_inherits_only_the_sdks_default_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp.client.stdio import get_default_environment

    monkeypatch.setenv("OPENAI_API_KEY", "sk-r4-left-secret")
    monkeypatch.setenv("LAGENT_LIKE_MCP_TOKEN", "r4-left-token-secret")
    seen = tmp_path / "environment.json"
    tools = tmp_path / "tools.txt"
    tools.write_text("alpha\n", encoding="utf-8")
    state = InspectorState(ActionExecutor([]), allow_connect_commands=True)
    try:
        target = subprocess.list2cmdline([sys.executable, str(ENV_SERVER), str(seen), "envdesk", str(tools)])
        entry = state.servers.connect(target)
        assert (entry["status"], entry["tools"]) == ("connected", ["alpha"])
    finally:
        state.servers.close()
    environment = json.loads(seen.read_text(encoding="utf-8"))
    # Python adds LC_CTYPE itself when it coerces a C locale (PEP 538): not inherited.
    environment.pop("LC_CTYPE", None)
    assert environment == get_default_environment()
    assert "secret" not in json.dumps(environment)
