"""Package attributes imported on first use (PEP 562 module ``__getattr__``).

``lagent_like`` and ``lagent_like.actions`` export names whose modules cost import
time that most programs never need (the shipped tools, the policies, ``SchemaTool``).
Each package names them in a table, name -> module; the ``__getattr__`` made here
imports the module when one of its names is first read and keeps the value in the
package, so that later reads are plain attribute reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any, Callable


def lazy_getattr(namespace: dict[str, Any], table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` reading ``table``'s names from their modules.

    Args:
        namespace: the package's ``globals()``, where values are kept once read.
        table: each lazily imported name, with the absolute name of its module.
    """

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__


def public_dir(namespace: dict[str, Any]) -> list[str]:
    """A module ``__dir__``: its names and the ones of ``__all__`` not read yet."""
    return sorted({*namespace, *namespace["__all__"]})
