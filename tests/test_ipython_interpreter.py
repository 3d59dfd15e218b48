"""IPythonInterpreter (SPEC 9): a notebook-like session per executor session, in its own process."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sandbox_helpers import appeared_within, gone_within, new_marker, sleeper

from lagent_like import ActionExecutor, ActionStatusCode
from lagent_like.actions.parser import JsonParser, TupleParser
from lagent_like.schema import ActionReturn
from lagent_like.tools.interpreters.ipython_interpreter import IPythonInterpreter

SUCCESS = ActionStatusCode.SUCCESS
API_ERROR = ActionStatusCode.API_ERROR

SEED_DESCRIPTION = {
    "name": "IPythonInterpreter",
    "description": "When you send a message containing Python code to python, it will be executed in a "
    "stateful Jupyter notebook environment. python will respond with the output of the execution or time "
    "out after 60.0 seconds. The drive at '/mnt/data' can be used to save and persist user files. Internet "
    "access for this session is disabled. Do not make external web requests or API calls as they will fail.",
    "parameters": [
        {"name": "command", "type": "STRING", "description": "Python code"},
        {
            "name": "timeout",
            "type": "NUMBER",
            "description": "Upper bound of waiting time for Python script execution.",
        },
    ],
    "required": ["command"],
}

TEN = [{"type": "text", "content": "10.0"}]


@pytest.fixture
def tool() -> Iterator[IPythonInterpreter]:
    action = IPythonInterpreter()
    yield action
    action.close()


def text_of(ret: ActionReturn) -> Any:
    assert ret.state == SUCCESS, ret
    assert ret.result is not None and len(ret.result) == 1
    return ret.result[0]["content"]


def children() -> set[int]:
    """Pids of this process's children, zombies included."""
    found = set()
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as status:
                for line in status:
                    if line.startswith("PPid:"):
                        if line.split()[1] == me:
                            found.add(int(entry))
                        break
        except OSError:
            continue
    return found


# --- seed 004 ----------------------------------------------------------------------------------------


def test_seed_json_parser_examples_give_the_last_expression_value(tool: IPythonInterpreter) -> None:
    assert tool('{"command": "import math;math.sqrt(100)"}').result == TEN
    assert tool({"command": "import math;math.sqrt(100)"}).result == TEN


def test_seed_tuple_parser_examples_give_the_last_expression_value() -> None:
    action = IPythonInterpreter(parser=TupleParser)
    try:
        assert action('("import math;math.sqrt(100)", )').result == TEN
        assert action(("import math;math.sqrt(100)",)).result == TEN
    finally:
        action.close()


def test_description_is_lagents_and_hides_the_context_parameter() -> None:
    action = IPythonInterpreter()
    expected = dict(SEED_DESCRIPTION, parameter_description=JsonParser.PARAMETER_DESCRIPTION)
    assert action.description == expected
    assert ActionExecutor([action]).get_actions_info() == [expected]


def test_seed_executor_call(tool: IPythonInterpreter) -> None:
    executor = ActionExecutor([tool])
    assert executor("IPythonInterpreter", '{"command": "import math;math.sqrt(100)"}').result == TEN


# --- notebook semantics -------------------------------------------------------------------------------


def test_state_is_kept_within_a_session_and_isolated_between_sessions(tool: IPythonInterpreter) -> None:
    executor = ActionExecutor([tool])
    assert text_of(executor("IPythonInterpreter", {"command": "x = 1\nimport math"}, session_id="a")) == ""
    assert text_of(executor("IPythonInterpreter", {"command": "x + 1, math.pi > 3"}, session_id="a")) == (
        "(2, True)"
    )
    other = executor("IPythonInterpreter", {"command": "x"}, session_id="b")
    assert other.state == API_ERROR
    assert other.errmsg == (
        "Traceback (most recent call last):\n  Cell In[1], line 1\n    x\nNameError: name 'x' is not defined"
    )
    # A direct call (no executor) is the default session, separate from both.
    assert tool({"command": "'x' in dir()"}).result == [{"type": "text", "content": "False"}]


def test_printed_output_comes_before_the_value(tool: IPythonInterpreter) -> None:
    code = "import sys\nprint('one')\nprint('two', file=sys.stderr)\n'value'"
    assert text_of(tool({"command": code})) == "one\ntwo\n'value'"
    assert text_of(tool({"command": "print('no newline', end='')\n42"})) == "no newline\n42"


