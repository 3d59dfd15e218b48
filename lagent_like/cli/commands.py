"""The ``lagent-like`` command: look at and try tools from a shell.

A tool author wants to see what a model will be told about a tool and what comes
back for a given argument string without writing an agent or a script. This module
gives them that as a command (also ``python -m lagent_like``)::

    lagent-like -m mytools list
    lagent-like -m mytools describe Weather
    lagent-like -m mytools call Weather.current '{"city": "Paris"}'
    lagent-like lint mytools
    lagent-like -m mytools prompt --tools Weather --format openai
    lagent-like demo
    lagent-like -m mytools chat --base-url http://localhost:8000/v1 --model qwen "Weather in Paris?"
    lagent-like -m mytools serve-mcp --tools Weather --transport http --port 8000
    lagent-like -m mytools inspect --port 8765

``lint`` runs the schema doctor (:mod:`lagent_like.cli.lint`) over modules or tool names
(every registered tool but the built-ins when none is given). ``prompt`` prints what
a model would be given (a ReAct system prompt or a function-calling export), ``demo``
runs a recorded ReAct episode offline over the real interpreters, and ``chat`` runs
the ReAct agent against an OpenAI-compatible server, one-shot or interactively.
``serve-mcp`` serves the tools to other programs over the Model Context Protocol
(the ``mcp`` extra). ``inspect`` serves a local web page to look at and try the tools
and to replay saved agent traces; ``chat --web`` shows the agent's runs on that page
(the ``web`` extra).

It is the programmer's command line: ``-m`` imports the modules it names so that
their tools register, which is fine here because no model text ever reaches it.

Exit status: 0 on success, 1 when a ``call`` returns a record whose state is not
``SUCCESS``, ``lint`` finds an error (or a warning, with ``--strict``) or an agent
run ends without an answer, 2 for an error (usage, unknown tool, failed import, a
tool that cannot be constructed, a model server that fails, anything unexpected).
An error is one line on stderr, never a traceback. The package does not import this
module, so it costs nothing to users of the library.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import importlib
import json
import os
import sys
from collections.abc import Iterator
from typing import Any, Callable, Optional

from .. import ActionExecutor, ActionStatusCode, ToolNotFoundError, __version__, get_tool_cls, list_tools

__all__ = ["main", "select_tools"]

PROG = "lagent-like"


class CliError(Exception):
    """An error reported as one ``lagent-like: error: ...`` line with exit status 2."""


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _allow_cwd_imports() -> None:
    # Like ``python -m``, let modules in the current directory be found.
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def _import_modules(names: list[str]) -> None:
    if names:
        _allow_cwd_imports()
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:  # any failure of user code is an error line
            raise CliError(f"cannot import module {name!r}: {_reason(exc)}") from exc


def _construct(name: str, cls: type) -> Any:
    """Instantiate ``cls`` without arguments; ``TypeError`` is left to the caller."""
    try:
        return cls()
    except TypeError:
        raise
    except Exception as exc:  # a tool's constructor is user code
        raise CliError(f"cannot construct tool {name!r}: {_reason(exc)}") from exc


def _construct_named(name: str, cls: type) -> Any:
    """Instantiate a tool the user named: needing arguments is an error line too."""
    try:
        return _construct(name, cls)
    except TypeError as exc:
        raise CliError(f"cannot construct tool {name!r} without arguments: {_reason(exc)}") from exc


#: Registered tools never offered by default: executors bring their own refusal actions.
_INTERNAL_TOOLS = frozenset({"BaseAction", "InvalidAction", "NoAction", "FinishAction"})


def select_tools(names: Optional[str], skip: Optional[Callable[[type], bool]] = None) -> list[Any]:
    """Instances of the tools named in ``names`` (comma-separated), in that order.

    Without names: every registered tool but the internal ones (and the classes
    ``skip`` picks) that can be built without arguments, in registration order (tools
    needing arguments are skipped).

    Raises:
        ToolNotFoundError: a name is not registered.
        CliError: a named tool cannot be constructed.
    """
    if names:
        wanted = [name.strip() for name in names.split(",") if name.strip()]
        return [_construct_named(name, get_tool_cls(name)) for name in wanted]
    from ..actions import ASYNC_TWINS

    tools = []
    for name, cls in list_tools(with_class=True):
        # The Async* twins would offer every built-in twice.
        if name in _INTERNAL_TOOLS or cls in ASYNC_TWINS or (skip is not None and skip(cls)):
            continue
        try:
            tools.append(_construct(name, cls))
        except TypeError:
            continue
    return tools


def _cmd_list(args: argparse.Namespace) -> int:
    names = list_tools()
    print(json.dumps(names, ensure_ascii=False) if args.json else "\n".join(names))
    return 0


def _cmd_describe(args: argparse.Namespace) -> int:
    key, cls = _find_tool(args.name)
    try:
        description = _construct(key, cls).description
    except TypeError:
        # The class needs constructor arguments: show what the class declares.
        description = copy.deepcopy(cls.__tool_description__)  # type: ignore[attr-defined]
    api = args.name[len(key) + 1 :]
    if api:
        # 'Tool.api', as ``call`` takes it: that API's description.
        apis = {entry["name"]: entry for entry in description.get("api_list", [])}
        if api not in apis:
            raise CliError(
                f"tool {key!r} has no API {api!r}; its APIs: {', '.join(apis) or 'none (a simple tool)'}"
            )
        description = apis[api]
    print(_dump(description))
    return 0


def _find_tool(name: str) -> tuple[str, type]:
    """``(registry key, class)`` for ``'Tool'`` or ``'Tool.api'``: the full name first."""
    try:
        return name, get_tool_cls(name)
    except ToolNotFoundError:
        head, dot, _ = name.partition(".")
        if not dot or not head:
            raise
        return head, get_tool_cls(head)


def _read_arguments(text: str) -> str:
    return sys.stdin.read() if text == "-" else text


def _cmd_call(args: argparse.Namespace) -> int:
    key, cls = _find_tool(args.name)
    tool = _construct_named(key, cls)
    # A plugin may be registered under a name other than the tool's own name.
    route = tool.name + args.name[len(key) :]
    ret = ActionExecutor([tool])(route, _read_arguments(args.arguments))
    print(_dump(ret.to_dict()))
    return 0 if ret.state == ActionStatusCode.SUCCESS else 1


#: Severities that make ``lint`` exit 1, by ``--strict``.
_FAILING = {False: frozenset({"error"}), True: frozenset({"error", "warning"})}


def _cmd_lint(args: argparse.Namespace) -> int:
    # Imported here: only this command needs the doctor.
    from .lint import format_findings, lint_targets

    if args.targets:
        _allow_cwd_imports()
    try:
        findings = lint_targets(args.targets)
    except ImportError as exc:  # lint_targets says which module and why
        raise CliError(str(exc)) from exc
    if args.json:
        print(_dump([dataclasses.asdict(f) for f in findings]))
    else:
        print(format_findings(findings))
    failing = _FAILING[args.strict]
    return 1 if any(f.severity in failing for f in findings) else 0


#: ``prompt --format`` values other than ``react``: the executor's export methods.
_EXPORTS = {
    "openai": "to_openai_tools",
    "anthropic": "to_anthropic_tools",
    "mcp": "to_mcp_tools",
}


def _never_called(messages: list[dict[str, Any]]) -> str:
    raise AssertionError("prompt rendering does not call the model")


def _cmd_prompt(args: argparse.Namespace) -> int:
    executor = ActionExecutor(actions=select_tools(args.tools))
    if args.format in _EXPORTS:
        print(_dump(getattr(executor, _EXPORTS[args.format])()))
        return 0
    from ..agents import ReAct

    print(ReAct(_never_called, executor).system_prompt)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from ..agents.demo import run_demo
    from ..agents.trace_render import wants_color

    return run_demo(sys.stdout, color=wants_color(sys.stdout, args.color))


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


#: Why the key is never a command-line argument.
API_KEY_ARGUMENT_REFUSED = (
    "--api-key is not accepted: a command line is visible to every user of the machine (ps, "
    "/proc/PID/cmdline); set OPENAI_API_KEY or pass --api-key-file PATH"
)


def _api_key(args: argparse.Namespace) -> Optional[str]:
    """The model server's key: from ``--api-key-file``, else ``None`` (``OPENAI_API_KEY``)."""
    if args.api_key is not None:
        raise CliError(API_KEY_ARGUMENT_REFUSED)
    if args.api_key_file is None:
        return None
    try:
        with open(args.api_key_file, encoding="utf-8") as handle:
            key = handle.read().strip()
    except OSError as exc:
        raise CliError(f"cannot read the key file {args.api_key_file}: {exc.strerror}") from None
    if not key:
        raise CliError(f"the key file {args.api_key_file} is empty")
    return key


