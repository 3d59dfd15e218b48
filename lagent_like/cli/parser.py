"""The argument parser of the ``lagent-like`` command: every subcommand and option.

Kept apart from the commands so that the whole command line (what ``--help`` shows)
reads in one place. Options that several subcommands take (``--tools``, ``--color``,
``--port``, ``--allow-code``, repeatable lists) are declared by one helper each, so
they cannot drift apart.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Optional

from .._private.connection_gate import DEFAULT_HEAD_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PER_PEER
from .._private.version import __version__
from .common import EXPORTS, MCP_TOKEN_ENV, PROG

__all__ = ["build_parser"]

_TOOLS_HELP = (
    "comma-separated tool names (default: the -m modules' tools, else every registered tool that "
    "needs no arguments)"
)
_WITH_BUILTINS_HELP = "with -m: offer the built-in and other registered tools too, not only the modules' own"
_COLOR_HELP = "colour the output: auto (a terminal without NO_COLOR), always or never"


def _tools_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tools", metavar="A,B", help=_TOOLS_HELP)
    _flag(parser, "--with-builtins", _WITH_BUILTINS_HELP)


def _color_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--color", choices=["auto", "always", "never"], default="auto", help=_COLOR_HELP)


def _port_option(parser: argparse.ArgumentParser, default: int, help: str) -> None:
    parser.add_argument("--port", type=int, default=default, metavar="N", help=help)


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type: ``kind`` of the text, refused (naming the value) unless above 0."""

    def read(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value > 0:
            raise argparse.ArgumentTypeError(f"must be a number above 0, got {text!r}")
        return value

    return read


def _flag(parser: argparse.ArgumentParser, flag: str, help: str) -> None:
    parser.add_argument(flag, action="store_true", help=help)


def _repeatable(
    parser: argparse.ArgumentParser, *flags: str, metavar: str, help: str, dest: Optional[str] = None
) -> None:
    """An option that may be given several times, collected in a list (empty by default)."""
    # dest=None: argparse derives it from the long flag, as when it is not given.
    parser.add_argument(*flags, action="append", default=[], dest=dest, metavar=metavar, help=help)


def _mcp_options(parser: argparse.ArgumentParser, what: str) -> None:
    """``--mcp`` (repeatable) and ``--mcp-token-file``: other MCP servers' tools."""
    _repeatable(
        parser,
        "--mcp",
        metavar="URL_OR_COMMAND",
        help=f"{what} the tools of an MCP server: an http(s) URL or a command line (repeatable); "
        "each server is a toolkit named after the server",
    )
    parser.add_argument(
        "--mcp-token-file",
        metavar="FILE",
        help=f"--mcp URL: a file whose first line is the server's bearer token (default: ${MCP_TOKEN_ENV})",
    )


def _add_lint(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lint = commands.add_parser("lint", help="report problems in tool descriptions")
    lint.add_argument(
        "targets",
        nargs="*",
        metavar="TARGET",
        help=(
            "a module to import, a Python file (tools.py) or a registered tool name "
            "(default: every registered tool)"
        ),
    )
    _flag(lint, "--json", "print the findings as a JSON list")
    _flag(lint, "--strict", "treat warnings as errors (exit 1)")


def _add_chat(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chat = commands.add_parser("chat", help="run the ReAct agent against an OpenAI-compatible server")
    chat.add_argument(
        "question", nargs="?", metavar="QUESTION", help="ask once (default: read questions from stdin)"
    )
    chat.add_argument(
        "--base-url", metavar="URL", help="the server, e.g. http://localhost:8000/v1 (or OPENAI_BASE_URL)"
    )
    chat.add_argument("--model", required=True, metavar="M", help="the model name the server knows")
    chat.add_argument(
        "--api-key-file",
        metavar="PATH",
        help="read the key from PATH (default: OPENAI_API_KEY; none for local servers)",
    )
    # Refused with the reason (the process table), rather than "unrecognized argument".
    chat.add_argument("--api-key", help=argparse.SUPPRESS)
    _tools_option(chat)
    chat.add_argument(
        "--max-turns", type=int, default=10, metavar="N", help="turns per question (default 10)"
    )
    _flag(chat, "--native", "use native tool calls instead of ReAct text")
    chat.add_argument(
        "--timeout", type=float, default=60.0, metavar="S", help="seconds per request (default 60)"
    )
    chat.add_argument("--retries", type=int, default=3, metavar="N", help="retries on 429/5xx (default 3)")
    _mcp_options(chat, "also give the model")
    _color_option(chat)
    _flag(chat, "--web", "show the runs turn by turn on a local page (needs lagent-like[web])")
    _port_option(chat, 0, "with --web: the page's port (default: a free one)")


def _add_serve_mcp(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser("serve-mcp", help="serve tools to MCP clients (needs lagent-like[mcp])")
    _tools_option(serve)
    _mcp_options(
        serve, "also serve (proxy), under their own names (a prefix only on a clash, stated at start),"
    )
    serve.add_argument(
        "--transport", choices=["stdio", "http"], default="stdio", help="stdio (default) or streamable HTTP"
    )
    serve.add_argument("--host", default="127.0.0.1", metavar="H", help="HTTP address (default 127.0.0.1)")
    _port_option(serve, 8000, "HTTP port, 0 for a free one (default 8000)")
    _flag(
        serve,
        "--allow-code",
        "also serve tools that run code (PythonInterpreter, ...) when --tools is not given",
    )
    serve.add_argument(
        "--token-file",
        metavar="PATH",
        help="HTTP: a file whose first line is the bearer token clients must send (default: "
        "$LAGENT_LIKE_MCP_TOKEN, else a new token printed at start)",
    )
    _repeatable(
        serve,
        "--allow-host",
        metavar="NAME",
        help="HTTP: another name clients may use in Host/Origin besides the bind address (repeatable)",
    )
    serve.add_argument(
        "--max-client-calls",
        type=int,
        default=4,
        metavar="N",
        help="calls of one client that run at once; more wait their turn (default 4, 0 for no limit)",
    )
    serve.add_argument(
        "--max-connections",
        type=_positive(int),
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help=f"HTTP: connections open at once; more are answered 503 (default {DEFAULT_MAX_CONNECTIONS})",
    )
    serve.add_argument(
        "--max-connections-per-peer",
        type=_positive(int),
        default=DEFAULT_MAX_PER_PEER,
        metavar="N",
        help="HTTP: connections open at once from one address; more are answered 429 "
        f"(default {DEFAULT_MAX_PER_PEER})",
    )
    serve.add_argument(
        "--head-timeout",
        type=_positive(float),
        default=DEFAULT_HEAD_TIMEOUT,
        metavar="SECONDS",
        help="HTTP: time a connection has to send each request head, else 408 "
        f"(default {DEFAULT_HEAD_TIMEOUT:g})",
    )


def _add_inspect(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    inspect = commands.add_parser(
        "inspect", help="serve a local page to look at and try the tools (needs lagent-like[web])"
    )
    _tools_option(inspect)
    _port_option(inspect, 0, "the port on 127.0.0.1 (default: a free one)")
    _flag(
        inspect,
        "--allow-code",
        "let the page call code-executing tools (otherwise only those named in --tools)",
    )
    _mcp_options(inspect, "also inspect")
    _flag(
        inspect,
        "--allow-connect-commands",
        "let the page start a command line as an MCP server (it runs on this machine); "
        "without it the page connects URLs only",
    )
    _repeatable(
        inspect,
        "--files-dir",
        metavar="DIR",
        help="let the page download files that results name inside DIR (repeatable; default: none "
        "but a tool's own, such as PPT's root)",
    )
    _repeatable(
        inspect,
        "--trace",
        metavar="FILE",
        help="show a trace file saved with AgentResult.save(path) (repeatable)",
    )
    inspect.add_argument(
        "--runs-dir",
        metavar="DIR",
        help="list the trace files in DIR on the Traces tab (searchable; they survive a restart)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lagent-like`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Inspect, call and serve lagent_like tools; run a ReAct agent over them.",
        epilog="Exit status: 0 success, 1 a call that did not succeed or lint problems, 2 an error.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    _repeatable(
        parser,
        "-m",
        "--import",
        dest="imports",
        metavar="MODULE",
        help="import MODULE first so that its tools register (repeatable)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    listing = commands.add_parser(
        "list", help="print the tool names, one per line (with -m: the modules' tools)"
    )
    _flag(listing, "--json", "print a JSON list instead")
    _flag(listing, "--with-builtins", _WITH_BUILTINS_HELP)
    describe = commands.add_parser("describe", help="print a tool's description as JSON")
    describe.add_argument("name", metavar="NAME", help="'Tool' or 'Tool.api'")
    call = commands.add_parser("call", help="run one call and print its ActionReturn as JSON")
    call.add_argument("name", metavar="NAME", help="'Tool' or 'Tool.api'")
    call.add_argument("arguments", metavar="ARGS", help="the argument string, or '-' to read stdin")
    _add_lint(commands)
    prompt = commands.add_parser("prompt", help="print what a model would be given")
    _tools_option(prompt)
    prompt.add_argument(
        "--format",
        choices=["react", *EXPORTS],
        default="react",
        help="a ReAct system prompt (default) or a function-calling export as JSON",
    )
    demo = commands.add_parser("demo", help="run a recorded ReAct episode offline (no key, no server)")
    _color_option(demo)
    demo.add_argument(
        "--save",
        metavar="FILE",
        help="also write the run as a trace file (open it with inspect --trace FILE)",
    )
    _add_chat(commands)
    _add_serve_mcp(commands)
    _add_inspect(commands)
    return parser
