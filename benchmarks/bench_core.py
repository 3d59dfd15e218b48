"""Measure what ``lagent_like`` costs next to the floor a hand-written call pays.

Run ``python benchmarks/bench_core.py`` (about ten seconds), ``--quick`` for a smoke
run of a second or two (numbers are then rough), ``--json`` to print the rows as a
JSON list instead of the table, ``--check`` to exit 1 when a row misses its target,
``--only TEXT`` (repeatable) to measure only the rows whose name contains TEXT
(the floors are always measured and reported), and ``--cpu-time`` to time the
per-call rows in the thread's CPU time instead of wall time: on a shared, busy
machine it leaves out the time the process waits for a core, so the ratios stay
steady (batch rows are wall time either way; import rows are always CPU time).
Without ``--check`` the script always exits 0: it is a report, not a test.

Method:

* **The floor** is what any tool layer has to do at least: decode the model's argument
  string and call the function, ``str(add(**json.loads(s)))`` for
  ``s = '{"a": 1, "b": 2}'``. For ``TupleParser`` rows there is a second floor,
  ``str(add(*ast.literal_eval(s)))`` for ``s = '(1, 2)'``, because ``literal_eval``
  alone costs several times ``json.loads``.
* **Per-call rows** time ``executor(name, s)`` (string in, ``ActionReturn`` out) with
  :mod:`timeit`, statements compiled inline (no lambda layer on either side). Each
  loop is calibrated to last a fixed budget, then the floor and the row are timed
  alternately (floor, row, floor, row, ...), ``N`` times each, and the minimum of each
  is kept. The machine is shared and noisy; the minimum is the run least disturbed by
  other processes, and alternating keeps the floor and the row under the same
  conditions. The floor row shows the minimum over every floor sample of the run, and
  each ratio is a row's minimum divided by that floor minimum (for tuple rows: by the
  tuple floor's minimum; the ratio to the JSON floor is shown in brackets).
* **Eight mixed parameters**: ``Weather.forecast`` takes a ``str``, ``int``, ``float``,
  ``bool``, ``list[str]``, ``dict[str, int]``, ``Optional[int]`` and a ``Literal``, and
  is called with values that already have those types. Its ratio is to its own floor,
  ``str(forecast(**json.loads(s)))`` on the same string.
* **One no-op hook**: a sync executor with one registered ``Hook`` that does nothing,
  so every call goes through the call core.
* **Coercion and type errors**: ``'{"a": "1", "b": "2"}'`` for ``int`` parameters is
  coerced (the validators run, the fast path does not apply); ``'{"a": "x", "b": 2}'``
  is refused with a message naming the parameter.
* **Unknown argument, new name each call**: an unknown key gets a "did you mean"
  suggestion, which is memoized (an LRU cache of 2,048 entries). The row cycles through
  10,000 distinct keys (``x00000`` ... ``x09999``), more than the cache holds, so no
  suggestion is ever reused: this is what a model inventing a new argument name costs.
  Taking the next string from the cycle is part of the row. Reported, no target.
* **Exporting** a 50-API executor (ten five-API toolkits, every API under an alias
  because ``Tool.api`` is not a legal function name) as OpenAI ``tools``. *Cold*
  builds a fresh executor over the same tool instances and exports it once, so the
  executor's export cache is empty (building the executor is part of the row; the
  tools' own JSON-schema caches stay warm, as in a server that makes an executor per
  session from long-lived tools). *Cached* exports the same executor again and again
  (the cached entries are deep-copied for the caller). Reported in microseconds per
  export, no target.
* **Defining a toolkit** times a function whose body is a ``class`` statement with five
  ``@tool_api`` methods (Google docstrings with ``Args:``, typed parameters), reported
  per API. Each definition gets a unique tool name and is defined with
  ``register=False``, so the global registry does not grow. This module does not use
  ``from __future__ import annotations``, so the annotations are objects; with string
  annotations describing also pays for ``typing.get_type_hints``.
* **Importing** runs ``python -c "import lagent_like"``, ``python -c "from lagent_like
  import ActionExecutor, BaseAction, tool_api"`` and ``python -c "pass"`` in fresh
  processes, in turn, 10 times each, and reports the difference of the least CPU times
  (user + system of the child, so a busy machine's waits are left out). The package's
  names are read on first use, so the first row is what importing it costs (target
  40 ms) and the second what a program that defines and runs tools imports (reported).
  The children write and read bytecode in a private cache (``PYTHONPYCACHEPREFIX`` set
  to a temporary directory, warmed up first), so the number is what an installed
  package costs even when the caller's environment disables bytecode caching. A last
  child reports whether importing those names imported ``requests`` (it must not).
* **Async executor, async API**: an ``AsyncActionExecutor`` over a ``Calc`` toolkit whose
  ``add`` is ``async def``. Its floor is measured inside one coroutine:
  ``str(await add(**json.loads(s)))`` for ``async def add(a: int, b: int)``; the row is
  ``await executor('Calc.add', s)``. Both are loops of awaits compiled inline, timed
  alternately (best of N) inside a single ``asyncio.run``. The ratio is to that async
  floor (the ratio to the JSON floor is shown in brackets); the async floor is a row too.
* **Sync executor with a no-op hook**: ``Calc.add`` on an ``ActionExecutor`` with one
  ``Hook()`` registered, which sends every call through the full call core (context,
  both hook stages) instead of the direct path. Ratio to the JSON floor, no target: it
  shows what the call core costs.
* **Async batch**: ``await executor.batch(calls)`` of 1,000 calls of an async tool that
  sleeps 50 ms, wall time in ms (best of N) and its ratio to the 50 ms a single call
  takes. The records are checked (all ``SUCCESS``, in input order).

* **Lenient JSON** (``store(rows)`` on an executor without an argument cap): a
  ``{"rows": [...]}`` object of 100 KB with thousands of small strings, cut off at
  102,400 characters (clean JSON: ``json``'s own refusal shows the cut), the same
  written as a Python dict (single quotes, ``True``), and that one cut off (read by the
  lenient parser to the cut). Ratios to ``json.loads`` of the clean 100 KB text, timed
  alternately; target 50x. ``'{"a": 1,'``: ratio to ``json.loads`` refusing the same
  text (the least a layer pays to learn it is not JSON), target 3x, the ratio to the
  JSON floor in brackets. A 1 MB Python-dict argument: best of N single calls, target
  100 ms.

* **A pydantic model parameter** (``ship(addr: Addr, copies: int = 1)`` with ``class
  Addr(BaseModel)``, called with a valid address): the row is
  ``executor('ship', s)``; its floor is the same function made a ``FunctionTool`` by
  the OpenAI Agents SDK's ``function_tool`` and called as ``await
  tool.on_invoke_tool(ctx, s)`` (the SDK validates with a pydantic model of the
  signature). Both are timed alternately inside one ``asyncio.run`` (the row's call is
  synchronous); the ratio is to the SDK's call, target 2x, the ratio to the JSON floor
  in brackets. Without ``openai-agents`` (not a dependency) or pydantic the row is
  skipped with a notice on stderr.

Before timing, every per-call row is run once and its ``ActionReturn.state`` checked;
a row that does not do what it claims is reported as ``BROKEN``.
"""

