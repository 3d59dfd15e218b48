"""``serve-mcp --mcp``: clients of the 2026-07-28 protocol are told of a changed tool list too.

That protocol has no connection to send ``notifications/tools/list_changed`` on: a
client opens a ``subscriptions/listen`` stream asking for tool changes, and the
server announces ``tools.listChanged`` when it serves that method. The SDK's own
``Client`` speaks that protocol by default; connected to the proxy (over stdio and
over HTTP), it must be told when the upstream (``r3_proxy_upstream.py``) changes its
tools, and then list and call the new one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _servers import serving

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.subscriptions import ToolsListChanged

import lagent_like

HERE = Path(__file__).parent
ROOT = Path(lagent_like.__file__).parent.parent
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), str(HERE), os.environ.get("PYTHONPATH", "")) if p),
}
UPSTREAM = subprocess.list2cmdline([sys.executable, str(HERE / "r3_proxy_upstream.py"), "alpha", "keep"])
PROXY = [sys.executable, "-m", "lagent_like", "serve-mcp", "--mcp", UPSTREAM]


async def _watch(client: Client) -> dict[str, Any]:
    """What a modern client sees of the proxy when the upstream adds a tool."""
    seen: dict[str, Any] = {"protocol": client.protocol_version}
    tools = client.server_capabilities.tools
    seen["listChanged"] = None if tools is None else tools.list_changed
    seen["before"] = [tool.name for tool in (await client.list_tools()).tools]
    async with client.listen(tools_list_changed=True) as subscription:
        await client.call_tool("change", {"add": ["extra"]})
        with anyio.fail_after(60):  # a safety net only: the event ends the wait
            async for event in subscription:
                seen["event"] = type(event).__name__
                break
    seen["after"] = [tool.name for tool in (await client.list_tools()).tools]
    content = (await client.call_tool("extra", {})).content[0]
    assert isinstance(content, types.TextContent)
    seen["answer"] = content.text
    return seen


EXPECTED = {
    "protocol": "2026-07-28",
    "listChanged": True,
    "before": ["keep", "change"],
    "event": ToolsListChanged.__name__,
    "after": ["keep", "change", "extra"],
    "answer": "alpha extra",
}


def test_a_modern_stdio_client_is_told_on_its_listen_stream() -> None:
    async def run() -> dict[str, Any]:
        params = StdioServerParameters(command=PROXY[0], args=PROXY[1:], env=ENV)
        async with Client(params) as client:
            return await _watch(client)

    assert anyio.run(run) == EXPECTED


def test_a_modern_http_client_is_told_on_its_listen_stream(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("r4-token\n")
    command = [*PROXY, "--transport", "http", "--port", "0", "--token-file", str(token_file)]

    async def run(url: str) -> dict[str, Any]:
        headers = {"Authorization": "Bearer r4-token"}
        async with (
            create_mcp_http_client(headers=headers) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await _watch(client)

    with serving(command, ENV, what="the proxy") as url:
        assert anyio.run(run, url) == EXPECTED
