"""The schema doctor: find what makes a tool hard for a model to use, before a model sees it.

A tool that defines cleanly can still be described badly. An API without a docstring
reaches the model as a bare name; an undocumented parameter is a guess; a parameter
with neither an annotation nor a docstring type is offered as ``STRING`` and never
checked; a name that function calling rejects is exported under an alias the author
never chose; and a long description is paid for in every prompt that offers the tool.
None of that is an exception (the tool works), so nothing reports it at definition
time. This module reads the descriptions the package builds and reports each of these
as a :class:`LintFinding`::

    findings = lint_targets(["mytools"])      # or lint_action(Weather())
    print(format_findings(findings))

What was doubtful in a definition that still loads (a docstring entry without a colon,
a documented parameter the function lacks, an unknown section) is a
``doubtful-definition`` finding, as it was a ``DefinitionWarning`` at definition time.
Mistakes that make a definition impossible (a positional-only parameter, ``run`` next
to ``@tool_api`` methods, ...) are raised by the package
as :class:`~lagent_like.ToolDefinitionError` when the class is defined;
:func:`lint_targets` reports those, raised while importing a module, as
``definition-error`` findings. The command ``lagent-like lint`` prints the findings.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from typing import Any, Callable, Union

from .._private.module_files import ModuleFileError, import_file, is_module_file
from ..exceptions import RegistryError, ToolDefinitionError, ToolNotFoundError
from ..registry import get_tool_cls, list_tools
from ..spec._describe import ApiSpec, copy_description
from ..toolkits._base_action import BaseAction, api_specs, routes_of
from ..toolkits._function_tool import FunctionTool
from ..toolkits._modules import module_functions
from ..toolkits._unread_settings import class_notes, instance_notes
from . import _checks as lint_checks
from ._checks import ApiView, LintFinding, ToolView, finding, lint_tools

__all__ = [
    "LARGE_DESCRIPTION_TOKENS",
    "SEVERITIES",
    "LintFinding",
    "format_findings",
    "lint_action",
    "lint_actions",
    "lint_targets",
]

# Re-bound here, with their doc comments, because this is where users import them from.
#: Above this estimated size (in tokens) a description is reported as ``large-description``.
LARGE_DESCRIPTION_TOKENS = lint_checks.LARGE_DESCRIPTION_TOKENS
#: The severity of each finding code.
SEVERITIES = lint_checks.SEVERITIES


def _shipped(cls: type) -> bool:
    """Whether a tool class comes with this package (the built-ins and shipped tools)."""
    return cls.__module__ == "lagent_like" or cls.__module__.startswith("lagent_like.")


def _view(description: dict[str, Any], specs: dict[str, ApiSpec], has_api: bool) -> ToolView:
    """The APIs of a tool described by ``description``; ``specs`` by API key."""
    tool = description["name"]
    if "api_list" not in description:
        api = ApiView(tool, "run", copy_description(description), specs.get("run"))
        return ToolView(tool, False, [api] if has_api else [], has_api)
    apis = []
    for item in description["api_list"]:
        entry = copy_description(item)
        entry["name"] = f"{tool}.{item['name']}"
        apis.append(ApiView(entry["name"], item["name"], entry, specs.get(item["name"])))
    return ToolView(tool, True, apis, has_api)


def _setting_notes(tool: ToolView, notes: list[str]) -> None:
    """Add an ``unread-setting`` finding to ``tool`` per note of ``_unread_settings``."""
    tool.notes.extend(finding("unread-setting", tool.name, tool.name, note) for note in notes)


def _view_of_action(action: BaseAction) -> ToolView:
    specs = dict(api_specs(action))
    tool = _view(action.description, specs, action.is_toolkit or "run" in routes_of(action))
    _setting_notes(tool, class_notes(type(action)) + instance_notes(action))
    for api in tool.apis:
        try:
            api.schema = action.json_schema(api.short)
        except Exception:  # noqa: BLE001 - a schema that cannot be built has no dialect findings
            api.schema = None
    return tool


def _view_of_class(cls: type[BaseAction]) -> ToolView:
    by_attr = cls.__tool_apis__
    if "api_list" in cls.__tool_description__:
        specs = {spec.name: spec for attr, spec in by_attr.items() if attr != "run"}
    else:
        specs = {"run": by_attr["run"]} if "run" in by_attr else {}
    return _view(cls.__tool_description__, specs, bool(specs))


def lint_action(action: BaseAction) -> list[LintFinding]:
    """Lint one tool instance.

    Args:
        action: the tool, as it would be given to an executor.

    Returns:
        The findings, API by API in description order.
    """
    return lint_actions([action])


def lint_actions(actions: Iterable[BaseAction]) -> list[LintFinding]:
    """Lint tool instances as one set (as one executor would hold them).

    Function-calling aliases are assigned over the whole set, so a name clash between
    two of the tools is reported.

    Args:
        actions: the tools.

    Returns:
        The findings, tool by tool and API by API.
    """
    return lint_tools([_view_of_action(action) for action in actions])


def _tool_of_class(cls: type[BaseAction]) -> ToolView:
    """Lint an instance made without arguments, else the class's own description."""
    try:
        return _view_of_action(cls())
    except Exception as exc:  # noqa: BLE001 - a constructor is user code
        failure = exc
    tool = _view_of_class(cls)
    _setting_notes(tool, class_notes(cls))
    if isinstance(failure, ToolDefinitionError):
        message = "; ".join(failure.problems)
        tool.notes.append(finding("definition-error", tool.name, failure.owner, message))
    reason = " ".join(f"{type(failure).__name__}: {failure}".split())
    message = (
        f"linted from the class description because {cls.__name__}() failed ({reason}); "
        f"the parser's parameter_description is not counted in the size"
    )
    tool.notes.append(finding("not-instantiated", tool.name, tool.name, message))
    return tool


