"""``ActionExecutor``: one place that describes tools to a model and runs its calls.

It flattens toolkits into ``Tool.api`` entries for the system prompt, routes a call
by name to the right action and API, and sends names it does not know to the
built-in invalid/no/finish actions. Routing is a single dict lookup, rebuilt whenever
the set of actions changes, so the per-call path stays as short as a plain call.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

from .._private.describe import copy_description
from .._private.text import close_matches, did_you_mean, preview
from ..exceptions import ToolDefinitionError, ToolNotFoundError
from ..schema import ActionReturn, ActionValidCode
from .base_action import BaseAction, Invoker
from .builtin_actions import FinishAction, InvalidAction, NoAction

__all__ = ["ActionExecutor"]

_Route = tuple[BaseAction, Invoker]


def _routes_of(action: BaseAction) -> dict[str, _Route]:
    """Callable name -> (action, compiled call) for each API the action can run."""
    if action.is_toolkit:
        pairs = [
            (f"{action.name}.{api['name']}", action.invoker(api["name"]))
            for api in action.description["api_list"]
        ]
    else:
        pairs = [(action.name, action.invoker("run"))]
    return {name: (action, invoke) for name, invoke in pairs if invoke is not None}


class ActionExecutor:
    """Holds a set of actions, describes them, and runs a model's calls.

    Args:
        actions: the tools, as ``BaseAction`` instances with distinct names.
        invalid_action: answers unknown or disabled tool names (default ``InvalidAction()``).
        no_action: answers turns without a tool (default ``NoAction()``).
        finish_action: answers the final answer (default ``FinishAction()``).
        finish_in_action: also list the finish action among the tools offered to the model.

    Raises:
        ToolDefinitionError: an entry is not an action, or two actions share a name.
    """

    def __init__(
        self,
        actions: Iterable[BaseAction],
        invalid_action: Optional[BaseAction] = None,
        no_action: Optional[BaseAction] = None,
        finish_action: Optional[BaseAction] = None,
        finish_in_action: bool = False,
    ) -> None:
        self.invalid_action = invalid_action if invalid_action is not None else InvalidAction()
        self.no_action = no_action if no_action is not None else NoAction()
        self.finish_action = finish_action if finish_action is not None else FinishAction()
        given = list(actions)
        if finish_in_action:
            given.append(self.finish_action)
        problems = [
            f"actions[{i}] is {type(a).__name__} {preview(a)}, expected a BaseAction instance"
            + (
                " (pass an instance, not the class)"
                if isinstance(a, type) and issubclass(a, BaseAction)
                else ""
            )
            for i, a in enumerate(given)
            if not isinstance(a, BaseAction)
        ]
        names = [a.name for a in given if isinstance(a, BaseAction)]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            problems.append(f"several actions are named {duplicates}; tool names must be unique")
        if problems:
            raise ToolDefinitionError("ActionExecutor", problems)
        self.actions: dict[str, BaseAction] = {a.name: a for a in given}
        self._routes: dict[str, _Route] = {}
        self._rebuild_routes()

    def _rebuild_routes(self) -> None:
        routes: dict[str, _Route] = {}
        for action in self.actions.values():
            routes.update(_routes_of(action))
        self._routes = routes

    def __call__(self, name: str, command: Any) -> ActionReturn:
        """Run the call a model asked for and return its record.

        Args:
            name: ``'Tool'`` for a simple tool, ``'Tool.api'`` for a toolkit API.
            command: the model's argument string (or a dict / tuple for the parser).
        """
        try:
            action, invoke = self._routes[name]
        except (KeyError, TypeError):
            return self._call_unrouted(name, command)
        if not action._enable:
            return self._call_unrouted(name, command)
        ret = invoke(command)
        # Records built by the action are OPEN already; a tool's own record may not be.
        if ret.valid and action is not self.finish_action:
            ret.valid = ActionValidCode.OPEN
        return ret

    def _call_unrouted(self, name: Any, command: Any) -> ActionReturn:
        if isinstance(name, str):
            tool, _, api = name.partition(".")
            action = self.actions.get(tool)
            if action is not None and action.enable:
                ret = action(command, api or "run")
                ret.valid = ActionValidCode.OPEN
                return ret
            if name == self.no_action.name:
                return self.no_action(command)
            if name == self.finish_action.name:
                return self.finish_action(command)
        ret = self.invalid_action(self._unknown_message(name))
        ret.args = {"inputs": command, "name": name}
        return ret

    def _unknown_message(self, name: Any) -> str:
        available = self.api_names()
        tool = name.partition(".")[0] if isinstance(name, str) else None
        head = f"Tool {name!r} is disabled." if tool in self.actions else f"Unknown tool {preview(name)}."
        return (
            f"{head}{did_you_mean(str(name), available)} Available tools: {', '.join(available) or 'none'}."
        )

    def get_actions_info(self) -> list[dict[str, Any]]:
        """Descriptions of the enabled tools for a system prompt.

        A toolkit contributes one entry per API, named ``'Tool.api'``. The entries are
        copies; changing them changes nothing in the executor.
        """
        info = []
        for action in self.actions.values():
            if not action.enable:
                continue
            if action.is_toolkit:
                for api in action.description["api_list"]:
                    entry = copy_description(api)
                    entry["name"] = f"{action.name}.{api['name']}"
                    info.append(entry)
            else:
                info.append(copy_description(action.description))
        return info

    def api_names(self, only_enable: bool = True) -> list[str]:
        """Callable names (``'Tool'`` and ``'Tool.api'``), as a model sees them."""
        return [n for n, (a, _) in self._routes.items() if a.enable or not only_enable]

    def action_names(self, only_enable: bool = True) -> list[str]:
        """Names of the actions held (only the enabled ones by default)."""
        return [n for n, a in self.actions.items() if a.enable or not only_enable]

    def is_valid(self, name: str) -> bool:
        """Whether ``name`` (``'Tool'`` or ``'Tool.api'``) is held and enabled."""
        action = self.actions.get(name)
        if action is None:
            route = self._routes.get(name)
            action = route[0] if route else None
        return action is not None and action.enable

    def add_action(self, action: BaseAction) -> None:
        """Add ``action``, replacing any action of the same name.

        Raises:
            ToolDefinitionError: ``action`` is not a ``BaseAction`` instance.
        """
        if not isinstance(action, BaseAction):
            raise ToolDefinitionError(
                "ActionExecutor.add_action", [f"expected a BaseAction instance, got {type(action).__name__}"]
            )
        actions = dict(self.actions)
        actions[action.name] = action
        self.actions = actions
        self._rebuild_routes()

    def del_action(self, name: str) -> None:
        """Remove the action called ``name``.

        Raises:
            ToolNotFoundError: no action has that name (a ``KeyError``).
        """
        if name not in self.actions:
            raise ToolNotFoundError(name, close_matches(name, self.actions), where="in this executor")
        actions = dict(self.actions)
        del actions[name]
        self.actions = actions
        self._rebuild_routes()

    def __contains__(self, name: object) -> bool:
        return name in self.actions or name in self._routes
