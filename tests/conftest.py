"""Shared fixtures: every test leaves the global tool registry as it found it.

The suite runs on parallel workers (``pytest -n``, ``--dist loadfile``: a test file runs
whole in one worker). What must not run at the same time as something in another
worker holds a lock shared by the workers: the ``ray_lock`` fixture (for one test) or
``ray_lock_module`` (for a module's Ray cluster).
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator

import pytest

from lagent_like.registry import TOOL_REGISTRY


@contextlib.contextmanager
def _held(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[None]:
    """Hold the run's lock ``name``, waiting while another worker holds it.

    The lock file is in the run's base temporary directory, which the workers share.
    """
    with open(tmp_path_factory.getbasetemp().parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# ``ray.init()`` joins a cluster it finds running on the machine (and then refuses the
# options of a new one): two workers must not start local clusters side by side.


@pytest.fixture
def ray_lock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No other worker starts a Ray cluster during this test."""
    with _held(tmp_path_factory, "ray"):
        yield


@pytest.fixture(scope="module")
def ray_lock_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No other worker starts a Ray cluster while this module's cluster runs."""
    with _held(tmp_path_factory, "ray"):
        yield


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