import argparse
import ast
import asyncio
import gc
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Awaitable, Iterator
from dataclasses import asdict, dataclass
from typing import Any, Callable, Literal, Optional

from lagent_like import (
    ActionExecutor,
    ActionReturn,
    ActionStatusCode,
    AsyncActionExecutor,
    BaseAction,
    Hook,
    TupleParser,
    tool_api,
)

JSON_VALID = '{"a": 1, "b": 2}'
TUPLE_VALID = "(1, 2)"
JSON_MISSING = '{"a": 1}'
JSON_UNKNOWN = '{"a": 1, "b": 2, "c": 3}'
TUPLE_TOO_MANY = "(1, 2, 3)"
JSON_MALFORMED = '{"a": 1,, "b": 2}'
JSON_COERCION = '{"a": "1", "b": "2"}'
JSON_TYPE_ERROR = '{"a": "x", "b": 2}'
#: Eight parameters of mixed types, every value already of its parameter's type.
JSON_MIXED = (
    '{"city": "Oslo", "days": 3, "scale": 1.5, "metric": true, "tags": ["a", "b"], '
    '"limits": {"low": 1, "high": 9}, "hour": null, "unit": "C"}'
)
#: More distinct unknown keys than the suggestion cache (2,048 entries) holds.
FRESH_UNKNOWN_KEYS = 10_000

VALID_TARGET = 2.0
MIXED_TARGET = 2.5
HOOK_TARGET = 4.0
COERCION_TARGET = 2.5
INVALID_TARGET = 3.0
DEFINE_TARGET_US = 50.0  # issue 12: docstring-parser and inspect.signature, Lagent ~100
IMPORT_TARGET_MS = 40.0
APIS_PER_TOOLKIT = 5
EXPORT_TOOLKITS = 10

FRESH_UNKNOWN_ROW = "Calc.add json unknown arg, new name each call"
EXPORT_COLD_ROW = f"export {EXPORT_TOOLKITS * APIS_PER_TOOLKIT}-API executor, cold"
EXPORT_CACHED_ROW = f"export {EXPORT_TOOLKITS * APIS_PER_TOOLKIT}-API executor, cached"
FLOOR_JSON = "floor json: str(add(**json.loads(s)))"
FLOOR_TUPLE = "floor tuple: str(add(*ast.literal_eval(s)))"
FLOOR_ASYNC = "floor async: str(await add(**json.loads(s)))"
FLOOR_MIXED = "floor 8 params: str(forecast(**json.loads(s)))"
MIXED_ROW = "Weather.forecast json valid, 8 mixed params"
ASYNC_ROW = "async executor, async API"
HOOK_ROW = "sync executor with a no-op hook"
DEFINE_ROW = f"define {APIS_PER_TOOLKIT}-API toolkit"
IMPORT_ROW = "import lagent_like"
#: What is timed for the import rows: the package (the target) and what a program that
#: defines and runs tools imports (its names are read on first use; reported).
IMPORT_CODES = (IMPORT_ROW, "from lagent_like import ActionExecutor, BaseAction, tool_api")
#: Fresh processes per import row, the least CPU time kept.
IMPORT_RUNS = 10
BATCH_CALLS = 1_000
BATCH_SLEEP_MS = 50
BATCH_ROW = f"async batch of {BATCH_CALLS:,} x {BATCH_SLEEP_MS} ms"
ASYNC_TARGET = 2.0
LENIENT_SIZE = 102_400
LENIENT_SHORT = '{"a": 1,'
FLOOR_LENIENT = "floor: json.loads(clean 100 KB)"
FLOOR_REFUSED = "floor: json.loads refusing '{\"a\": 1,'"
LENIENT_TRUNCATED_ROW = "lenient 100 KB truncated"
LENIENT_SINGLE_ROW = "lenient 100 KB single-quoted"
LENIENT_TRUNCATED_SINGLE_ROW = "lenient 100 KB single-quoted, truncated"
LENIENT_SHORT_ROW = "lenient '{\"a\": 1,'"
LENIENT_MB_ROW = "lenient 1 MB single-quoted"
LENIENT_TARGETS = {FLOOR_LENIENT: 50.0, FLOOR_REFUSED: 3.0}
LENIENT_MB_TARGET_MS = 100.0
BATCH_TARGET = 1.2
PYDANTIC_ROW = "ship json valid, pydantic model param"
FLOOR_AGENTS = "floor: Agents SDK FunctionTool.on_invoke_tool(ctx, s)"
PYDANTIC_TARGET = 2.0
JSON_MODEL = '{"addr": {"street": "1 Main St", "zip": 12345}, "copies": 2}'


