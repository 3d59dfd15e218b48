"""``ReAct(..., tool_search=True)``: the model searches the catalogue instead of reading it.

A catalogue of hundreds of tools does not fit a prompt, and a model offered all of
them picks worse. With tool search the model is given one tool, ``search_tools(query)``,
and the tools it has found so far; a search ranks the executor's APIs offline
(:meth:`~lagent_like.ActionExecutor.find_tools`) and answers with the descriptions of
the best few, which the model may call from then on. The Agents SDK's
``defer_loading`` does this on the provider's side; here it works with any model.

:class:`ToolSearchView` stands in for the executor towards the agent: it describes
``search_tools`` and the found tools, answers ``search_tools`` calls, and passes every
other call to the executor, whose settings, hooks and sessions apply as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union, cast

from ..exceptions import DefinitionError
from .prompts import render_tool_descriptions

if TYPE_CHECKING:
    from ..executors._action_executor import ActionExecutor
    from ..schema import ActionReturn

__all__ = ["SEARCH_TOOL", "ToolSearchView", "with_tool_search"]

#: The name of the search tool the model is given.
SEARCH_TOOL = "search_tools"


class ToolSearchView:
    """The tools a model sees under tool search: ``search_tools`` and those it found.

    Found tools stay found for the agent's life (a later run starts with them);
    :meth:`forget` starts over. Every attribute not defined here is the executor's.

    Args:
        executor: the executor holding the whole catalogue.
        k: how many tools one search returns at most.

    Raises:
        DefinitionError: the executor already has a tool named ``search_tools``, or
            ``k`` is not a positive int.
    """

    def __init__(self, executor: ActionExecutor, k: int = 5) -> None:
        from ..executors._action_executor import ActionExecutor

        if SEARCH_TOOL in executor:
            raise DefinitionError(
                f"ReAct(tool_search=True): the executor already has a tool named {SEARCH_TOOL!r}; "
                "rename it or leave tool_search off"
            )
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise DefinitionError(f"ReAct(tool_search=...): k must be a positive int, got {k!r}")
        self.executor = executor
        self.k = k
        self.found: list[str] = []

        def search_tools(query: str) -> str:
            """Find the tools for a task among many; the tools found can be called from then on.

            Args:
                query: what the tool should do, in a few words.
            """
            return self.search(query)

        self._searcher = ActionExecutor([search_tools])

    def search(self, query: str) -> str:
        """Run one search: the found tools become callable; return their descriptions.

        Args:
            query: the model's words.
        """
        names = [match.name for match in self.executor.find_tools(query, self.k)]
        if not names:
            return f"No tool matches {query!r}. Search again with other words."
        self.found += [name for name in names if name not in self.found]
        entries = {entry["name"]: entry for entry in self.executor.get_actions_info()}
        described = render_tool_descriptions([entries[name] for name in names if name in entries])
        return f"Found {len(names)} tools, best first; you can call them now:\n\n{described}"

    def forget(self) -> None:
        """Hide the found tools again: the model sees only ``search_tools``."""
        self.found = []

    def get_actions_info(self) -> list[dict[str, Any]]:
        """Return the descriptions of ``search_tools`` and of the found tools (for a system prompt)."""
        found = set(self.found)
        return self._searcher.get_actions_info() + [
            entry for entry in self.executor.get_actions_info() if entry["name"] in found
        ]

    def to_openai_tools(self, strict: bool = False) -> list[dict[str, Any]]:
        """Return ``search_tools`` and the found tools in OpenAI's format.

        Args:
            strict: as :meth:`~lagent_like.ActionExecutor.to_openai_tools`.
        """
        found = {self.executor.alias_of(name) for name in self.found}
        offered = self.executor.to_openai_tools(strict)
        return self._searcher.to_openai_tools(strict) + [t for t in offered if t["function"]["name"] in found]

    def __call__(self, name: Any, *arguments: Any, **options: Any) -> ActionReturn:
        """Run ``search_tools`` here and any other call in the executor.

        Args:
            name: the tool the model called.
            *arguments: the command, and the session and call ids, as the executor takes them.
            **options: the executor's keyword options (``on_progress``).
        """
        target: Any = self._searcher if name == SEARCH_TOOL else self.executor
        record: ActionReturn = target(name, *arguments, **options)
        return record

    def __getattr__(self, name: str) -> Any:
        # Called only for names not found here: the executor's (no_action, _named_as_given, ...).
        return getattr(self.executor, name)


def with_tool_search(executor: ActionExecutor, tool_search: Union[bool, int]) -> ActionExecutor:
    """The executor an agent uses: ``executor`` itself, or its :class:`ToolSearchView`.

    Args:
        executor: the agent's executor.
        tool_search: ``False``, ``True`` (5 tools per search) or how many per search.

    Raises:
        DefinitionError: see :class:`ToolSearchView`.
    """
    if tool_search is False:
        return executor
    # The view answers every executor method the agent calls.
    return cast("ActionExecutor", ToolSearchView(executor, 5 if tool_search is True else tool_search))
