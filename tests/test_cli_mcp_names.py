"""Issue 24: ``--mcp A --mcp B`` gives each server a toolkit named after the server.

``inspect``, ``chat`` and ``serve-mcp`` take ``--mcp`` repeatedly; each server becomes
a toolkit named after its ``serverInfo`` name, made legal (no dots) and unique (``_2``,
``_3``, ... after the first, and apart from the local tools' names). Before, every
toolkit was called ``MCP`` and two of them were refused ("several actions are named").
The commands run in process; the page and the server they would start are replaced
by recorders of the executor they were handed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

from lagent_like.cli.commands import main

UPSTREAM = str(Path(__file__).parent / "mcp_proxy_upstream.py")


def server(name: str, *tools: str) -> list[str]:
    """``--mcp`` for the test server announcing ``name`` and offering ``tools``."""
    return ["--mcp", subprocess.list2cmdline([sys.executable, UPSTREAM, name, *tools])]


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, list[str]]]:
    """Each executor a command handed on: tool name -> its API names."""
    import lagent_like.mcp as mcp_package
    import lagent_like.web as web_package

    kept: list[dict[str, list[str]]] = []

    def keep(executor: Any, **options: Any) -> None:
        apis = [api.partition(".") for api in executor.api_names()]
        kept.append(
            {name: [api for tool, _, api in apis if tool == name] for name in executor.action_names()}
        )

    class Page:
        url = "http://127.0.0.1:1/"

        def __init__(self, executor: Any, **options: Any) -> None:
            keep(executor)

        def start(self) -> Page:
            return self

        def wait(self) -> None:
            return None

    monkeypatch.setattr(web_package, "inspect", keep)
    monkeypatch.setattr(web_package, "InspectorServer", Page)
    monkeypatch.setattr(mcp_package, "serve_mcp", keep)
    return kept


CHAT = ["chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--web"]


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["inspect"], id="inspect"),
        pytest.param(CHAT, id="chat"),
        pytest.param(["serve-mcp"], id="serve-mcp"),
    ],
)
def test_each_mcp_server_is_a_toolkit_named_after_it(
    handed: list[dict[str, list[str]]], command: list[str]
) -> None:
    argv = [
        *command,
        *server("time.keeper", "shout"),
        *server("time.keeper", "fail"),
        *server("other", "steps"),
    ]
    assert main(argv) == 0
    assert handed == [{"time_keeper": ["shout"], "time_keeper_2": ["fail"], "other": ["steps"]}]


def test_a_server_named_like_a_local_tool_gets_another_name(handed: list[dict[str, list[str]]]) -> None:
    assert main(["inspect", "--tools", "ArxivSearch", *server("ArxivSearch", "shout")]) == 0
    assert list(handed[0]) == ["ArxivSearch", "ArxivSearch_2"]
