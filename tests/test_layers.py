"""The package imports in one direction: each layer uses only the layers below it.

The layers, lowest first (a folder or a top-level module each)::

    exceptions -> _private -> schema -> context -> registry -> types -> spec
      -> function_calling -> parsers -> runtime -> toolkits -> langchain -> executors
      -> lint -> _net -> tools -> mcp -> ray -> llms -> agents -> web
      -> actions (Lagent's import paths) -> langchain_tools -> lagent_like -> cli -> __main__

The walk reads every ``import`` of every module, at module level and inside functions
alike; imports under ``if TYPE_CHECKING:`` are annotations, never run, and do not count.
A failure names each back edge (``module -> module it should not import``) and each
cycle between modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "lagent_like"

#: Lowest first; a module may import its own layer and the layers before it.
LAYERS = [
    "exceptions",
    "_private",
    "schema",
    "context",
    "registry",
    "types",
    "spec",
    "function_calling",
    "parsers",
    "runtime",
    "toolkits",
    "langchain",
    "executors",
    "lint",
    "_net",
    "tools",
    "mcp",
    "ray",
    "llms",
    "agents",
    "web",
    "actions",
    "langchain_tools",
    "lagent_like",
    "cli",
    "__main__",
]


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


MODULES = _modules()


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement but those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if (
            isinstance(node, ast.If)
            and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING"
        ):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        names = [f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target for a in node.names]
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            yield name


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, (path, is_package) in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges[module] = {t for node in _runtime_imports(tree) for t in _targets(module, is_package, node)}
    return edges


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "lagent_like"


EDGES = _edges()


def test_every_module_belongs_to_a_layer() -> None:
    assert sorted({_layer(m) for m in MODULES} - set(LAYERS)) == []


def _back_edges(edges: dict[str, set[str]]) -> list[str]:
    """Each ``module -> target`` whose target sits in a layer above the module's."""
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    return sorted(
        f"{a} -> {b}" for a, targets in edges.items() for b in targets if rank[_layer(b)] > rank[_layer(a)]
    )


def test_no_layer_imports_a_layer_above_it() -> None:
    assert _back_edges(EDGES) == []


def test_a_back_edge_is_named() -> None:
    edges = {"lagent_like.types._families": {"lagent_like.runtime._core", "lagent_like.exceptions"}}
    assert _back_edges(edges) == ["lagent_like.types._families -> lagent_like.runtime._core"]


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_modules_import_each_other_in_a_cycle() -> None:
    assert _cycles(EDGES) == []


@pytest.mark.parametrize(
    ("edges", "cycles"),
    [
        pytest.param({"a": {"b"}, "b": {"a"}}, [["a", "b"]], id="two"),
        pytest.param({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]], id="three"),
        pytest.param({"a": {"b"}, "b": set()}, [], id="none"),
    ],
)
def test_the_cycle_finder_finds_cycles(edges: dict[str, set[str]], cycles: list[list[str]]) -> None:
    assert _cycles(edges) == cycles


def test_the_walk_sees_imports_inside_functions_and_relative_ones() -> None:
    module, (path, is_package) = (
        "lagent_like.toolkits._base_action",
        MODULES["lagent_like.toolkits._base_action"],
    )
    assert "lagent_like.parsers" in EDGES[module]
    source = "def f():\n    from ..runtime import _core\nif TYPE_CHECKING:\n    from ..cli import commands\n"
    targets = {t for n in _runtime_imports(ast.parse(source)) for t in _targets(module, is_package, n)}
    assert targets == {"lagent_like.runtime._core"}
    assert path.name == "_base_action.py"
