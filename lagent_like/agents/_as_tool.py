"""An agent as a tool (ADK's ``AgentTool``, the OpenAI Agents SDK's ``Agent.as_tool``).

A manager agent delegates a sub-task by calling another agent like any tool: one
``request`` parameter in, the nested agent's final answer out. The nested run's whole
trace stays in the call's record (the result item's ``trace`` key, an
:meth:`AgentResult.to_dict`), so a person can open it from the outer trace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..context import ToolContext
from ..schema import ActionReturn, ActionStatusCode
from ..toolkits._function_tool import FunctionTool
from .trace import AgentResult

if TYPE_CHECKING:
    from .react import ReAct

__all__ = ["agent_tool", "nested_trace", "saved_trace"]


def agent_tool(agent: ReAct, name: Optional[str] = None, description: Optional[str] = None) -> FunctionTool:
    """A tool whose call runs ``agent`` on the request and answers with its final answer.

    Args:
        agent: the nested agent.
        name: the tool name; default the agent's name.
        description: what the tool does, for the model; default the agent's
            description (or a sentence naming the agent).

    Returns:
        A :class:`~lagent_like.FunctionTool` with one ``request: str`` parameter. Its
        call passes the caller's ``ToolContext.context`` on to the nested run; a nested
        run that ends without an answer is an ``API_ERROR`` record naming its stop
        reason, one that waits for approval an ``APPROVAL_REQUIRED`` record (the outer
        run then waits too, and approving its call resumes the nested run). Either way
        the result item's ``trace`` holds the nested trace.
    """

    def run_agent(request: str, tool_context: ToolContext) -> ActionReturn:  # noqa: D417 - the context is not shown to the model
        """Ask the agent.

        Args:
            request: what to ask the agent, in full: it sees nothing else of the conversation.
        """
        paused = tool_context.paused_run
        if paused is None:
            result = agent.run(request, context=tool_context.context)
        else:
            # The person approved this call, and with it the calls the nested run held.
            result = AgentResult.from_dict(paused)
            for held in result.interruptions:
                result.approve(held)
            result = agent.resume(result, context=tool_context.context)
        return _record(agent, result)

    summary = description or agent.description or f"Ask the agent {agent.name!r} and get its answer."
    return FunctionTool(run_agent, name=name or agent.name, description=summary)


def _record(agent: ReAct, result: AgentResult) -> ActionReturn:
    """The record of an agent tool's call: the answer, with the nested trace kept."""
    item = {"type": "text", "content": result.answer or "", "trace": result.to_dict()}
    if result.answer is not None:
        return ActionReturn(result=[item])
    if result.stop_reason == "interrupted":
        held = ", ".join(held.tool for held in result.interruptions)
        errmsg = f"the agent {agent.name!r} waits for approval of {held}; ask the user to approve it"
        return ActionReturn(result=[item], errmsg=errmsg, state=ActionStatusCode.APPROVAL_REQUIRED)
    errmsg = f"the agent {agent.name!r} ended without an answer (stop reason {result.stop_reason!r})"
    if result.error:
        errmsg += f": {result.error}"
    return ActionReturn(result=[item], errmsg=errmsg, state=ActionStatusCode.API_ERROR)


def saved_trace(ret: Optional[ActionReturn]) -> Optional[dict[str, Any]]:
    """The nested run kept in the record of an agent tool's call, as saved, or ``None``."""
    for item in (ret.result if ret is not None else None) or ():
        trace = item.get("trace") if isinstance(item, dict) else None
        if isinstance(trace, dict):
            return trace
    return None


def nested_trace(ret: Optional[ActionReturn]) -> Optional[AgentResult]:
    """The nested run's trace kept in the record of an agent tool's call, or ``None``."""
    trace = saved_trace(ret)
    return None if trace is None else AgentResult.from_dict(trace)
