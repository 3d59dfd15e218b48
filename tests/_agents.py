"""Scripted models and approval runs shared by the agent tests (not a test file).

An agent test scripts its model's replies and checks what the agent did with them:
the text-mode :class:`Script`, the native-mode :class:`NativeScript`, the replies they
give (:func:`act`, :func:`tool_call`, :func:`calls_reply`), a :class:`Mailer` whose
call waits for approval, tools that end a run, and a resume in another process. Every
object is made anew by the test that uses it; nothing here holds state between tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lagent_like import ActionExecutor, ApprovalHook, ToolContext
from lagent_like.agents import AgentResult, ReAct

Messages = list[dict[str, Any]]


class Script:
    """A text-mode model answering with scripted replies, keeping what it was sent."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.calls: list[Messages] = []

    def __call__(self, messages: Messages) -> str:
        self.calls.append([dict(m) for m in messages])
        return self.replies[len(self.calls) - 1]


class NativeScript:
    """A native-mode model: ``chat`` answers with scripted message dicts."""

    def __init__(self, replies: Sequence[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.calls: list[Messages] = []

    def chat(self, messages: Messages, tools: Any = None, **params: Any) -> dict[str, Any]:
        self.calls.append([dict(m) for m in messages])
        return self.replies[len(self.calls) - 1]


def act(name: str, arguments: dict[str, Any]) -> str:
    """A text-mode reply calling tool ``name`` with ``arguments``."""
    return f"Thought: use {name}\nAction: {name}\nAction Input: {json.dumps(arguments)}"


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style tool call of a native reply."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def calls_reply(*calls: dict[str, Any]) -> dict[str, Any]:
    """A native reply making ``calls`` and saying nothing."""
    return {"role": "assistant", "content": "", "tool_calls": list(calls)}


def escalating(tool_context: ToolContext) -> str:
    """Give up and hand control back."""
    tool_context.actions.escalate = True
    return "cannot help"


def verbatim(tool_context: ToolContext) -> str:
    """Answer verbatim."""
    tool_context.actions.skip_summarization = True
    return "42 exactly"


class Mailer:
    """An agent whose ``send_email`` waits for approval, counting the mails sent."""

    def __init__(self, name: str = "mailer") -> None:
        self.sent: list[str] = []
        executor = ActionExecutor([self.send_email])
        executor.register_hook(ApprovalHook(lambda tool, args: tool == "send_email"))
        model = Script([act("send_email", {"to": "bo@x.org"}), "Final Answer: mailed", "Final Answer: again"])
        self.agent = ReAct(model, executor, name=name)

    def send_email(self, to: str) -> str:
        """Send an email.

        Args:
            to: the address.
        """
        self.sent.append(to)
        return f"sent to {to}"


#: The start of a script resuming a saved run in another process: its imports and a
#: ``send_email`` tool appending to ``sent``; the script's own lines follow.
MAILER_PRELUDE = textwrap.dedent(
    """
    import json
    import sys

    from lagent_like import ActionExecutor, ApprovalHook
    from lagent_like.agents import AgentResult, ReAct

    sent = []

    def send_email(to: str) -> str:
        '''Send an email.

        Args:
            to: the address.
        '''
        sent.append(to)
        return "sent to " + to
    """
)


def resumed_elsewhere(result: AgentResult, script: str, folder: Path) -> Any:
    """Save ``result`` in ``folder``, run ``MAILER_PRELUDE + script`` on it in a new process.

    The script gets the saved file as ``sys.argv[1]`` and prints one JSON value.

    Returns:
        The value the script printed.
    """
    path = folder / "paused.json"
    result.save(path)
    program = folder / "resume.py"
    program.write_text(MAILER_PRELUDE + textwrap.dedent(script), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(program), str(path)], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout)