def add(a: int, b: int) -> int:
    """Add two integers (the plain function the floor calls)."""
    return a + b


class Calc(BaseAction, register=False):
    """A toolkit with one API."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b


class Add(BaseAction, register=False):
    """A simple tool."""

    def run(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b


def forecast(
    city: str,
    days: int,
    scale: float,
    metric: bool,
    tags: list[str],
    limits: dict[str, int],
    hour: Optional[int],
    unit: Literal["C", "F"],
) -> str:
    """Eight parameters of mixed types (the plain function the 8-parameter floor calls)."""
    return city


class Weather(BaseAction, register=False):
    """A toolkit with one API of eight parameters."""

    @tool_api
    def forecast(
        self,
        city: str,
        days: int,
        scale: float,
        metric: bool,
        tags: list[str],
        limits: dict[str, int],
        hour: Optional[int],
        unit: Literal["C", "F"],
    ) -> str:
        """Weather forecast.

        Args:
            city: the city
            days: how many days
            scale: a scale factor
            metric: metric units
            tags: labels
            limits: low and high bounds
            hour: the hour of the day, if any
            unit: the temperature unit
        """
        return city


async def async_add(a: int, b: int) -> int:
    """Add two integers (the coroutine function the async floor awaits)."""
    return a + b


class AsyncCalc(BaseAction, register=False):
    """A toolkit with one async API, named like ``Calc``."""

    __tool_name__ = "Calc"

    @tool_api
    async def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b


class Nap(BaseAction, register=False):
    """An async tool that sleeps, for the batch row."""

    async def run(self, i: int) -> int:
        """Sleep ``BATCH_SLEEP_MS`` milliseconds, then return ``i``.

        Args:
            i: the value to return
        """
        await asyncio.sleep(BATCH_SLEEP_MS / 1e3)
        return i


_names = itertools.count()


def define_toolkit() -> type:
    """Define a new five-API toolkit class with a unique tool name and return it."""
    tool_name = f"BenchKit{next(_names)}"

    class Kit(BaseAction, register=False):
        """Text and number utilities."""

        __tool_name__ = tool_name
        __qualname__ = tool_name

        @tool_api
        def add(self, a: int, b: int = 0) -> int:
            """Add two integers.

            Args:
                a: the first addend
                b: the second addend
            """
            return a + b

        @tool_api
        def scale(self, value: float, factor: float = 1.0) -> float:
            """Multiply a number by a factor.

            Args:
                value: the number to scale
                factor: the multiplier
            """
            return value * factor

        @tool_api
        def repeat(self, text: str, times: int = 2, sep: str = " ") -> str:
            """Repeat a text.

            Args:
                text: the text to repeat
                times: how many copies
                sep: what goes between the copies
            """
            return sep.join([text] * times)

        @tool_api
        def join(self, words: list[str], upper: bool = False) -> str:
            """Join words with spaces.

            Args:
                words: the words to join
                upper: whether to upper-case the result
            """
            text = " ".join(words)
            return text.upper() if upper else text

        @tool_api
        def lookup(self, table: dict[str, int], key: str, default: Optional[int] = None) -> Optional[int]:
            """Look a key up in a table.

            Args:
                table: the mapping to search
                key: the key to find
                default: what to return when the key is missing
            """
            return table.get(key, default)

    return Kit


def fresh_unknown_commands() -> Iterator[str]:
    """Endless ``Calc.add`` commands whose unknown key changes on every call."""
    keys = (f"x{i:05d}" for i in range(FRESH_UNKNOWN_KEYS))
    return itertools.cycle([f'{{"a": 1, "b": 2, "{key}": 3}}' for key in keys])


@dataclass
class Row:
    """One line of the report.

    Attributes:
        row: the row's name (stable; the smoke test looks for it).
        value: the measurement (``requests imported`` holds a bool).
        unit: ``ns/call``, ``us/API``, ``us``, ``ms`` or ``""``.
        ratio: ``value`` over the row's floor, ``None`` when not a per-call row.
        ratio_json: ``value`` over the JSON floor, for tuple rows.
        target: the target as text, ``"-"`` when there is none.
        verdict: ``ok``, ``OVER``, ``BROKEN ...`` or ``-``.
    """

    row: str
    value: Any
    unit: str
    ratio: Optional[float]
    ratio_json: Optional[float]
    target: str
    verdict: str


@dataclass
class Settings:
    """How long to measure.

    Attributes:
        repeats: samples per measurement (the minimum is kept).
        budget: seconds one timeit loop is calibrated to last.
        cpu_time: time per-call rows by this thread's CPU time instead of the wall
            clock, so that time spent waiting for a core (on a busy machine) is not
            counted.
    """

    repeats: int
    budget: float
    cpu_time: bool = False

    @property
    def clock(self) -> Callable[[], float]:
        """The clock per-call loops are timed with."""
        return time.thread_time if self.cpu_time else time.perf_counter


def _calibrate(timer: timeit.Timer, budget: float) -> int:
    """The loop count that makes one ``timer.timeit(number)`` last about ``budget`` seconds."""
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= budget / 5 or number >= 10**7:
            break
        number *= 5 if elapsed < budget / 50 else 2
    return max(1, round(number * budget / max(elapsed, 1e-9)))


class Bench:
    """Interleaved best-of-N timings of statements against the floors.

    Args:
        settings: repeats and loop budget.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.namespace: dict[str, Any] = {
            "json": json,
            "ast": ast,
            "add": add,
            "forecast": forecast,
            "define_toolkit": define_toolkit,
        }
        self.floors: dict[str, list[float]] = {FLOOR_JSON: [], FLOOR_TUPLE: [], FLOOR_MIXED: []}
        self._floor_stmts = {
            FLOOR_JSON: f"str(add(**json.loads({JSON_VALID!r})))",
            FLOOR_TUPLE: f"str(add(*ast.literal_eval({TUPLE_VALID!r})))",
            FLOOR_MIXED: f"str(forecast(**json.loads({JSON_MIXED!r})))",
        }

    def _timer(self, stmt: str) -> timeit.Timer:
        return timeit.Timer(stmt, timer=self.settings.clock, globals=self.namespace)

    def measure(self, stmt: str, floor: str, per: int = 1) -> float:
        """Time ``stmt`` alternately with ``floor``; return ns per ``per`` units, best of N.

        The floor's samples are kept in :attr:`floors`.
        """
        row_timer, floor_timer = self._timer(stmt), self._timer(self._floor_stmts[floor])
        row_number = _calibrate(row_timer, self.settings.budget)
        floor_number = _calibrate(floor_timer, self.settings.budget)
        best = float("inf")
        for _ in range(self.settings.repeats):
            gc.collect()
            self.floors[floor].append(floor_timer.timeit(floor_number) / floor_number * 1e9)
            gc.collect()
            best = min(best, row_timer.timeit(row_number) / row_number * 1e9)
        return best / per

    def floor(self, name: str) -> float:
        """The minimum ns/call of a floor over every sample taken so far."""
        if not self.floors[name]:
            self.measure(self._floor_stmts[name], name)
        return min(self.floors[name])


