"""A local web inspector: see what the model sees, try every tool, replay agent runs.

``lagent-like inspect`` (or :func:`inspect` from Python) serves one page on
127.0.0.1: the catalogue of an executor's APIs with the Lagent description and every
function-calling export side by side, a form and a raw box to call each API through
the real executor, and ReAct traces turn by turn. It needs the ``web`` extra
(``pip install 'lagent-like[web]'``, from a clone ``pip install '.[web]'``: Starlette and uvicorn).
"""

from __future__ import annotations

try:
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    from .._private.install import install_hint

    raise ImportError(f"lagent_like.web needs the 'web' extra: {install_hint('web')} ({exc})") from exc

from .catalogue import build_catalogue, runs_code
from .server import InspectorServer, inspect
from .state import InspectorError, InspectorState

__all__ = [
    "InspectorError",
    "InspectorServer",
    "InspectorState",
    "build_catalogue",
    "inspect",
    "runs_code",
]
