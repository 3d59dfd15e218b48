"""Shared fixtures: every test leaves the global tool registry as it found it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lagent_like.registry import TOOL_REGISTRY


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
