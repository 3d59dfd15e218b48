"""``PythonInterpreter``: modes, limits, hostile code, and no leaks.

Every hostile case must come back as a clean ``ActionReturn`` (a stuck one with the
timeout's own message) and leave this process able to make the next call. The fork bomb is
contained twice: ``RLIMIT_NPROC`` (the code runs as a fresh unprivileged uid when the
tests run as root, since the limit does not apply to root) and the sandbox's PID
namespace, which is checked from the host: no process the code started survives.
The attacks on the isolation itself are in test_sandbox_hostile.py.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator

import pytest
from sandbox_helpers import gone_within, host_pids_with, new_marker, sleeper

from lagent_like import ActionReturn, ActionStatusCode
from lagent_like.registry import get_tool_cls
from lagent_like.tools.interpreters.python_interpreter import PythonInterpreter

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

TIMEOUT = 3.0
TIMEOUT_MESSAGE = "the code did not finish within 3.0 s; the process was stopped"
PROCESS_LIMIT_MESSAGE = (
    "BlockingIOError: [Errno 11] Resource temporarily unavailable\n(the process limit is 16)"
)


@pytest.fixture(scope="module")
def interpreter() -> Iterator[PythonInterpreter]:
    tool = PythonInterpreter(timeout=TIMEOUT, memory_mb=256, max_processes=16)
    yield tool
    tool.close()


def call(tool: PythonInterpreter, code: str) -> ActionReturn:
    return tool(json.dumps({"command": code}))


def stat_fields(pid: str) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        # Fields after the command name, which may contain spaces and parentheses.
        return f.read().rsplit(")", 1)[1].split()


def pids_where(index: int, value: int) -> list[int]:
    """Pids whose stat field ``index`` (0 = state, 1 = ppid, 2 = pgrp) equals ``value``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = stat_fields(name)
        except OSError:
            continue
        if int(fields[index]) == value:
            found.append(int(name))
    return found


def children() -> list[int]:
    return pids_where(1, os.getpid())


def group_members(pgid: int) -> list[int]:
    return pids_where(2, pgid)


def wait_until_gone(pgid: int, seconds: float = 30.0) -> list[int]:
    # ``seconds`` only guards against a hang: the caller asserts the members left.
    end = time.monotonic() + seconds
    members = group_members(pgid)
    while members and time.monotonic() < end:
        time.sleep(0.05)
        members = group_members(pgid)
    return members


def assert_still_works(tool: PythonInterpreter) -> None:
    after = call(tool, "def solution():\n    return 'ok'")
    assert (after.state, after.result) == (ActionStatusCode.SUCCESS, [{"type": "text", "content": "ok"}])


# --- modes ---------------------------------------------------------------------------


def test_default_mode_returns_the_value_of_solution(interpreter: PythonInterpreter) -> None:
    ret = call(interpreter, "def solution():\n    return 6 * 7")
    assert ret.state == ActionStatusCode.SUCCESS
    assert ret.result == [{"type": "text", "content": "42"}]
    assert ret.type == "PythonInterpreter"


def test_answer_symbol_mode_returns_the_variable() -> None:
    tool = PythonInterpreter(answer_symbol="answer", answer_expr=None)
    try:
        assert call(tool, "answer = [1, 2] * 2").format_result() == "[1, 2, 1, 2]"
    finally:
        tool.close()


def test_answer_from_stdout_mode_returns_the_printed_output() -> None:
    tool = PythonInterpreter(answer_from_stdout=True)
    try:
        assert call(tool, "print('hello')\nprint(1 + 1)").format_result() == "hello\n2\n"
    finally:
        tool.close()


def test_without_expr_or_symbol_the_last_line_is_the_answer() -> None:
    tool = PythonInterpreter(answer_expr=None)
    try:
        assert call(tool, "import math\nmath.sqrt(100)").format_result() == "10.0"
    finally:
        tool.close()


def test_code_in_a_python_fence_is_the_code_that_runs(interpreter: PythonInterpreter) -> None:
    command = "Here is the code:\n```python\ndef solution():\n    return 'fenced'\n```\nDone."
    assert call(interpreter, command).format_result() == "fenced"


def test_an_exception_gives_a_short_traceback_of_the_code_only(interpreter: PythonInterpreter) -> None:
    ret = call(interpreter, "def solution():\n    return 1 / 0")
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg is not None
    assert ret.errmsg.startswith('File "<code>", line 2, in solution\n    return 1 / 0\n')
    assert ret.errmsg.endswith("ZeroDivisionError: division by zero")
    assert "python_interpreter" not in ret.errmsg


