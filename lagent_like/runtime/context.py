"""``ToolContext`` under the runtime's path; it lives in :mod:`lagent_like.context`."""

from ..context import DEFAULT_SESSION, ToolContext

__all__ = ["DEFAULT_SESSION", "ToolContext"]
