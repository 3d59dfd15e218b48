"""An offline ReAct episode: see the whole loop without a key, a server or a model.

``lagent-like demo`` runs :class:`~lagent_like.agents.ReAct` over the real built-in
interpreters, driven by a recorded model transcript instead of a live model. The
transcript is what a model typically writes, warts included: a call in a fenced block
with single quotes, a trailing comma and a made-up observation after it (the parsers
recover it), a call with a wrong parameter name (the executor refuses it and tells the
model the valid names; the next turn fixes it), and a lower-case ``action:`` key. Every
observation shown is computed by the tools for real.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, Any, Optional

__all__ = ["DEMO_QUESTION", "DEMO_TRANSCRIPT", "RecordedModel", "run_demo"]

DEMO_QUESTION = "What is the sum of the squares of the primes below 50, and is that sum prime?"

#: The model's side of the episode, one reply per turn.
DEMO_TRANSCRIPT: tuple[str, ...] = (
    # Dirty but recoverable: fence, single quotes, trailing comma, invented observation.
    "Thought: First I need the primes below 50. I will keep them in the notebook session.\n"
    "Action: IPythonInterpreter\n"
    "Action Input: ```json\n"
    "{'command': 'primes = [p for p in range(2, 50) if all(p % d for d in range(2, p))]\\nprimes',}\n"
    "```\n"
    "Observation: [2, 3, 5]",
    # A wrong parameter name: refused with the valid names.
    "Thought: Now the sum of their squares, using the same session.\n"
    "Action: IPythonInterpreter\n"
    'Action Input: {"code": "total = sum(p * p for p in primes)\\ntotal"}',
    # The fix, after reading the refusal.
    "Thought: The parameter is called command, not code.\n"
    "Action: IPythonInterpreter\n"
    'Action Input: {"command": "total = sum(p * p for p in primes)\\ntotal"}',
    # Lower-case keys, a stateless interpreter this time.
    "thought: I will check whether 10466 is prime in a fresh interpreter.\n"
    "action: PythonInterpreter\n"
    'action input: {"command": "def solution():\\n    n = 10466\\n'
    '    return all(n % d for d in range(2, int(n ** 0.5) + 1))"}',
    "Thought: The interpreter says it is not prime; 10466 is even.\n"
    "Final Answer: The primes below 50 are 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, "
    "43 and 47. The sum of their squares is 10466, which is not prime (it is even).",
)


class RecordedModel:
    """A stand-in model that answers with recorded replies, one per call.

    Args:
        replies: the replies, in order.

    Raises:
        RuntimeError: when called after the last reply (a run that needed more turns
            than were recorded).
    """

    def __init__(self, replies: Sequence[str]) -> None:
        self._replies = list(replies)
        #: Every ``messages`` list the model was called with, in order.
        self.calls: list[list[dict[str, Any]]] = []

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        """The next recorded reply; ``messages`` is kept in :attr:`calls`.

        Args:
            messages: the conversation so far, as an agent sends it to a model.

        Returns:
            The reply recorded for this turn.
        """
        if len(self.calls) >= len(self._replies):
            raise RuntimeError(f"the recorded transcript has only {len(self._replies)} replies")
        self.calls.append([dict(message) for message in messages])
        return self._replies[len(self.calls) - 1]


def run_demo(out: Optional[IO[str]] = None, color: bool = False, save: Optional[str] = None) -> int:
    """Run the recorded episode and print each turn as it happens.

    Args:
        out: where to print (standard output by default).
        color: add ANSI colours.
        save: also write the run to this trace file (:meth:`AgentResult.save`), which
            ``lagent-like inspect --trace`` opens.

    Returns:
        0 when the episode ended with a final answer, 1 otherwise.
    """
    # Imported here: ``lagent_like.agents.demo`` is only loaded by the command.
    from ..executors._action_executor import ActionExecutor
    from ..tools.interpreters.ipython_interpreter import IPythonInterpreter
    from ..tools.interpreters.python_interpreter import PythonInterpreter
    from . import ReAct
    from .trace_render import format_turn, paint

    stream = out if out is not None else sys.stdout
    from ..exceptions import SandboxUnavailableError

    try:
        interpreters = [PythonInterpreter(), IPythonInterpreter()]
    except SandboxUnavailableError:
        # The recorded episode's code is ours, not a model's: a plain process is safe for it.
        interpreters = [PythonInterpreter(isolation="process"), IPythonInterpreter(isolation="process")]
    executor = ActionExecutor(actions=interpreters)
    try:
        agent = ReAct(
            RecordedModel(DEMO_TRANSCRIPT),
            executor,
            max_turns=len(DEMO_TRANSCRIPT),
            on_turn=lambda turn: print(format_turn(turn, color), file=stream, flush=True),
        )
        print(paint(f"Question: {DEMO_QUESTION}", "note", color), file=stream)
        result = agent.run(DEMO_QUESTION)
    finally:
        for tool in interpreters:
            close = getattr(tool, "close", None)
            if close is not None:
                close()
    if save is not None:
        result.save(save)
    if result.answer is None:
        print(f"No final answer ({result.stop_reason}).", file=stream)
        return 1
    print(paint(f"Final Answer: {result.answer}", "answer", color), file=stream)
    return 0