def test_code_without_solution_is_told_to_define_it(interpreter: PythonInterpreter) -> None:
    ret = call(interpreter, "x = 1")
    assert ret.errmsg == (
        "NameError: name 'solution' is not defined\n"
        "(the code must define `def solution():` returning the answer)"
    )


def test_the_tool_is_registered_and_described_by_its_run_docstring() -> None:
    assert get_tool_cls("PythonInterpreter") is PythonInterpreter
    description = PythonInterpreter.__tool_description__
    assert description["description"].startswith("This tool is a Python interpreter")
    assert [p["name"] for p in description["parameters"]] == ["command"]
    assert description["required"] == ["command"]


# --- isolation -----------------------------------------------------------------------


def test_the_code_sees_none_of_the_parents_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_API_KEY", "hunter2")
    tool = PythonInterpreter()
    try:
        ret = call(tool, "import os\ndef solution():\n    return os.environ.get('SECRET_API_KEY')")
        assert ret.format_result() == "None"
    finally:
        tool.close()


def test_every_call_starts_clean_in_a_fresh_directory(interpreter: PythonInterpreter) -> None:
    # Every call works in the sandbox's /mnt/data, emptied after each call (it was a fresh
    # host directory per call before the sandbox).
    code = (
        "import os, builtins\n"
        "seen = getattr(builtins, 'marker', None)\n"
        "builtins.marker = 1\n"
        "before = sorted(os.listdir('.'))\n"
        "open('left_behind', 'w').close()\n"
        "def solution():\n"
        "    return (seen, os.getcwd(), before)"
    )
    first = call(interpreter, code).format_result()
    second = call(interpreter, code).format_result()
    assert first == second == "(None, '/mnt/data', [])"


def test_the_answer_is_cut_with_a_notice() -> None:
    tool = PythonInterpreter(max_output_chars=10)
    try:
        ret = call(tool, "def solution():\n    return 'x' * 25")
        assert (
            ret.format_result() == "x" * 10 + "\n... [output truncated: 25 characters, showing the first 10]"
        )
    finally:
        tool.close()


def test_a_big_file_hits_the_file_size_limit() -> None:
    tool = PythonInterpreter(max_file_mb=1)
    try:
        ret = call(tool, "with open('big', 'w') as f:\n    f.write('x' * 2_000_000)")
        assert ret.errmsg is not None
        assert ret.errmsg.endswith("OSError: [Errno 27] File too large\n(the file size limit is 1 MB)")
    finally:
        tool.close()


def test_cpu_time_limit_stops_the_code() -> None:
    # The wall-clock timeout is far away (a loaded machine gives the code its CPU second
    # slowly): the message says which limit stopped the code.
    tool = PythonInterpreter(cpu_seconds=1, timeout=60)
    try:
        ret = call(tool, "while True:\n    pass")
        assert ret.errmsg == "the code used more than its CPU time limit of 1 s; the process was stopped"
    finally:
        tool.close()


# --- hostile code --------------------------------------------------------------------