def test_a_none_or_non_expression_ending_shows_only_the_output(tool: IPythonInterpreter) -> None:
    assert text_of(tool({"command": "print('hi')"})) == "hi\n"
    assert text_of(tool({"command": "y = 5"})) == ""
    assert text_of(tool({"command": "None"})) == ""
    assert text_of(tool({"command": "y * 2"})) == "10"
    assert text_of(tool({"command": "_ + 1"})) == "11"


def test_huge_output_is_cut_with_a_notice(tool: IPythonInterpreter) -> None:
    text = text_of(tool({"command": "print('a' * 100_005)"}))
    assert text == "a" * 100_000 + "\n[output truncated: 6 more characters]\n"


def test_an_exception_gives_a_short_traceback_of_the_users_code_only(tool: IPythonInterpreter) -> None:
    code = "def f(v):\n    return 1 / v\nprint('before')\nf(0)"
    ret = tool({"command": code})
    assert ret.state == API_ERROR
    assert ret.errmsg == (
        "before\n"
        "Traceback (most recent call last):\n"
        "  Cell In[1], line 4\n"
        "    f(0)\n"
        "  Cell In[1], line 2, in f\n"
        "    return 1 / v\n"
        "ZeroDivisionError: division by zero"
    )
    assert ret.errmsg.splitlines()[-1] == "ZeroDivisionError: division by zero"
    # Functions from an earlier cell are named by that cell; no worker internals appear.
    later = tool({"command": "f(0)"})
    assert later.errmsg is not None
    assert "Cell In[2], line 1" in later.errmsg and "Cell In[1], line 2, in f" in later.errmsg
    for internal in ("<string>", "ipython_interpreter", "exec(", "File "):
        assert internal not in later.errmsg


def test_a_syntax_error_points_at_the_cell(tool: IPythonInterpreter) -> None:
    ret = tool({"command": "x = (1"})
    assert ret.state == API_ERROR
    assert ret.errmsg is not None
    assert ret.errmsg.startswith("  Cell In[1], line 1\n    x = (1\n")
    # Python 3.9's parser words it differently.
    unclosed = "'(' was never closed" if sys.version_info >= (3, 10) else "unexpected EOF while parsing"
    assert ret.errmsg.splitlines()[-1] == f"SyntaxError: {unclosed}"


# --- timeouts, crashes, reset, close --------------------------------------------------------------------


def test_a_timeout_restarts_the_session_and_says_the_state_was_lost(tool: IPythonInterpreter) -> None:
    assert text_of(tool({"command": "x = 1"})) == ""
    ret = tool({"command": "while True: pass", "timeout": 1})
    assert ret.state == API_ERROR
    assert (
        ret.errmsg == "the code did not finish within 1 s; the session was restarted and its state was lost"
    )
    assert text_of(tool({"command": "1 + 1"})) == "2"
    gone = tool({"command": "x"})
    assert gone.errmsg is not None and gone.errmsg.endswith("NameError: name 'x' is not defined")


def test_the_constructor_timeout_is_the_default_limit() -> None:
    action = IPythonInterpreter(timeout=0.5)
    try:
        ret = action({"command": "import time\ntime.sleep(30)"})
        assert ret.errmsg == (
            "the code did not finish within 0.5 s; the session was restarted and its state was lost"
        )
    finally:
        action.close()


def test_a_timeout_kills_processes_the_code_started(tool: IPythonInterpreter) -> None:
    marker = new_marker()
    code = f"import subprocess, sys\np = subprocess.Popen({sleeper(marker)}, start_new_session=True)"
    assert text_of(tool({"command": code})) == ""
    assert len(appeared_within(marker)) == 1
    ret = tool({"command": "while True: pass", "timeout": 1})
    assert ret.state == API_ERROR
    assert gone_within(marker) == set()


def test_a_crash_restarts_the_session_and_says_the_state_was_lost(tool: IPythonInterpreter) -> None:
    assert text_of(tool({"command": "x = 1"})) == ""
    ret = tool({"command": "import os; os._exit(3)"})
    assert ret.state == API_ERROR
    assert ret.errmsg == (
        "the Python process exited with code 3; the session was restarted and its state was lost"
    )
    assert text_of(tool({"command": "'x' in dir()"})) == "False"


def test_reset_forgets_one_sessions_names_only(tool: IPythonInterpreter) -> None:
    executor = ActionExecutor([tool])
    for session in ("a", "b"):
        executor("IPythonInterpreter", {"command": "x = 1"}, session_id=session)
    tool.reset("a")
    assert executor("IPythonInterpreter", {"command": "x"}, session_id="a").state == API_ERROR
    assert executor("IPythonInterpreter", {"command": "x"}, session_id="b").result == [
        {"type": "text", "content": "1"}
    ]
    tool.reset("never-used")


