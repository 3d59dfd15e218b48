"""Sphinx configuration of the lagent-like documentation.

Build with ``sphinx-build -W -b html docs docs/_build/html`` from the repository root.
"""

from __future__ import annotations

import builtins
import importlib.util
import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

# Document the package next to this folder, installed or not.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lagent_like import __version__

project = "lagent-like"
author = "lagent-like contributors"
copyright = "lagent-like contributors"
release = __version__
version = ".".join(__version__.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

exclude_patterns = ["_build"]
nitpicky = False

# The optional extras' libraries ([mcp], [ray], [ppt]) are stood in for while documenting
# when they are not installed, so that the README's ``pip install '.[docs]' &&
# sphinx-build -W docs docs/_build/html`` builds without them.
_OPTIONAL_IMPORTS = ["mcp", "mcp_types", "anyio", "uvicorn", "starlette", "httpx", "ray", "pptx"]
autodoc_mock_imports = [name for name in _OPTIONAL_IMPORTS if importlib.util.find_spec(name) is None]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# Attributes sections as field lists: a dataclass field documented there is not also an
# attribute entry that autodoc would make a second time (duplicate object warnings).
napoleon_use_ivar = True

html_theme = "alabaster"
html_theme_options = {
    "description": "The tool layer for LLM agents, Lagent-compatible.",
}


def _unlink_builtin_names(app: Sphinx, doctree: nodes.document) -> None:
    """Keep builtin names in type hints (``type[...]``) from linking to a same-named member.

    Sphinx resolves annotation references fuzzily, so ``type`` would link to the
    attribute ``ActionReturn.type``; an exact lookup leaves builtins unlinked.
    """
    for node in doctree.findall(addnodes.pending_xref):
        if node.get("refdomain") == "py" and hasattr(builtins, node.get("reftarget", "")):
            node.attributes.pop("refspecific", None)


def setup(app: Sphinx) -> dict[str, bool]:
    """Register the local build tweaks."""
    app.connect("doctree-read", _unlink_builtin_names)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
