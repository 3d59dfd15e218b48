"""Soak the executor with random and mutated arguments: no call may raise.

Run ``python benchmarks/fuzz_executor.py [-n N] [--seed S]`` (default 100,000 calls and
a fresh seed, printed first so that a run can be repeated exactly with ``--seed``).

Two executors hold the same toolkit (typed APIs: ``int``, ``float``, ``str``, ``bool``,
``Literal``, ``Optional[int]``, ``list[int]``, ``dict[str, int]``; one API that raises,
one ``async`` API) and a simple tool, one with ``JsonParser`` and one with
``TupleParser``. Each call picks an executor, a name (an API's name, its
function-calling alias, or an unknown, dotted, misspelt or random name) and an argument
string: a valid JSON object or Python tuple for the API (sometimes in the other
parser's syntax), put through zero to four mutations (byte flips, deletions, insertions
of ``{}[]",:'`` and the like, truncation, duplication, random unicode, huge numbers,
deep nesting, code fences, prose, quote swaps, Python literals, wrong-typed values,
renamed keys), or random text; a few calls send a Python object instead of text.

Every call must return exactly one ``ActionReturn`` whose ``state`` is an
``ActionStatusCode``. The script counts returned and raised calls (printing the first
few exceptions with their inputs), records returning something else as malformed,
notes ``ARGS_ERROR`` messages that do not start with the API's name (a message-quality
finding, not a failure), and ends with the line::

    fuzz: N calls, N returned, N raised, N states {...}, N calls/s

It exits 1 when a call raised or returned a malformed record, else 0.
"""

import argparse
import asyncio
import json
import random
import re
import sys
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from typing import Any, Callable, Literal, Optional

from lagent_like import ActionExecutor, ActionReturn, ActionStatusCode, BaseAction, TupleParser, tool_api

#: Exceptions printed in full; the rest are only counted.
SHOWN = 5
#: Upper bounds that keep one call cheap enough for a 100,000-call soak.
MAX_NESTING = 3000
MAX_DIGITS = 5000
MAX_RANDOM_TEXT = 2000

KNOWN_STATES = {int(code): code.name for code in ActionStatusCode}


