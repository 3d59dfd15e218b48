"""Sphinx configuration of the lagent-like documentation.

Build with ``sphinx-build -n -W -b html docs docs/_build/html`` from the repository root:
nitpicky, so that every cross reference must resolve.
"""

from __future__ import annotations

import builtins
import importlib.util
import re
import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.nodes import make_refnode

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
nitpicky = False  # set by ``-n`` in CI; the README's plain ``-W`` build stays lenient

# The standard library's and third-party names that signatures and docstrings name: the
# build is offline (no intersphinx inventory to fetch), so they cannot resolve. Only
# such names are listed here; every name of this package resolves to its documentation.
_EXTERNAL_CLASSES = [
    "argparse.ArgumentParser",
    "asyncio.AbstractEventLoop",
    "collections.abc.AsyncIterator",
    "collections.abc.Awaitable",
    "collections.abc.Callable",
    "collections.abc.Collection",
    "collections.abc.Coroutine",
    "collections.abc.Iterable",
    "collections.abc.Iterator",
    "collections.abc.Mapping",
    "collections.abc.Sequence",
    "concurrent.futures.Executor",
    "inspect._empty",
    "logging.Logger",
    "os.PathLike",
    "requests.Session",
    "typing_extensions.Unpack",
]
_EXTERNAL_FUNCTIONS = ["ast.literal_eval", "random.random", "time.monotonic", "time.sleep"]
_EXTERNAL_MODULES = ["asyncio", "logging"]
nitpick_ignore = [
    # MCP's low-level server class, imported only for type checking: the return type of
    # lagent_like.mcp.build_mcp_server.
    ("py:class", "Server"),
    # Lagent's own docstrings, kept byte for byte in the shipped tools (IPythonInterpreter,
    # IPythonInteractive), write the typing expression as a class reference.
    ("py:class", "Optional[int]"),
    *(("py:class", name) for name in _EXTERNAL_CLASSES),
    *(("py:func", name) for name in _EXTERNAL_FUNCTIONS),
    *(("py:mod", name) for name in _EXTERNAL_MODULES),
]

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


#: Default values whose ``repr`` is not Python: a class (``<class 'pkg.Name'>``) and a
#: dataclass field's ``default_factory`` (``<factory>``). Sphinx parses a signature as
#: Python; one such default makes it split the whole signature on commas instead
#: (``dict[str`` becomes a reference target).
_CLASS_REPR = re.compile(r"<class '(?:[\w.]+\.)?(\w+)'>")


def _python_defaults(
    app: Sphinx,
    what: str,
    name: str,
    obj: object,
    options: object,
    signature: str | None,
    annotation: str | None,
) -> tuple[str | None, str | None] | None:
    """Write the non-Python reprs of defaults in ``signature`` as Python (the class name, ``...``)."""
    if signature is None or "<" not in signature:
        return None
    signature = _CLASS_REPR.sub(r"\1", signature).replace("<factory>", "...")
    return signature, annotation


def _resolve_short_name(
    app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref, contnode: nodes.TextElement
) -> nodes.reference | None:
    """Resolve a short name (``ActionExecutor``, ``RetryPolicy.delay``) naming one documented object.

    Docstrings name objects of this package as their module sees them, and signatures
    carry the names of annotations imported only for type checking; Sphinx looks such a
    name up only in the module documenting the reference. This looks it up among all
    documented objects of ``lagent_like``, as Sphinx itself does for the types of
    parameters, and links it when exactly one object has that name; otherwise the
    reference stays unresolved and ``-n`` reports it.
    """
    if node.get("refdomain") != "py":
        return None
    domain = env.get_domain("py")
    target, role = node["reftarget"], node["reftype"]
    roles = ("class", "data", "attr") if role == "class" else ("attr", "meth") if role == "attr" else (role,)
    for lookup in roles:
        matches = [
            match
            for match in domain.find_obj(env, None, None, target, lookup, 1)
            if match[0].startswith("lagent_like.") and not match[1].aliased
        ]
        if len(matches) == 1:
            name, entry = matches[0]
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, name)
    return None


def setup(app: Sphinx) -> dict[str, bool]:
    """Register the local build tweaks."""
    app.connect("doctree-read", _unlink_builtin_names)
    app.connect("autodoc-process-signature", _python_defaults)
    app.connect("missing-reference", _resolve_short_name)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