def _cmd_chat(args: argparse.Namespace) -> int:
    from ..agents import ReAct
    from ..agents.trace_render import format_turn, paint, wants_color
    from ..llms import OpenAIChat

    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL")
    if not base_url:
        raise CliError("no server: pass --base-url URL (or set OPENAI_BASE_URL)")
    color = wants_color(sys.stdout, args.color) and not args.web
    model = OpenAIChat(
        args.model, base_url=base_url, api_key=_api_key(args), timeout=args.timeout, max_retries=args.retries
    )
    agent = ReAct(
        model,
        ActionExecutor(actions=select_tools(args.tools)),
        max_turns=args.max_turns,
        native_tools=args.native,
        on_turn=lambda turn: print(format_turn(turn, color), flush=True),
    )
    if args.web:
        return _chat_on_page(agent, args)
    history: list[dict[str, Any]] = []
    status = 0
    for question in _questions(args.question):
        result = agent.run(question, history=list(history))
        if result.stop_reason == "model_error":
            raise CliError(f"the model server failed: {result.error}")
        if result.answer is None:
            print(paint(f"No final answer ({result.stop_reason}).", "error", color), flush=True)
            status = 1
            continue
        print(paint(f"Final Answer: {result.answer}", "answer", color), flush=True)
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": result.answer}]
    return status


