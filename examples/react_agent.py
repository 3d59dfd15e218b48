"""A ReAct agent over your own toolkit, against any OpenAI-compatible server.

Point it at vLLM, LMDeploy, Ollama or OpenAI (the key comes from ``OPENAI_API_KEY``;
local servers need none)::

    python examples/react_agent.py --base-url http://localhost:8000/v1 --model Qwen2.5-7B-Instruct
    python examples/react_agent.py --base-url http://localhost:11434/v1 --model llama3.1

The agent shows the model the toolkit's description, runs each ``Action`` the model
writes through the executor, feeds the ``Observation`` back and stops at the
``Final Answer``. Each turn is printed as one line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional

from lagent_like import ActionExecutor, BaseAction, tool_api
from lagent_like.agents import ReAct, Turn
from lagent_like.llms import OpenAIChat


class Calc(BaseAction):
    """Exact integer arithmetic."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b

    @tool_api
    def multiply(self, a: int, b: int) -> int:
        """Multiply two integers.

        Args:
            a: the first factor
            b: the second factor
        """
        return a * b


def show(turn: Turn) -> None:
    """Print one turn: what the model did and what came back."""
    if turn.outcome == "final_answer":
        print(f"turn {turn.index}: final answer")
        return
    ret = turn.action_return
    seen = "" if ret is None else (ret.errmsg or ret.format_result())
    print(f"turn {turn.index}: {turn.outcome} {turn.action} {turn.action_input} -> {seen}")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="e.g. http://localhost:8000/v1")
    parser.add_argument("--model", required=True, help="the model name the server knows")
    parser.add_argument("--question", default="What is (17 + 25) * 3? Use the tools.")
    args = parser.parse_args(argv)

    model = OpenAIChat(args.model, base_url=args.base_url, timeout=60.0, max_retries=2)
    agent = ReAct(model, ActionExecutor(actions=[Calc()]), max_turns=6, on_turn=show)
    result = agent.run(args.question)
    if result.error:
        print(f"error: {result.error}", file=sys.stderr)
        return 2
    print(f"answer: {result.answer} ({result.stop_reason}, {len(result.turns)} turns)")
    return 0 if result.answer is not None else 1


if __name__ == "__main__":
    sys.exit(main())