#: A loop of ``stmt`` (which may ``await``) compiled inline, as ``timeit`` compiles its loops.
_ASYNC_LOOP = """
async def _loop(_number, _timer=_timer, _repeat=_repeat):
    _it = _repeat(None, _number)
    _t0 = _timer()
    for _ in _it:
        {stmt}
    return _timer() - _t0
"""

AsyncLoop = Callable[[int], Awaitable[float]]


def _compile_async_loop(stmt: str, namespace: dict[str, Any], clock: Callable[[], float]) -> AsyncLoop:
    """A coroutine function that runs ``stmt`` ``number`` times and returns the seconds taken."""
    scope = dict(namespace, _timer=clock, _repeat=itertools.repeat)
    exec(_ASYNC_LOOP.format(stmt=stmt), scope)
    loop: AsyncLoop = scope["_loop"]
    return loop


async def _timed(loop: AsyncLoop, number: int) -> float:
    """Seconds ``loop(number)`` takes, with the garbage collector off (as ``timeit`` does)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return await loop(number)
    finally:
        if enabled:
            gc.enable()


async def _calibrate_async(loop: AsyncLoop, budget: float) -> int:
    """The loop count that makes one ``await loop(number)`` last about ``budget`` seconds."""
    number = 1
    while True:
        elapsed = await _timed(loop, number)
        if elapsed >= budget / 5 or number >= 10**7:
            break
        number *= 5 if elapsed < budget / 50 else 2
    return max(1, round(number * budget / max(elapsed, 1e-9)))


def measure_async(bench: Bench, stmt: str) -> float:
    """Time ``stmt`` alternately with the async floor inside one ``asyncio.run``; ns, best of N.

    The floor's samples go to ``bench.floors[FLOOR_ASYNC]``.
    """
    settings = bench.settings
    floor_stmt = f"str(await async_add(**json.loads({JSON_VALID!r})))"

    async def main() -> float:
        row_loop = _compile_async_loop(stmt, bench.namespace, settings.clock)
        floor_loop = _compile_async_loop(floor_stmt, bench.namespace, settings.clock)
        row_number = await _calibrate_async(row_loop, settings.budget)
        floor_number = await _calibrate_async(floor_loop, settings.budget)
        best = float("inf")
        for _ in range(settings.repeats):
            gc.collect()
            floor_ns = await _timed(floor_loop, floor_number) / floor_number * 1e9
            bench.floors.setdefault(FLOOR_ASYNC, []).append(floor_ns)
            gc.collect()
            best = min(best, await _timed(row_loop, row_number) / row_number * 1e9)
        return best

    return asyncio.run(main())


def measure_batch(executor: AsyncActionExecutor, repeats: int) -> tuple[float, Optional[str]]:
    """Best wall time in ms of a batch of ``BATCH_CALLS`` naps, and a ``BROKEN`` verdict or ``None``."""
    calls = [("Nap", json.dumps({"i": i})) for i in range(BATCH_CALLS)]
    expected = [str(i) for i in range(BATCH_CALLS)]

    async def main() -> tuple[float, Optional[str]]:
        best = float("inf")
        broken = None
        for _ in range(repeats):
            gc.collect()
            start = time.perf_counter()
            rets = await executor.batch(calls)
            best = min(best, time.perf_counter() - start)
            failed = sum(r.state != ActionStatusCode.SUCCESS for r in rets)
            if failed:
                broken = f"BROKEN ({failed} of {len(rets)} calls failed)"
            elif [r.format_result() for r in rets] != expected:
                broken = "BROKEN (results not in input order)"
        return best * 1e3, broken

    return asyncio.run(main())


def _children_cpu_seconds() -> float:
    """CPU seconds (user + system) of this process's finished children."""
    import resource  # POSIX only, as the fork-based rows

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _subprocess_times(codes: list[str], env: dict[str, str], cwd: str) -> dict[str, float]:
    """Least CPU seconds of ``python -c code`` for each code, in turn, over :data:`IMPORT_RUNS` runs."""
    least = dict.fromkeys(codes, float("inf"))
    for _ in range(IMPORT_RUNS):
        for code in codes:
            start = _children_cpu_seconds()
            subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, check=True)
            least[code] = min(least[code], _children_cpu_seconds() - start)
    return least


