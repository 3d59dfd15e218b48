"""What the inspector holds between requests: the executor, traces and result files.

The web routes stay thin: every decision (may this API be called, what a call
answered, which traces exist, which local files a page may fetch) is made here in
plain Python, once, where tests can reach it without a server.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import deque
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any, Callable, Optional, Union

from .._private.json_values import json_value
from .._private.log import logger
from ..agents._as_tool import nested_trace
from ..agents._events import FinalAnswerEvent
from ..agents.react import ReAct
from ..agents.trace import AgentResult, Turn
from ..exceptions import ToolNotFoundError
from ..executors._action_executor import ActionExecutor
from ..schema import ActionReturn, ActionStatusCode, ActionValidCode
from ._errors import InspectorError
from ._files import ResultFiles
from ._servers import MCPServers
from .catalogue import build_catalogue

__all__ = ["InspectorError", "InspectorState"]


#: How many of the latest calls the page's history keeps (older ones drop off).
HISTORY_SIZE = 200

#: Result item types whose content may be a local file the page shows or links to.
_FILE_ITEMS = frozenset({"image", "file", "audio", "video"})


class _Trace:
    """One trace shown by the page: a finished result, or a run still going."""

    def __init__(self, title: str, result: Optional[AgentResult] = None) -> None:
        self.title = title
        self.result = result
        self.turns: list[Turn] = list(result.turns) if result else []
        self.running = result is None
        #: The chunks the tool call running now has yielded so far (a live run only).
        self.progress: list[dict[str, Any]] = []
        #: The turn going on now (a live run only): its number, what the model wrote
        #: and the calls started, shown before the turn is over.
        self.live: Optional[dict[str, Any]] = None
        #: Counts the changes of a live run, so that a follower knows what it has seen.
        self.version = 0

    def summary(self, trace_id: str) -> dict[str, Any]:
        stop = self.result.stop_reason if self.result else None
        return {
            "id": trace_id,
            "title": self.title,
            "turns": len(self.turns),
            "running": self.running,
            "stop_reason": stop,
        }

    def detail(self, trace_id: str) -> dict[str, Any]:
        data = self.result.to_dict() if self.result else AgentResult(turns=list(self.turns)).to_dict()
        data.update({key: value for key, value in self.summary(trace_id).items() if key != "turns"})
        data["progress"] = list(self.progress) if self.running else []
        data["live"] = dict(self.live, calls=list(self.live["calls"])) if self.running and self.live else None
        return data

    def see(self, event: Any) -> None:
        """Note a live run's event: a turn starts with the model's text, then its calls."""
        if event.type == "model_text":
            self.live = {"turn": event.turn, "agent": event.agent, "model_text": event.text, "calls": []}
        elif event.type == "tool_call" and self.live is not None:
            self.live["calls"].append({"name": event.name, "arguments": json_value(event.arguments)})


class InspectorState:
    """The executor under inspection and everything the page has produced.

    Args:
        executor: runs the calls, with its hooks and policies.
        allow_code: which code-executing tools the page may call: ``True`` all,
            ``False`` none, or a collection of tool names.
        agent: a ReAct agent over ``executor`` whose runs the page may start.
        files_dirs: directories whose files the page may download when a result names
            them (besides each tool's ``files_root``); files elsewhere are not served.
        runs_dir: a folder of trace files: each ``*.json`` in it is listed (a file
            that is not a trace is skipped with a warning in the log), and each run
            the page asks is saved there when it ends, so the run list survives a
            restart.
        allow_connect_commands: whether the page may start a command (a stdio MCP
            server) from its Servers panel; URLs need no permission.
        mcp_servers: ``(MCPToolkit, target)`` pairs of toolkits ``executor`` already
            holds, each with the URL or command line it was opened from (the ``--mcp``
            servers): listed on the Servers panel, to disconnect and reconnect.
        mcp_token: the bearer token the URLs of ``mcp_servers`` need on reconnection.

    Raises:
        TypeError: ``files_dirs`` is one path, not a list of them.
        ValueError: one of ``files_dirs``, or ``runs_dir``, is not a directory.
    """

    def __init__(
        self,
        executor: ActionExecutor,
        allow_code: Union[bool, Collection[str]] = False,
        agent: Optional[ReAct] = None,
        files_dirs: Iterable[str] = (),
        runs_dir: Optional[str] = None,
        *,
        allow_connect_commands: bool = False,
        mcp_servers: Iterable[tuple[Any, str]] = (),
        mcp_token: Optional[str] = None,
    ) -> None:
        if runs_dir is not None and not os.path.isdir(runs_dir):
            raise ValueError(f"InspectorState: runs_dir {runs_dir!r} is not a directory; create it first")
        self.runs_dir = runs_dir
        self.executor = executor
        self.allow_code = allow_code
        self.agent = agent
        self._catalogue: Optional[list[dict[str, Any]]] = None
        self._catalogue_json: Optional[str] = None
        self._index_json: Optional[str] = None
        self._generation = 0
        self._traces: dict[str, _Trace] = {}
        self._history: deque[dict[str, Any]] = deque(maxlen=HISTORY_SIZE)
        self._calls = 0
        self.files = ResultFiles(files_dirs, executor.actions)
        self._lock = threading.Lock()
        #: Notified (under the state's lock) whenever a live run's trace changes.
        self.changed = threading.Condition(self._lock)
        self._run_lock = threading.Lock()
        #: True once the server stops, and the event streams of live runs then end.
        self.closing = False
        #: The MCP servers of the Servers panel; connecting one adds a toolkit to ``executor``.
        self.servers = MCPServers(executor, self.refresh, allow_commands=allow_connect_commands)
        self.servers.adopt(mcp_servers, mcp_token)
        if runs_dir is not None:
            self._load_runs(runs_dir)

    # -- catalogue -----------------------------------------------------------------

    def catalogue(self) -> list[dict[str, Any]]:
        """The catalogue entries (built on first use; :meth:`refresh` rebuilds them)."""
        catalogue = self._catalogue
        if catalogue is None:
            catalogue = self._kept("_catalogue", lambda: build_catalogue(self.executor, self.allow_code))
        return catalogue

    def catalogue_json(self) -> str:
        """The catalogue as JSON text, serialised once."""
        text = self._catalogue_json
        if text is None:
            text = self._kept(
                "_catalogue_json", lambda: json.dumps(self.catalogue(), ensure_ascii=False, default=str)
            )
        return text

    def index_json(self) -> str:
        """The short catalogue the page starts with, as JSON text, serialised once.

        One small entry per API (``name``, ``tool``, ``search``, ``runs_code``,
        ``callable`` and ``lint`` severities): the page fetches an API's whole entry
        (:meth:`entry`) when it is opened, so a page of 500 APIs stays small.
        """
        text = self._index_json
        if text is None:
            text = self._kept("_index_json", self._build_index)
        return text

    def _build_index(self) -> str:
        index = [
            {
                "name": entry["name"],
                "tool": entry["tool"],
                "search": entry["search"],
                "runs_code": entry["runs_code"],
                "callable": entry["callable"],
                "lint": [{"severity": finding["severity"]} for finding in entry["lint"]],
            }
            for entry in self.catalogue()
        ]
        return json.dumps(index, ensure_ascii=False, default=str)

    def _kept(self, attribute: str, build: Callable[[], Any]) -> Any:
        """``build()``, kept in ``attribute`` unless the tools changed while it was built."""
        generation = self._generation
        value = build()
        with self._lock:
            if generation == self._generation:
                setattr(self, attribute, value)
        return value

    def entry(self, name: str) -> dict[str, Any]:
        """The whole catalogue entry of one API.

        Raises:
            InspectorError: no enabled API has that name (404).
        """
        return self._entry(name)

    def refresh(self) -> None:
        """Forget the catalogue, e.g. after tools were enabled, disabled or added."""
        with self._lock:
            # A catalogue being built meanwhile describes the old tools: it is not kept.
            self._generation += 1
            self._catalogue = self._catalogue_json = self._index_json = None

    # -- calls ---------------------------------------------------------------------

    def _entry(self, name: str) -> dict[str, Any]:
        try:
            canonical = self.executor.canonical_name(name)
        except ToolNotFoundError:
            canonical = name
        for entry in self.catalogue():
            if entry["name"] == canonical:
                return entry
        raise InspectorError(404, f"no enabled API is named {name!r}; the page lists the ones there are")

    def call(self, name: Any, arguments: Any, session_id: Any = None) -> dict[str, Any]:
        """Run one call through the executor and describe what came back.

        Args:
            name: ``'Tool'`` or ``'Tool.api'``.
            arguments: the raw argument text as a model would write it, or a JSON
                object (from the form), given to the executor as is.
            session_id: the executor session to call in (default: the default session).

        Returns:
            ``{'record': ..., 'repairs': ..., 'seconds': ..., 'items': ...}``: the
            ``ActionReturn`` as a dict, the repairs (a list, or ``None``), the seconds
            taken and the result items. A local file among the items gets an ``href``
            to download it when it is inside a served directory, else ``not_served``
            saying why.

        Raises:
            InspectorError: a malformed request (400), an unknown API (404), or a
                code-executing tool without ``allow_code`` (403).
        """
        if not isinstance(name, str) or not name:
            raise InspectorError(400, "'name' is required: the API to call, e.g. 'Calc.add'")
        if not isinstance(arguments, (str, dict)):
            raise InspectorError(400, "'arguments' must be a string (as a model writes it) or a JSON object")
        if session_id is not None and not isinstance(session_id, str):
            raise InspectorError(400, "'session_id' must be a string")
        entry = self._entry(name)
        if not entry["callable"]:
            raise InspectorError(
                403,
                f"{entry['name']} runs code: the operator must start the inspector with --allow-code "
                "(or inspect(..., allow_code=True)) to call it from the page",
            )
        started = time.perf_counter()
        ret = self.executor(entry["name"], arguments, session_id)
        seconds = time.perf_counter() - started
        self._remember(entry["name"], arguments, ret, seconds)
        return {
            "record": ret.to_dict(),
            "repairs": getattr(ret, "repairs", None),
            "seconds": seconds,
            "items": self._items(ret),
        }

    def _remember(
        self, name: str, arguments: Union[str, dict[str, Any]], ret: ActionReturn, seconds: float
    ) -> None:
        """Add one call to the history, with the arguments exactly as they were sent."""
        with self._lock:
            self._calls += 1
            self._history.append(
                {
                    "id": self._calls,
                    "name": name,
                    "arguments": arguments,
                    "state": ret.state,
                    "seconds": seconds,
                }
            )

    def history(self) -> list[dict[str, Any]]:
        """The page's calls, latest first (at most ``HISTORY_SIZE``, 200).

        Returns:
            Dicts with ``id`` (1 for the first call), ``name`` (the API called),
            ``arguments`` (the raw text or the JSON object, as sent, to re-open the
            call in "Try it"), ``state`` (the record's state code) and ``seconds``.
        """
        with self._lock:
            return list(reversed(self._history))

    def _items(self, ret: ActionReturn) -> list[dict[str, Any]]:
        items = []
        for item in ret.result or []:
            # JSON, whatever a tool put in its own record: the answer must always serialize.
            shown = json_value(item)
            content = item.get("content")
            if item.get("type") in _FILE_ITEMS and isinstance(content, str) and os.path.isfile(content):
                shown.update(self.files.describe(content))
            items.append(shown)
        return items

    # -- traces --------------------------------------------------------------------

    def add_trace(self, result: AgentResult, title: str) -> str:
        """Show ``result`` on the page, and each agent-tool run kept in it; returns its id."""
        with self._lock:
            trace_id = str(len(self._traces) + 1)
            self._traces[trace_id] = _Trace(title, result)
        self._add_nested(result, title)
        return trace_id

    def _add_nested(self, result: AgentResult, title: str) -> None:
        """Show the runs of agent tools (``as_tool``) kept in ``result``'s records as traces of their own."""
        for turn in result.turns:
            for ret in turn.tool_returns or [turn.action_return]:
                try:
                    nested = nested_trace(ret)
                except ValueError:
                    continue  # a record that only looks like an agent tool's: nothing to open
                if nested is not None:
                    self.add_trace(nested, f"{title} > turn {turn.index}: {nested.last_agent or 'agent'}")

    def add_trace_file(self, path: str) -> str:
        """Read a trace file written by :meth:`AgentResult.save` and show it.

        Raises:
            OSError, ValueError: the file cannot be read or is not a trace.
        """
        return self.add_trace(AgentResult.load(path), Path(path).name)

    def _load_runs(self, folder: str) -> None:
        """List every trace file of ``folder``, by name; warn about the files that are not traces."""
        for path in sorted(Path(folder).glob("*.json")):
            try:
                result = AgentResult.load(path)
            except (OSError, ValueError) as exc:
                logger().warning("inspector: %s is not a trace file, not listed: %s", path, exc)
                continue
            # The question in the title, so that searching the list finds a run by it.
            asked = [m.get("content") for m in result.messages if m.get("role") == "user"]
            question = asked[0] if asked and isinstance(asked[0], str) else None
            self.add_trace(result, f"{path.name}: {question}" if question else path.name)

    def _save_run(self, result: AgentResult, trace_id: str) -> None:
        """Keep a finished run in ``runs_dir``, named so that the folder sorts by time."""
        if self.runs_dir is None:
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        try:
            result.save(Path(self.runs_dir) / f"run-{stamp}-{trace_id}.json")
        except OSError as exc:  # a full disk must not end the server; the run stays on the page
            logger().warning("inspector: could not save run %s in %s: %s", trace_id, self.runs_dir, exc)

    def add_trace_data(self, data: Any, title: Any) -> str:
        """Show a trace the page uploaded (the JSON of a trace file).

        Raises:
            InspectorError: ``data`` is not a trace (400, saying why).
        """
        try:
            result = AgentResult.from_dict(data)
        except ValueError as exc:
            raise InspectorError(400, str(exc)) from None
        return self.add_trace(result, title if isinstance(title, str) and title else "uploaded trace")

    def traces(self) -> list[dict[str, Any]]:
        """A summary of every trace, oldest first."""
        with self._lock:
            return [trace.summary(key) for key, trace in self._traces.items()]

    def trace(self, trace_id: str) -> dict[str, Any]:
        """One trace in full (a run still going shows the turns done so far).

        Raises:
            InspectorError: no such trace (404).
        """
        with self._lock:
            trace = self._traces.get(trace_id)
            if trace is None:
                raise InspectorError(404, f"no trace number {trace_id}")
            return trace.detail(trace_id)

    def ask(self, question: Any) -> str:
        """Start an agent run on ``question`` in a thread; returns the new trace's id.

        Raises:
            InspectorError: no agent (404), no question (400), or a run is going (409).
        """
        agent = self.agent
        if agent is None:
            raise InspectorError(404, "no agent: start the page with lagent-like chat --web to ask questions")
        if not isinstance(question, str) or not question.strip():
            raise InspectorError(400, "'question' is required: the text to ask the agent")
        if not self._run_lock.acquire(blocking=False):
            raise InspectorError(409, "a run is still going: wait for its final answer")
        trace = _Trace(question.strip())
        with self._lock:
            trace_id = str(len(self._traces) + 1)
            self._traces[trace_id] = trace
        threading.Thread(
            target=self._run, args=(agent, trace, trace_id, question.strip()), daemon=True
        ).start()
        return trace_id

    def _run(self, agent: ReAct, trace: _Trace, trace_id: str, question: str) -> None:
        previous, previous_progress = agent.on_turn, agent.on_progress

        def on_turn(turn: Turn) -> None:
            with self.changed:
                trace.turns.append(turn)
                trace.progress, trace.live = [], None  # the turn holds the whole output now
                self._touch(trace)
            if previous is not None:
                previous(turn)

        def on_progress(tool: str, chunk: Any) -> None:
            with self.changed:
                trace.progress.append({"tool": tool, "chunk": json_value(chunk)})
                self._touch(trace)
            if previous_progress is not None:
                previous_progress(tool, chunk)

        agent.on_turn, agent.on_progress = on_turn, on_progress
        try:
            try:
                result = self._played(agent, trace, question)
            except Exception as exc:  # noqa: BLE001 - an on_turn error still ends the run on the page
                error = f"{type(exc).__name__}: {exc}"
                result = AgentResult(turns=list(trace.turns), stop_reason="model_error", error=error)
            self._save_run(result, trace_id)
            with self.changed:
                trace.result, trace.running, trace.live = result, False, None
                self._touch(trace)
            self._add_nested(result, trace.title)
        finally:
            agent.on_turn, agent.on_progress = previous, previous_progress
            self._run_lock.release()

    def _touch(self, trace: _Trace) -> None:
        """Tell the followers of a live run that it changed (called under ``self.changed``)."""
        trace.version += 1
        self.changed.notify_all()

    def follow(self, trace_id: str, seen: int, timeout: float) -> tuple[int, Optional[dict[str, Any]]]:
        """Wait until trace ``trace_id`` differs from its version ``seen``, or ``timeout`` seconds.

        What ``GET /api/traces/{id}/events`` pushes to the page: the trace whenever a
        live run changes, instead of the page asking for it again and again.

        Args:
            trace_id: the trace to follow.
            seen: the version the follower has (``-1``: none yet, answered at once).
            timeout: the most seconds to wait (the caller then checks that its client
                is still there).

        Returns:
            ``(version, trace)`` as :meth:`trace` gives it, or ``(seen, None)`` when
            nothing changed in time.

        Raises:
            InspectorError: no such trace (404).
        """
        with self.changed:
            trace = self._traces.get(trace_id)
            if trace is None:
                raise InspectorError(404, f"no trace number {trace_id}")
            if not self.changed.wait_for(lambda: trace.version != seen or self.closing, timeout):
                return seen, None
            if trace.version == seen:
                return seen, None  # the server is stopping
            return trace.version, trace.detail(trace_id)

    def close_streams(self) -> None:
        """End every :meth:`follow` waiting now and to come: the server is stopping."""
        with self.changed:
            self.closing = True
            self.changed.notify_all()

    def _played(self, agent: ReAct, trace: _Trace, question: str) -> AgentResult:
        """Stream the run, showing each turn from the model's reply on; its result."""
        for event in agent.stream(question):
            if isinstance(event, FinalAnswerEvent):
                return event.result
            with self.changed:
                trace.see(event)
                self._touch(trace)
        raise AssertionError("ReAct.stream ended without its FinalAnswerEvent")  # pragma: no cover


def code_names() -> dict[str, dict[str, str]]:
    """The names of the status and validity codes, for the page to show beside numbers."""
    return {
        "state": {str(int(code)): code.name for code in ActionStatusCode},
        "valid": {str(int(code)): code.name for code in ActionValidCode},
    }
