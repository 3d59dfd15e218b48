"""The inspector's catalogue: everything a model is told about each API, in one entry.

A tool author wants to see, per API, the Lagent description the system prompt gets,
every function-calling export and the schema doctor's findings next to each other.
This module builds those entries once from an executor, with no web code in it, so
the server only serialises them and the tests can check them directly.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, Callable, Optional, Union

from ..executors._action_executor import ActionExecutor
from ..toolkits._base_action import BaseAction

__all__ = ["build_catalogue", "code_allowed", "runs_code"]

#: Export keys of an entry, and how each list is read from an executor.
_EXPORTS: dict[str, Callable[[ActionExecutor], list[dict[str, Any]]]] = {
    "openai": lambda executor: executor.to_openai_tools(),
    "openai_strict": lambda executor: executor.to_openai_tools(strict=True),
    "anthropic": lambda executor: executor.to_anthropic_tools(),
    "mcp": lambda executor: executor.to_mcp_tools(),
    # Gemini's export is one tool holding every declaration: each API's is its entry.
    "gemini": lambda executor: [
        declaration for tool in executor.to_gemini_tools() for declaration in tool["functionDeclarations"]
    ],
}


def runs_code(action: BaseAction) -> bool:
    """Whether ``action`` executes code it is given, as ``serve-mcp`` tells it.

    A tool declares it with a class attribute ``runs_code = True`` (the Python and
    IPython interpreters do).
    """
    return getattr(action, "runs_code", False) is True


def _export_name(entry: dict[str, Any]) -> Optional[str]:
    """The tool name inside one export entry, whatever its shape."""
    function = entry.get("function")
    name = function.get("name") if isinstance(function, dict) else entry.get("name")
    return name if isinstance(name, str) else None


def _exports_by_api(executor: ActionExecutor) -> dict[str, dict[str, Any]]:
    """``{api name: {export key: entry or {'error': text}}}`` for every enabled API."""
    by_api: dict[str, dict[str, Any]] = {}
    for key, read in _EXPORTS.items():
        try:
            entries = read(executor)
        except Exception as exc:  # noqa: BLE001 - an export that fails is shown, not fatal
            for name in executor.api_names():
                by_api.setdefault(name, {})[key] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        for entry in entries:
            alias = _export_name(entry)
            if alias is None:
                continue
            by_api.setdefault(executor.canonical_name(alias), {})[key] = entry
    return by_api


def _findings(actions: Iterable[BaseAction]) -> dict[str, list[dict[str, str]]]:
    """Lint findings of ``actions`` as one set, by the API name they are about."""
    from ..lint._lint import lint_actions

    found: dict[str, list[dict[str, str]]] = {}
    for finding in lint_actions(list(actions)):
        found.setdefault(finding.api, []).append(
            {"severity": finding.severity, "code": finding.code, "message": finding.message}
        )
    return found


def _property_names(schema: Any, found: list[str]) -> None:
    """Add to ``found`` every property name anywhere in ``schema``, nested ones included.

    Names sit under ``properties`` at any depth: in an object parameter, in array
    ``items``, in ``anyOf`` branches and in ``$defs``; walking every dict and list
    reaches them all.
    """
    if isinstance(schema, list):
        for item in schema:
            _property_names(item, found)
        return
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if isinstance(properties, dict):
        found.extend(str(key) for key in properties)
    for value in schema.values():
        _property_names(value, found)


def _search_text(name: str, info: dict[str, Any], schema: dict[str, Any]) -> str:
    """What a search query is matched against: name, description, every parameter name."""
    names: list[str] = [str(p.get("name", "")) for p in info.get("parameters", [])]
    _property_names(schema, names)
    return f"{name} {info.get('description', '')} {' '.join(dict.fromkeys(names))}".lower()


def code_allowed(allow_code: Union[bool, Collection[str]], tool: str) -> bool:
    """Whether the operator let a code-executing ``tool`` be called.

    ``allow_code`` is ``True`` (``--allow-code``: every such tool), ``False`` (none),
    or the tool names the operator named explicitly (``--tools``).
    """
    return allow_code if isinstance(allow_code, bool) else tool in allow_code


def build_catalogue(
    executor: ActionExecutor, allow_code: Union[bool, Collection[str]] = False
) -> list[dict[str, Any]]:
    """One entry per enabled API of ``executor``, in system-prompt order.

    Args:
        executor: the executor whose tools are shown.
        allow_code: which code-executing tools may be called from the page: ``True``
            for all, ``False`` for none, or a collection of tool names.

    Returns:
        Dicts with ``name`` (``'Tool'`` or ``'Tool.api'``), ``tool``, ``description``
        (the Lagent dict exactly as ``executor.get_actions_info()`` gives it to the
        system prompt), ``schema`` (the arguments' JSON Schema), ``exports`` (``openai``,
        ``openai_strict``, ``anthropic``, ``mcp``, ``gemini``: each the API's entry of that export,
        or ``{'error': text}`` when the export fails), ``lint`` (findings about the API
        and its tool), ``runs_code``, ``callable`` (false for code-executing tools
        without ``allow_code``) and ``search`` (lower-case text to match a query: the name, the description
        and every parameter name, nested object keys included).
    """
    exports = _exports_by_api(executor)
    actions = [action for action in executor.actions.values() if action.enable]
    findings = _findings(actions)
    by_prefix = {action.name: action for action in actions}
    catalogue = []
    for info in executor.get_actions_info():
        name = info["name"]
        schema = executor.json_schema(name)
        tool = name.split(".", 1)[0] if name not in by_prefix else name
        action = by_prefix[tool]
        lint = list(findings.get(name, []))
        if tool != name:
            lint += findings.get(tool, [])
        code = runs_code(action)
        catalogue.append(
            {
                "name": name,
                "tool": tool,
                "description": info,
                "schema": schema,
                "exports": exports.get(name, {}),
                "lint": lint,
                "runs_code": code,
                "callable": not code or code_allowed(allow_code, tool),
                "search": _search_text(name, info, schema),
            }
        )
    return catalogue
