"""The global tool registry: definition-order listing, lookups, clashes, plugins, threads."""

from __future__ import annotations

import collections
import logging
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from lagent_like import (
    BaseAction,
    RegistryError,
    ToolNotFoundError,
    get_tool,
    get_tool_cls,
    list_tools,
)
from lagent_like.registry import ToolRegistry


def test_list_tools_starts_with_the_builtins_in_definition_order() -> None:
    assert list_tools()[:4] == ["BaseAction", "InvalidAction", "NoAction", "FinishAction"]


def test_a_new_subclass_is_listed_last_with_its_class() -> None:
    class RegAlpha(BaseAction):
        def run(self) -> str:
            """Alpha."""
            return "a"

    assert list_tools()[-1] == "RegAlpha"
    assert list_tools(with_class=True)[-1] == ("RegAlpha", RegAlpha)
    assert get_tool_cls("RegAlpha") is RegAlpha


def test_get_tool_instantiates_with_arguments() -> None:
    class RegGreeter(BaseAction):
        def __init__(self, greeting: str, enable: bool = True) -> None:
            super().__init__(enable=enable)
            self.greeting = greeting

        def run(self, name: str) -> str:
            """Greet."""
            return f"{self.greeting}, {name}"

    tool = get_tool("RegGreeter", "Hello", enable=False)
    assert isinstance(tool, RegGreeter)
    assert (tool.greeting, tool.enable) == ("Hello", False)


def test_unknown_name_raises_a_key_error_listing_close_names() -> None:
    with pytest.raises(
        ToolNotFoundError,
        match=r"^no tool named 'FinishActon' in the registry; did you mean 'FinishAction'\?$",
    ):
        get_tool("FinishActon")
    with pytest.raises(KeyError):
        get_tool_cls("Nothing like it")


def test_tool_name_attribute_sets_the_registered_name() -> None:
    class RegInternal(BaseAction):
        __tool_name__ = "reg_public_name"

        def run(self) -> str:
            """Named."""
            return ""

    assert get_tool_cls("reg_public_name") is RegInternal
    assert "RegInternal" not in list_tools()


def test_register_false_keeps_a_class_out() -> None:
    class RegAbstractBase(BaseAction, register=False):
        pass

    assert "RegAbstractBase" not in list_tools()


def _define_notebook_cell() -> type:
    # Same module and qualified name on each call, like re-running a notebook cell.
    class RegCell(BaseAction):
        def run(self) -> str:
            """Cell."""
            return "v"

    return RegCell


def test_redefining_the_same_class_replaces_it_in_place() -> None:
    first = _define_notebook_cell()
    position = list_tools().index("RegCell")
    second = _define_notebook_cell()
    assert first is not second
    assert get_tool_cls("RegCell") is second
    assert list_tools().index("RegCell") == position


def test_a_different_class_claiming_a_taken_name_raises() -> None:
    class RegTaken(BaseAction):
        def run(self) -> str:
            """One."""
            return ""

    with pytest.raises(
        RegistryError, match=r"tool name 'RegTaken' is already registered by .*RegTaken; cannot register"
    ):

        class Other(BaseAction):
            __tool_name__ = "RegTaken"

            def run(self) -> str:
                """Two."""
                return ""

    assert get_tool_cls("RegTaken") is RegTaken


