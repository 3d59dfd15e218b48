"""Defining tools: ``BaseAction``, ``@tool_api`` and the toolkit classes built on them.

A toolkit is a class whose ``@tool_api`` methods become APIs: ``BaseAction`` and its
metaclass (``_base_action``), the decorator and its options (``_tool_api``), the
per-instance state and routes (``_tool_state``), and the ready-made kinds of toolkit:
``FunctionTool`` (plain functions), ``ObjectToolkit`` (an object's methods),
``SchemaTool`` (a JSON Schema and a callable), the Lagent built-ins and
``AsyncActionMixin``. Everything here is internal; the public names are exported from
:mod:`lagent_like` and :mod:`lagent_like.actions`.
"""
