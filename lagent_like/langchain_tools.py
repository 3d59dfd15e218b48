"""The LangChain conversions under their first import path; they live in :mod:`lagent_like.langchain`."""

from .langchain import from_langchain, is_langchain_tool, to_langchain_tools

__all__ = ["from_langchain", "is_langchain_tool", "to_langchain_tools"]