class FuzzKit(BaseAction, register=False):
    """A toolkit with typed, failing and async APIs."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b

    @tool_api
    def scale(self, x: float, factor: float = 1.0) -> float:
        """Multiply a number.

        Args:
            x: the number
            factor: the multiplier
        """
        return x * factor

    @tool_api
    def greet(self, name: str, excited: bool = False) -> str:
        """Greet someone.

        Args:
            name: who to greet
            excited: whether to shout
        """
        return f"Hello, {name}{'!' if excited else '.'}"

    @tool_api
    def pick(self, unit: Literal["C", "F"], n: Optional[int] = None) -> str:
        """Pick a unit.

        Args:
            unit: the temperature unit
            n: an optional count
        """
        return f"{unit}{n}"

    @tool_api
    def total(self, nums: list[int]) -> int:
        """Sum integers.

        Args:
            nums: the integers
        """
        return sum(nums)

    @tool_api
    def lookup(self, table: dict[str, int], key: str) -> Optional[int]:
        """Look a key up.

        Args:
            table: the mapping
            key: the key
        """
        return table.get(key)

    @tool_api
    def explode(self, message: str = "boom") -> str:
        """Always raise.

        Args:
            message: the exception's message
        """
        raise RuntimeError(message)

    @tool_api
    async def wait(self, value: int = 0) -> int:
        """Return a value from a coroutine.

        Args:
            value: what to return
        """
        await asyncio.sleep(0)
        return value


class FuzzEcho(BaseAction, register=False):
    def run(self, text: str, times: int = 1) -> str:
        """Echo a text with a count (never repeated: the count may be huge).

        Args:
            text: the text
            times: the count
        """
        return f"{text} x{times}"


#: One valid argument set per API, the seeds every mutation starts from.
SEEDS: dict[str, dict[str, Any]] = {
    "FuzzKit.add": {"a": 1, "b": 2},
    "FuzzKit.scale": {"x": 2.5, "factor": 4},
    "FuzzKit.greet": {"name": "Ada", "excited": True},
    "FuzzKit.pick": {"unit": "C", "n": 3},
    "FuzzKit.total": {"nums": [1, 2, 3]},
    "FuzzKit.lookup": {"table": {"a": 1, "b": 2}, "key": "a"},
    "FuzzKit.explode": {"message": "boom"},
    "FuzzKit.wait": {"value": 7},
    "FuzzEcho": {"text": "héllo wörld", "times": 2},
}
ODD_NAMES = [
    "",
    ".",
    "..",
    "FuzzKit",
    "FuzzKit.",
    "FuzzKit.nope",
    "FuzzKit.add.extra",
    "FuzzKit..add",
    "fuzzkit.ADD",
    "FuzzEcho.run",
    "FuzzEcho.",
    "A.B.C",
    "NoAction",
    "FinishAction",
    "InvalidAction",
    "FuzzKit__nope",
]
TOKENS = [*"{}[]\",:'()\\ \n\t", "//", "/*", "*/", "```", "```json\n", "True", "None", "null", "NaN"]
ODD_CHARS = ["\x00", "\ud800", "\udfff", "\u202e", "\u2028", "\ufeff", "é", "😀", "中", "\x7f", "\r"]
WRONG_VALUES = ['"x"', "null", "[]", "{}", "true", "1.5", '"1"', '[1, "a"]', '{"k": "v"}', "-0", "1e999"]


def preview(value: Any, limit: int = 160) -> str:
    """``repr(value)`` cut to ``limit`` characters, even when ``repr`` fails."""
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - any repr may fail; this only prints
        text = f"<{type(value).__name__}, repr failed: {type(exc).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Fuzzer:
    """Builds the calls from one seeded random generator.

    Args:
        rng: the generator; the same seed gives the same calls.
        aliases: canonical name -> function-calling alias, for the names in :data:`SEEDS`.
    """

    def __init__(self, rng: random.Random, aliases: dict[str, str]) -> None:
        self.rng = rng
        self.aliases = aliases
        self.mutations: list[Callable[[str], str]] = [
            self.flip,
            self.delete,
            self.insert,
            self.truncate,
            self.duplicate,
            self.unicode,
            self.huge_number,
            self.nest,
            self.fence,
            self.swap_quotes,
            self.python_literals,
            self.wrong_value,
            self.rename_key,
        ]

    # -- names ----------------------------------------------------------------------

    def name(self) -> str:
        """An API name (60%), its alias (15%), or an odd, misspelt or random name."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.6:
            return rng.choice(list(SEEDS))
        if roll < 0.75:
            return self.aliases[rng.choice(list(SEEDS))]
        if roll < 0.9:
            return rng.choice(ODD_NAMES)
        if roll < 0.95:
            return self.flip(rng.choice(list(SEEDS)))
        return self.random_text(rng.randint(0, 40))

    # -- inputs ---------------------------------------------------------------------

    def command(self, name: str, tuple_syntax: bool) -> Any:
        """The argument for a call to ``name`` on an executor with the given syntax."""
        rng = self.rng
        roll = rng.random()
        seed = SEEDS.get(name.rstrip(".").removesuffix(".run")) or SEEDS[rng.choice(list(SEEDS))]
        if roll < 0.05:
            return self.python_object(seed)
        if roll < 0.15:
            return self.random_text(rng.randint(0, MAX_RANDOM_TEXT))
        if rng.random() < 0.2:
            tuple_syntax = not tuple_syntax
        text = repr(tuple(seed.values())) if tuple_syntax else json.dumps(seed, ensure_ascii=False)
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 4])):
            text = rng.choice(self.mutations)(text)
        return text

    def python_object(self, seed: dict[str, Any]) -> Any:
        """A Python object instead of text: the seed as a dict or tuple, maybe with an odd value."""
        rng = self.rng
        args = dict(seed)
        if args and rng.random() < 0.7:
            key = rng.choice(list(args))
            args[key] = rng.choice(
                [
                    None,
                    -1,
                    2**70,
                    float("nan"),
                    float("inf"),
                    [1, "a"],
                    {"k": 1},
                    (1, 2),
                    {1, 2},
                    b"\x00",
                    "x",
                ]
            )
        return rng.choice([args, tuple(args.values()), None, list(args.values()), 42, b"{}"])

    def random_text(self, size: int) -> str:
        """``size`` characters: JSON punctuation and odd characters, any code point, or ASCII."""
        rng = self.rng
        kind = rng.random()
        if kind < 0.4:
            return "".join(rng.choice(TOKENS + ODD_CHARS + ["a", "1", " "]) for _ in range(size))
        if kind < 0.7:
            return "".join(chr(rng.randint(0, 0x2FFFF)) for _ in range(size))
        return "".join(chr(rng.randint(32, 126)) for _ in range(size))

    # -- mutations ------------------------------------------------------------------

    def _at(self, text: str) -> int:
        return self.rng.randint(0, len(text))

    def flip(self, text: str) -> str:
        """Flip one of the seven low bits of one character (a byte flip, for ASCII)."""
        if not text:
            return text
        at = self.rng.randrange(len(text))
        return text[:at] + chr(ord(text[at]) ^ (1 << self.rng.randrange(7))) + text[at + 1 :]

    def delete(self, text: str) -> str:
        """Remove a span of one to three characters."""
        at = self._at(text)
        return text[:at] + text[at + self.rng.randint(1, 3) :]

    def insert(self, text: str) -> str:
        """Insert one of ``{}[]",:'`` and other JSON and Python punctuation."""
        at = self._at(text)
        return text[:at] + self.rng.choice(TOKENS) + text[at:]

    def truncate(self, text: str) -> str:
        """Cut the text at a random point, as a model cut off mid-answer."""
        return text[: self._at(text)]

    def duplicate(self, text: str) -> str:
        """Repeat a span of the text in place."""
        at = self._at(text)
        return text[:at] + text[at : at + self.rng.randint(1, 20)] * self.rng.randint(2, 4) + text[at:]

    def unicode(self, text: str) -> str:
        """Insert NULs, lone surrogates, direction marks, emoji or any code point."""
        at = self._at(text)
        chars = [self.rng.choice(ODD_CHARS) for _ in range(self.rng.randint(1, 4))]
        chars.append(chr(self.rng.randint(0, 0x10FFFF)))
        return text[:at] + "".join(chars) + text[at:]

    def huge_number(self, text: str) -> str:
        """Replace a number with a huge, overflowing or hexadecimal one."""
        digits = self.rng.randint(20, MAX_DIGITS)
        number = self.rng.choice(
            ["9" * digits, "-" + "9" * digits, "1e999", "-1e400", "1" + "0" * 400, "0x" + "f" * (digits // 2)]
        )
        match = re.search(r"\d+(\.\d+)?", text)
        if match is None:
            at = self._at(text)
            return text[:at] + number + text[at:]
        return text[: match.start()] + number + text[match.end() :]

    def nest(self, text: str) -> str:
        """Wrap the text (or a value) in thousands of brackets or objects."""
        depth = self.rng.randint(2, MAX_NESTING)
        opener, closer = self.rng.choice([("[", "]"), ("{", "}"), ("(", ")"), ('{"a": ', "}")])
        close = closer * depth if self.rng.random() < 0.5 else ""
        return opener * depth + text + close

    def fence(self, text: str) -> str:
        """Put the text in a code fence or in prose, as chat models do."""
        template = self.rng.choice(
            ["```json\n{}\n```", "```\n{}\n```", "```json\n{}", "Arguments: {} -- done.", "{}\n```", "`{}`"]
        )
        return template.replace("{}", text, 1)

    def swap_quotes(self, text: str) -> str:
        """Exchange double and single quotes."""
        return text.translate(str.maketrans({'"': "'", "'": '"'}))

    def python_literals(self, text: str) -> str:
        """Write JSON literals the Python way, or the reverse."""
        pairs = [("true", "True"), ("false", "False"), ("null", "None")]
        if self.rng.random() < 0.5:
            pairs = [(b, a) for a, b in pairs]
        for old, new in pairs:
            text = text.replace(old, new)
        return text

    def wrong_value(self, text: str) -> str:
        """Replace a value with one of another JSON type."""
        match = re.search(r"(?<=: )[^,}]+|(?<=\()[^,)]+", text)
        if match is None:
            return text
        return text[: match.start()] + self.rng.choice(WRONG_VALUES) + text[match.end() :]

    def rename_key(self, text: str) -> str:
        """Rename an argument (an unknown argument, and a missing one)."""
        keys = list(re.finditer(r'"(\w+)":', text))
        if not keys:
            return text
        match = self.rng.choice(keys)
        new = self.rng.choice(["aa", "A", "x_y", "", "nums ", "ünï", match.group(1) + "_"])
        return text[: match.start(1)] + new + text[match.end(1) :]


def _label(name: str) -> str:
    """The name an ``ARGS_ERROR`` message should start with for a call to ``name``."""
    return "FuzzEcho" if name in ("FuzzEcho", "FuzzEcho.", "FuzzEcho.run") else name


def calls(n: int, seed: int) -> Iterator[tuple[ActionExecutor, str, str, Any]]:
    """The ``n`` calls of a run, fixed by ``seed``.

    Yields:
        ``(executor, name, canonical, command)``: ``canonical`` is the ``Tool.api`` name
        behind an alias, else ``name`` itself.
    """
    rng = random.Random(seed)
    json_exec = ActionExecutor([FuzzKit(), FuzzEcho()])
    tuple_exec = ActionExecutor([FuzzKit(parser=TupleParser), FuzzEcho(parser=TupleParser)])
    fuzzer = Fuzzer(rng, {name: json_exec.alias_of(name) for name in SEEDS})
    canonical = {alias: name for name, alias in fuzzer.aliases.items()}
    for _ in range(n):
        tuple_syntax = rng.random() < 0.5
        name = fuzzer.name()
        api = canonical.get(name, name)
        yield (tuple_exec if tuple_syntax else json_exec), name, api, fuzzer.command(api, tuple_syntax)


def run(n: int, seed: int) -> int:
    """Make ``n`` calls, print the findings and the summary; return the exit status."""
    states: Counter[str] = Counter()
    returned = raised = malformed = unlabelled = 0
    slowest = (0.0, "", "")
    start = time.perf_counter()
    for executor, name, api, command in calls(n, seed):
        began = time.perf_counter()
        try:
            ret = executor(name, command)
        except KeyboardInterrupt:
            raise
        except BaseException:  # noqa: BLE001 - counting what escapes is the point
            raised += 1
            if raised <= SHOWN:
                print(f"RAISED on {name!r} with {preview(command)}:", file=sys.stderr)
                traceback.print_exc(limit=6, file=sys.stderr)
            continue
        elapsed = time.perf_counter() - began
        if elapsed > slowest[0]:
            slowest = (elapsed, name, preview(command, 80))
        if type(ret) is not ActionReturn or int(ret.state) not in KNOWN_STATES:
            malformed += 1
            if malformed <= SHOWN:
                print(f"MALFORMED on {name!r} with {preview(command)}: {preview(ret)}", file=sys.stderr)
            continue
        returned += 1
        states[KNOWN_STATES[int(ret.state)]] += 1
        label = _label(api)
        if ret.state == ActionStatusCode.ARGS_ERROR and not str(ret.errmsg).startswith(f"{label}: "):
            unlabelled += 1
            if unlabelled <= SHOWN:
                print(f"note: ARGS_ERROR not naming {label!r}: {preview(ret.errmsg)}", file=sys.stderr)
    seconds = time.perf_counter() - start
    if unlabelled:
        print(f"{unlabelled} ARGS_ERROR messages do not start with the API's name")
    if malformed:
        print(f"{malformed} calls returned something other than an ActionReturn with a known state")
    print(f"slowest call: {slowest[0] * 1e3:.1f} ms, {slowest[1]!r} with {slowest[2]}")
    ordered = dict(sorted(states.items(), key=lambda item: -item[1]))
    print(
        f"fuzz: {n} calls, {returned} returned, {raised} raised, {len(ordered)} states {ordered}, "
        f"{n / max(seconds, 1e-9):.0f} calls/s"
    )
    return 1 if raised or malformed else 0


def main(argv: Optional[list[str]] = None) -> int:
    """Parse the options and run the soak; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("-n", type=int, default=100_000, help="number of calls (default 100,000)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the run (default: a fresh one)")
    options = parser.parse_args(argv)
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"seed: {seed}")
    return run(options.n, seed)


if __name__ == "__main__":
    sys.exit(main())
