"""One root: every exception class the package defines derives from ``LagentLikeError``, and every public one is drawn."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import lagent_like
from lagent_like import exceptions
from lagent_like.exceptions import LagentLikeError


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(lagent_like.__path__, "lagent_like."):
        if ".tools.interpreters._worker" in info.name or info.name.endswith("__main__"):
            continue  # run inside the sandbox or as a program, never imported by the package
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed here
            continue
        for name, value in vars(module).items():
            own = inspect.isclass(value) and value.__module__ == module.__name__
            if own and issubclass(value, BaseException) and not issubclass(value, Warning):
                found[f"{module.__name__}.{name}"] = value
    return found


def test_every_exception_the_package_defines_derives_from_the_root() -> None:
    classes = _exception_classes()
    assert "lagent_like.cli.common.CliError" in classes  # the walk reaches the subpackages
    outside = sorted(name for name, cls in classes.items() if not issubclass(cls, LagentLikeError))
    assert outside == []


@pytest.mark.parametrize(
    "name", [n for n in exceptions.__all__ if n not in ("DefinitionWarning", "LagentLikeError")]
)
def test_every_public_exception_is_drawn_in_the_tree(name: str) -> None:
    tree = (exceptions.__doc__ or "").split("::", 1)[1].split("\n\n", 2)[1]
    assert tree.lstrip().startswith("LagentLikeError\n")
    assert f"── {name} " in tree
