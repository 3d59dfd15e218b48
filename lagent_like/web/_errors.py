"""The inspector's one refusal type, apart so that every web module can raise it."""

from __future__ import annotations

from ..exceptions import LagentLikeError

__all__ = ["InspectorError"]


class InspectorError(LagentLikeError):
    """A request the inspector refuses: ``status`` is the HTTP status, the text says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
