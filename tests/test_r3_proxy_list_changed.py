"""``serve-mcp --mcp``: an upstream server's changed tool list reaches the proxy's clients.

The upstream (``r3_proxy_upstream.py``) changes its tools when its ``change`` tool is
called and sends ``notifications/tools/list_changed``. An official SDK client
connected to the proxy must then be sent the notification too, and list the new
tools (under their own names, or prefixed where they now clash, which the proxy
states), and call them.
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
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

import lagent_like

HERE = Path(__file__).parent
ROOT = Path(lagent_like.__file__).parent.parent
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), str(HERE), os.environ.get("PYTHONPATH", "")) if p),
}


def upstream(name: str, *tools: str) -> str:
    """The ``--mcp`` value of the changing test server ``name`` offering ``tools`` (and ``change``)."""
    return subprocess.list2cmdline([sys.executable, str(HERE / "r3_proxy_upstream.py"), name, *tools])


def watch(mcp: list[str], change: dict[str, Any], calls: list[str], errlog: Any) -> dict[str, Any]:
    """What a client of ``serve-mcp --mcp ...`` sees when the first upstream's tools change.

    Returns:
        The announced ``listChanged``, the tool names before, whether the notification
        came, the names after, and each of ``calls`` answered after the change.
    """
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async def run() -> dict[str, Any]:
        command = [sys.executable, "-m", "lagent_like", "serve-mcp"]
        for server in mcp:
            command += ["--mcp", server]
        params = StdioServerParameters(command=command[0], args=command[1:], env=ENV)
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, message_handler=on_message) as session,
        ):
            init = await session.initialize()
            assert init.capabilities.tools is not None
            seen: dict[str, Any] = {"listChanged": init.capabilities.tools.list_changed}
            seen["before"] = [tool.name for tool in (await session.list_tools()).tools]
            await session.call_tool("change", change)
            with anyio.fail_after(60):  # a safety net only: the event ends the wait
                await changed.wait()
            seen["after"] = [tool.name for tool in (await session.list_tools()).tools]
            answers = []
            for name in calls:
                try:
                    content = (await session.call_tool(name, {})).content[0]
                    assert isinstance(content, types.TextContent)
                    answers.append(content.text)
                except MCPError as exc:
                    answers.append(exc.message)
            seen["answers"] = answers
            return seen

    result: dict[str, Any] = anyio.run(run)
    return result


@pytest.mark.parametrize(
    ("mcp", "change", "calls", "expected"),
    [
        pytest.param(
            [upstream("alpha", "keep")],
            {"add": ["extra"]},
            ["extra"],
            {"before": ["keep", "change"], "after": ["keep", "change", "extra"], "answers": ["alpha extra"]},
            id="added",
        ),
        pytest.param(
            [upstream("alpha", "keep", "gone")],
            {"remove": ["gone"]},
            ["gone", "keep"],
            {
                "before": ["keep", "gone", "change"],
                "after": ["keep", "change"],
                "answers": ["unknown tool 'gone'; call tools/list for the tools", "alpha keep"],
            },
            id="removed",
        ),
        pytest.param(
            [upstream("alpha", "keep")],
            {"add": ["PythonInterpreter", "extra"]},
            ["PythonInterpreter"],
            {
                "before": ["keep", "change"],
                "after": ["keep", "change", "extra"],
                "answers": ["unknown tool 'PythonInterpreter'; call tools/list for the tools"],
            },
            id="added-code-tool-withheld",
        ),
        pytest.param(
            [
                upstream("alpha", "keep"),
                subprocess.list2cmdline(
                    [sys.executable, str(HERE / "mcp_proxy_upstream.py"), "beta", "fail"]
                ),
            ],
            {"add": ["fail"]},
            ["alpha__fail", "fail"],
            {
                "before": ["keep", "change", "fail"],
                "after": ["keep", "change", "alpha__fail", "beta__fail"],
                "answers": ["alpha fail", "unknown tool 'fail'; call tools/list for the tools"],
            },
            id="now-clashing",
        ),
    ],
)
def test_proxy_tells_its_clients_when_an_upstream_changes_its_tools(
    mcp: list[str], change: dict[str, Any], calls: list[str], expected: dict[str, Any], tmp_path: Path
) -> None:
    log = tmp_path / "stderr.txt"
    with log.open("w") as errlog:
        seen = watch(mcp, change, calls, errlog)
    assert seen == {"listChanged": True, **expected}
    if "alpha__fail" in expected["after"]:
        assert (
            "lagent-like: serving tool 'fail' of server 'alpha' as 'alpha__fail': the name 'fail' is also "
            "taken by server 'beta'"
        ) in log.read_text().splitlines()


def test_proxy_over_http_tells_its_clients_too(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("r3-token\n")
    command = [sys.executable, "-m", "lagent_like", "serve-mcp", "--mcp", upstream("alpha", "keep")]
    command += ["--transport", "http", "--port", "0", "--token-file", str(token_file)]
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async def run(url: str) -> list[list[str]]:
        headers = {"Authorization": "Bearer r3-token"}
        async with (
            create_mcp_http_client(headers=headers) as client,
            streamable_http_client(url, http_client=client) as (read, write, *_),
            ClientSession(read, write, message_handler=on_message) as session,
        ):
            await session.initialize()
            before = [tool.name for tool in (await session.list_tools()).tools]
            await session.call_tool("change", {"add": ["extra"]})
            with anyio.fail_after(60):  # a safety net only: the event ends the wait
                await changed.wait()
            return [before, [tool.name for tool in (await session.list_tools()).tools]]

    with serving(command, ENV, what="the proxy") as url:
        assert anyio.run(run, url) == [["keep", "change"], ["keep", "change", "extra"]]
