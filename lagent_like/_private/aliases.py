"""Legal function-calling names for tool names that are not legal.

OpenAI, Anthropic and MCP clients want names matching ``^[a-zA-Z0-9_-]{1,64}$``;
Lagent names toolkit APIs ``Tool.api`` and tools from elsewhere may be longer or use
other characters. Each illegal name gets a readable alias (``.`` becomes ``__``, other
characters ``_``); a long or clashing alias ends in a hash of the original name, so
that every alias maps back to exactly one name through the executor's table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .lazy import lazy_pattern

LEGAL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: What an alias replaces (compiled on first use: most names are legal already).
_ILLEGAL = lazy_pattern(r"[^a-zA-Z0-9_-]")
_MAX = 64


def hashed_alias(base: str, name: str) -> str:
    """``base`` cut short and ended with a hash of ``name``: unique to ``name``."""
    import hashlib  # loads OpenSSL: milliseconds at import, and clashes are rare

    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return f"{base[: _MAX - 9]}_{digest}"


def readable_alias(name: str) -> str:
    """The alias ``name`` gets unless it clashes: legal, and as close to ``name`` as it can be."""
    if LEGAL_NAME.fullmatch(name):
        return name
    alias = _ILLEGAL().sub("_", name.replace(".", "__")) or "tool"
    return alias if len(alias) <= _MAX else hashed_alias(alias, name)


def assign_aliases(names: Iterable[str]) -> dict[str, str]:
    """Give every name a legal alias, unique among all names and aliases.

    Legal names keep themselves; they are placed first so that an alias never takes a
    name that a tool really has.
    """
    ordered = list(dict.fromkeys(names))
    aliases = {n: n for n in ordered if LEGAL_NAME.fullmatch(n)}
    if len(aliases) == len(ordered):  # every name legal (the usual catalogue): already in order
        return aliases
    taken = set(aliases)
    for name in ordered:
        if name in aliases:
            continue
        alias = readable_alias(name)
        if alias in taken:
            alias = hashed_alias(alias, name)
        taken.add(alias)
        aliases[name] = alias
    return {n: aliases[n] for n in ordered}
