"""Import a Python file by its path, as ``python path/to/file.py`` would find its neighbours.

The command line takes a file wherever it takes a module (``-m tools.py``,
``lint tools.py``); both the CLI and the schema doctor (a lower layer) import it,
so the one way of doing it lives here.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from ..exceptions import LagentLikeError

__all__ = ["ModuleFileError", "import_file", "is_module_file"]


class ModuleFileError(LagentLikeError, ImportError):
    """A file named as a module cannot be imported for what it is, not for its code.

    The message is whole (``cannot import module 'x.py': ...``): callers show it as it is.
    """


def is_module_file(name: str) -> bool:
    """Whether ``name`` (given where a module is expected) names a file rather than a module."""
    return name.endswith(".py") or "/" in name or os.sep in name


def import_file(name: str) -> Any:
    """Import the Python file ``name`` as a module named after its stem.

    Its folder goes first on ``sys.path`` (as for ``python name``), so it imports its
    neighbours; importing the same file again returns the module already imported.

    Args:
        name: the file's path, as the user wrote it.

    Returns:
        The module.

    Raises:
        ModuleFileError: there is no such file, it is not a Python file, or another
            module of the same name is already imported.
        Exception: whatever the file's code raises while it runs (the module is then
            forgotten again).
    """
    path = Path(name).resolve()
    if not path.is_file():
        raise ModuleFileError(f"cannot import module {name!r}: no such file {str(path)!r}")
    module_name = path.stem
    loaded = sys.modules.get(module_name)
    if loaded is not None:
        where = getattr(loaded, "__file__", None)
        if where is not None and Path(where).resolve() == path:
            return loaded
        raise ModuleFileError(
            f"cannot import module {name!r}: a module named {module_name!r} is already imported "
            f"from elsewhere; rename the file"
        )
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ModuleFileError(f"cannot import module {name!r}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    # In sys.modules before it runs, as an import would: dataclasses and pickling look it up.
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module
