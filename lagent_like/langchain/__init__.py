"""LangChain tools in executors, and an executor's tools for LangChain agents.

``langchain-core`` is an optional extra, imported only when a conversion runs.
"""

from ._convert import from_langchain, is_langchain_tool, to_langchain_tools

__all__ = ["from_langchain", "is_langchain_tool", "to_langchain_tools"]