def test_close_leaves_no_child_process() -> None:
    before = children()
    action = IPythonInterpreter()
    executor = ActionExecutor([action])
    for session in ("a", "b", "c"):
        assert executor("IPythonInterpreter", {"command": "1"}, session_id=session).state == SUCCESS
    workers = children() - before
    assert len(workers) == 3
    action.close()
    assert not (children() & workers)
    # Still usable afterwards: a new call starts a new session.
    assert action({"command": "2"}).result == [{"type": "text", "content": "2"}]
    action.close()
    assert children() <= before


# --- limits, working directory, environment, hostile code ---------------------------------------------

RESTARTED = "the session was restarted and its state was lost"


def group_members(pgid: int) -> set[int]:
    """Pids of the live (not zombie) processes of process group ``pgid``."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in (b"Z", b"X") and int(fields[2]) == pgid:
            found.add(int(entry))
    return found


def test_a_session_runs_in_a_fresh_directory_with_a_minimal_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each session works in its own sandbox's /mnt/data (a host directory before the sandbox).
    monkeypatch.setenv("LAGENT_LIKE_TEST_SECRET", "s3cret")
    action = IPythonInterpreter()
    try:
        executor = ActionExecutor([action])
        code = "import os, tempfile\nsorted(os.environ), os.getcwd(), os.environ['HOME'], tempfile.gettempdir(), os.listdir('.')"
        plant = "open('mine', 'w').write('a')"
        assert text_of(executor("IPythonInterpreter", {"command": plant}, session_id="a")) == "1"
        second = eval(text_of(executor("IPythonInterpreter", {"command": code}, session_id="b")))
        assert second == (
            ["HOME", "LANG", "LC_ALL", "PATH", "PWD", "TMPDIR"],
            "/mnt/data",
            "/mnt/data",
            "/mnt/data",
            [],
        )
    finally:
        action.close()


def test_limits_must_be_positive_integers_or_none() -> None:
    for bad in ({"memory_mb": 0}, {"max_processes": -1}, {"max_file_mb": 1.5}, {"max_output_chars": None}):
        with pytest.raises(ValueError, match="must be a positive integer"):
            IPythonInterpreter(**bad)  # type: ignore[arg-type]


def test_max_output_chars_caps_the_output_and_the_value() -> None:
    action = IPythonInterpreter(max_output_chars=10)
    try:
        assert (
            text_of(action({"command": "print('a' * 15)"}))
            == "aaaaaaaaaa\n[output truncated: 6 more characters]\n"
        )
        assert (
            text_of(action({"command": "'b' * 12"})) == "'bbbbbbbbb\n[output truncated: 4 more characters]\n"
        )
    finally:
        action.close()


def test_a_memory_bomb_gives_a_memory_error_and_the_session_survives() -> None:
    action = IPythonInterpreter(memory_mb=256)
    try:
        assert text_of(action({"command": "kept = 1"})) == ""
        ret = action({"command": "x = ' ' * 10**10", "timeout": 10})
        assert ret.state == API_ERROR
        assert ret.errmsg == (
            "Traceback (most recent call last):\n  Cell In[2], line 1\n    x = ' ' * 10**10\n"
            "MemoryError\n(the memory limit is 256 MB)"
        )
        assert text_of(action({"command": "kept + 1"})) == "2"
    finally:
        action.close()


def test_a_fork_bomb_is_contained_and_every_process_killed() -> None:
    action = IPythonInterpreter(max_processes=8)
    marker = new_marker()
    try:
        code = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import os\\nwhile True:\\n    try: os.fork()\\n    except OSError: pass', {marker!r}])"
        ret = action({"command": code, "timeout": 3})
        assert ret.errmsg == f"the code did not finish within 3 s; {RESTARTED}"
        assert gone_within(marker) == set()
        assert text_of(action({"command": "1 + 1"})) == "2"
    finally:
        action.close()


def test_the_process_limit_restarts_the_session() -> None:
    action = IPythonInterpreter(max_processes=8)
    try:
        ret = action(
            {
                "command": "import os, time\nfor _ in range(20):\n    if os.fork() == 0:\n        time.sleep(100)"
            }
        )
        assert ret.errmsg is not None
        assert ret.errmsg.endswith(
            f"(the process limit is 8)\nthe processes the code started were stopped; {RESTARTED}"
        )
        assert text_of(action({"command": "1 + 1"})) == "2"
    finally:
        action.close()


def test_sys_exit_is_reported_and_the_session_keeps_its_state(tool: IPythonInterpreter) -> None:
    assert text_of(tool({"command": "kept = 1"})) == ""
    ret = tool({"command": "import sys\nsys.exit(2)"})
    assert ret.state == API_ERROR
    assert ret.errmsg == (
        "Traceback (most recent call last):\n  Cell In[2], line 2\n    sys.exit(2)\nSystemExit: 2\n"
        "(the code called sys.exit(); the session was not ended and keeps its state)"
    )
    assert tool({"command": "import sys; sys.exit()"}).state == API_ERROR
    assert text_of(tool({"command": "kept"})) == "1"


def test_a_hundred_megabytes_of_output_is_cut_and_returns_quickly(tool: IPythonInterpreter) -> None:
    # Quickly: each call answers within its own timeout (a late one is a timeout record).
    text = text_of(tool({"command": "print('x' * 100_000_000)", "timeout": 10}))
    assert text == "x" * 100_000 + "\n[output truncated: 99900001 more characters]\n"
    text = text_of(tool({"command": "for i in range(100_000): print('y' * 999)", "timeout": 10}))
    assert text == ("y" * 999 + "\n") * 100 + "\n[output truncated: 99900000 more characters]\n"
    assert text_of(tool({"command": "print('ok')"})) == "ok\n"


def test_deep_recursion_gives_a_short_recursion_error_traceback(tool: IPythonInterpreter) -> None:
    ret = tool({"command": "def f(n):\n    return f(n + 1)\nf(0)"})
    assert ret.state == API_ERROR
    assert ret.errmsg is not None
    lines = ret.errmsg.splitlines()
    assert lines[:4] == [
        "Traceback (most recent call last):",
        "  Cell In[1], line 3",
        "    f(0)",
        "  Cell In[1], line 2, in f",
    ]
    assert lines[-1] == "RecursionError: maximum recursion depth exceeded"
    assert lines[-2].startswith("  [Previous line repeated ") and lines[-2].endswith(" more times]")
    assert len(lines) == 11
    assert text_of(tool({"command": "f"})).startswith("<function f at ")


def test_a_keyboard_interrupt_raised_by_the_code_is_a_traceback(tool: IPythonInterpreter) -> None:
    assert text_of(tool({"command": "kept = 1"})) == ""
    ret = tool({"command": "raise KeyboardInterrupt"})
    assert ret.state == API_ERROR
    assert (
        ret.errmsg
        == "Traceback (most recent call last):\n  Cell In[2], line 1\n    raise KeyboardInterrupt\nKeyboardInterrupt"
    )
    assert text_of(tool({"command": "kept"})) == "1"


def test_closing_sys_stdout_does_not_break_the_next_call(tool: IPythonInterpreter) -> None:
    assert text_of(tool({"command": "import sys\nsys.stdout.close()\nsys.__stdout__.close()"})) == ""
    assert text_of(tool({"command": "print('still here')\n3"})) == "still here\n3"


def test_two_hundred_calls_leak_no_process_and_no_file_descriptor() -> None:
    action = IPythonInterpreter()
    try:
        assert text_of(action({"command": "0"})) == "0"
        action.close()
        before_children, before_fds = children(), set(os.listdir("/proc/self/fd"))
        for i in range(200):
            if i % 40 == 39:
                ret = action({"command": "import os; os._exit(1)"})
                assert ret.errmsg == f"the Python process exited with code 1; {RESTARTED}"
            else:
                assert text_of(action({"command": f"{i} * 2"})) == str(i * 2)
        action.close()
        assert children() <= before_children
        assert set(os.listdir("/proc/self/fd")) <= before_fds
    finally:
        action.close()


def test_a_session_started_from_a_short_lived_thread_outlives_that_thread(tool: IPythonInterpreter) -> None:
    # bubblewrap's --die-with-parent follows the thread that started it, not the process:
    # a session first used from a thread that then ends (a batch's pool) must survive it.
    executor = ActionExecutor([tool])
    starter = threading.Thread(
        target=executor, args=("IPythonInterpreter", {"command": "x = 41"}), kwargs={"session_id": "t"}
    )
    starter.start()
    starter.join()
    time.sleep(0.5)
    assert text_of(executor("IPythonInterpreter", {"command": "x + 1"}, session_id="t")) == "42"
