"""Starting and stopping the suite's server subprocesses (not a test file).

An MCP server or proxy under test runs as ``serve-mcp --transport http --port 0`` (or a
test server speaking alike): it picks a free port and announces its URL on stderr as
``serving MCP on <url>``. Every test that needs one starts it, waits for that line (a
bounded wait) and stops it after, the same way; this module is that one way, with the
stdio server a test speaks raw JSON-RPC to. It holds no state: each call starts its
own process.
"""

from __future__ import annotations

import contextlib
import json
import re
import select
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence

import pytest

#: Seconds a test waits for a server to announce itself, and then for it to stop.
LIMIT = 30
#: The ``initialize`` parameters a hand-written client sends.
RAW_INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "raw", "version": "0"},
}
#: A whole ``initialize`` request (id 1) as JSON text.
INITIALIZE_REQUEST = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": RAW_INITIALIZE})


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End ``proc`` (terminate, kill if it lingers) and close its stderr pipe."""
    proc.terminate()
    try:
        proc.wait(LIMIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(LIMIT)
    if proc.stderr is not None:
        proc.stderr.close()


def raw_stdio_server(args: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """``python ARGS`` as a stdio server a test speaks to by hand (stdin and stdout piped)."""
    return subprocess.Popen(
        [sys.executable, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(env),
    )


def start_announced(
    argv: Sequence[str], env: Mapping[str, str], host: str = "127.0.0.1", what: str = "the server"
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``argv`` and wait for the URL it announces on ``host``; the caller stops it.

    Lines before the announcement are skipped; the process ending, or saying nothing
    for :data:`LIMIT` seconds, first fails the test (the process stopped).

    Returns:
        The process (its stderr still open, unbuffered, for what it says next) and the URL.
    """
    # Unbuffered: ``select`` then sees every line the server wrote, none held in a buffer.
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(env),
        bufsize=0,
    )
    assert proc.stderr is not None
    announced = re.compile(rf"serving MCP on (http://{re.escape(host)}:\d+/mcp)\n")
    said: list[str] = []
    while True:
        ready, _, _ = select.select([proc.stderr], [], [], LIMIT)
        line = proc.stderr.readline().decode() if ready else ""
        match = announced.fullmatch(line)
        if match is not None:
            return proc, match.group(1)
        if not line:
            stop(proc)
            pytest.fail(f"{what} did not start serving; it said {said!r}")
        said.append(line)


@contextlib.contextmanager
def serving(
    argv: Sequence[str], env: Mapping[str, str], host: str = "127.0.0.1", what: str = "the server"
) -> Iterator[str]:
    """:func:`start_announced` as a context: yields the URL, stops the process after."""
    proc, url = start_announced(argv, env, host, what)
    try:
        yield url
    finally:
        stop(proc)
