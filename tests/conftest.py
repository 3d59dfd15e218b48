"""Shared fixtures: every test leaves the global tool registry as it found it.

Under ``pytest -n`` (pytest-xdist, ``--dist loadgroup``), every test file is one unit of
work: its tests run in order in one worker, so module fixtures start once. A file whose
tests must not run beside another file's names a shared group with
``pytestmark = pytest.mark.xdist_group("name")``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lagent_like.registry import TOOL_REGISTRY


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every test without an ``xdist_group`` its file's group (before xdist reads them)."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


@pytest.fixture(autouse=True)
def _restore_registry() -> Iterator[None]:
    # Tests define tool classes freely; each class registers itself globally.
    saved = TOOL_REGISTRY.snapshot()
    yield
    TOOL_REGISTRY.restore(saved)


# ``server``: a local HTTP server on 127.0.0.1 for the HTTP tools' tests.
from local_http_server import server  # noqa: E402, F401 - a fixture, shared by import

# ``guard``: refuses connections outside loopback, for tests that build hostile URLs.
from net_guard import guard  # noqa: E402, F401 - a fixture, shared by import
