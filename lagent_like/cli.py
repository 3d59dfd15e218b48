"""The ``lagent-like`` command: look at and try tools from a shell.

A tool author wants to see what a model will be told about a tool and what comes
back for a given argument string without writing an agent or a script. This module
gives them that as a command (also ``python -m lagent_like``)::

    lagent-like -m mytools list
    lagent-like -m mytools describe Weather
    lagent-like -m mytools call Weather.current '{"city": "Paris"}'
    lagent-like lint mytools

``lint`` runs the schema doctor (:mod:`lagent_like.lint`) over modules or tool names
(every registered tool but the built-ins when none is given).

It is the programmer's command line: ``-m`` imports the modules it names so that
their tools register, which is fine here because no model text ever reaches it.

Exit status: 0 on success, 1 when a ``call`` returns a record whose state is not
``SUCCESS`` or ``lint`` finds an error (or a warning, with ``--strict``), 2 for an
error (usage, unknown tool, failed import, a tool that cannot be constructed,
anything unexpected). An error is one line on stderr, never a traceback. The package
does not import this module, so it costs nothing to users of the library.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import importlib
import json
import os
import sys
from typing import Any, Callable, Optional

from . import ActionExecutor, ActionStatusCode, ToolNotFoundError, get_tool_cls, list_tools

__all__ = ["main"]

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


def _cmd_list(args: argparse.Namespace) -> int:
    names = list_tools()
    print(json.dumps(names, ensure_ascii=False) if args.json else "\n".join(names))
    return 0


def _cmd_describe(args: argparse.Namespace) -> int:
    cls = get_tool_cls(args.name)
    try:
        description = _construct(args.name, cls).description
    except TypeError:
        # The class needs constructor arguments: show what the class declares.
        description = copy.deepcopy(cls.__tool_description__)  # type: ignore[attr-defined]
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
    try:
        tool = _construct(key, cls)
    except TypeError as exc:
        raise CliError(f"cannot construct tool {key!r} without arguments: {_reason(exc)}") from exc
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


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "list": _cmd_list,
    "describe": _cmd_describe,
    "call": _cmd_call,
    "lint": _cmd_lint,
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lagent-like`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Inspect and call lagent_like tools.",
        epilog="Exit status: 0 success, 1 a call that did not succeed or lint problems, 2 an error.",
    )
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
    describe.add_argument("name", metavar="NAME", help="a registered tool name")
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