def _module_note(target: str, note: LintFinding) -> ToolView:
    """A stand-in tool that only carries a module-level finding, to keep target order."""
    return ToolView(target, False, [], True, [note])


def _import(target: str, suggestions: list[str]) -> Any:
    """Import module ``target``, or the Python file it names (``tools.py``, ``dir/tools``).

    Raises:
        ToolNotFoundError: there is no module ``target`` either.
        ToolDefinitionError: a tool in the module cannot be described.
        RegistryError: a tool in the module takes a name another class has.
        ImportError: importing the module failed for another reason.
    """
    try:
        return import_file(target) if is_module_file(target) else importlib.import_module(target)
    except ModuleFileError:
        raise  # already says which file and why
    except ModuleNotFoundError as exc:
        if exc.name and (target == exc.name or target.startswith(exc.name + ".")):
            where = "in the registry, and no module has that name"
            raise ToolNotFoundError(target, suggestions, where=where) from None
        raise ImportError(f"cannot import module {target!r}: {type(exc).__name__}: {exc}") from exc
    except (ToolDefinitionError, RegistryError):
        raise
    except Exception as exc:  # any failure of user code is reported as one error
        raise ImportError(f"cannot import module {target!r}: {type(exc).__name__}: {exc}") from exc


def _definition_error(target: str, exc: Exception) -> LintFinding:
    owner, problems = (
        (exc.owner, exc.problems) if isinstance(exc, ToolDefinitionError) else (target, [str(exc)])
    )
    message = f"{'; '.join(problems)} (module {target!r} cannot be imported, so none of its tools is linted)"
    return finding("definition-error", target, owner, message)


def _classes_of(module: Any) -> list[type[BaseAction]]:
    """The tool classes a module defines; unregistered ones without APIs (abstract bases) skipped."""
    registered = {cls for _, cls in list_tools(with_class=True)}
    found: list[type[BaseAction]] = []
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, BaseAction)
            and value.__module__ == module.__name__
            and value not in found
            and (value in registered or value.__tool_apis__)
        ):
            found.append(value)
    return found


