"""The package's code stays typed: few ``# type: ignore`` (size and complexity are ruff's, see ruff.toml).

These read the source, not the clock: each limit is a count, so the tests are exact on any
machine. A failure names every offender.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "lagent_like"
MODULES = sorted(PACKAGE.rglob("*.py"))

MAX_TYPE_IGNORES = 10


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def test_at_most_10_type_ignores_in_the_package() -> None:
    ignores = [
        f"{_relative(m)}:{i}"
        for m in MODULES
        for i, line in enumerate(m.read_text().splitlines(), 1)
        if re.search(r"#\s*type:\s*ignore", line)
    ]
    assert len(ignores) <= MAX_TYPE_IGNORES, ignores
