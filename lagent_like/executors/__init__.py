"""Executors: a catalogue of toolkits, described to a model and called by name.

``_base`` holds what both executors share (the catalogue, hooks, descriptions),
``_intake`` turns what a user passes (actions, classes, functions, LangChain tools)
into toolkits, ``_routes`` names each API for a model, ``_exports`` writes the
providers' tool lists and reads their tool calls, ``_find`` ranks the APIs for a
request (``find_tools``), ``_lagent05`` adds Lagent 0.5's message API; ``ActionExecutor``
and ``AsyncActionExecutor`` are the sync and async drivers of one call core. Everything
here is internal; the public names are exported from :mod:`lagent_like` and
:mod:`lagent_like.actions`.
"""
