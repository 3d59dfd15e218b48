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
as :class:`~lagent_like.exceptions.ToolDefinitionError` when the class is defined;
:func:`lint_targets` reports those, raised while importing a module, as
``definition-error`` findings. The command ``lagent-like lint`` prints the findings.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from .._private.aliases import LEGAL_NAME, assign_aliases
from ..actions.base_action import BaseAction, api_specs, routes_of
from ..exceptions import RegistryError, ToolDefinitionError, ToolNotFoundError
from ..function_calling.dialects import GEMINI_NAME, to_gemini_schema, to_openai_strict_schema
from ..registry import get_tool_cls, list_tools
from ..spec.describe import ApiSpec, copy_description

__all__ = [
    "LARGE_DESCRIPTION_TOKENS",
    "SEVERITIES",
    "LintFinding",
    "format_findings",
    "lint_action",
    "lint_actions",
    "lint_targets",
]

#: Above this estimated size (in tokens) a description is reported as ``large-description``.
LARGE_DESCRIPTION_TOKENS = 500

#: The severity of each finding code.
SEVERITIES: dict[str, str] = {
    "definition-error": "error",
    "no-api": "error",
    "no-description": "error",
    "param-no-description": "warning",
    "default-string-type": "warning",
    "doubtful-definition": "warning",
    "illegal-name": "warning",
    "large-description": "warning",
    "openai-strict": "warning",
    "gemini": "warning",
    "no-tools": "warning",
    "not-instantiated": "info",
    "size": "info",
}


#: Registered names that are the framework's own, left out when no target is given.
def _shipped(cls: type) -> bool:
    """Whether a tool class comes with this package (the built-ins and shipped tools)."""
    return cls.__module__ == "lagent_like" or cls.__module__.startswith("lagent_like.")


#: Where the description of an API comes from, by "is it a toolkit".
_DOC_PLACE = {True: "the method", False: "run or to the class"}

#: How to choose a legal name yourself, by the part of the name that is illegal.
_NAME_FIX = {"tool name": "set __tool_name__ on the class", "API name": "pass name=... to @tool_api"}

#: Why the readable alias of a legal ``Tool.api`` was not used, by "is it too long".
_ALIAS_REASON = {True: "is longer than 64 characters", False: "is already another tool's name"}


@dataclass(frozen=True)
class LintFinding:
    """One problem (or fact) about a tool's description.

    Attributes:
        severity: ``'error'`` (a model cannot use the API well), ``'warning'`` (it
            probably uses it worse than it could) or ``'info'`` (worth knowing).
        tool: the tool name; for a module-level finding, the module name.
        api: the name a model uses, ``'Tool'`` or ``'Tool.api'``; for a definition
            error, what was being defined (e.g. ``'Calc.add'``); for a module-level
            finding, the module name.
        code: a short stable id of the kind of finding, e.g. ``'no-description'``;
            see :data:`SEVERITIES` for all of them.
        message: what is wrong and how to fix it, one line.
    """

    severity: str
    tool: str
    api: str
    code: str
    message: str


def _finding(code: str, tool: str, api: str, message: str) -> LintFinding:
    return LintFinding(SEVERITIES[code], tool, api, code, message)


@dataclass
class _Api:
    """One API as a model receives it."""

    name: str  # 'Tool' or 'Tool.api'
    short: str  # 'run' or the API name
    entry: dict[str, Any]  # the description the model receives
    spec: Optional[ApiSpec]
    schema: Optional[dict[str, Any]] = None  # the JSON Schema exports carry (instances only)


@dataclass
class _Tool:
    """What is linted of one tool: its APIs, plus findings made while getting them."""

    name: str
    is_toolkit: bool
    apis: list[_Api]
    has_api: bool
    notes: list[LintFinding] = field(default_factory=list)


def _view(description: dict[str, Any], specs: dict[str, ApiSpec], has_api: bool) -> _Tool:
    """The APIs of a tool described by ``description``; ``specs`` by API key."""
    tool = description["name"]
    if "api_list" not in description:
        api = _Api(tool, "run", copy_description(description), specs.get("run"))
        return _Tool(tool, False, [api] if has_api else [], has_api)
    apis = []
    for item in description["api_list"]:
        entry = copy_description(item)
        entry["name"] = f"{tool}.{item['name']}"
        apis.append(_Api(entry["name"], item["name"], entry, specs.get(item["name"])))
    return _Tool(tool, True, apis, has_api)


def _view_of_action(action: BaseAction) -> _Tool:
    specs = dict(api_specs(action))
    tool = _view(action.description, specs, action.is_toolkit or "run" in routes_of(action))
    for api in tool.apis:
        try:
            api.schema = action.json_schema(api.short)
        except Exception:  # noqa: BLE001 - a schema that cannot be built has no dialect findings
            api.schema = None
    return tool