def _chat_on_page(agent: Any, args: argparse.Namespace) -> int:
    """``chat --web``: serve the inspector with the agent; the page asks it questions."""
    web = _web()
    server = web.InspectorServer(agent.executor, port=args.port, agent=agent).start()
    if args.question is not None:
        # Asked before the URL is printed, so the page's first view already has the run.
        server.state.ask(args.question)
    print(f"lagent-like inspector: open {server.url}", flush=True)
    print("Ask on the page's Traces tab; Ctrl-C stops the server.", flush=True)
    server.wait()
    return 0


def _cmd_serve_mcp(args: argparse.Namespace) -> int:
    # Imported here: the MCP SDK is an optional extra and only this command needs it.
    try:
        from ..mcp import serve_mcp
        from ..mcp._http import resolve_token
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    from .. import AsyncActionExecutor

    withheld: list[str] = []

    def withhold(cls: type) -> bool:
        # Tools that run code a model wrote (class attribute runs_code = True, as the
        # interpreters declare) are served only when asked for by name; they are not
        # even built (an interpreter may start a sandbox).
        if getattr(cls, "runs_code", False) is not True:
            return False
        withheld.append(getattr(cls, "__tool_description__", {}).get("name", cls.__name__))
        return True

    tools = select_tools(args.tools, None if args.tools or args.allow_code else withhold)
    if withheld:
        print(
            f"{PROG}: not serving the code-executing tools {', '.join(withheld)}; "
            "name them with --tools or pass --allow-code",
            file=sys.stderr,
            flush=True,
        )
    if not tools:
        raise CliError("no tools to serve: import a module with -m MODULE or name them with --tools A,B")
    # Never a token on the command line, where every local user can read it: a file,
    # else the environment, else a new one that serve_mcp prints.
    token = None
    if args.transport == "http" and args.token_file is not None:
        try:
            token, _ = resolve_token(None, args.token_file)
        except (OSError, ValueError) as exc:
            raise CliError(f"cannot read the bearer token: {_reason(exc)}") from exc
    # The async executor runs async tools on the server's loop and sync ones in threads.
    serve_mcp(
        AsyncActionExecutor(actions=tools),
        transport=args.transport,
        host=args.host,
        port=args.port,
        token=token,
        allowed_hosts=args.allow_host,
        max_client_calls=args.max_client_calls or None,
    )
    return 0


def _web() -> Any:
    # Imported here: Starlette and uvicorn are an optional extra.
    try:
        from .. import web
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    return web


def _explicit_code_tools(
    names: Optional[str], tools: list[Any], runs_code: Callable[[Any], bool]
) -> set[str]:
    """Code-executing tools the operator named in ``--tools``: naming one allows it."""
    named = {name.strip() for name in (names or "").split(",")}
    return {tool.name for tool in tools if runs_code(tool) and tool.name in named}


