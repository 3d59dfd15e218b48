"""Handing a conversation from one agent to another (ADK's ``transfer_to_agent``).

An agent with ``sub_agents`` (or a parent) offers the model one extra tool,
``transfer_to_agent``, listing the agents it may hand over to; a tool may also set
``tool_context.actions.transfer_to_agent`` or return an agent. This module holds the
agent tree's rules (unique names, one parent) and that tool; the loop in
:mod:`._run` does the handing over.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Optional

from ..context import ToolContext
from ..exceptions import DefinitionError, ToolError
from ..executors._action_executor import ActionExecutor
from ..toolkits._function_tool import FunctionTool

if TYPE_CHECKING:
    from .react import ReAct

__all__ = ["TRANSFER_TOOL", "adopt_sub_agents", "root_of", "transfer_executor", "transfer_targets"]

#: The name of the tool that hands the conversation over.
TRANSFER_TOOL = "transfer_to_agent"


def adopt_sub_agents(parent: ReAct, children: Iterable[ReAct]) -> list[ReAct]:
    """Make ``children`` the sub-agents of ``parent``, checking the tree's rules.

    Raises:
        DefinitionError: a child is not an agent, already has another parent, is
            ``parent`` itself, or two agents of the tree share a name.
        TypeError: ``children`` holds something that is not a ``ReAct``.
    """
    adopted = []
    for child in children:
        if not getattr(type(child), "__lagent_like_agent__", False):
            raise TypeError(f"ReAct: sub_agents must be agents (ReAct), got {type(child).__name__}")
        if child is parent:
            raise DefinitionError(f"ReAct {parent.name!r}: an agent cannot be its own sub-agent")
        if child.parent_agent is not None and child.parent_agent is not parent:
            raise DefinitionError(
                f"ReAct {child.name!r} is already a sub-agent of {child.parent_agent.name!r}; "
                f"an agent has one parent: make another ReAct for {parent.name!r}"
            )
        adopted.append(child)
    names = [agent.name for agent in _tree(parent, adopted)]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise DefinitionError(f"ReAct: agent names must be unique in one tree; {twice} appear twice")
    for child in adopted:
        child.parent_agent = parent
    return adopted


def _tree(parent: ReAct, children: list[ReAct]) -> list[ReAct]:
    """Every agent of ``parent``'s tree, ``children`` taken as its sub-agents."""
    top = root_of(parent)
    found: list[ReAct] = []

    def walk(agent: ReAct) -> None:
        found.append(agent)
        for sub in children if agent is parent else agent.sub_agents:
            walk(sub)

    walk(top)
    return found


def root_of(agent: ReAct) -> ReAct:
    """The agent at the top of ``agent``'s tree."""
    while agent.parent_agent is not None:
        agent = agent.parent_agent
    return agent


def transfer_targets(agent: ReAct) -> list[ReAct]:
    """The agents ``agent`` may hand over to: its sub-agents, then its parent."""
    targets = list(agent.sub_agents)
    if agent.parent_agent is not None:
        targets.append(agent.parent_agent)
    return targets


def find_target(agent: ReAct, name: str) -> Optional[ReAct]:
    """The agent named ``name`` that ``agent`` may hand over to, or ``None``."""
    return next((target for target in transfer_targets(agent) if target.name == name), None)


def unknown_target(agent: ReAct, name: Any) -> str:
    """What the model is told when it names an agent it cannot hand over to."""
    names = ", ".join(repr(target.name) for target in transfer_targets(agent)) or "none"
    return f"{agent.name!r} cannot transfer to {name!r}; the agents it can transfer to: {names}"


def transfer_executor(agent: ReAct) -> Optional[ActionExecutor]:
    """An executor holding the ``transfer_to_agent`` tool of ``agent``, or ``None`` without targets."""
    targets = transfer_targets(agent)
    if not targets:
        return None
    listing = "; ".join(
        f"{target.name}: {target.description}" if target.description else target.name for target in targets
    )

    def transfer_to_agent(agent_name: str, tool_context: ToolContext) -> str:  # noqa: D417 - the context is not shown to the model
        """Hand the conversation to another agent, who answers the user from here on.

        Args:
            agent_name: the name of the agent to hand the conversation to.
        """
        if find_target(agent, agent_name) is None:
            raise ToolError(unknown_target(agent, agent_name))
        tool_context.actions.transfer_to_agent = agent_name
        return f"Transferred to {agent_name}."

    summary = f"Hand the conversation to another agent, who answers the user from here on. Agents: {listing}."
    return ActionExecutor([FunctionTool(transfer_to_agent, description=summary)])