def test_the_shipped_tools_are_listed_in_order_but_imported_on_first_lookup() -> None:
    probe = textwrap.dedent(
        """
        import sys, lagent_like
        from lagent_like.registry import BUILTIN_TOOLS
        loaded = lambda: sorted({m for m in BUILTIN_TOOLS.values() if m.startswith("lagent_like.tools.")} & set(sys.modules))
        names = lagent_like.list_tools()
        print(names[4], names[-1], loaded())
        cls = lagent_like.get_tool_cls("ArxivSearch")
        print(cls.__name__, cls is lagent_like.ArxivSearch, loaded())
        print(len(lagent_like.list_tools(with_class=True)), len(loaded()))
        """
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [
        "ArxivSearch AsyncWebBrowser []",
        "ArxivSearch True ['lagent_like.tools.web.arxiv_search']",
        "20 8",
    ]


def test_a_reserved_name_is_imported_on_lookup_and_kept_from_other_classes() -> None:
    registry = ToolRegistry(group="lagent_like.tests.none")
    registry.reserve("OrderedDict", "collections")
    registry.register(dict, "dict")
    registry.reserve("dict", "builtins")
    assert registry.names() == ["OrderedDict", "dict"]
    with pytest.raises(
        RegistryError,
        match=r"^tool name 'OrderedDict' is already registered by collections.OrderedDict; cannot",
    ):
        registry.register(list, "OrderedDict")
    assert registry.get("OrderedDict") is collections.OrderedDict
    assert registry.items() == [("OrderedDict", collections.OrderedDict), ("dict", dict)]


def test_threads_define_and_look_up_tools_at_once() -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def worker(index: int) -> None:
        try:
            barrier.wait()
            for round_ in range(40):
                name = f"RegThread_{index}_{round_}"
                cls = type(name, (BaseAction,), {"run": lambda self: "x", "__doc__": "Threaded."})
                assert get_tool_cls(name) is cls
                assert name in list_tools()
                assert get_tool(name)("{}").format_result() == "x"
        except BaseException as exc:  # noqa: BLE001 - collected and re-raised by the test
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    names = list_tools()
    assert sum(n.startswith("RegThread_") for n in names) == 8 * 40
    assert len(names) == len(set(names))


def _install_distribution(root: Path, dist: str, entry_points: str, modules: dict[str, str]) -> None:
    """Write a real installed distribution (``*.dist-info``) with entry points under ``root``."""
    info = root / f"{dist}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for name, source in modules.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source))


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_entry_point_plugins_are_loaded_from_an_installed_distribution(
    site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _install_distribution(
        site,
        "reg_plugin_dist",
        """
        [lagent_like.tools]
        RegPluginTool = reg_plugin_mod:RegPluginTool
        reg_alias = reg_plugin_mod:RegPluginTool
        reg_broken = reg_missing_module:Nothing
        reg_not_a_tool = reg_plugin_mod:helper
        """,
        {
            "reg_plugin_mod": """
            from lagent_like import BaseAction

            class RegPluginTool(BaseAction, register=False):
                def run(self, text: str) -> str:
                    \"\"\"Plugin tool.\"\"\"
                    return text[::-1]

            def helper():
                return None
            """
        },
    )
    registry = ToolRegistry()
    with caplog.at_level(logging.WARNING, logger="lagent_like"):
        names = registry.names()
    assert names == ["RegPluginTool", "reg_alias"]
    plugin = registry.get("RegPluginTool")
    assert plugin is registry.get("reg_alias")
    assert plugin()('{"text": "abc"}').format_result() == "cba"
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("could not load tool entry point reg_broken") for m in messages)
    assert "tool entry point reg_not_a_tool = reg_plugin_mod:helper is not a BaseAction subclass" in messages
    sys.modules.pop("reg_plugin_mod", None)


def test_entry_points_are_loaded_when_a_name_is_missing(site: Path) -> None:
    _install_distribution(
        site,
        "reg_lazy_dist",
        """
        [lagent_like.tools]
        RegLazyTool = reg_lazy_mod:RegLazyTool
        """,
        {
            "reg_lazy_mod": """
            from lagent_like import BaseAction

            class RegLazyTool(BaseAction, register=False):
                def run(self) -> str:
                    \"\"\"Lazy.\"\"\"
                    return "lazy"
            """
        },
    )
    registry = ToolRegistry()
    assert "reg_lazy_mod" not in sys.modules
    assert registry.get("RegLazyTool").__name__ == "RegLazyTool"
    assert "reg_lazy_mod" in sys.modules
    sys.modules.pop("reg_lazy_mod", None)