#: Where ``inspect --mcp URL`` finds the bearer token of an HTTP MCP server by default
#: (the variable ``serve-mcp`` reads too).
MCP_TOKEN_ENV = "LAGENT_LIKE_MCP_TOKEN"


def _mcp_token(token_file: Optional[str]) -> Optional[str]:
    """The bearer token for ``--mcp URL``: the file's first line, else the environment."""
    if token_file is None:
        return os.environ.get(MCP_TOKEN_ENV) or None
    try:
        with open(token_file, encoding="utf-8") as handle:
            token = handle.readline().strip()
    except OSError as exc:
        raise CliError(f"cannot read the MCP token file: {_reason(exc)}") from exc
    if not token:
        raise CliError(f"the MCP token file {token_file} is empty")
    return token


def _mcp_toolkit(target: str, token: Optional[str]) -> Any:
    """An ``MCPToolkit`` for ``--mcp``: an http(s) URL, or a command line to start."""
    import shlex

    try:
        from ..mcp import MCPToolkit
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    if target.startswith(("http://", "https://")):
        # Never a token on the command line, where other local users can read it.
        return MCPToolkit(url=target, token=token)
    words = shlex.split(target)
    if not words:
        raise CliError("--mcp needs a URL or a command, e.g. --mcp 'python -m my_server'")
    return MCPToolkit(command=words[0], args=tuple(words[1:]))


