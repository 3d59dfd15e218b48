"""The typing features this package needs, from ``typing`` where it has them.

typing-extensions backports them to Python 3.9 but costs milliseconds to import, and
from 3.10 the standard library has them all. One gap remains: typing-extensions has
its own ``TypedDict``, which ``typing.is_typeddict`` does not recognise; a program
that uses it has imported typing-extensions already, so it is asked then.
"""

from __future__ import annotations

import sys
from typing import Any

if sys.version_info >= (3, 10):
    from typing import Annotated, Literal, get_args, get_origin, get_type_hints
    from typing import is_typeddict as _is_std_typeddict

    def is_typeddict(tp: Any) -> bool:
        """Whether ``tp`` is a TypedDict class (from ``typing`` or typing-extensions)."""
        if _is_std_typeddict(tp):
            return True
        extensions = sys.modules.get("typing_extensions")
        return extensions is not None and bool(extensions.is_typeddict(tp))

else:  # pragma: no cover - Python 3.9
    from typing_extensions import Annotated, Literal, get_args, get_origin, get_type_hints, is_typeddict

__all__ = ["Annotated", "Literal", "get_args", "get_origin", "get_type_hints", "is_typeddict"]
