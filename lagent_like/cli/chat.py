"""``lagent-like chat``: the ReAct agent against an OpenAI-compatible server, from a shell.

Apart from the other commands because it is the only one that talks to a model: it
reads the server's key (never from the command line, which every local user can
read), asks questions one-shot or read from standard input, and keeps the
conversation between them; with ``--web`` it hands the agent to the inspector page.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import Any, Optional

from .. import ActionExecutor
from ._live import format_event
from .common import CliError, chosen_tools, load_web, mcp_token, open_mcp_toolkits, read_secret

__all__ = ["API_KEY_ARGUMENT_REFUSED", "cmd_chat"]

#: Why the key is never a command-line argument.
API_KEY_ARGUMENT_REFUSED = (
    "--api-key is not accepted: a command line is visible to every user of the machine (ps, "
    "/proc/PID/cmdline); set OPENAI_API_KEY or pass --api-key-file PATH"
)


def _questions(first: Optional[str]) -> Iterator[str]:
    """The question given on the command line, or lines read from standard input."""
    if first is not None:
        yield first
        return
    interactive = sys.stdin.isatty()
    while True:
        if interactive:
            print("you> ", end="", file=sys.stderr, flush=True)
        line = sys.stdin.readline()
        if not line or line.strip() in ("exit", "quit"):
            return
        if line.strip():
            yield line.strip()


def _api_key(args: argparse.Namespace) -> Optional[str]:
    """The model server's key: from ``--api-key-file``, else ``None`` (``OPENAI_API_KEY``)."""
    if args.api_key is not None:
        raise CliError(API_KEY_ARGUMENT_REFUSED)
    path = args.api_key_file
    if path is None:
        return None
    return read_secret(path, "the key file", lambda exc: f"cannot read the key file {path}: {exc.strerror}")


def cmd_chat(args: argparse.Namespace) -> int:
    """``chat``: ask the agent each question; exit 1 when one ends without an answer."""
    from ..agents import ReAct
    from ..agents.trace_render import format_turn, wants_color
    from ..llms import OpenAIChat

    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL")
    if not base_url:
        raise CliError("no server: pass --base-url URL (or set OPENAI_BASE_URL)")
    color = wants_color(sys.stdout, args.color)
    model = OpenAIChat(
        args.model, base_url=base_url, api_key=_api_key(args), timeout=args.timeout, max_retries=args.retries
    )
    # With only --mcp, the servers' tools alone (not every registered tool).
    tools = [] if args.mcp and not args.tools and not args.imports else chosen_tools(args)
    toolkits = open_mcp_toolkits(args, taken=[tool.name for tool in tools])
    try:
        agent = ReAct(
            model,
            ActionExecutor(actions=[*tools, *toolkits]),
            max_turns=args.max_turns,
            native_tools=args.native,
            # On the page's terminal, each turn once done; a terminal chat streams its events.
            on_turn=(lambda turn: print(format_turn(turn, False), flush=True)) if args.web else None,
        )
        if args.web:
            return _chat_on_page(agent, args, toolkits)
        return _converse(agent, args, color)
    finally:
        for toolkit in toolkits:
            toolkit.close()


def _converse(agent: Any, args: argparse.Namespace, color: bool) -> int:
    """Ask each question in turn, keeping the conversation; 1 when one got no answer."""
    from ..agents.trace_render import paint

    history: list[dict[str, Any]] = []
    status = 0
    for question in _questions(args.question):
        result, last_text = _stream(agent, question, history, color)
        if result.stop_reason == "model_error":
            raise CliError(f"the model server failed: {result.error}")
        if result.answer is None:
            print(paint(f"No final answer ({result.stop_reason}).", "error", color), flush=True)
            status = 1
            continue
        answer = f"Final Answer: {result.answer}"
        # A text-mode model already wrote the answer line, and it is on the screen.
        if not last_text.rstrip().endswith(answer):
            print(paint(answer, "answer", color), flush=True)
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": result.answer}]
    return status


def _stream(agent: Any, question: str, history: list[dict[str, Any]], color: bool) -> tuple[Any, str]:
    """Ask ``question``, printing the run's events as they happen.

    Returns:
        The run's result and the model's last text.
    """
    from ..agents import FinalAnswerEvent, ModelTextEvent

    last_text = ""
    for event in agent.stream(question, history=list(history)):
        if isinstance(event, FinalAnswerEvent):
            return event.result, last_text
        if isinstance(event, ModelTextEvent):
            last_text = event.text
        for line in format_event(event, color):
            print(line, flush=True)
    raise AssertionError("ReAct.stream ended without its FinalAnswerEvent")  # pragma: no cover


def _chat_on_page(agent: Any, args: argparse.Namespace, toolkits: list[Any]) -> int:
    """``chat --web``: serve the inspector with the agent; the page asks it questions.

    The ``--mcp`` servers are listed on the page's Servers tab, as ``inspect`` lists them.
    """
    web = load_web()
    server = web.InspectorServer(
        agent.executor,
        port=args.port,
        agent=agent,
        mcp_servers=list(zip(toolkits, args.mcp or [])),
        mcp_token=mcp_token(args.mcp_token_file) if args.mcp else None,
    ).start()
    if args.question is not None:
        # Asked before the URL is printed, so the page's first view already has the run.
        server.state.ask(args.question)
    print(f"lagent-like inspector: open {server.url}", flush=True)
    print("Ask on the page's Traces tab; Ctrl-C stops the server.", flush=True)
    server.wait()
    return 0
