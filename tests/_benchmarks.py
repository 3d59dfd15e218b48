"""A benchmark script of ``benchmarks/`` loaded as a module, for tests of its verdicts (not a test file).

The benchmarks are scripts, not a package: a test that checks how one judges its rows
loads the file itself. Each call loads a fresh module, registered nowhere.
"""

from __future__ import annotations

import importlib.util
import types
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def benchmark_module(name: str) -> types.ModuleType:
    """``benchmarks/<name>.py`` as a new module."""
    spec = importlib.util.spec_from_file_location(f"{name}_under_test", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
