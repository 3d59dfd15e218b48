"""The one place that imports the optional ``mcp`` SDK and says what to install without it.

Both the server and the client need the SDK; checking for it here gives every entry
point the same clear message instead of a bare ``No module named 'mcp'``.
"""

from __future__ import annotations

import importlib.util

from .._private.install import install_hint

__all__ = ["INSTALL_HINT", "require_mcp"]

#: What to tell a user whose environment lacks the SDK.
INSTALL_HINT = (
    f"the MCP integration needs the 'mcp' package: install lagent-like[mcp] ({install_hint('mcp')})"
)


def require_mcp() -> None:
    """Fail early, and helpfully, when the ``mcp`` SDK cannot be imported.

    Raises:
        ImportError: the SDK is not installed.
    """
    if importlib.util.find_spec("mcp") is None:
        raise ImportError(INSTALL_HINT, name="mcp")
