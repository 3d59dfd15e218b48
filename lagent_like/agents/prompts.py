"""The ReAct agent's default prompt texts, and how tools are written into them.

A ReAct model learns the tools and the reply format from the system prompt alone, so
the prompt is data a user may want to read, test and replace: it lives here, apart
from the agent loop. Templates are ``str.format`` strings; the agent checks their
placeholders when it is built (see :data:`TEMPLATE_FIELDS`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "DEFAULT_SYSTEM_TEMPLATE",
    "FORMAT_REMINDER",
    "TEMPLATE_FIELDS",
    "render_tool_descriptions",
    "tool_names",
]

#: The placeholders a system template may use, and what each becomes.
TEMPLATE_FIELDS: dict[str, str] = {
    "tool_descriptions": "one entry per tool: name, description, parameters, how to pass arguments",
    "tool_names": "the tool names, comma-separated, as the model must write them after 'Action:'",
}

#: The system prompt of :class:`~lagent_like.agents.ReAct` (Lagent/LangChain-style ReAct).
DEFAULT_SYSTEM_TEMPLATE = """\
You are a helpful assistant that solves tasks step by step and can use tools.

You have access to the following tools:

{tool_descriptions}

To use a tool, reply in exactly this format:

Thought: think about what to do next
Action: the tool to use, exactly one of [{tool_names}]
Action Input: the arguments of the tool, as its description asks

Then stop: the result of the tool comes back to you as
Observation: the result of the tool

Thought/Action/Action Input/Observation can repeat as many times as needed, one action per reply.
Never write the Observation yourself. When you know the answer, reply in this format:

Thought: I now know the final answer
Final Answer: the final answer to the question

Begin!"""

#: Told to the model, after what was wrong, when a reply has no usable action or answer.
FORMAT_REMINDER = """\
Reply in this format:
Thought: what to do next
Action: one of [{tool_names}]
Action Input: the arguments of the tool
or, when you know the answer:
Thought: I now know the final answer
Final Answer: the answer"""

#: Description keys written as their own line, in this order, with their labels.
_ENTRY_LINES: dict[str, str] = {
    "parameters": "Parameters",
    "required": "Required",
    "return_data": "Returns",
}

_NO_TOOLS = "(no tools are available)"


def _indented(text: str) -> str:
    """Continuation lines indented under their entry; blank lines left empty."""
    first, *rest = text.split("\n")
    return "\n".join([first, *(f"    {line}" if line.strip() else "" for line in rest)])


def _render_entry(entry: Mapping[str, Any]) -> str:
    """One tool of ``get_actions_info()`` as a few lines of text."""
    lines = [f"{entry.get('name', '')}: {_indented(str(entry.get('description', '')).strip())}"]
    for key, label in _ENTRY_LINES.items():
        value = entry.get(key)
        if value:
            lines.append(f"    {label}: {json.dumps(value, ensure_ascii=False, default=str)}")
    how = entry.get("parameter_description")
    if how:
        lines.append(f"    {_indented(str(how).strip())}")
    return "\n".join(lines)


def render_tool_descriptions(info: Sequence[Mapping[str, Any]]) -> str:
    """The ``{tool_descriptions}`` text for ``executor.get_actions_info()``.

    Each tool is a line ``name: description``, then indented lines with its parameters
    and required parameters (as JSON, in Lagent's description format), its return data
    if described, and its ``parameter_description`` (how to pass arguments).

    Args:
        info: the entries of :meth:`~lagent_like.ActionExecutor.get_actions_info`.
    """
    return "\n\n".join(_render_entry(entry) for entry in info) or _NO_TOOLS


def tool_names(info: Sequence[Mapping[str, Any]]) -> str:
    """The ``{tool_names}`` text: the names of ``info``'s entries, comma-separated."""
    return ", ".join(str(entry.get("name", "")) for entry in info)
