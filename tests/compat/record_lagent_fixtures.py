"""Record the compatibility fixtures by running Lagent 0.2.4 on the suite's toolkits.

Run it with a Python where ``lagent`` is installed (lagent_like is not needed: the
suite's toolkits take the library as an argument); a throwaway venv needs only what
the imported Lagent modules import::

    python3 -m venv /tmp/lagent-venv
    /tmp/lagent-venv/bin/pip install --no-deps lagent==0.2.4 'griffe<1.0' \\
        phx-class-registry==4.1.0 colorama typing-extensions \\
        requests charset-normalizer idna urllib3 certifi
    /tmp/lagent-venv/bin/python tests/compat/record_lagent_fixtures.py

It writes ``tests/compat/lagent_0_2_4.json`` (committed). Lagent's package
``__init__`` modules import every tool and agent and their dependencies; they are
skipped (the packages are registered empty), so only ``actions.base_action``,
``actions.parser``, ``actions.builtin_actions``, ``actions.action_executor``, the
modules of the shipped tools and ``schema`` run, exactly as Lagent ships them.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import types
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "lagent_0_2_4.json"
#: The tools both packages ship, by Lagent module (their dependencies are imported lazily,
#: except ``requests``).
SHIPPED = [
    ("arxiv_search", "ArxivSearch"),
    ("google_search", "GoogleSearch"),
    ("ipython_interpreter", "IPythonInterpreter"),
    ("python_interpreter", "PythonInterpreter"),
]


def _lagent() -> types.SimpleNamespace:
    spec = importlib.util.find_spec("lagent")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("lagent is not installed; see this script's docstring")
    root = Path(next(iter(spec.submodule_search_locations)))
    for name, path in (("lagent", root), ("lagent.actions", root / "actions")):
        package = types.ModuleType(name)
        package.__path__ = [str(path)]
        sys.modules[name] = package
    base = importlib.import_module("lagent.actions.base_action")
    parser = importlib.import_module("lagent.actions.parser")
    builtin = importlib.import_module("lagent.actions.builtin_actions")
    executor = importlib.import_module("lagent.actions.action_executor")
    schema = importlib.import_module("lagent.schema")
    return types.SimpleNamespace(
        BaseAction=base.BaseAction,
        tool_api=base.tool_api,
        ActionReturn=schema.ActionReturn,
        ActionExecutor=executor.ActionExecutor,
        JsonParser=parser.JsonParser,
        TupleParser=parser.TupleParser,
        InvalidAction=builtin.InvalidAction,
        NoAction=builtin.NoAction,
        FinishAction=builtin.FinishAction,
        class_options={},
        shipped={
            name: getattr(importlib.import_module(f"lagent.actions.{module}"), name)
            for module, name in SHIPPED
        },
    )


def main() -> None:
    sys.path.insert(0, str(HERE.parent))
    from compat.observe import observe

    observed = observe(_lagent())
    data = {"lagent_version": metadata.version("lagent"), **observed}
    FIXTURES.write_text(
        json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    print(f"wrote {FIXTURES}")


if __name__ == "__main__":
    main()