def measure_import() -> tuple[dict[str, float], bool]:
    """Return (ms that each of :data:`IMPORT_CODES` adds to a fresh interpreter, requests imported)."""
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        codes = ["pass", *IMPORT_CODES]
        for warm_up in codes:
            subprocess.run([sys.executable, "-c", warm_up], env=env, cwd=tmp, check=True)
        least = _subprocess_times(codes, env, tmp)
        probe = subprocess.run(
            [sys.executable, "-c", f"{IMPORT_CODES[-1]}; import sys; print('requests' in sys.modules)"],
            env=env,
            cwd=tmp,
            check=True,
            capture_output=True,
            text=True,
        )
    added = {code: max(0.0, (least[code] - least["pass"]) * 1e3) for code in IMPORT_CODES}
    return added, probe.stdout.strip() == "True"


def _verdict(value: float, target: Optional[float]) -> str:
    if target is None:
        return "-"
    return "ok" if value <= target else "OVER"


def _check_state(
    executor: ActionExecutor, name: str, command: str, expected: ActionStatusCode
) -> Optional[str]:
    """``None`` when the call ends in ``expected``, else a ``BROKEN`` verdict."""
    return _state_verdict(executor(name, command), expected)


def _state_verdict(ret: ActionReturn, expected: ActionStatusCode) -> Optional[str]:
    if ret.state == expected:
        return None
    return f"BROKEN (state {int(ret.state)}, expected {int(expected)})"


def store(rows: Any) -> int:
    """Store rows (the tool of the lenient-JSON rows: no check, so parsing is what is timed)."""
    return len(rows)


def records_json(size: int, quote: str = '"', true: str = "true") -> str:
    """A ``{"rows": [...]}`` object of at least ``size`` characters, many small strings in it."""
    items: list[str] = []
    length = 0
    while length < size:
        q = quote
        i = len(items)
        items.append(f"{{{q}id{q}: {i}, {q}name{q}: {q}item number {i}{q}, {q}ok{q}: {true}}}")
        length += len(items[-1]) + 2
    return f"{{{quote}rows{quote}: [" + ", ".join(items) + "]}"


