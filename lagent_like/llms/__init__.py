"""Model clients: what an agent sends its conversation to.

Kept apart from the tool layer, and cheap to import: ``requests`` is loaded only when a
client sends its first request.
"""

from __future__ import annotations

from .openai import API_KEY_ENV, DEFAULT_BASE_URL, Messages, OnToken, OpenAIChat

__all__ = ["API_KEY_ENV", "DEFAULT_BASE_URL", "Messages", "OnToken", "OpenAIChat"]
