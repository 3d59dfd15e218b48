"""The keyword-only settings the built-in tools add to Lagent's constructors, declared once.

A built-in tool's positional parameters are Lagent's, in Lagent's order, then
``description, parser, enable``, so that a positional call written for Lagent
(``GoogleSearch(key, 5)``) lands where Lagent meant it. What we add is keyword-only,
and where several tools add the same settings (an HTTP tool's base URL and request
timeout, an interpreter's sandbox and limits) they are declared here once, as a
``TypedDict`` that each constructor takes as ``**settings: Unpack[...]``; each tool
keeps its defaults in a class attribute, and :func:`with_defaults` merges the two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Optional, TypeVar, cast

if TYPE_CHECKING:
    from typing_extensions import TypedDict

    class WebApiUrl(TypedDict, total=False):
        """Where an HTTP tool sends its requests (see ``WebApiTool``)."""

        base_url: str

    class WebApiSettings(WebApiUrl, total=False):
        """An HTTP tool's keyword-only settings (see ``WebApiTool``)."""

        timeout: float

    class SandboxSettings(TypedDict, total=False):
        """An interpreter's sandbox and limits (see ``IPythonInterpreter``, ``PythonInterpreter``).

        What the tools built on ``IPythonInterpreter`` (``IPythonInteractive``,
        ``IPythonInteractiveManager``) pass on unchanged.
        """

        memory_mb: Optional[int]
        cpu_seconds: Optional[int]
        max_processes: Optional[int]
        max_file_mb: Optional[int]
        max_output_chars: int
        network: bool
        isolation: str
        disk_mb: int
        read_only_paths: Sequence[str]


__all__ = ["SANDBOX_DEFAULTS", "with_defaults"]

#: The sandbox settings' defaults (``PythonInterpreter``'s; a tool changes what differs).
SANDBOX_DEFAULTS: SandboxSettings = {
    "memory_mb": 1024,
    "cpu_seconds": 30,
    "max_processes": 64,
    "max_file_mb": 64,
    "max_output_chars": 100_000,
    "network": False,
    "isolation": "sandbox",
    "disk_mb": 256,
    "read_only_paths": (),
}

S = TypeVar("S", bound=Mapping[str, object])


def with_defaults(owner: str, defaults: S, given: Mapping[str, object]) -> S:
    """``defaults`` updated with ``given``, whose every name must be one of ``defaults``' names.

    Args:
        owner: the class whose constructor received ``given`` (named in the error).
        defaults: every setting's default (so also every setting's name).
        given: the settings passed by keyword.

    Raises:
        TypeError: a name ``defaults`` does not have, worded as Python words it.
    """
    for name in given:
        if name not in defaults:
            raise TypeError(f"{owner}.__init__() got an unexpected keyword argument {name!r}")
    # The same keys as ``defaults`` (checked above), so the same TypedDict.
    return cast(S, {**defaults, **given})