def lenient_rows(bench: Bench, settings: Settings, wanted: Callable[[str], bool]) -> list[Row]:
    """The lenient-JSON rows: dirty arguments near the cost of clean ones.

    Each 100 KB row is timed against ``json.loads`` of clean JSON of the same size (its
    own floor, alternated with the row); the short cut-off row against ``json.loads``
    refusing the same text, the least any tool layer pays to learn that it is not JSON
    (its ratio to the JSON floor is shown in brackets). The 1 MB row is the best of N
    single calls, in ms.
    """
    executor = ActionExecutor([store], max_argument_chars=None)
    clean = records_json(LENIENT_SIZE)
    truncated = clean[:LENIENT_SIZE]
    single = records_json(LENIENT_SIZE, "'", "True")
    bench.namespace.update(lenient_exec=executor, lenient_clean=clean)
    bench._floor_stmts[FLOOR_LENIENT] = "json.loads(lenient_clean)"
    bench._floor_stmts[FLOOR_REFUSED] = f"""
try:
    json.loads({LENIENT_SHORT!r})
except ValueError:
    pass
"""
    bench.floors.setdefault(FLOOR_LENIENT, [])
    bench.floors.setdefault(FLOOR_REFUSED, [])
    args_error, ok = ActionStatusCode.ARGS_ERROR, ActionStatusCode.SUCCESS
    measured: list[tuple[str, float, str, Optional[str]]] = []
    for name, command, floor, expected in (
        (LENIENT_TRUNCATED_ROW, truncated, FLOOR_LENIENT, args_error),
        (LENIENT_TRUNCATED_SINGLE_ROW, single[:LENIENT_SIZE], FLOOR_LENIENT, args_error),
        (LENIENT_SINGLE_ROW, single, FLOOR_LENIENT, ok),
        (LENIENT_SHORT_ROW, LENIENT_SHORT, FLOOR_REFUSED, args_error),
    ):
        if not wanted(name):
            continue
        bench.namespace[f"_command_{len(measured)}"] = command
        broken = _check_state(executor, "store", command, expected)
        value = bench.measure(f"lenient_exec('store', _command_{len(measured)})", floor)
        measured.append((name, value, floor, broken))
    rows = []
    json_floor = bench.floor(FLOOR_JSON)
    for name, value, floor, broken in measured:
        ratio = value / min(bench.floors[floor])
        rows.append(
            Row(
                name,
                value / 1e3,
                "us",
                ratio,
                value / json_floor if floor == FLOOR_REFUSED else ratio,
                f"<= {LENIENT_TARGETS[floor]:g}x",
                broken or _verdict(ratio, LENIENT_TARGETS[floor]),
            )
        )
    if wanted(LENIENT_MB_ROW):
        big = records_json(1_000_000, "'", "True")
        broken = _check_state(executor, "store", big, ok)
        clock = settings.clock
        best = float("inf")
        for _ in range(settings.repeats):
            gc.collect()
            start = clock()
            executor("store", big)
            best = min(best, clock() - start)
        rows.append(
            Row(
                LENIENT_MB_ROW,
                best * 1e3,
                "ms",
                None,
                None,
                f"<= {LENIENT_MB_TARGET_MS:g} ms",
                broken or _verdict(best * 1e3, LENIENT_MB_TARGET_MS),
            )
        )
    return rows


def _agents_tool_and_executor() -> tuple[Any, Any, ActionExecutor]:
    """``(the SDK's FunctionTool, its ToolContext, an executor)`` of one pydantic-typed function.

    Raises:
        ImportError: pydantic or the OpenAI Agents SDK is not installed.
    """
    import pydantic
    from agents import function_tool
    from agents.tool_context import ToolContext

    class Addr(pydantic.BaseModel):
        street: str
        zip: int

    def ship(addr: Addr, copies: int = 1) -> str:
        """Ship a parcel.

        Args:
            addr: where to
            copies: how many
        """
        return f"{addr.street}/{addr.zip} x{copies}"

    context = ToolContext(context=None, tool_name="ship", tool_call_id="bench", tool_arguments=JSON_MODEL)
    return function_tool(ship), context, ActionExecutor([tool_api(ship)])


def pydantic_rows(bench: Bench, wanted: Callable[[str], bool]) -> list[Row]:
    """The pydantic row and its floor, the same call through the OpenAI Agents SDK (see the module doc)."""
    if not wanted(PYDANTIC_ROW):
        return []
    try:
        sdk_tool, context, executor = _agents_tool_and_executor()
    except ImportError as exc:
        print(f"note: {PYDANTIC_ROW!r} skipped: {exc.name} is not installed", file=sys.stderr)
        return []
    bench.namespace.update(sdk_tool=sdk_tool, sdk_context=context, pyd_exec=executor)
    expected = asyncio.run(sdk_tool.on_invoke_tool(context, JSON_MODEL))
    ret = executor("ship", JSON_MODEL)
    got = ret.result[0]["content"] if ret.result else ret.errmsg
    broken = None if got == expected else f"BROKEN ({got!r}, the SDK says {expected!r})"
    settings = bench.settings

    async def main() -> tuple[float, float]:
        row_loop = _compile_async_loop(f"pyd_exec('ship', {JSON_MODEL!r})", bench.namespace, settings.clock)
        floor_loop = _compile_async_loop(
            f"await sdk_tool.on_invoke_tool(sdk_context, {JSON_MODEL!r})", bench.namespace, settings.clock
        )
        row_number = await _calibrate_async(row_loop, settings.budget)
        floor_number = await _calibrate_async(floor_loop, settings.budget)
        best_row = best_floor = float("inf")
        for _ in range(settings.repeats):
            gc.collect()
            best_floor = min(best_floor, await _timed(floor_loop, floor_number) / floor_number * 1e9)
            gc.collect()
            best_row = min(best_row, await _timed(row_loop, row_number) / row_number * 1e9)
        return best_row, best_floor

    row_ns, floor_ns = asyncio.run(main())
    json_floor, ratio = bench.floor(FLOOR_JSON), row_ns / floor_ns
    return [
        Row(FLOOR_AGENTS, floor_ns, "ns/call", 1.0, floor_ns / json_floor, "-", "-"),
        Row(
            PYDANTIC_ROW,
            row_ns,
            "ns/call",
            ratio,
            row_ns / json_floor,
            f"<= {PYDANTIC_TARGET:.1f}x",
            broken or _verdict(ratio, PYDANTIC_TARGET),
        ),
    ]


