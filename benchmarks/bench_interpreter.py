"""A warm ``PythonInterpreter`` call next to the floor of any fork-per-call worker (a report, not a test).

Run ``python benchmarks/bench_interpreter.py`` (about ten seconds), ``--quick`` for a
smoke run, ``--json`` to print the rows as JSON, ``--rounds N`` to choose how many
calls each row gets.

Method:

* **The floor** is a bare fork-per-call worker, the least any interpreter that gives
  each call a fresh process pays: a pre-started Python process (``python -I -S``, as
  the interpreter's own workers) reads a job from a pipe, forks a child that runs
  ``exec`` of the code with ``sys.stdout`` captured and writes the answer to a pipe the
  caller reads, then reaps the child. No sandbox, no limits, no clean-up.
* **The rows** are warm calls of ``PythonInterpreter(answer_from_stdout=True)`` through
  the tool (``tool('{"command": "print(1)"}')``, string in, ``ActionReturn`` out), with
  the default ``isolation='sandbox'`` (namespaces, seccomp, rlimits, a fresh uid and IPC
  namespace per job as root, the scratch directories emptied after each job) and with
  ``isolation='process'`` (rlimits only). Each tool makes one call before timing, so
  its sandbox has started.
* **Back-to-back** times a sandboxed call made right after the same tool's previous
  call returned, so the zygote's clean-up after that call and the set-up of the next
  call's process (which the other rows find done) are on its path.
* The floor and the rows are timed alternately (floor, sandbox, process, back-to-back,
  floor, ...), ``N`` calls each, so they share the machine's conditions; each tool is idle
  during the other rows' calls, as a tool is between an agent's turns. Each row reports its best
  and its median wall time; its ratio is best to best (the call least disturbed by
  other processes on a shared machine) and, in brackets, median to median. The goal of
  issue 25 is a warm call within 2.5x the floor.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Callable

from lagent_like import PythonInterpreter

#: The bare worker: read a length-prefixed job from stdin, fork, ``exec`` it in the
#: child, which writes the captured output (length-prefixed) to stdout; reap the child.
_FLOOR_WORKER = r"""
import io, os, sys

def read_exact(size):
    data = b""
    while len(data) < size:
        chunk = os.read(0, size - len(data))
        if not chunk:
            raise SystemExit
        data += chunk
    return data

while True:
    code = read_exact(int.from_bytes(read_exact(4), "little")).decode()
    pid = os.fork()
    if pid == 0:
        sys.stdout = io.StringIO()
        exec(compile(code, "<code>", "exec"), {"__name__": "__main__"})
        answer = sys.stdout.getvalue().encode()
        os.write(1, len(answer).to_bytes(4, "little") + answer)
        os._exit(0)
    os.waitpid(pid, 0)
"""

CODE = "print(1)"


class FloorWorker:
    """The bare fork-per-call worker, pre-started; :meth:`call` is one job's round trip."""

    def __init__(self) -> None:
        """Start the worker."""
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _FLOOR_WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.job_fd = self.proc.stdin.fileno()
        self.reply_fd = self.proc.stdout.fileno()

    def call(self, code: str) -> str:
        """Run ``code`` in a fresh child of the worker; what it printed."""
        data = code.encode()
        os.write(self.job_fd, len(data).to_bytes(4, "little") + data)
        size = int.from_bytes(self._read(4), "little")
        return self._read(size).decode()

    def _read(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = os.read(self.reply_fd, size - len(data))
            if not chunk:
                raise RuntimeError("the floor worker ended")
            data += chunk
        return data

    def close(self) -> None:
        """Stop the worker and reap it."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()
        assert self.proc.stdout is not None
        self.proc.stdout.close()


#: The row of a call made right after the same tool's previous call returned.
BACK_TO_BACK = "PythonInterpreter print(1), back-to-back, isolation='sandbox'"


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1e3


def _after(first: Callable[[], object], call: Callable[[], object]) -> float:
    """The time of ``call`` made right after ``first`` returned."""
    first()
    return _timed(call)


def measure(rounds: int) -> list[dict[str, object]]:
    """The report rows: name, best and median milliseconds, ratios to the floor."""
    floor = FloorWorker()
    tools = {
        "PythonInterpreter print(1), warm, isolation='sandbox'": PythonInterpreter(
            answer_expr=None, answer_from_stdout=True
        ),
        "PythonInterpreter print(1), warm, isolation='process'": PythonInterpreter(
            answer_expr=None, answer_from_stdout=True, isolation="process"
        ),
    }
    command = json.dumps({"command": CODE})
    sandboxed = next(iter(tools.values()))
    rows: dict[str, Callable[[], float]] = {
        "bare fork-per-call worker (floor)": lambda: _timed(lambda: floor.call(CODE))
    }
    for name, tool in tools.items():
        rows[name] = lambda tool=tool: _timed(lambda: tool(command))
    rows[BACK_TO_BACK] = lambda: _after(lambda: sandboxed(command), lambda: sandboxed(command))
    try:
        for name, tool in tools.items():
            ret = tool(command)
            assert ret.result == [{"type": "text", "content": "1\n"}], (name, ret)
        assert floor.call(CODE) == "1\n"
        times: dict[str, list[float]] = {name: [] for name in rows}
        for _ in range(rounds):
            for name, row in rows.items():
                times[name].append(row())
    finally:
        floor.close()
        for tool in tools.values():
            tool.close()
    floor_best = min(times["bare fork-per-call worker (floor)"])
    floor_median = statistics.median(times["bare fork-per-call worker (floor)"])
    return [
        {
            "row": name,
            "best_ms": round(min(samples), 3),
            "median_ms": round(statistics.median(samples), 3),
            "ratio": round(min(samples) / floor_best, 2),
            "median_ratio": round(statistics.median(samples) / floor_median, 2),
        }
        for name, samples in times.items()
    ]


def main() -> None:
    """Print the report (``--json`` for machine-readable rows)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls per row")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--rounds", type=int, default=0, help="calls per row (default 300, 20 with --quick)")
    args = parser.parse_args()
    rows = measure(args.rounds or (20 if args.quick else 300))
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{'row':62s} {'best ms':>8s} {'median':>8s}  ratio to the floor (goal <= 2.5)")
    for row in rows:
        print(
            f"{row['row']:62s} {row['best_ms']:8.3f} {row['median_ms']:8.3f}"
            f"  {row['ratio']:.2f}x  ({row['median_ratio']:.2f}x median)"
        )


if __name__ == "__main__":
    main()
