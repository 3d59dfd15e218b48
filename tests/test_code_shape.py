"""The package's shape stays as issue 12 set it: small modules, simple functions, typed code.

These read the source, not the clock: each limit is a count, so the tests are exact on any
machine. A failure names every offender.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "lagent_like"
MODULES = sorted(PACKAGE.rglob("*.py"))

MAX_MODULE_LINES = 450
MAX_TYPE_IGNORES = 10
MAX_COMPLEX_FUNCTIONS = 3


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def test_every_module_is_at_most_450_lines() -> None:
    long = {_relative(m): n for m in MODULES if (n := len(m.read_text().splitlines())) > MAX_MODULE_LINES}
    assert long == {}


def test_at_most_10_type_ignores_in_the_package() -> None:
    ignores = [
        f"{_relative(m)}:{i}"
        for m in MODULES
        for i, line in enumerate(m.read_text().splitlines(), 1)
        if re.search(r"#\s*type:\s*ignore", line)
    ]
    assert len(ignores) <= MAX_TYPE_IGNORES, ignores


def test_at_most_3_functions_above_complexity_10() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (the 'test' extra has it)")
    options = ["--isolated", "--select", "C901", "--config", "lint.mccabe.max-complexity=10"]
    run = subprocess.run(
        [ruff, "check", str(PACKAGE), *options, "--output-format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    found = [f"{_relative(Path(f['filename']))}: {f['message']}" for f in json.loads(run.stdout)]
    assert len(found) <= MAX_COMPLEX_FUNCTIONS, found