def run(settings: Settings, only: Optional[list[str]] = None) -> list[Row]:
    """Measure every row once and return the report.

    Args:
        settings: repeats and loop budget.
        only: when given, measure only the rows whose name contains one of these
            substrings (the floors are always reported).
    """

    def wanted(name: str) -> bool:
        return not only or any(part in name for part in only)

    bench = Bench(settings)
    json_exec = ActionExecutor([Calc(), Add(), Weather()])
    tuple_exec = ActionExecutor([Calc(parser=TupleParser), Add(parser=TupleParser)])
    export_tools = [define_toolkit()() for _ in range(EXPORT_TOOLKITS)]
    export_exec = ActionExecutor(export_tools)
    fresh_unknown = fresh_unknown_commands()
    hook_exec = ActionExecutor([Calc()])
    hook_exec.register_hook(Hook())
    async_exec = AsyncActionExecutor([AsyncCalc()])
    batch_exec = AsyncActionExecutor([Nap()])
    bench.namespace.update(
        async_add=async_add,
        async_exec=async_exec,
        hook_exec=hook_exec,
        json_exec=json_exec,
        tuple_exec=tuple_exec,
        ActionExecutor=ActionExecutor,
        export_tools=export_tools,
        export_exec=export_exec,
        fresh_unknown=fresh_unknown,
    )
    ok, args_error = ActionStatusCode.SUCCESS, ActionStatusCode.ARGS_ERROR
    # (row name, executor, tool name, command, floor, target ratio, expected state)
    per_call: list[tuple[str, str, str, str, str, Optional[float], ActionStatusCode]] = [
        ("Calc.add json valid", "json_exec", "Calc.add", JSON_VALID, FLOOR_JSON, VALID_TARGET, ok),
        ("Add json valid", "json_exec", "Add", JSON_VALID, FLOOR_JSON, VALID_TARGET, ok),
        ("Calc.add tuple valid", "tuple_exec", "Calc.add", TUPLE_VALID, FLOOR_TUPLE, VALID_TARGET, ok),
        ("Add tuple valid", "tuple_exec", "Add", TUPLE_VALID, FLOOR_TUPLE, VALID_TARGET, ok),
        (
            "Calc.add json missing arg",
            "json_exec",
            "Calc.add",
            JSON_MISSING,
            FLOOR_JSON,
            INVALID_TARGET,
            args_error,
        ),
        (
            "Calc.add json unknown arg",
            "json_exec",
            "Calc.add",
            JSON_UNKNOWN,
            FLOOR_JSON,
            INVALID_TARGET,
            args_error,
        ),
        (
            "Calc.add json coercion",
            "json_exec",
            "Calc.add",
            JSON_COERCION,
            FLOOR_JSON,
            COERCION_TARGET,
            ok,
        ),
        (
            "Calc.add json type error",
            "json_exec",
            "Calc.add",
            JSON_TYPE_ERROR,
            FLOOR_JSON,
            INVALID_TARGET,
            args_error,
        ),
        (
            FRESH_UNKNOWN_ROW,
            "json_exec",
            "Calc.add",
            '{"a": 1, "b": 2, "y00000": 3}',
            FLOOR_JSON,
            None,
            args_error,
        ),
        (
            "Calc.add tuple too many",
            "tuple_exec",
            "Calc.add",
            TUPLE_TOO_MANY,
            FLOOR_TUPLE,
            INVALID_TARGET,
            args_error,
        ),
        (
            "Calc.add json malformed (json5)",
            "json_exec",
            "Calc.add",
            JSON_MALFORMED,
            FLOOR_JSON,
            None,
            args_error,
        ),
        (MIXED_ROW, "json_exec", "Weather.forecast", JSON_MIXED, FLOOR_MIXED, MIXED_TARGET, ok),
        (HOOK_ROW, "hook_exec", "Calc.add", JSON_VALID, FLOOR_JSON, HOOK_TARGET, ok),
    ]
    measured: list[tuple[str, float, str, Optional[float], Optional[str]]] = []
    # Rows whose command is an expression evaluated on every call, not a constant.
    expressions = {FRESH_UNKNOWN_ROW: "next(fresh_unknown)"}
    for name, executor, tool, command, floor, target, expected in per_call:
        if not wanted(name):
            continue
        broken = _check_state(bench.namespace[executor], tool, command, expected)
        argument = expressions.get(name, repr(command))
        value = bench.measure(f"{executor}({tool!r}, {argument})", floor)
        measured.append((name, value, floor, target, broken))
    if wanted(ASYNC_ROW):
        async_broken = _state_verdict(asyncio.run(async_exec("Calc.add", JSON_VALID)), ok)
        async_ns = measure_async(bench, f"await async_exec('Calc.add', {JSON_VALID!r})")
    # Rows without a floor ratio; measured before the floors are read, since their
    # floor samples count too.
    rows: list[Row] = []
    if wanted(BATCH_ROW):
        batch_ms, batch_broken = measure_batch(batch_exec, settings.repeats)
        batch_ratio = batch_ms / BATCH_SLEEP_MS
        rows.append(
            Row(
                BATCH_ROW,
                batch_ms,
                "ms",
                batch_ratio,
                None,
                f"<= {BATCH_TARGET:.1f}x",
                batch_broken or _verdict(batch_ratio, BATCH_TARGET),
            )
        )
    if wanted(DEFINE_ROW):
        define_us = bench.measure("define_toolkit()", FLOOR_JSON, per=APIS_PER_TOOLKIT) / 1e3
        rows.append(
            Row(
                DEFINE_ROW,
                define_us,
                "us/API",
                None,
                None,
                f"<= {DEFINE_TARGET_US:g} us/API",
                _verdict(define_us, DEFINE_TARGET_US),
            )
        )
    export_apis = EXPORT_TOOLKITS * APIS_PER_TOOLKIT
    for name, stmt in (
        (EXPORT_COLD_ROW, "ActionExecutor(export_tools).to_openai_tools()"),
        (EXPORT_CACHED_ROW, "export_exec.to_openai_tools()"),
    ):
        if not wanted(name):
            continue
        count = len(eval(stmt, bench.namespace))
        broken = None if count == export_apis else f"BROKEN ({count} tools, expected {export_apis})"
        value = bench.measure(stmt, FLOOR_JSON) / 1e3
        rows.append(Row(name, value, "us", None, None, "-", broken or "-"))
    if wanted(IMPORT_ROW):
        import_ms, requests_imported = measure_import()
        for code, ms in import_ms.items():
            target = IMPORT_TARGET_MS if code == IMPORT_ROW else None
            rows.append(
                Row(
                    code,
                    ms,
                    "ms",
                    None,
                    None,
                    f"<= {IMPORT_TARGET_MS:g} ms" if target else "-",
                    _verdict(ms, target),
                )
            )
        rows.append(
            Row(
                "requests imported",
                requests_imported,
                "",
                None,
                None,
                "False",
                "OVER" if requests_imported else "ok",
            )
        )

    rows += lenient_rows(bench, settings, wanted)
    rows += pydantic_rows(bench, wanted)
    json_floor, tuple_floor = bench.floor(FLOOR_JSON), bench.floor(FLOOR_TUPLE)
    head = [Row(FLOOR_JSON, json_floor, "ns/call", 1.0, 1.0, "-", "-")]
    head.append(Row(FLOOR_TUPLE, tuple_floor, "ns/call", 1.0, tuple_floor / json_floor, "-", "-"))
    if wanted(ASYNC_ROW):
        async_floor = min(bench.floors[FLOOR_ASYNC])
        head.append(Row(FLOOR_ASYNC, async_floor, "ns/call", 1.0, async_floor / json_floor, "-", "-"))
    own_floors = {FLOOR_JSON: json_floor, FLOOR_TUPLE: tuple_floor}
    if bench.floors[FLOOR_MIXED]:
        own_floors[FLOOR_MIXED] = mixed_floor = bench.floor(FLOOR_MIXED)
        head.append(Row(FLOOR_MIXED, mixed_floor, "ns/call", 1.0, mixed_floor / json_floor, "-", "-"))
    for name, value, floor, target, broken in measured:
        ratio = value / own_floors[floor]
        target_text = f"<= {target:.1f}x" if target is not None else "-"
        verdict = broken or _verdict(ratio, target)
        head.append(Row(name, value, "ns/call", ratio, value / json_floor, target_text, verdict))
    if wanted(ASYNC_ROW):
        async_ratio = async_ns / async_floor
        head.append(
            Row(
                ASYNC_ROW,
                async_ns,
                "ns/call",
                async_ratio,
                async_ns / json_floor,
                f"<= {ASYNC_TARGET:.1f}x",
                async_broken or _verdict(async_ratio, ASYNC_TARGET),
            )
        )
    return head + rows