def _cmd_inspect(args: argparse.Namespace) -> int:
    web = _web()
    from ..agents import AgentResult

    for path in args.trace:
        AgentResult.load(path)  # a bad trace file fails before any tool or server starts
    # With only --mcp, the server's tools alone (not every registered tool).
    tools = [] if args.mcp and not args.tools and not args.imports else select_tools(args.tools)
    toolkits: list[Any] = []
    try:
        token = _mcp_token(args.mcp_token_file) if args.mcp else None
        toolkits += [_mcp_toolkit(target, token) for target in args.mcp]
        tools += toolkits
        if not tools and not args.trace:
            raise CliError(
                "no tools to inspect: import a module with -m MODULE, name tools with --tools A,B "
                "or use --mcp URL_OR_COMMAND"
            )
        allow_code = True if args.allow_code else _explicit_code_tools(args.tools, tools, web.runs_code)
        executor = ActionExecutor(actions=tools)
        web.inspect(executor, port=args.port, allow_code=allow_code, traces=args.trace, out=sys.stdout)
    finally:
        for toolkit in toolkits:
            toolkit.close()
    return 0


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "list": _cmd_list,
    "describe": _cmd_describe,
    "call": _cmd_call,
    "lint": _cmd_lint,
    "prompt": _cmd_prompt,
    "demo": _cmd_demo,
    "chat": _cmd_chat,
    "serve-mcp": _cmd_serve_mcp,
    "inspect": _cmd_inspect,
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lagent-like`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Inspect, call and serve lagent_like tools; run a ReAct agent over them.",
        epilog="Exit status: 0 success, 1 a call that did not succeed or lint problems, 2 an error.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "-m",
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first so that its tools register (repeatable)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    listing = commands.add_parser("list", help="print the registered tool names, one per line")
    listing.add_argument("--json", action="store_true", help="print a JSON list instead")
    describe = commands.add_parser("describe", help="print a tool's description as JSON")
    describe.add_argument("name", metavar="NAME", help="'Tool' or 'Tool.api'")
    call = commands.add_parser("call", help="run one call and print its ActionReturn as JSON")
    call.add_argument("name", metavar="NAME", help="'Tool' or 'Tool.api'")
    call.add_argument("arguments", metavar="ARGS", help="the argument string, or '-' to read stdin")
    lint = commands.add_parser("lint", help="report problems in tool descriptions")
    lint.add_argument(
        "targets",
        nargs="*",
        metavar="TARGET",
        help="a module to import or a registered tool name (default: every registered tool)",
    )
    lint.add_argument("--json", action="store_true", help="print the findings as a JSON list")
    lint.add_argument("--strict", action="store_true", help="treat warnings as errors (exit 1)")
    tools_help = "comma-separated tool names (default: every registered tool that needs no arguments)"
    color_help = "colour the output: auto (a terminal without NO_COLOR), always or never"
    prompt = commands.add_parser("prompt", help="print what a model would be given")
    prompt.add_argument("--tools", metavar="A,B", help=tools_help)
    prompt.add_argument(
        "--format",
        choices=["react", *_EXPORTS],
        default="react",
        help="a ReAct system prompt (default) or a function-calling export as JSON",
    )
    demo = commands.add_parser("demo", help="run a recorded ReAct episode offline (no key, no server)")
    demo.add_argument("--color", choices=["auto", "always", "never"], default="auto", help=color_help)
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
    chat.add_argument("--tools", metavar="A,B", help=tools_help)
    chat.add_argument(
        "--max-turns", type=int, default=10, metavar="N", help="turns per question (default 10)"
    )
    chat.add_argument("--native", action="store_true", help="use native tool calls instead of ReAct text")
    chat.add_argument(
        "--timeout", type=float, default=60.0, metavar="S", help="seconds per request (default 60)"
    )
    chat.add_argument("--retries", type=int, default=3, metavar="N", help="retries on 429/5xx (default 3)")
    chat.add_argument("--color", choices=["auto", "always", "never"], default="auto", help=color_help)
    chat.add_argument(
        "--web",
        action="store_true",
        help="show the runs turn by turn on a local page (needs lagent-like[web])",
    )
    chat.add_argument(
        "--port", type=int, default=0, metavar="N", help="with --web: the page's port (default: a free one)"
    )
    serve = commands.add_parser("serve-mcp", help="serve tools to MCP clients (needs lagent-like[mcp])")
    serve.add_argument("--tools", metavar="A,B", help=tools_help)
    serve.add_argument(
        "--transport", choices=["stdio", "http"], default="stdio", help="stdio (default) or streamable HTTP"
    )
    serve.add_argument("--host", default="127.0.0.1", metavar="H", help="HTTP address (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=8000, metavar="N", help="HTTP port, 0 for a free one (default 8000)"
    )
    serve.add_argument(
        "--allow-code",
        action="store_true",
        help="also serve tools that run code (PythonInterpreter, ...) when --tools is not given",
    )
    serve.add_argument(
        "--token-file",
        metavar="PATH",
        help="HTTP: a file whose first line is the bearer token clients must send (default: "
        "$LAGENT_LIKE_MCP_TOKEN, else a new token printed at start)",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
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
    inspect = commands.add_parser(
        "inspect", help="serve a local page to look at and try the tools (needs lagent-like[web])"
    )
    inspect.add_argument("--tools", metavar="A,B", help=tools_help)
    inspect.add_argument(
        "--port", type=int, default=0, metavar="N", help="the port on 127.0.0.1 (default: a free one)"
    )
    inspect.add_argument(
        "--allow-code",
        action="store_true",
        help="let the page call code-executing tools (otherwise only those named in --tools)",
    )
    inspect.add_argument(
        "--mcp",
        action="append",
        default=[],
        metavar="URL_OR_COMMAND",
        help="also inspect the tools of an MCP server: an http(s) URL or a command line (repeatable)",
    )
    inspect.add_argument(
        "--mcp-token-file",
        metavar="FILE",
        help=f"--mcp URL: a file whose first line is the server's bearer token (default: ${MCP_TOKEN_ENV})",
    )
    inspect.add_argument(
        "--trace",
        action="append",
        default=[],
        metavar="FILE",
        help="show a trace file saved with AgentResult.save(path) (repeatable)",
    )
    return parser


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def main(argv: Optional[list[str]] = None) -> int:
    """Run the ``lagent-like`` command.

    Args:
        argv: the arguments without the program name; ``None`` reads ``sys.argv``.

    Returns:
        The exit status: 0 success, 1 a call that did not succeed or lint problems, 2 an
        error.

    Raises:
        SystemExit: from argparse, for usage errors (status 2) and ``--help`` (0).
    """
    args = build_parser().parse_args(argv)
    try:
        _import_modules(args.imports)
        return _COMMANDS[args.command](args)
    except BrokenPipeError:
        # The reader went away (``lagent-like list | head -1``): not an error.
        sys.stderr.close()
        return 0
    except (CliError, ToolNotFoundError) as exc:
        message = str(exc)
    except Exception as exc:  # noqa: BLE001 - the command never shows a traceback
        message = _reason(exc)
    print(f"{PROG}: error: {_one_line(message)}", file=sys.stderr)
    return 2