def _view_of_class(cls: type[BaseAction]) -> _Tool:
    by_attr = cls.__tool_apis__
    if "api_list" in cls.__tool_description__:
        specs = {spec.name: spec for attr, spec in by_attr.items() if attr != "run"}
    else:
        specs = {"run": by_attr["run"]} if "run" in by_attr else {}
    return _view(cls.__tool_description__, specs, bool(specs))


def _tokens(entry: dict[str, Any]) -> int:
    return math.ceil(len(json.dumps(entry, ensure_ascii=False, default=str)) / 4)


def _parameter_findings(tool: _Tool, api: _Api) -> list[LintFinding]:
    findings = []
    described = {p["name"] for p in api.spec.description["parameters"]} if api.spec else set()
    declared = api.spec.declared if api.spec else {}
    for param in api.entry.get("parameters", []):
        name = param.get("name")
        if not str(param.get("description") or "").strip():
            findings.append(
                _finding(
                    "param-no-description",
                    tool.name,
                    api.name,
                    f"parameter {name!r} has no description; document it under Args: in the "
                    f"docstring (or annotate it Annotated[T, 'description'])",
                )
            )
        if name in described and name not in declared:
            findings.append(
                _finding(
                    "default-string-type",
                    tool.name,
                    api.name,
                    f"parameter {name!r} has no type annotation and no docstring type, so it is "
                    f"described as STRING and its values are not checked; annotate it",
                )
            )
    return findings


def _doubtful_findings(tool: _Tool, api: _Api) -> list[LintFinding]:
    """What was doubtful when the API was described (also issued as ``DefinitionWarning``)."""
    notes = api.spec.doc_warnings if api.spec else ()
    return [
        _finding("doubtful-definition", tool.name, api.name, f"{note}; fix the docstring") for note in notes
    ]


def _name_finding(tool: _Tool, api: _Api, alias: str) -> Optional[LintFinding]:
    parts = [("tool name", tool.name)] + ([("API name", api.short)] if tool.is_toolkit else [])
    illegal = [(kind, value) for kind, value in parts if not LEGAL_NAME.fullmatch(value)]
    if illegal:
        names = " and ".join(f"the {kind} {value!r}" for kind, value in illegal)
        verb = "is" if len(illegal) == 1 else "are"
        fixes = " and ".join(_NAME_FIX[kind] for kind, _ in illegal)
        message = (
            f"{names} {verb} not legal for function calling (^[a-zA-Z0-9_-]{{1,64}}$), so exports "
            f"call this API {alias!r}; to choose the name yourself, {fixes}"
        )
        return _finding("illegal-name", tool.name, api.name, message)
    readable = api.name.replace(".", "__")
    if alias == readable:
        return None
    message = (
        f"exports call this API {alias!r} because {readable!r} {_ALIAS_REASON[len(readable) > 64]}; "
        f"choose a shorter or distinct tool or API name to keep the readable one"
    )
    return _finding("illegal-name", tool.name, api.name, message)


def _api_findings(tool: _Tool, api: _Api, alias: str) -> list[LintFinding]:
    findings = []
    if not str(api.entry.get("description") or "").strip():
        findings.append(
            _finding(
                "no-description",
                tool.name,
                api.name,
                f"no description: the model is not told what this API does; add a docstring "
                f"to {_DOC_PLACE[tool.is_toolkit]}",
            )
        )
    findings.extend(_parameter_findings(tool, api))
    findings.extend(_doubtful_findings(tool, api))
    name_finding = _name_finding(tool, api, alias)
    if name_finding is not None:
        findings.append(name_finding)
    findings.extend(_dialect_findings(tool, api, alias))
    tokens = _tokens(api.entry)
    if tokens > LARGE_DESCRIPTION_TOKENS:
        findings.append(
            _finding(
                "large-description",
                tool.name,
                api.name,
                f"the description is about {tokens} tokens, over {LARGE_DESCRIPTION_TOKENS}; every "
                f"prompt offering this API carries it, so shorten the docstrings",
            )
        )
    findings.append(
        _finding(
            "size",
            tool.name,
            api.name,
            f"the description is about {tokens} tokens (estimated as its JSON length / 4)",
        )
    )
    return findings


def _dialect_findings(tool: _Tool, api: _Api, alias: str) -> list[LintFinding]:
    """Why OpenAI strict mode or Gemini would refuse the API's schema, or what they lose."""
    if api.schema is None:
        return []
    findings = []
    strict = to_openai_strict_schema(api.schema)
    if strict.refused:
        findings.append(
            _finding(
                "openai-strict",
                tool.name,
                api.name,
                "OpenAI strict mode would refuse this API: "
                + "; ".join(strict.refused)
                + "; to_openai_tools(strict=True) exports it with strict: false",
            )
        )
    elif strict.dropped:
        findings.append(
            _finding(
                "openai-strict",
                tool.name,
                api.name,
                "OpenAI strict mode does not accept "
                + ", ".join(strict.dropped)
                + "; the strict export leaves them out and the executor still checks them",
            )
        )
    gemini = to_gemini_schema(api.schema)
    problems = list(gemini.refused)
    if not GEMINI_NAME.fullmatch(alias):
        problems.insert(0, f"the name {alias!r} must start with a letter or an underscore")
    if problems:
        findings.append(
            _finding("gemini", tool.name, api.name, "Gemini would refuse this API: " + "; ".join(problems))
        )
    elif gemini.dropped:
        findings.append(
            _finding(
                "gemini",
                tool.name,
                api.name,
                "Gemini does not accept "
                + ", ".join(gemini.dropped)
                + "; to_gemini_tools() leaves them out and the executor still checks them",
            )
        )
    return findings


