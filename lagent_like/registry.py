"""The global tool registry: find tool classes by name.

Every ``BaseAction`` subclass registers itself under its tool name when it is defined
(opt out with ``class Base(BaseAction, register=False)``). Third-party packages add
tools through the entry-point group ``lagent_like.tools``; those are imported all at
once, the first time a name is missing or the list is read, so the set of imported
modules depends on what is installed, never on a name a model wrote.

The tools shipped with the package (:data:`BUILTIN_TOOLS`) are reserved by name when
the registry is created and imported on first lookup: ``list_tools()`` lists them in
Lagent's tutorial order in a fresh process, but importing the package does not import
every tool and its dependencies. A name a model wrote imports at most the one shipped
module that defines it.

Rules: re-defining a class with the same module and qualified name (a re-run notebook
cell) replaces its entry in place; a different class claiming a taken name is an error.
All operations are safe from several threads.
"""

from __future__ import annotations

import sys
import threading
from importlib import import_module
from typing import TYPE_CHECKING, Any, Literal, Union, overload

from ._private.log import logger
from ._private.text import close_matches
from .exceptions import RegistryError, ToolNotFoundError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["BUILTIN_TOOLS", "ENTRY_POINT_GROUP", "ToolRegistry", "get_tool", "get_tool_cls", "list_tools"]

#: Entry-point group that third-party packages use to contribute tools.
ENTRY_POINT_GROUP = "lagent_like.tools"

#: The tools shipped with the package, each with the module that defines it, in the
#: order ``list_tools()`` gives in a fresh process: the built-in actions, the tools of
#: Lagent's tutorial (ArxivSearch, BINGMap, GoogleScholar, ...), then Lagent 0.5's
#: ``Async*`` twins. Each is the class of that name in its module.
BUILTIN_TOOLS: dict[str, str] = {
    "BaseAction": "lagent_like.toolkits._base_action",
    **dict.fromkeys(("InvalidAction", "NoAction", "FinishAction"), "lagent_like.toolkits._builtin_actions"),
    **{
        f"{prefix}{name}": f"lagent_like.tools.{module}"
        for prefix in ("", "Async")
        for name, module in (
            ("ArxivSearch", "web.arxiv_search"),
            ("BINGMap", "web.bing_map"),
            ("GoogleScholar", "web.google_scholar_search"),
            ("GoogleSearch", "web.google_search"),
            ("IPythonInterpreter", "interpreters.ipython_interpreter"),
            ("PPT", "ppt"),
            ("PythonInterpreter", "interpreters.python_interpreter"),
            ("WebBrowser", "web.web_browser"),
        )
    },
}


