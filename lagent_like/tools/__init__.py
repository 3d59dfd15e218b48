"""The built-in tools, importable from here: ``from lagent_like.tools import PythonInterpreter``.

The interpreters live in ``tools/interpreters/``, the web tools in ``tools/web/``. Each
tool's module is imported when its name is first read (PEP 562 ``__getattr__``), so
importing this package imports no tool and none of their dependencies.
"""

from typing import TYPE_CHECKING

from .._private import lazy as _lazy
from ..registry import BUILTIN_TOOLS

if TYPE_CHECKING:  # what __getattr__ imports on first use (_LAZY)
    from .interpreters.ipython_interactive import AsyncIPythonInteractive, IPythonInteractive
    from .interpreters.ipython_interpreter import AsyncIPythonInterpreter, IPythonInterpreter
    from .interpreters.ipython_manager import IPythonInteractiveManager
    from .interpreters.python_interpreter import AsyncPythonInterpreter, PythonInterpreter
    from .ppt import PPT, AsyncPPT
    from .web.arxiv_search import ArxivSearch, AsyncArxivSearch
    from .web.bing_map import AsyncBINGMap, BINGMap
    from .web.google_scholar_search import AsyncGoogleScholar, GoogleScholar
    from .web.google_search import AsyncGoogleSearch, GoogleSearch
    from .web.web_browser import AsyncWebBrowser, WebBrowser

#: Each tool class with its module: the registry's shipped tools of this package, and
#: Lagent 0.5's IPython shell tool and batch manager (not registered until first used).
_LAZY: dict[str, str] = {
    **{name: module for name, module in BUILTIN_TOOLS.items() if module.startswith(__name__ + ".")},
    **dict.fromkeys(
        ("IPythonInteractive", "AsyncIPythonInteractive"), f"{__name__}.interpreters.ipython_interactive"
    ),
    "IPythonInteractiveManager": f"{__name__}.interpreters.ipython_manager",
}

__all__ = [
    "PPT",
    "ArxivSearch",
    "AsyncArxivSearch",
    "AsyncBINGMap",
    "AsyncGoogleScholar",
    "AsyncGoogleSearch",
    "AsyncIPythonInteractive",
    "AsyncIPythonInterpreter",
    "AsyncPPT",
    "AsyncPythonInterpreter",
    "AsyncWebBrowser",
    "BINGMap",
    "GoogleScholar",
    "GoogleSearch",
    "IPythonInteractive",
    "IPythonInteractiveManager",
    "IPythonInterpreter",
    "PythonInterpreter",
    "WebBrowser",
]

__getattr__ = _lazy.lazy_getattr(globals(), _LAZY)


def __dir__() -> list[str]:
    return _lazy.public_dir(globals())
