"""The public API: what ``lagent_like`` exports is deliberate and importing it is inert."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types

import pytest

import lagent_like
import lagent_like.actions


def test_all_is_sorted_and_complete() -> None:
    exported = lagent_like.__all__
    assert exported == sorted(exported)
    public = {
        name
        for name in dir(lagent_like)
        if not name.startswith("_") and not isinstance(getattr(lagent_like, name), types.ModuleType)
    }
    assert public == set(exported) - {"__version__"}


def test_every_exported_member_exists() -> None:
    for name in lagent_like.__all__:
        assert getattr(lagent_like, name) is not None


def test_actions_package_exports_the_same_objects() -> None:
    assert lagent_like.actions.__all__ == sorted(lagent_like.actions.__all__)
    for name in lagent_like.actions.__all__:
        assert getattr(lagent_like.actions, name) is getattr(lagent_like, name)


def test_import_changes_no_global_state_and_stays_light() -> None:
    probe = textwrap.dedent(
        """
        import logging, sys, warnings
        before = (logging.root.level, list(logging.root.handlers), list(warnings.filters))
        import lagent_like
        after = (logging.root.level, list(logging.root.handlers), list(warnings.filters))
        assert before == after, (before, after)
        assert logging.getLogger("lagent_like").handlers == []
        heavy = sorted(m for m in ("requests", "json5", "asyncio") if m in sys.modules)
        print(heavy)
        """
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lazily_imported_names_are_listed_and_unknown_names_still_fail() -> None:
    assert set(lagent_like.__all__) <= set(dir(lagent_like))
    assert set(lagent_like.actions.__all__) <= set(dir(lagent_like.actions))
    for module in (lagent_like, lagent_like.actions):
        with pytest.raises(AttributeError, match=rf"^module '{module.__name__}' has no attribute 'Nope'$"):
            _ = module.Nope
    assert (
        tuple(
            getattr(lagent_like, name)
            for name in lagent_like.registry.BUILTIN_TOOLS
            if name.startswith("Async")
        )
        == lagent_like.actions.ASYNC_TWINS
    )


def test_importing_imports_no_shipped_tool() -> None:
    probe = (
        "import sys, lagent_like; print(sorted(m for m in sys.modules if m.startswith('lagent_like.tools')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
