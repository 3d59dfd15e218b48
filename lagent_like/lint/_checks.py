"""The schema doctor's checks: what makes one API hard for a model to use.

:mod:`.lint` finds the tools (instances, classes, modules) and builds, for each, a
:class:`ToolView`: its APIs as a model receives them. This module reads those views
and nothing else, so each check is a small function of one API and can be read (and
extended) without the import and instantiation rules around it. It also defines what
a finding is (:class:`LintFinding`, :data:`SEVERITIES`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from .._private.aliases import LEGAL_NAME, assign_aliases
from ..function_calling._dialects import GEMINI_NAME, to_gemini_schema, to_openai_strict_schema
from ..spec._api_spec import NO_DEFAULT
from ..spec._describe import ApiSpec
from ..types._json_schema import opaque_note

__all__ = [
    "LARGE_DESCRIPTION_TOKENS",
    "SEVERITIES",
    "ApiView",
    "LintFinding",
    "ToolView",
    "finding",
    "lint_tools",
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
    "no-json-value": "warning",
    "unread-setting": "warning",
    "illegal-name": "warning",
    "large-description": "warning",
    "openai-strict": "warning",
    "gemini": "warning",
    "no-tools": "warning",
    "not-instantiated": "info",
    "size": "info",
}

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


def finding(code: str, tool: str, api: str, message: str) -> LintFinding:
    """A finding of kind ``code``, with that kind's severity."""
    return LintFinding(SEVERITIES[code], tool, api, code, message)


@dataclass
class ApiView:
    """One API as a model receives it."""

    name: str  # 'Tool' or 'Tool.api'
    short: str  # 'run' or the API name
    entry: dict[str, Any]  # the description the model receives
    spec: Optional[ApiSpec]
    schema: Optional[dict[str, Any]] = None  # the JSON Schema exports carry (instances only)


@dataclass
class ToolView:
    """What is linted of one tool: its APIs, plus findings made while getting them."""

    name: str
    is_toolkit: bool
    apis: list[ApiView]
    has_api: bool
    notes: list[LintFinding] = field(default_factory=list)


def _tokens(entry: dict[str, Any]) -> int:
    return math.ceil(len(json.dumps(entry, ensure_ascii=False, default=str)) / 4)


def _parameter_findings(tool: ToolView, api: ApiView) -> list[LintFinding]:
    findings = []
    described = {p["name"] for p in api.spec.description["parameters"]} if api.spec else set()
    declared = api.spec.declared if api.spec else {}
    for param in api.entry.get("parameters", []):
        name = param.get("name")
        if not str(param.get("description") or "").strip():
            findings.append(
                finding(
                    "param-no-description",
                    tool.name,
                    api.name,
                    f"parameter {name!r} has no description; document it under Args: in the "
                    f"docstring (or annotate it Annotated[T, 'description'])",
                )
            )
        if name in described and name not in declared:
            findings.append(
                finding(
                    "default-string-type",
                    tool.name,
                    api.name,
                    f"parameter {name!r} has no type annotation and no docstring type, so it is "
                    f"described as STRING and its values are not checked; annotate it",
                )
            )
    return findings


def _doubtful_findings(tool: ToolView, api: ApiView) -> list[LintFinding]:
    """What was doubtful when the API was described (also issued as ``DefinitionWarning``)."""
    notes = api.spec.doc_warnings if api.spec else ()
    return [
        finding("doubtful-definition", tool.name, api.name, f"{note}; fix the docstring") for note in notes
    ]


def _json_value_findings(tool: ToolView, api: ApiView) -> list[LintFinding]:
    """Parameters no JSON value fits (also issued as ``DefinitionWarning``): a model cannot call with them."""
    params = api.spec.params if api.spec else ()
    notes = (opaque_note(p.name, p.annotation) for p in params if p.annotation is not NO_DEFAULT)
    return [finding("no-json-value", tool.name, api.name, note) for note in notes if note is not None]


def _name_finding(tool: ToolView, api: ApiView, alias: str) -> Optional[LintFinding]:
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
        return finding("illegal-name", tool.name, api.name, message)
    readable = api.name.replace(".", "__")
    if alias == readable:
        return None
    message = (
        f"exports call this API {alias!r} because {readable!r} {_ALIAS_REASON[len(readable) > 64]}; "
        f"choose a shorter or distinct tool or API name to keep the readable one"
    )
    return finding("illegal-name", tool.name, api.name, message)


def _api_findings(tool: ToolView, api: ApiView, alias: str) -> list[LintFinding]:
    findings = []
    if not str(api.entry.get("description") or "").strip():
        findings.append(
            finding(
                "no-description",
                tool.name,
                api.name,
                f"no description: the model is not told what this API does; add a docstring "
                f"to {_DOC_PLACE[tool.is_toolkit]}",
            )
        )
    findings.extend(_parameter_findings(tool, api))
    findings.extend(_doubtful_findings(tool, api))
    findings.extend(_json_value_findings(tool, api))
    name_finding = _name_finding(tool, api, alias)
    if name_finding is not None:
        findings.append(name_finding)
    findings.extend(_dialect_findings(tool, api, alias))
    tokens = _tokens(api.entry)
    if tokens > LARGE_DESCRIPTION_TOKENS:
        findings.append(
            finding(
                "large-description",
                tool.name,
                api.name,
                f"the description is about {tokens} tokens, over {LARGE_DESCRIPTION_TOKENS}; every "
                f"prompt offering this API carries it, so shorten the docstrings",
            )
        )
    findings.append(
        finding(
            "size",
            tool.name,
            api.name,
            f"the description is about {tokens} tokens (estimated as its JSON length / 4)",
        )
    )
    return findings


def _dialect_findings(tool: ToolView, api: ApiView, alias: str) -> list[LintFinding]:
    """Why OpenAI strict mode or Gemini would refuse the API's schema, or what they lose."""
    if api.schema is None:
        return []
    findings = []
    strict = to_openai_strict_schema(api.schema)
    if strict.refused:
        findings.append(
            finding(
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
            finding(
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
            finding("gemini", tool.name, api.name, "Gemini would refuse this API: " + "; ".join(problems))
        )
    elif gemini.dropped:
        findings.append(
            finding(
                "gemini",
                tool.name,
                api.name,
                "Gemini does not accept "
                + ", ".join(gemini.dropped)
                + "; to_gemini_tools() leaves them out and the executor still checks them",
            )
        )
    return findings


def lint_tools(tools: Sequence[ToolView]) -> list[LintFinding]:
    aliases = assign_aliases(api.name for tool in tools for api in tool.apis)
    findings: list[LintFinding] = []
    for tool in tools:
        findings.extend(tool.notes)
        if not tool.has_api:
            findings.append(
                finding(
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
