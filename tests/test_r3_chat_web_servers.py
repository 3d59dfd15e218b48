"""``chat --web`` lists its ``--mcp`` servers on the page's Servers tab, as ``inspect`` does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

from lagent_like.cli.commands import main

SERVER = str(Path(__file__).with_name("r3_inspector_mcp_server.py"))


@pytest.fixture
def page_options(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The options ``chat --web`` builds its page with (the server itself is not started)."""
    import lagent_like.web as web_package

    kept: list[dict[str, Any]] = []

    class Page:
        url = "http://127.0.0.1:1/"

        def __init__(self, executor: Any, **options: Any) -> None:
            servers = [(toolkit.name, target) for toolkit, target in options.pop("mcp_servers")]
            kept.append({**options, "mcp_servers": servers, "apis": executor.api_names()})

        def start(self) -> Page:
            return self

        def wait(self) -> None:
            return None

    monkeypatch.setattr(web_package, "InspectorServer", Page)
    return kept


def test_chat_web_hands_its_mcp_servers_to_the_page(
    page_options: list[dict[str, Any]], tmp_path: Path
) -> None:
    tools = tmp_path / "tools.txt"
    tools.write_text("alpha\n")
    target = subprocess.list2cmdline([sys.executable, SERVER, "chat.desk", str(tools)])
    argv = ["chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--web", "--mcp", target]
    assert main(argv) == 0
    (options,) = page_options
    assert options["mcp_servers"] == [("chat_desk", target)]
    assert options["mcp_token"] is None
    assert options["apis"] == ["chat_desk.alpha"]
