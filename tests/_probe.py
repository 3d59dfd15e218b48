"""The import probe: what a fresh interpreter has imported after some code (not a test file).

Import costs and side effects are only seen in a new process: this one has imported
everything the suite touched. Each call starts its own interpreter; nothing is kept.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Sequence


def run_python(code: str) -> str:
    """What a fresh interpreter running ``code`` printed (it must succeed)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout


def imported_after(code: str, watched: Sequence[str]) -> list[str]:
    """The modules of ``watched`` a fresh interpreter holds after running ``code``, sorted."""
    probe = f"import sys\n{code}\nprint(sorted(m for m in {tuple(watched)!r} if m in sys.modules))"
    return list(ast.literal_eval(run_python(probe)))