HOSTILE = {
    "infinite_loop": ("while True:\n    pass", TIMEOUT_MESSAGE),
    "os_exit": (
        "import os\nos._exit(3)",
        "the process running the code ended (exit status 3) before producing an answer",
    ),
    "sys_exit": ("import sys\nsys.exit()", "the code called sys.exit() before producing an answer"),
    "sys_exit_with_code": (
        "import sys\nsys.exit(2)",
        "the code called sys.exit(2) before producing an answer",
    ),
    "segfault": (
        "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)",
        "the process running the code crashed (SIGSEGV) before producing an answer",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_code_returns_a_clean_error_in_time(interpreter: PythonInterpreter, case: str) -> None:
    code, message = HOSTILE[case]
    ret = call(interpreter, code)
    assert (ret.state, ret.errmsg) == (ActionStatusCode.API_ERROR, message)
    assert_still_works(interpreter)


@pytest.mark.parametrize(
    ("case", "code", "ending"),
    [
        ("memory_bomb", "x = ' ' * 10**10", "MemoryError\n(the memory limit is 256 MB)"),
        ("deep_recursion", "def f():\n    return f()\nf()", "(the recursion is too deep)"),
        ("keyboard_interrupt", "raise KeyboardInterrupt", "KeyboardInterrupt"),
        ("printed_flood", "for _ in range(100):\n    print('x' * 1_000_000)", "is not defined\n"),
    ],
)
def test_hostile_code_raising_gives_its_traceback(
    interpreter: PythonInterpreter, case: str, code: str, ending: str
) -> None:
    ret = call(interpreter, code)
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg is not None
    if case == "printed_flood":
        assert ret.errmsg.startswith("NameError: name 'solution' is not defined\n")
    else:
        assert ret.errmsg.startswith('File "<code>"')
        assert ret.errmsg.endswith(ending)
    assert_still_works(interpreter)


def test_100_mb_of_printed_output_is_truncated_with_a_notice() -> None:
    tool = PythonInterpreter(answer_from_stdout=True, timeout=TIMEOUT, max_output_chars=1000)
    try:
        ret = call(tool, "for _ in range(100):\n    print('x' * 1_000_000)")
        assert ret.format_result() == (
            "x" * 1000 + "\n... [output truncated: 100000100 characters, showing the first 1000]"
        )
    finally:
        tool.close()


@pytest.mark.parametrize(
    "closing",
    [
        "import sys\nsys.stdout.close()\nsys.stderr.close()",
        "import os\nos.close(0)\nos.close(1)\nos.close(2)",
    ],
)
def test_code_closing_its_streams_still_answers(interpreter: PythonInterpreter, closing: str) -> None:
    ret = call(interpreter, closing + "\nprint('after')\ndef solution():\n    return 'still here'")
    assert ret.format_result() == "still here"
    assert_still_works(interpreter)


def test_a_fork_bomb_is_contained_and_every_process_killed(interpreter: PythonInterpreter) -> None:
    marker = new_marker()
    code = f"import os, sys\nos.execv(sys.executable, [sys.executable, '-c', 'import os\\nwhile True:\\n    try: os.fork()\\n    except OSError: pass', {marker!r}])"
    ret = call(interpreter, code)
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == TIMEOUT_MESSAGE
    assert gone_within(marker) == set()
    assert_still_works(interpreter)


def test_the_process_limit_is_reported(interpreter: PythonInterpreter) -> None:
    code = "import os, time\nfor _ in range(100):\n    if os.fork() == 0:\n        time.sleep(100)"
    ret = call(interpreter, code)
    assert ret.errmsg is not None and ret.errmsg.endswith(PROCESS_LIMIT_MESSAGE)
    assert_still_works(interpreter)


def test_a_timeout_kills_everything_the_code_started() -> None:
    tool = PythonInterpreter(timeout=1)
    marker = new_marker()
    code = f"import subprocess, sys, time\nfor _ in range(3):\n    subprocess.Popen({sleeper(marker)}, start_new_session=True)\ntime.sleep(1000)"
    try:
        ret = call(tool, code)
        assert ret.errmsg == "the code did not finish within 1.0 s; the process was stopped"
        assert gone_within(marker) == set()
    finally:
        tool.close()


def test_a_background_process_does_not_outlive_a_finished_call(interpreter: PythonInterpreter) -> None:
    marker = new_marker()
    code = (
        "import subprocess, sys\n"
        f"subprocess.Popen({sleeper(marker)}, start_new_session=True)\n"
        "def solution():\n"
        "    return 'done'"
    )
    # A call waiting for the sleeper would end at the timeout, with its message.
    assert call(interpreter, code).format_result() == "done"
    # The answer returns first; the clean-up is done before the slot's next job.
    assert_still_works(interpreter)
    assert host_pids_with(marker) == set()


# --- workers -------------------------------------------------------------------------


def test_a_killed_worker_is_replaced_without_failing_the_next_call() -> None:
    tool = PythonInterpreter()
    try:
        assert call(tool, "def solution():\n    return 1").format_result() == "1"
        (worker,) = tool._pool.idle
        os.kill(worker.proc.pid, signal.SIGKILL)
        worker.proc.wait()
        assert call(tool, "def solution():\n    return 2").format_result() == "2"
        assert tool._pool.idle[0] is not worker
    finally:
        tool.close()


def test_close_stops_the_workers_and_later_calls_fail_cleanly() -> None:
    tool = PythonInterpreter()
    assert call(tool, "def solution():\n    return 1").format_result() == "1"
    (worker,) = tool._pool.idle
    tool.close()
    assert worker.proc.poll() is not None
    ret = call(tool, "def solution():\n    return 1")
    assert (ret.state, ret.errmsg) == (ActionStatusCode.API_ERROR, "the Python interpreter is closed")


def test_200_calls_leak_no_process_or_file_descriptor() -> None:
    tool = PythonInterpreter(answer_from_stdout=True)
    try:
        assert call(tool, "print(1)").format_result() == "1\n"
        processes, fds = len(children()), len(os.listdir("/proc/self/fd"))
        for _ in range(200):
            assert call(tool, "print(1)").format_result() == "1\n"
        assert (len(children()), len(os.listdir("/proc/self/fd"))) == (processes, fds)
        (worker,) = tool._pool.idle
    finally:
        tool.close()
    assert worker.proc.pid not in children()
