"""Measure how ``lagent_like``'s catalogue operations grow from 100 to 10,000 APIs.

Run ``python benchmarks/bench_scale.py`` (a minute or two), ``--quick`` for a smoke
run (100 and 1,000 APIs, fewer repeats), ``--sizes 100,1000,10000`` to choose the
sizes, ``--json`` for the rows as JSON, ``--check`` to exit 1 when a verdict fails,
``--imports`` for the import rows alone (a few seconds).
Without ``--check`` the script always exits 0: it is a report, not a test.

Peers: Lagent 0.2.4 and the OpenAI Agents SDK are not dependencies. They are measured
in a child process of another Python that has them (``--peer-python``, default the
``BENCH_PEER_PYTHON`` environment variable, else ``/work/venvs/i25/bin/python``):
this same file runs there with ``--peer`` and prints its measurements as JSON. Without
that Python the peer columns are empty and the verdicts that need them say ``-``.
Install one with ``python -m venv peers && peers/bin/pip install lagent==0.2.4
openai-agents`` (Lagent 0.2.4 imports ``bs4``, ``duckduckgo_search``, ``griffe<1``,
``phx-class-registry==4.1.0`` and a few more; ``--no-deps`` plus those is enough).

Method: every time is CPU time of this thread (``time.thread_time``), the best of
``--repeats`` runs, so a busy machine's waits are left out, with the garbage collector
off while timing (as :mod:`timeit` does); the peers are timed the same way in their
process. The catalogue is ``n`` simple tools, each a class with one
typed ``run(a: int, b: int)`` documented with a Google docstring (in the SDK: ``n``
such functions made tools by ``function_tool``). Rows, each at every size:

* **define per API**: the ``class`` statements of the ``n`` tools, each function with
  its own docstring text, new texts in each repeat (the SDK: ``function_tool`` on ``n``
  functions), per API.
* **define, one docstring**: the same with one docstring text for every tool (a
  generated catalogue); no verdict beyond its growth.
* **executor build per API**: ``ActionExecutor(tools)`` over the same instances (an
  executor per session or request over one catalogue).
* **get_actions_info()**: the whole list, per API.
* **to_openai_tools() cold / cached**: the first export of a new executor over the
  same instances, and the next one; per API. The SDK has no cache: its row is
  ``Converter.tool_to_openai`` over every tool (what it does for each model call).
* **unknown tool name**: a call of a name no tool has, a new name each call (the
  index of names is built by the first, timed apart as ``unknown tool name, first``).
* **unknown API**: a call of ``Kit.apj<i>`` on a toolkit of ``n`` APIs.
* **unknown parameter**: a call with an argument ``q<i>`` of an API of ``n`` parameters.
* **add + remove one tool / disable + enable one tool**: a pair on an executor of
  ``n``, per pair (timed over :data:`CYCLES` pairs).

The growth exponent of a row is the slope of ``log(time)`` over ``log(n)`` (least
squares over the sizes); 1.0 is linear for whole-catalogue rows, 0.0 is flat for
per-call rows. A last line times a 1 MB ``list[str]`` argument against ``json.loads``
of the same text, alternately, best of N. Import time is the CPU time (user + system)
of ``python -c "from lagent_like import ActionExecutor, BaseAction, tool_api"`` (what
a program that defines and runs tools imports) minus that of ``python -c pass``, best of
10 fresh processes (Lagent: ``import lagent.actions``; the SDK: ``import agents``), and
beside it, reported without a target, ``import lagent_like`` alone (the package reads
its names on first use, so that imports little).

Verdicts, all ratios or exponents measured in this run: growth exponents <= 1.1 for the
rows over the whole catalogue (the issue's bound for every catalogue operation); <= 0.1
for adding, removing, disabling or enabling one tool (the issue wants them O(that tool),
so flat: a linear one has 1.0);
executor build (both rows) <= 2 us per API at the largest size; ``get_actions_info()`` <= 1.5x
Lagent's; ``to_openai_tools()`` cold and cached <= the SDK's export; unknown names
<= 100 us at the largest size; define <= 0.5x Lagent's per API; the core names' import
<= 40 ms; the
1 MB list argument <= 1.8x ``json.loads``.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import types
from typing import Any, Callable, Optional

DEFAULT_SIZES = (100, 1_000, 10_000)
DEFAULT_PEER_PYTHON = "/work/venvs/i25/bin/python"
UNKNOWN_CALLS = 200
#: Add/remove and disable/enable pairs per timed run (one is too short to time alone).
CYCLES = 20
#: Items of the list-argument row: about 1 MB of JSON.
LIST_ITEMS = 80_000
LIST_TARGET = 1.8
IMPORT_RUNS = 10
GROWTH_TARGET = 1.1
#: Growth of a change to one tool: O(that tool), flat in the catalogue's size (linear is 1.0).
ONE_TOOL_GROWTH = 0.1
BUILD_TARGET_US = 2.0
INFO_TARGET = 1.5
DEFINE_TARGET = 0.5
UNKNOWN_TARGET_US = 100.0
IMPORT_TARGET_MS = 40.0
#: What a program that defines and runs tools imports, the import the target judges: the
#: package's names are read on first use, so ``import lagent_like`` alone imports little
#: (reported beside it, without a target).
CORE_IMPORT = "from lagent_like import ActionExecutor, BaseAction, tool_api"
#: Rows that cover the whole catalogue (exponent ~1) and rows of one call (exponent ~0).
WHOLE_ROWS = (
    "define",
    "define, one docstring",
    "build",
    "get_actions_info",
    "export cold",
    "export cached",
)
#: Changes to one tool: the issue wants them O(that tool), so their growth is held to ~0.
ONE_TOOL_ROWS = ("add + remove one tool", "disable + enable one tool")
CALL_ROWS = (*ONE_TOOL_ROWS, "unknown tool name", "unknown API", "unknown parameter")

RUN_SOURCE = '''
def run(self, a: int, b: int) -> int:
    """Add two integers.

    Args:
        a (int): the first addend
        b (int): the second addend
    """
    return a + b
'''


#: The define row's functions: the same shape as :data:`RUN_SOURCE`, each with its own
#: docstring text (a catalogue's tools are documented apart; the same text for all would
#: time reading one docstring and then the parse cache). The label holds the size too, so
#: that no size finds a smaller size's texts already read.
DOCUMENTED_SOURCE = '''
def run(self, a: int, b: int) -> int:
    """Add two integers for tool {label}.

    Args:
        a (int): the first addend of tool {label}
        b (int): the second addend of tool {label}
    """
    return a + b
'''


def best(action: Callable[[], Any], repeats: int, setup: Optional[Callable[[], Any]] = None) -> float:
    """The least CPU seconds of ``action()`` over ``repeats`` runs, ``setup()`` untimed before each."""
    least = math.inf
    for _ in range(repeats):
        if setup is not None:
            setup()
        gc.disable()  # as timeit does: a collection of the whole heap is no row's own cost
        try:
            start = time.thread_time()
            action()
            least = min(least, time.thread_time() - start)
        finally:
            gc.enable()
    return least


def _run_function() -> Callable[..., Any]:
    namespace: dict[str, Any] = {}
    exec(RUN_SOURCE, namespace)  # a fixed source, one function per class
    return namespace["run"]  # type: ignore[no-any-return]


def _documented_function(label: str) -> Callable[..., Any]:
    """A function of :data:`DOCUMENTED_SOURCE` whose docstring names ``label``."""
    namespace: dict[str, Any] = {}
    exec(DOCUMENTED_SOURCE.format(label=label), namespace)  # a fixed template, one function per class
    return namespace["run"]  # type: ignore[no-any-return]


def _wide_function(width: int) -> Callable[..., Any]:
    """A function of ``width`` optional int parameters ``p00000``..."""
    params = ", ".join(f"p{i:05d}: int = 0" for i in range(width))
    namespace: dict[str, Any] = {}
    exec(f"def wide({params}) -> int:\n    '''Sum.'''\n    return 0\n", namespace)
    return namespace["wide"]  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- lagent_like and Lagent


def _define_classes(
    base: type, functions: list[Callable[..., Any]], prefix: str, **options: Any
) -> list[type]:
    """A simple-tool class over ``base`` per function (the class statement of each, as a user writes it)."""
    classes = []
    for i, function in enumerate(functions):

        class Tool(base, **options):  # type: ignore[valid-type,misc]
            """A tool."""

            __tool_name__ = f"{prefix}{i:05d}"
            run = function

        classes.append(Tool)
    return classes


def _toolkit(base: type, tool_api: Callable[..., Any], name: str, width: int, **options: Any) -> Any:
    """A toolkit instance called ``name`` of ``width`` APIs ``api00000``..."""
    methods: dict[str, Any] = {"__doc__": "A wide toolkit.", "__tool_name__": name}
    for i in range(width):
        function = _run_function()
        function.__name__ = function.__qualname__ = f"api{i:05d}"
        methods[function.__name__] = tool_api(function)
    kit = types.new_class(name, (base,), options, lambda namespace: namespace.update(methods))
    return kit()


def _define_time(
    base: type,
    functions_of: Callable[[int], list[Callable[..., Any]]],
    repeats: int,
    prefix: str,
    options: dict[str, Any],
) -> float:
    """The least CPU seconds of defining a tool per function of ``functions_of(run)``.

    Each run gets new functions (a function describes itself once) and new tool names
    (Lagent's registry refuses a name twice).
    """
    least = math.inf
    for attempt in range(repeats):
        functions = functions_of(attempt)  # made before timing: not the row's cost
        action = functools.partial(_define_classes, base, functions, f"{prefix}{attempt}x", **options)
        least = min(least, best(action, 1))
    return least


def measure_package(n: int, repeats: int, lagent: bool) -> dict[str, float]:
    """Seconds of each row at ``n`` APIs, for ``lagent_like`` or (``lagent=True``) Lagent 0.2.4."""
    if lagent:
        from lagent.actions import ActionExecutor, BaseAction, tool_api

        options: dict[str, Any] = {}
    else:
        from lagent_like import ActionExecutor, BaseAction, tool_api

        options = {"register": False}
    prefix = f"Tool{n}x"
    # New docstring texts in every run: a run that repeated the texts of the one before
    # would time the parse cache.
    define = _define_time(
        BaseAction,
        lambda run: [_documented_function(f"{n}x{run}x{i}") for i in range(n)],
        repeats,
        prefix + "d",
        options,
    )
    shared = _define_time(
        BaseAction, lambda run: [_run_function() for _ in range(n)], repeats, prefix + "s", options
    )
    functions = [_run_function() for _ in range(n)]
    tools = [cls() for cls in _define_classes(BaseAction, functions, prefix, **options)]
    extra = _define_classes(BaseAction, [_run_function()], prefix + "extra", **options)[0]()
    rows = {"define": define / n, "define, one docstring": shared / n}
    rows["build"] = best(lambda: ActionExecutor(list(tools)), repeats) / n
    executor = ActionExecutor(list(tools))
    rows["get_actions_info"] = best(executor.get_actions_info, repeats) / n
    if not lagent:
        fresh: list[Any] = []
        rows["export cold"] = (
            best(
                lambda: fresh[-1].to_openai_tools(),
                repeats,
                lambda: fresh.append(ActionExecutor(list(tools))),
            )
            / n
        )
        executor.to_openai_tools()
        rows["export cached"] = best(executor.to_openai_tools, repeats) / n
        first = ActionExecutor(list(tools))
        rows["unknown tool name, first"] = best(lambda: first("Tol-first", "{}"), 1)  # builds the index
    words = iter(range(10**9))

    def unknown_calls(name: Callable[[int], str], command: Callable[[int], str], target: Any) -> float:
        def calls() -> None:
            for _ in range(UNKNOWN_CALLS):
                i = next(words)
                target(name(i), command(i))

        return best(calls, repeats) / UNKNOWN_CALLS

    rows["unknown tool name"] = unknown_calls(lambda i: f"Tol{i % n:05d}z{i}", lambda i: "{}", executor)
    kit = _toolkit(BaseAction, tool_api, f"Kit{n}x", n, **options)
    kit_executor = ActionExecutor([kit])
    rows["unknown API"] = unknown_calls(lambda i: f"{kit.name}.apj{i:05d}", lambda i: "{}", kit_executor)
    if not lagent:
        from lagent_like import FunctionTool

        wide_executor = ActionExecutor([FunctionTool(_wide_function(n))])
        rows["unknown parameter"] = unknown_calls(
            lambda i: "wide", lambda i: json.dumps({f"q{i % n:05d}": 1}), wide_executor
        )
    rows["add + remove one tool"] = best(lambda: _add_remove(executor, extra), repeats) / CYCLES
    name = tools[n // 2].name
    rows["disable + enable one tool"] = best(lambda: _toggle(executor, name), repeats) / CYCLES
    return rows


def _add_remove(executor: Any, tool: Any) -> None:
    for _ in range(CYCLES):
        executor.add_action(tool)
        executor.del_action(tool.name)


def _toggle(executor: Any, name: str) -> None:
    action = executor.actions[name]
    for _ in range(CYCLES):
        if hasattr(executor, "disable"):
            executor.disable(name)
            executor.enable(name)
        else:  # Lagent: the flag is the action's
            action._enable = False
            action._enable = True


# --------------------------------------------------------------------------- the OpenAI Agents SDK


def measure_sdk(n: int, repeats: int) -> dict[str, float]:
    """Seconds of the SDK's rows at ``n`` tools: ``function_tool`` and its per-call export."""
    from agents import function_tool
    from agents.models.chatcmpl_converter import Converter

    functions = []
    for i in range(n):
        run = _documented_function(f"{n}x{i}")
        run.__name__ = f"tool{i:05d}"
        functions.append(run)
    define = best(lambda: [function_tool(f) for f in functions], 1)
    tools = [function_tool(f) for f in functions]
    export = best(lambda: [Converter.tool_to_openai(t) for t in tools], repeats)
    return {"define": define / n, "export": export / n}


def measure_import(module: str, python: str, statement: Optional[str] = None) -> float:
    """CPU ms ``import module`` (or ``statement``) adds to a fresh ``python``, best of :data:`IMPORT_RUNS`.

    The children's CPU time (user + system, from ``getrusage``) rather than the wall
    clock: a busy machine's waits are left out. ``python -c pass`` is the baseline.
    """
    import resource

    def child_seconds() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        least = {"pass": math.inf, module: math.inf}
        for attempt in range(IMPORT_RUNS + 1):  # the first warms the bytecode cache
            for name, code in (("pass", "pass"), (module, statement or f"import {module}")):
                start = child_seconds()
                subprocess.run([python, "-c", code], env=env, cwd=tmp, check=True)
                if attempt:
                    least[name] = min(least[name], child_seconds() - start)
    return max(0.0, least[module] - least["pass"]) * 1e3


def measure_list_argument(repeats: int) -> float:
    """``executor('take', s)`` over ``json.loads(s)`` for ``s`` a 1 MB ``{"words": [...]}`` of strings."""
    from lagent_like import ActionExecutor, FunctionTool

    def take(words: list[str]) -> int:
        """Count words.

        Args:
            words (list[str]): the words
        """
        return len(words)

    executor = ActionExecutor([FunctionTool(take)], max_argument_chars=None)
    text = json.dumps({"words": [f"word{i:06d}" for i in range(LIST_ITEMS)]})
    if executor("take", text).result != [{"type": "text", "content": str(LIST_ITEMS)}]:
        raise RuntimeError("the list row is broken: take did not count every word")
    floor = row = math.inf
    for _ in range(repeats):  # alternately, so both see the same machine
        floor = min(floor, best(lambda: json.loads(text), 1))
        row = min(row, best(lambda: executor("take", text), 1))
    return row / floor


def peer_main(sizes: list[int], repeats: int) -> dict[str, Any]:
    """Everything measured in the peers' Python (``--peer``): Lagent's rows, the SDK's, imports."""
    found: dict[str, Any] = {"lagent": {}, "sdk": {}, "import": {}}
    for n in sizes:
        found["lagent"][str(n)] = measure_package(n, repeats, lagent=True)
        found["sdk"][str(n)] = measure_sdk(n, repeats)
    found["import"]["lagent"] = measure_import("lagent.actions", sys.executable)
    found["import"]["sdk"] = measure_import("agents", sys.executable)
    return found


def run_peers(python: str, sizes: list[int], repeats: int) -> Optional[dict[str, Any]]:
    """The peers' measurements from a child of ``python``, or ``None`` when it cannot run them."""
    if not os.path.exists(python):
        print(f"no peer Python at {python}: peer columns left empty", file=sys.stderr)
        return None
    argv = [python, os.path.abspath(__file__), "--peer", "--sizes", ",".join(map(str, sizes))]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the peers, not this package
    done = subprocess.run([*argv, "--repeats", str(repeats)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        print(f"the peers could not be measured:\n{done.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- report


def growth(points: dict[int, float]) -> Optional[float]:
    """The least-squares slope of ``log(time)`` over ``log(n)``, or ``None`` below two sizes."""
    pairs = [(math.log(n), math.log(t)) for n, t in points.items() if t > 0]
    if len(pairs) < 2:
        return None
    mean_x = sum(x for x, _ in pairs) / len(pairs)
    mean_y = sum(y for _, y in pairs) / len(pairs)
    spread = sum((x - mean_x) ** 2 for x, _ in pairs)
    return sum((x - mean_x) * (y - mean_y) for x, y in pairs) / spread


def _whole(row: str, per_api: float, n: int) -> float:
    """A row's time as the operation took it: whole-catalogue rows were stored per API."""
    return per_api * n if row in WHOLE_ROWS else per_api


def _verdict(ok: Optional[bool]) -> str:
    return "-" if ok is None else ("ok" if ok else "OVER")


def _checks(
    row: str, exponent: Optional[float], ours: Optional[float], lagent: Optional[float], sdk: Optional[float]
) -> list[bool]:
    """The verdicts of one row (seconds at the largest size): its growth and its target, where known."""
    checks = []
    if exponent is not None and row in WHOLE_ROWS:
        checks.append(exponent <= GROWTH_TARGET)
    elif exponent is not None and row in ONE_TOOL_ROWS:
        checks.append(exponent <= ONE_TOOL_GROWTH)
    if ours is None:
        return checks
    if row == "build":
        checks.append(ours * 1e6 <= BUILD_TARGET_US)
    elif row.startswith("unknown") and row in CALL_ROWS:
        checks.append(ours * 1e6 <= UNKNOWN_TARGET_US)
    elif row == "get_actions_info" and lagent is not None:
        checks.append(ours <= INFO_TARGET * lagent)
    elif row == "define" and lagent is not None:
        checks.append(ours <= DEFINE_TARGET * lagent)
    elif row.startswith("export") and sdk is not None:
        checks.append(ours <= sdk)
    return checks


def report(
    sizes: list[int], ours: dict[int, dict[str, float]], peers: Optional[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One row per operation: times per size (us per API or per call), exponent, peers, verdict."""
    largest = max(sizes)
    lagent = {int(k): v for k, v in (peers or {}).get("lagent", {}).items()}
    sdk = {int(k): v for k, v in (peers or {}).get("sdk", {}).items()}
    rows = []
    for row in ours[sizes[0]]:
        times = {n: ours[n][row] for n in sizes if row in ours[n]}
        exponent = growth({n: _whole(row, t, n) for n, t in times.items()})
        lagent_times = {n: lagent[n][row] for n in sizes if n in lagent and row in lagent[n]}
        sdk_row = "export" if row.startswith("export") else row
        sdk_times = {n: sdk[n][sdk_row] for n in sizes if n in sdk and sdk_row in sdk[n]}
        at_largest = times.get(largest)
        checks = _checks(row, exponent, at_largest, lagent_times.get(largest), sdk_times.get(largest))
        rows.append(
            {
                "row": row,
                "unit": "us/API" if row in WHOLE_ROWS else "us/call",
                "ours": {n: t * 1e6 for n, t in times.items()},
                "exponent": exponent,
                "lagent": {n: t * 1e6 for n, t in lagent_times.items()},
                "sdk": {n: t * 1e6 for n, t in sdk_times.items()},
                "verdict": _verdict(all(checks) if checks else None),
            }
        )
    return rows


def _cell(values: dict[int, float], n: int) -> str:
    value = values.get(n)
    return "-" if value is None else f"{value:,.2f}"


def format_table(
    sizes: list[int], rows: list[dict[str, Any]], imports: dict[str, float], repeats: int
) -> str:
    """The report as a plain-text table."""
    largest = max(sizes)
    header = [
        "row",
        "unit",
        *(f"n={n:,}" for n in sizes),
        "growth",
        f"Lagent n={largest:,}",
        f"SDK n={largest:,}",
        "ratio",
        "verdict",
    ]
    lines = [header]
    for row in rows:
        ours = row["ours"].get(largest)
        peer = row["lagent"].get(largest) or row["sdk"].get(largest)
        if row["row"].startswith("export"):
            peer = row["sdk"].get(largest)
        ratio = f"{ours / peer:.2f}x" if ours and peer else "-"
        exponent = "-" if row["exponent"] is None else f"{row['exponent']:.2f}"
        lines.append(
            [
                row["row"],
                row["unit"],
                *(_cell(row["ours"], n) for n in sizes),
                exponent,
                _cell(row["lagent"], largest),
                _cell(row["sdk"], largest),
                ratio,
                row["verdict"],
            ]
        )
    for module, ms in imports.items():
        target = ms <= IMPORT_TARGET_MS if module == CORE_IMPORT else None
        label = module if module.startswith("from ") else f"import {module}"
        lines.append([label, "ms", *(["-"] * len(sizes)), "-", "-", "-", "-", "-"])
        lines[-1][2] = f"{ms:,.1f}"
        lines[-1][-1] = _verdict(target)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    title = (
        f"lagent_like catalogue benchmark: Python {sys.version.split()[0]}, CPU time, best of {repeats}; "
        f"ratio = ours / the peer at n={largest:,} (exports: the SDK)"
    )
    body = [
        "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))).rstrip()
        for line in lines
    ]
    body.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join([title, *body])


def our_imports() -> dict[str, float]:
    """The two import rows of this package: ``import lagent_like`` and :data:`CORE_IMPORT`."""
    return {
        "lagent_like": measure_import("lagent_like", sys.executable),
        CORE_IMPORT: measure_import("lagent_like", sys.executable, CORE_IMPORT),
    }


def import_rows(peer_python: str, sizes: list[int], repeats: int, as_json: bool, check: bool) -> int:
    """``--imports``: print the import rows alone (the peers' too when ``peer_python`` exists)."""
    imports = our_imports()
    if os.path.exists(peer_python):
        imports.update({m: measure_import(m, peer_python) for m in ("lagent.actions", "agents")})
    if as_json:
        print(json.dumps({"imports": imports}, indent=2))
    else:
        print(format_table(sizes, [], imports, repeats))
    if check and imports[CORE_IMPORT] > IMPORT_TARGET_MS:
        print(f"verdicts failed: {CORE_IMPORT}", file=sys.stderr)
        return 1
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    """Parse the options, measure, print the report; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--sizes", default=None, help="comma-separated catalogue sizes (default 100,1000,10000)"
    )
    parser.add_argument("--repeats", type=int, default=None, help="runs per row, the best kept (default 5)")
    parser.add_argument("--quick", action="store_true", help="sizes 100 and 1,000, 2 repeats")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 if a verdict fails")
    parser.add_argument("--peer-python", default=os.environ.get("BENCH_PEER_PYTHON", DEFAULT_PEER_PYTHON))
    parser.add_argument(
        "--imports",
        action="store_true",
        help="measure only the import rows (ours, and the peers' when their Python exists)",
    )
    parser.add_argument("--peer", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    sizes = [int(s) for s in options.sizes.split(",")] if options.sizes else list(DEFAULT_SIZES)
    if options.quick and not options.sizes:
        sizes = [100, 1_000]
    repeats = options.repeats or (2 if options.quick else 5)
    if options.peer:
        print(json.dumps(peer_main(sizes, repeats)))
        return 0
    if options.imports:
        return import_rows(options.peer_python, sizes, repeats, options.json, options.check)
    peers = run_peers(options.peer_python, sizes, repeats)
    ours = {n: measure_package(n, repeats, lagent=False) for n in sizes}
    rows = report(sizes, ours, peers)
    imports = our_imports()
    list_ratio = measure_list_argument(max(repeats, 5))
    if peers is not None:
        imports.update({"lagent.actions": peers["import"]["lagent"], "agents": peers["import"]["sdk"]})
    if options.json:
        print(json.dumps({"rows": rows, "imports": imports, "list_argument_ratio": list_ratio}, indent=2))
    else:
        print(format_table(sizes, rows, imports, repeats))
        verdict = _verdict(list_ratio <= LIST_TARGET)
        print(f"1 MB list[str] argument: {list_ratio:.2f}x json.loads (target <= {LIST_TARGET}x): {verdict}")
    failed = [r["row"] for r in rows if r["verdict"] == "OVER"] + (
        [CORE_IMPORT] if imports[CORE_IMPORT] > IMPORT_TARGET_MS else []
    )
    if list_ratio > LIST_TARGET:
        failed.append("1 MB list[str] argument")
    if options.check and failed:
        print(f"verdicts failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