class _Reserved:
    """A registry entry whose class is imported on first lookup: ``module.name``."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name


#: What the registry holds under a name: the class, or where to import it from.
Entry = Union[type, _Reserved]


def _identity(entry: Entry) -> tuple[str, str]:
    if isinstance(entry, _Reserved):
        return (entry.module, entry.name)
    return (entry.__module__, entry.__qualname__)


def _entry_points(group: str) -> list[EntryPoint]:
    # Imported here: importlib.metadata costs tens of milliseconds at import time.
    from importlib import metadata

    if sys.version_info >= (3, 10):
        return list(metadata.entry_points(group=group))
    return list(metadata.entry_points().get(group, []))


class ToolRegistry:
    """A thread-safe map from tool names to tool classes.

    Args:
        group: the entry-point group read for third-party tools.
    """

    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        self._group = group
        self._tools: dict[str, Entry] = {}
        self._lock = threading.RLock()
        self._plugins_lock = threading.Lock()
        self._plugins_loaded = False

    def register(self, cls: type, name: str) -> None:
        """Register ``cls`` under ``name``.

        Raises:
            RegistryError: ``name`` belongs to a different class.
        """
        with self._lock:
            taken = self._tools.get(name)
            if taken is not None and taken is not cls and _identity(taken) != _identity(cls):
                module, qualname = _identity(taken)
                raise RegistryError(
                    f"tool name {name!r} is already registered by {module}.{qualname}; "
                    f"cannot register {cls.__module__}.{cls.__qualname__} under it. Set "
                    f"__tool_name__ on the class to choose another name, or define it with "
                    f"register=False"
                )
            self._tools[name] = cls

    def reserve(self, name: str, module: str) -> None:
        """Keep ``name``'s place for the class ``name`` of ``module``, imported on first lookup.

        A name already registered keeps its entry.
        """
        with self._lock:
            self._tools.setdefault(name, _Reserved(module, name))

    def _resolve(self, name: str, entry: Entry) -> type:
        """The class of ``entry``, importing a reserved one (and registering it in place)."""
        if not isinstance(entry, _Reserved):
            return entry
        # Imported without holding the lock: the module's classes register themselves,
        # maybe from another thread that holds the import lock.
        cls: type = getattr(import_module(entry.module), entry.name)
        with self._lock:
            if self._tools.get(name) is entry:
                self._tools[name] = cls
        return cls

    def unregister(self, name: str) -> None:
        """Remove ``name``; unknown names are ignored."""
        with self._lock:
            self._tools.pop(name, None)

    def load_entry_points(self) -> None:
        """Import the tools of the entry-point group, once per registry.

        A plugin that fails to import, or is not a tool class, is logged and skipped so
        that one broken package cannot hide every other tool.
        """
        with self._plugins_lock:
            if self._plugins_loaded:
                return
            for entry in _entry_points(self._group):
                try:
                    obj = entry.load()
                except Exception:  # noqa: BLE001 - one broken plugin must not hide the others
                    logger().warning(
                        "could not load tool entry point %s = %s", entry.name, entry.value, exc_info=True
                    )
                    continue
                if not (isinstance(obj, type) and hasattr(obj, "__tool_description__")):
                    logger().warning(
                        "tool entry point %s = %s is not a BaseAction subclass", entry.name, entry.value
                    )
                    continue
                try:
                    self.register(obj, entry.name)
                except RegistryError as exc:
                    logger().warning("tool entry point %s skipped: %s", entry.name, exc)
            self._plugins_loaded = True

    def names(self) -> list[str]:
        """Registered names in registration order (plugins are loaded first)."""
        self.load_entry_points()
        with self._lock:
            return list(self._tools)

    def items(self) -> list[tuple[str, type]]:
        """``(name, class)`` pairs in registration order (plugins and reserved tools are loaded first)."""
        self.load_entry_points()
        with self._lock:
            entries = list(self._tools.items())
        return [(name, self._resolve(name, entry)) for name, entry in entries]

    def get(self, name: str) -> type:
        """The class registered under ``name``.

        Raises:
            ToolNotFoundError: nothing is registered under ``name``; the message lists
                close matches.
        """
        with self._lock:
            entry = self._tools.get(name)
        if entry is None:
            self.load_entry_points()
            with self._lock:
                entry = self._tools.get(name)
                names = list(self._tools)
            if entry is None:
                raise ToolNotFoundError(name, close_matches(str(name), names))
        return self._resolve(name, entry)

    def snapshot(self) -> dict[str, Entry]:
        """A copy of the current entries (for tests that restore the registry)."""
        with self._lock:
            return dict(self._tools)

    def restore(self, entries: dict[str, Entry]) -> None:
        """Replace all entries by ``entries`` (the output of :meth:`snapshot`)."""
        with self._lock:
            self._tools = dict(entries)


#: The registry that ``BaseAction`` subclasses join when they are defined.
TOOL_REGISTRY = ToolRegistry()
for _name, _module in BUILTIN_TOOLS.items():
    TOOL_REGISTRY.reserve(_name, _module)


@overload
def list_tools(with_class: Literal[False] = False) -> list[str]: ...


@overload
def list_tools(with_class: Literal[True]) -> list[tuple[str, type]]: ...


def list_tools(with_class: bool = False) -> Union[list[str], list[tuple[str, type]]]:
    """List registered tools in definition order, the built-ins first.

    Args:
        with_class: return ``(name, class)`` pairs instead of names.
    """
    return TOOL_REGISTRY.items() if with_class else TOOL_REGISTRY.names()


def get_tool_cls(name: str) -> type:
    """Return the tool class registered under ``name``.

    Raises:
        ToolNotFoundError: unknown name (a ``KeyError``); the message suggests close names.
    """
    return TOOL_REGISTRY.get(name)


def get_tool(name: str, *args: Any, **kwargs: Any) -> Any:
    """Instantiate the tool registered under ``name`` with ``args`` and ``kwargs``.

    Raises:
        ToolNotFoundError: unknown name (a ``KeyError``); the message suggests close names.
    """
    return TOOL_REGISTRY.get(name)(*args, **kwargs)
