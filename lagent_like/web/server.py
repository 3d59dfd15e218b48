"""Run the inspector: a uvicorn server on 127.0.0.1 in a thread, and ``inspect()``.

The inspector is a tool for the person at the keyboard, so it binds the loopback
address only, and the URL it prints carries a fresh random token (as Jupyter's does).
The server runs in a background thread so that Python code (a notebook, a test, the
``chat --web`` command) keeps control while the page is open.
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
from collections.abc import Collection, Iterable
from typing import IO, Any, Optional, Union

from .._private.connection_gate import (
    DEFAULT_HEAD_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_PER_PEER,
    ConnectionGate,
)
from ..agents.react import ReAct
from ..agents.trace import AgentResult
from ..executors._action_executor import ActionExecutor
from .app import build_app
from .state import InspectorState

__all__ = ["InspectorServer", "inspect"]

HOST = "127.0.0.1"


class InspectorServer:
    """The inspector of an executor, served on ``127.0.0.1``.

    Args:
        executor: the tools to show and call (calls go through it, hooks and all).
        port: the TCP port; ``0`` picks a free one.
        token: the secret the URL carries (default: a fresh random one).
        allow_code: which code-executing tools (the interpreters) the page may call:
            ``True`` all, ``False`` none, or a collection of tool names.
        traces: agent results or trace file paths to show on the Traces tab.
        agent: a ReAct agent over ``executor``; the page can then ask it questions.
        files_dirs: directories whose files the page may download when a result names
            them; a tool's ``files_root`` (the PPT tool's ``root``) is served too, and
            no other file.
        runs_dir: a folder of trace files, listed on the Traces tab; the runs the page
            asks are saved there, so the list survives a restart.
        max_connections: connections open at once; more are answered 503 and closed.
        max_connections_per_peer: connections open at once from one address (429).
        head_timeout: seconds a connection has to send each request head (else 408).
        allow_connect_commands: let the page start a command (a stdio MCP server) from
            its Servers panel: code execution, so off by default; URLs need no flag.
        mcp_servers: ``(MCPToolkit, target)`` pairs of toolkits ``executor`` holds,
            each with the URL or command line it was opened from (``--mcp``): listed on
            the Servers panel to disconnect and reconnect.
        mcp_token: the bearer token the URLs of ``mcp_servers`` need on reconnection.

    Raises:
        TypeError: ``files_dirs`` is one path, not a list of them.
        ValueError: one of ``files_dirs`` (or ``runs_dir``) is not a directory, or a
            limit is not positive.

    Use ``with InspectorServer(...) as server:`` or :meth:`start` / :meth:`stop`;
    :attr:`url` is the address to open.
    """

    def __init__(
        self,
        executor: ActionExecutor,
        *,
        port: int = 0,
        token: Optional[str] = None,
        allow_code: Union[bool, Collection[str]] = False,
        traces: Iterable[Union[AgentResult, str]] = (),
        agent: Optional[ReAct] = None,
        files_dirs: Iterable[str] = (),
        runs_dir: Optional[str] = None,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        max_connections_per_peer: int = DEFAULT_MAX_PER_PEER,
        head_timeout: float = DEFAULT_HEAD_TIMEOUT,
        allow_connect_commands: bool = False,
        mcp_servers: Iterable[tuple[Any, str]] = (),
        mcp_token: Optional[str] = None,
    ) -> None:
        self.gate = ConnectionGate(max_connections, max_connections_per_peer, head_timeout)
        self.state = InspectorState(
            executor,
            allow_code=allow_code,
            agent=agent,
            files_dirs=files_dirs,
            runs_dir=runs_dir,
            allow_connect_commands=allow_connect_commands,
            mcp_servers=mcp_servers,
            mcp_token=mcp_token,
        )
        for trace in traces:
            if isinstance(trace, AgentResult):
                self.state.add_trace(trace, f"run {len(self.state.traces()) + 1}")
            else:
                self.state.add_trace_file(trace)
        self.token = token or secrets.token_urlsafe(24)
        self.requested_port = port
        self.port: Optional[int] = None
        self._server: Any = None
        self._thread: Optional[threading.Thread] = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` once started."""
        if self.port is None:
            raise RuntimeError("InspectorServer: not started; call start() first")
        return f"http://{HOST}:{self.port}"

    @property
    def url(self) -> str:
        """The page's address with the token, to open in a browser."""
        return f"{self.base_url}/?token={self.token}"

    def start(self, timeout: float = 10.0) -> InspectorServer:
        """Start serving in a background thread; returns once the port is bound.

        Raises:
            OSError: the port cannot be bound (e.g. it is taken).
            RuntimeError: the server did not start within ``timeout`` seconds.
        """
        import uvicorn

        # Built before the URL is known, so that the page's first load finds it ready.
        self.state.index_json()
        config = uvicorn.Config(
            # The gate counts and times each connection before the token is checked.
            **self.gate.uvicorn_options(build_app(self.state, self.token)),
            host=HOST,
            port=self.requested_port,
            log_level="warning",
            lifespan="off",
            access_log=False,
        )
        server = uvicorn.Server(config)
        errors: list[BaseException] = []

        def serve() -> None:
            try:
                server.run()
            except BaseException as exc:  # noqa: BLE001 - reported to start(); SystemExit on bind errors
                errors.append(exc)

        thread = threading.Thread(target=serve, name="lagent-like-inspector", daemon=True)
        thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not thread.is_alive():
                raise OSError(
                    f"the inspector could not listen on {HOST}:{self.requested_port}: "
                    f"{errors or 'see stderr'}"
                )
            if time.monotonic() > deadline:
                server.should_exit = True
                raise RuntimeError(f"the inspector did not start within {timeout} s")
            time.sleep(0.01)
        self._server, self._thread = server, thread
        self.port = server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        """Stop serving, wait for the server thread to end, close the servers the page connected."""
        if self._server is not None and self._thread is not None:
            self.state.close_streams()  # a page following a live run must not hold the server open
            self._server.should_exit = True
            self._thread.join(10)
        self._server = self._thread = None
        self.state.servers.close()

    def wait(self) -> None:
        """Block until the server stops (Ctrl-C stops it)."""
        try:
            while self._thread is not None and self._thread.is_alive():
                self._thread.join(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def __enter__(self) -> InspectorServer:
        return self.start() if self.port is None else self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def inspect(
    executor: ActionExecutor,
    *,
    port: int = 0,
    allow_code: Union[bool, Collection[str]] = False,
    traces: Iterable[Union[AgentResult, str]] = (),
    agent: Optional[ReAct] = None,
    files_dirs: Iterable[str] = (),
    runs_dir: Optional[str] = None,
    block: bool = True,
    out: Optional[IO[str]] = None,
    allow_connect_commands: bool = False,
    mcp_servers: Iterable[tuple[Any, str]] = (),
    mcp_token: Optional[str] = None,
) -> InspectorServer:
    """Serve the inspector of ``executor`` and print its URL (with the token).

    Args:
        executor: the tools to show and call.
        port: the port on 127.0.0.1; ``0`` (the default) picks a free one.
        allow_code: which code-executing tools the page may call: ``True`` all,
            ``False`` none, or a collection of tool names.
        traces: agent results or trace files to show.
        agent: a ReAct agent the page may ask questions.
        files_dirs: directories whose files the page may download when a result names
            them (besides each tool's ``files_root``).
        runs_dir: a folder of trace files to list; the runs the page asks are saved
            there, so the list survives a restart.
        block: serve until Ctrl-C (the default); ``False`` returns the running server
            at once (call its ``stop()``).
        out: where the URL is printed (default ``sys.stderr``).
        allow_connect_commands: let the page start a command (a stdio MCP server).
        mcp_servers: ``(MCPToolkit, target)`` pairs of toolkits ``executor`` holds, to
            list on the Servers panel.
        mcp_token: the bearer token the URLs of ``mcp_servers`` need on reconnection.

    Returns:
        The server (already stopped when ``block`` is true).
    """
    server = InspectorServer(
        executor,
        port=port,
        allow_code=allow_code,
        traces=traces,
        agent=agent,
        files_dirs=files_dirs,
        runs_dir=runs_dir,
        allow_connect_commands=allow_connect_commands,
        mcp_servers=mcp_servers,
        mcp_token=mcp_token,
    ).start()
    stream = out if out is not None else sys.stderr
    print(f"lagent-like inspector: open {server.url}", file=stream, flush=True)
    if block:
        print("(Ctrl-C stops it)", file=stream, flush=True)
        server.wait()
    return server
