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
    lagent-like serve-mcp --mcp mcp-server-time --mcp 'mcp-server-git --repository .'
    lagent-like -m mytools inspect --port 8765
    lagent-like -m path/to/tools.py list
    lagent-like demo --save run.json

With ``-m``, the commands that offer tools (``list``, ``prompt``, ``chat``,
``serve-mcp``, ``inspect``) offer the modules' own tools unless ``--with-builtins``
or ``--tools A,B`` say otherwise.

``lint`` runs the schema doctor (:mod:`lagent_like.lint`) over modules or tool names
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
import json
import os
import sys
import warnings
from typing import Any, Callable, Optional

from .. import (
    ActionExecutor,
    ActionStatusCode,
    BaseAction,
    DefinitionWarning,
    ToolNotFoundError,
    get_tool_cls,
    list_tools,
)
from .chat import cmd_chat
from .common import (
    EXPORTS,
    PROG,
    CliError,
    allow_cwd_imports,
    chosen_tools,
    construct,
    construct_named,
    dump,
    import_modules,
    reason,
    select_tools,
)
from .parser import build_parser
from .serve import cmd_inspect, cmd_serve_mcp

__all__ = ["build_parser", "main", "select_tools"]


def _cmd_list(args: argparse.Namespace) -> int:
    imported = args.imported
    if imported.modules and not args.with_builtins:
        classes = [name for name, _ in imported.registered()]
    else:
        classes = list_tools()
    names = classes + [tool.name for tool in imported.functions]
    print(json.dumps(names, ensure_ascii=False) if args.json else "\n".join(names))
    return 0


def _cmd_describe(args: argparse.Namespace) -> int:
    function = _function_named(args, args.name)
    if function is not None:
        print(dump(function.description))
        return 0
    key, cls = _find_tool(args.name)
    try:
        description = construct(key, cls).description
    except (TypeError, ImportError):
        # The class needs constructor arguments or an extra: show what the class declares.
        description = copy.deepcopy(cls.__tool_description__)
    api = args.name[len(key) + 1 :]
    if api:
        # 'Tool.api', as ``call`` takes it: that API's description.
        apis = {entry["name"]: entry for entry in description.get("api_list", [])}
        if api not in apis:
            raise CliError(
                f"tool {key!r} has no API {api!r}; its APIs: {', '.join(apis) or 'none (a simple tool)'}"
            )
        description = apis[api]
    print(dump(description))
    return 0


def _find_tool(name: str) -> tuple[str, type[BaseAction]]:
    """``(registry key, class)`` for ``'Tool'`` or ``'Tool.api'``: the full name first."""
    try:
        return name, get_tool_cls(name)
    except ToolNotFoundError:
        head, dot, _ = name.partition(".")
        if not dot or not head:
            raise
        return head, get_tool_cls(head)


def _function_named(args: argparse.Namespace, name: str) -> Optional[BaseAction]:
    """The function tool of an ``-m`` module called ``name``, or ``None``."""
    return next((tool for tool in args.functions if tool.name == name), None)


def _read_arguments(text: str) -> str:
    return sys.stdin.read() if text == "-" else text


def _cmd_call(args: argparse.Namespace) -> int:
    function = _function_named(args, args.name)
    if function is not None:
        tool, route = function, function.name
    else:
        key, cls = _find_tool(args.name)
        tool = construct_named(key, cls)
        # A plugin may be registered under a name other than the tool's own name.
        route = tool.name + args.name[len(key) :]
    ret = ActionExecutor([tool])(route, _read_arguments(args.arguments))
    print(dump(ret.to_dict()))
    return 0 if ret.state == ActionStatusCode.SUCCESS else 1


#: Severities that make ``lint`` exit 1, by ``--strict``.
_FAILING = {False: frozenset({"error"}), True: frozenset({"error", "warning"})}


def _cmd_lint(args: argparse.Namespace) -> int:
    # Imported here: only this command needs the doctor.
    from ..lint._lint import format_findings, lint_targets

    if args.targets:
        allow_cwd_imports()
    try:
        with warnings.catch_warnings():
            # Each DefinitionWarning is a finding on stdout: not said again on stderr.
            warnings.simplefilter("ignore", DefinitionWarning)
            findings = lint_targets(args.targets)
    except ImportError as exc:  # lint_targets says which module (or file) and why
        raise CliError(str(exc)) from exc
    if args.json:
        print(dump([dataclasses.asdict(f) for f in findings]))
    else:
        print(format_findings(findings))
    failing = _FAILING[args.strict]
    return 1 if any(f.severity in failing for f in findings) else 0


def _never_called(messages: list[dict[str, Any]]) -> str:
    raise AssertionError("prompt rendering does not call the model")


def _cmd_prompt(args: argparse.Namespace) -> int:
    executor = ActionExecutor(actions=chosen_tools(args))
    if args.format in EXPORTS:
        print(dump(getattr(executor, EXPORTS[args.format])()))
        return 0
    from ..agents import ReAct

    print(ReAct(_never_called, executor).system_prompt)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from ..agents.demo import run_demo
    from ..agents.trace_render import wants_color

    if args.save is not None and not os.path.isdir(os.path.dirname(os.path.abspath(args.save))):
        # Said before the episode runs, not after.
        raise CliError(f"--save {args.save}: no such directory {os.path.dirname(os.path.abspath(args.save))}")
    return run_demo(sys.stdout, color=wants_color(sys.stdout, args.color), save=args.save)


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "list": _cmd_list,
    "describe": _cmd_describe,
    "call": _cmd_call,
    "lint": _cmd_lint,
    "prompt": _cmd_prompt,
    "demo": _cmd_demo,
    "chat": cmd_chat,
    "serve-mcp": cmd_serve_mcp,
    "inspect": cmd_inspect,
}


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def main(argv: Optional[list[str]] = None) -> int:
    """Run the ``lagent-like`` command.

    Args:
        argv: the arguments without the program name; ``None`` reads ``sys.argv``.

    Returns:
        The exit status (0 success, 1 a call that did not succeed or lint problems, 2 an
        error).

    Raises:
        SystemExit: from argparse, for usage errors (status 2) and ``--help`` (0).
    """
    args = build_parser().parse_args(argv)
    try:
        args.imported = import_modules(args.imports)
        args.functions = args.imported.functions
        return _COMMANDS[args.command](args)
    except BrokenPipeError:
        # The reader went away (``lagent-like list | head -1``): not an error.
        sys.stderr.close()
        return 0
    except (CliError, ToolNotFoundError) as exc:
        message = str(exc)
    except Exception as exc:  # noqa: BLE001 - the command never shows a traceback
        message = reason(exc)
    print(f"{PROG}: error: {_one_line(message)}", file=sys.stderr)
    return 2
