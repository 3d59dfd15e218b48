"""The programs that run inside the interpreters' sandboxes, as real modules.

The modules of this package are run by a fresh Python process *inside* the sandbox
(``python -I``, the package directory bind-mounted read-only), never imported by the
agent's own process except for type checking. So they import nothing from
``lagent_like`` (the package is not visible in the sandbox): only the standard library
and each other (relatively). This ``__init__`` stays empty for the same reason.
"""