def _format_value(row: Row) -> str:
    if isinstance(row.value, bool):
        return str(row.value)
    digits = 0 if row.unit == "ns/call" else 1
    return f"{row.value:,.{digits}f} {row.unit}"


def _format_ratio(row: Row) -> str:
    if row.ratio is None:
        return "-"
    text = f"{row.ratio:.2f}"
    if row.ratio_json is not None and abs(row.ratio_json - row.ratio) > 1e-9:
        text += f" ({row.ratio_json:.2f} json)"
    return text


def format_table(rows: list[Row], settings: Settings) -> str:
    """Render the rows as a plain-text table with a one-line header."""
    header = ("row", "time", "ratio", "target", "verdict")
    cells = [(r.row, _format_value(r), _format_ratio(r), r.target, r.verdict) for r in rows]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]
    right = {1, 2}

    def line(values: tuple[str, ...]) -> str:
        parts = [v.rjust(w) if i in right else v.ljust(w) for i, (v, w) in enumerate(zip(values, widths))]
        return "  ".join(parts).rstrip()

    title = (
        f"lagent_like core benchmark: Python {sys.version.split()[0]}, best of {settings.repeats}, "
        f"loops of ~{settings.budget * 1e3:g} ms, floor interleaved with every row"
        + (", per-call rows in CPU time" if settings.cpu_time else "")
    )
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([title, line(header), rule, *(line(c) for c in cells)])


def main(argv: Optional[list[str]] = None) -> int:
    """Parse the options, run the benchmark, print the report; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a fast smoke run (rough numbers)")
    parser.add_argument("--json", action="store_true", help="print the rows as a JSON list")
    parser.add_argument("--check", action="store_true", help="exit 1 if a row misses its target")
    parser.add_argument(
        "--only",
        action="append",
        metavar="TEXT",
        help="measure only the rows whose name contains TEXT (repeatable; the floors always run)",
    )
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time per-call rows in this thread's CPU time (steadier on a busy machine)",
    )
    options = parser.parse_args(argv)
    repeats, budget = (3, 0.004) if options.quick else (25, 0.01)
    settings = Settings(repeats, budget, cpu_time=options.cpu_time)
    rows = run(settings, options.only)
    if options.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
    else:
        print(format_table(rows, settings))
    missed = [r.row for r in rows if r.verdict not in ("ok", "-")]
    if options.check and missed:
        print(f"targets missed: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
