"""Shared fixtures: every test leaves the global tool registry as it found it.

The suite runs on parallel workers (``pytest -n``, ``--dist loadfile``: a test file runs
whole in one worker). Files that must not run at the same time as some other file, in
another worker, share a lock: ``pytestmark = pytest.mark.usefixtures("ray_exclusive")``.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator

import pytest

from lagent_like.registry import TOOL_REGISTRY


@pytest.fixture(scope="module")
def ray_exclusive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Hold, for the module, the lock of the files that start a local Ray cluster.

    ``ray.init()`` joins a cluster it finds running on the machine (and then refuses the
    options of a new one), so two workers must not start clusters side by side. The
    lock file is in the run's base temporary directory, which the workers share.
    """
    lock_path = tmp_path_factory.getbasetemp().parent / "ray.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # waits while another worker's module holds it
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


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