def _resolve(target: str) -> Union[list[Union[type[BaseAction], Callable[..., Any]]], ToolView]:
    """The tool classes and function tools ``target`` names.

    A target that names none gives a stand-in carrying a module-level finding.
    """
    try:
        return [get_tool_cls(target)]
    except ToolNotFoundError as exc:
        suggestions = exc.suggestions
    try:
        module = _import(target, suggestions)
    except (ToolDefinitionError, RegistryError) as error:
        return _module_note(target, _definition_error(target, error))
    tools: list[Union[type[BaseAction], Callable[..., Any]]] = [
        *_classes_of(module),
        *module_functions(module),
    ]
    if not tools:
        message = (
            f"module {target!r} defines no BaseAction subclass and no function, so there is nothing to lint"
        )
        return _module_note(target, finding("no-tools", target, target, message))
    return tools


def _tool_of_function(func: Callable[..., Any]) -> ToolView:
    """Lint ``FunctionTool(func)``; a function that cannot be described is a ``definition-error``."""
    try:
        return _view_of_action(FunctionTool(func))
    except ToolDefinitionError as exc:
        name = getattr(func, "__name__", repr(func))
        return _module_note(name, finding("definition-error", name, exc.owner, "; ".join(exc.problems)))


def lint_targets(targets: Sequence[str]) -> list[LintFinding]:
    """Lint tools named by modules or registered tool names.

    A target that is a registered tool name lints that tool; otherwise it is imported as
    a module and every ``BaseAction`` subclass the module defines is linted (abstract
    bases kept out of the registry and without APIs are skipped), and so is every
    function tool it defines, as ``-m`` finds them (its ``@tool_api`` functions; in a
    module of plain functions, its public functions). Each class is
    instantiated without arguments when it can be, otherwise linted from its
    ``__tool_description__`` (a ``not-instantiated`` finding says so). A
    ``ToolDefinitionError`` raised while importing a module is a ``definition-error``
    finding. With no targets, every registered tool except the ones this package ships
    is linted.

    Args:
        targets: module names (``'mypackage.tools'``), Python files (``'tools.py'``, imported
            by path as ``-m`` imports them) and registered tool names.

    Returns:
        The findings, target by target; a tool named twice is linted once.

    Raises:
        ToolNotFoundError: a target is neither a registered tool nor a module; the
            message suggests close tool names.
        ImportError: a module failed to import for a reason other than a tool definition
            (a file target: also when there is no such file).
    """
    if not targets:
        entries = list_tools(with_class=True)
        classes = list(dict.fromkeys(cls for _, cls in entries if not _shipped(cls)))
        return lint_tools([_tool_of_class(cls) for cls in classes])
    tools: list[ToolView] = []
    seen: set[Any] = set()
    for target in targets:
        resolved = _resolve(target)
        if isinstance(resolved, ToolView):
            tools.append(resolved)
            continue
        for item in resolved:
            if item not in seen:
                seen.add(item)
                tools.append(_tool_of_class(item) if isinstance(item, type) else _tool_of_function(item))
    return lint_tools(tools)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def format_findings(findings: Iterable[LintFinding]) -> str:
    """Render findings for a terminal: one line each, then a summary line.

    Each line is ``severity api: message [code]``; the summary counts errors and
    warnings (``2 errors, 1 warning``).

    Args:
        findings: what the lint functions returned.

    Returns:
        The text, without a trailing newline.
    """
    items = list(findings)
    lines = [f"{f.severity} {f.api or f.tool}: {f.message} [{f.code}]" for f in items]
    counts = {severity: sum(f.severity == severity for f in items) for severity in ("error", "warning")}
    lines.append(f"{_plural(counts['error'], 'error')}, {_plural(counts['warning'], 'warning')}")
    return "\n".join(lines)
