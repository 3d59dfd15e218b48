"""Starting and stopping the suite's server subprocesses on 127.0.0.1 (not a test file).

An MCP server or proxy under test runs as ``serve-mcp --transport http --port 0`` (or a
test server speaking alike): it picks a free port and announces its URL on stderr as
``serving MCP on <url>``. Every test that needs one starts it, waits for that line (a
bounded wait) and stops it after, the same way; this module is that one way. It holds
no state: each call starts and stops its own process.
"""

from __future__ import annotations

import contextlib
import re
import select
import subprocess
from collections.abc import Iterator, Mapping, Sequence

import pytest

#: Seconds a test waits for a server to announce itself, and then for it to stop.
LIMIT = 30


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
