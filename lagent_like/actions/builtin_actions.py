"""Lagent's import path ``lagent.actions.builtin_actions`` (the actions live in ``lagent_like.toolkits``)."""

from ..toolkits._builtin_actions import FinishAction, InvalidAction, NoAction

__all__ = ["FinishAction", "InvalidAction", "NoAction"]
