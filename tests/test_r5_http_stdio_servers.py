"""``serve-mcp`` over stdio with several stdio servers: each server's calls pass through as lines.

The proxy runs on its first server's loop; the other servers' pipes live on their own
toolkits' loops and are reached by hops (``RemotePipe``). The upstream's ``whoami``
tool answers with the JSON-RPC id it was sent: a passed call carries one of the
proxy's own ids (``lagent-like-pass-N``), a call of the SDK path an integer.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
if sys.platform == "win32":
    pytest.skip("calls pass through stdio pipes on POSIX only", allow_module_level=True)

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import lagent_like

ROOT = Path(lagent_like.__file__).parent.parent
UPSTREAM = Path(__file__).with_name("r5_http_server.py")


def _calls(command: list[str], errlog: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    paths = (str(ROOT), os.environ.get("PYTHONPATH", ""))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)

    async def run() -> list[Any]:
        with open(errlog, "ab") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                listed = [tool.name for tool in (await session.list_tools()).tools]
                answers: list[Any] = [listed]
                for tool, arguments in calls:
                    result = await session.call_tool(tool, arguments)
                    answers.append(result.model_dump(by_alias=True, exclude_none=True))
        return answers

    return anyio.run(run)


def test_every_stdio_servers_calls_pass_through(tmp_path: Path) -> None:
    servers = [
        subprocess.list2cmdline([sys.executable, str(UPSTREAM), str(tmp_path / name), "--stdio"])
        for name in ("first", "second")
    ]
    proxy = [sys.executable, "-m", "lagent_like", "serve-mcp", "--mcp", servers[0], "--mcp", servers[1]]
    first, second = "http-passthrough-upstream__whoami", "http-passthrough-upstream_2__whoami"
    listed, *answers = _calls(
        proxy,
        tmp_path / "proxy.err",
        [(first, {}), (second, {}), (second, {}), ("http-passthrough-upstream_2__shout", {"text": "two"})],
    )
    assert {first, second} <= set(listed)
    ids = [answer["content"][0]["text"] for answer in answers[:3]]
    assert all(found.startswith("lagent-like-pass-") for found in ids), ids
    assert answers[3]["structuredContent"] == {"text": "TWO"}
