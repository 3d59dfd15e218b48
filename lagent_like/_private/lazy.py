"""Package attributes imported on first use (PEP 562 module ``__getattr__``).

``lagent_like`` and ``lagent_like.actions`` export names whose modules cost import
time that most programs never need (the shipped tools, the policies, ``SchemaTool``).
Each package names them in a table, name -> module; the ``__getattr__`` made here
imports the module when one of its names is first read and keeps the value in the
package, so that later reads are plain attribute reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from importlib import import_module
from typing import Any, Callable, Optional


def lazy_getattr(
    namespace: dict[str, Any],
    table: Mapping[str, str],
    submodules: Optional[Mapping[str, Sequence[str]]] = None,
) -> Callable[[str], Any]:
    """A module ``__getattr__`` reading ``table``'s names from their modules.

    Args:
        namespace: the package's ``globals()``, where values are kept once read.
        table: each lazily imported name, with the absolute name of its module.
        submodules: the package's submodules that reading imports (``package.schema``
            without ``import package.schema`` first), each with the modules to import
            then, relative to the package (``"runtime.hooks"`` for ``runtime``).
    """
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        if submodules is not None and name in submodules:
            for held in submodules[name]:
                import_module(f"{package}.{held}")
            value = import_module(f"{package}.{name}")
            namespace[name] = value
            return value
        home = table.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(home), name)
        namespace[name] = value
        return value

    return __getattr__


def public_dir(namespace: dict[str, Any]) -> list[str]:
    """A module ``__dir__``: its names and the ones of ``__all__`` not read yet."""
    return sorted({*namespace, *namespace["__all__"]})


def lazy_pattern(source: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function returning ``re.compile(source, flags)``, compiled on its first call.

    Import time: compiling a pattern costs a tenth to a third of a millisecond, and
    most of a module's patterns serve paths that most programs never take (docstrings
    of rarer shapes, for instance). Two threads calling it first at once may both
    compile; either compiled pattern is the same.

    Args:
        source: the pattern.
        flags: the ``re`` flags.
    """
    compiled: list[re.Pattern[str]] = []

    def pattern() -> re.Pattern[str]:
        if not compiled:
            compiled.append(re.compile(source, flags))
        return compiled[0]

    return pattern


class LazyModule:
    """A stand-in for a module, imported on the first read of one of its attributes.

    For a module that only a path most programs never take uses (``heapq`` for tool
    search): ``heapq = lazy_module("heapq")`` at the top, ``heapq.nsmallest(...)`` below,
    and importing the package does not import it. Each read looks the module up again
    (a dict lookup once imported).
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        """Stand in for the module ``name`` (absolute)."""
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        """``attribute`` of the module, imported now if it is not yet."""
        return getattr(import_module(self._name), attribute)


def lazy_module(name: str) -> Any:
    """A :class:`LazyModule` for ``name``, typed ``Any`` (its attributes are the module's).

    Args:
        name: the module's absolute name.
    """
    return LazyModule(name)