def _lint_tools(tools: Sequence[_Tool]) -> list[LintFinding]:
    aliases = assign_aliases(api.name for tool in tools for api in tool.apis)
    findings: list[LintFinding] = []
    for tool in tools:
        findings.extend(tool.notes)
        if not tool.has_api:
            findings.append(
                _finding(
                    "no-api",
                    tool.name,
                    tool.name,
                    "the tool has nothing a model can call; define run (a simple tool) or "
                    "@tool_api methods (a toolkit)",
                )
            )
        for api in tool.apis:
            findings.extend(_api_findings(tool, api, aliases[api.name]))
    return findings


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
    return _lint_tools([_view_of_action(action) for action in actions])


def _tool_of_class(cls: type[BaseAction]) -> _Tool:
    """Lint an instance made without arguments, else the class's own description."""
    try:
        return _view_of_action(cls())
    except Exception as exc:  # noqa: BLE001 - a constructor is user code
        failure = exc
    tool = _view_of_class(cls)
    if isinstance(failure, ToolDefinitionError):
        message = "; ".join(failure.problems)
        tool.notes.append(_finding("definition-error", tool.name, failure.owner, message))
    reason = " ".join(f"{type(failure).__name__}: {failure}".split())
    message = (
        f"linted from the class description because {cls.__name__}() failed ({reason}); "
        f"the parser's parameter_description is not counted in the size"
    )
    tool.notes.append(_finding("not-instantiated", tool.name, tool.name, message))
    return tool


def _module_note(target: str, finding: LintFinding) -> _Tool:
    """A stand-in tool that only carries a module-level finding, to keep target order."""
    return _Tool(target, False, [], True, [finding])


def _import(target: str, suggestions: list[str]) -> Any:
    """Import module ``target``.

    Raises:
        ToolNotFoundError: there is no module ``target`` either.
        ToolDefinitionError: a tool in the module cannot be described.
        RegistryError: a tool in the module takes a name another class has.
        ImportError: importing the module failed for another reason.
    """
    try:
        return importlib.import_module(target)
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
    return _finding("definition-error", target, owner, message)


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


def _resolve(target: str) -> Union[list[type[BaseAction]], _Tool]:
    """The tool classes ``target`` names, or a stand-in carrying a module-level finding."""
    try:
        return [get_tool_cls(target)]
    except ToolNotFoundError as exc:
        suggestions = exc.suggestions
    try:
        module = _import(target, suggestions)
    except (ToolDefinitionError, RegistryError) as error:
        return _module_note(target, _definition_error(target, error))
    classes = _classes_of(module)
    if not classes:
        message = f"module {target!r} defines no BaseAction subclass, so there is nothing to lint"
        return _module_note(target, _finding("no-tools", target, target, message))
    return classes


def lint_targets(targets: Sequence[str]) -> list[LintFinding]:
    """Lint tools named by modules or registered tool names.

    A target that is a registered tool name lints that tool; otherwise it is imported as
    a module and every ``BaseAction`` subclass the module defines is linted (abstract
    bases kept out of the registry and without APIs are skipped). Each class is
    instantiated without arguments when it can be, otherwise linted from its
    ``__tool_description__`` (a ``not-instantiated`` finding says so). A
    ``ToolDefinitionError`` raised while importing a module is a ``definition-error``
    finding. With no targets, every registered tool except the ones this package ships
    is linted.

    Args:
        targets: module names (``'mypackage.tools'``) and registered tool names.

    Returns:
        The findings, target by target; a tool named twice is linted once.

    Raises:
        ToolNotFoundError: a target is neither a registered tool nor a module; the
            message suggests close tool names.
        ImportError: a module failed to import for a reason other than a tool definition.
    """
    if not targets:
        entries = list_tools(with_class=True)
        classes = list(dict.fromkeys(cls for _, cls in entries if not _shipped(cls)))
        return _lint_tools([_tool_of_class(cls) for cls in classes])
    tools: list[_Tool] = []
    seen: set[type] = set()
    for target in targets:
        resolved = _resolve(target)
        if isinstance(resolved, _Tool):
            tools.append(resolved)
            continue
        for cls in resolved:
            if cls not in seen:
                seen.add(cls)
                tools.append(_tool_of_class(cls))
    return _lint_tools(tools)


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
