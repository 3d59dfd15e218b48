"""The code interpreters: ``PythonInterpreter``, ``IPythonInterpreter`` and friends.

Each runs model-written code in a sandboxed worker process (``_sandbox``: namespaces,
seccomp, cgroups, rlimits; ``_worker``: what runs inside); ``_python_pool`` keeps warm
workers, ``_ipython_session`` an IPython kernel per session.
"""
