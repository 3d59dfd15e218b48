"""``PythonInterpreter``'s warm path: the answer first, the clean-up after, the job process ready.

A call returns as soon as its answer is read; the zygote's clean-up (killing what the
job left running, emptying the scratch directories, removing SysV objects) and the set-up
of the next job's process happen after it, and are finished before the slot's next job
starts. The job process is forked from a zygote that already imported what jobs need.
Checked for the sandbox and for ``isolation='process'``.
"""

from __future__ import annotations

import json
import os
import select
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import host_pids_with, new_marker, nothing_left_behind, sleeper

from lagent_like import ActionReturn, ActionStatusCode
from lagent_like.tools.interpreters import _python_pool
from lagent_like.tools.interpreters import _sandbox as sandbox
from lagent_like.tools.interpreters.python_interpreter import PythonInterpreter

ISOLATIONS = [
    pytest.param(
        "sandbox",
        id="sandbox",
        marks=pytest.mark.skipif(sandbox._probe() is not None, reason=f"no sandbox: {sandbox._probe()}"),
    ),
    pytest.param("process", id="process"),
]


@pytest.fixture(scope="module", autouse=True)
def leaves_nothing_behind() -> Iterator[None]:
    with nothing_left_behind():
        yield


@pytest.fixture(params=ISOLATIONS)
def tool(request: pytest.FixtureRequest) -> Iterator[PythonInterpreter]:
    interpreter = PythonInterpreter(answer_expr=None, timeout=2, isolation=request.param)
    yield interpreter
    interpreter.close()


def run(tool: PythonInterpreter, code: str) -> Any:
    ret: ActionReturn = tool(json.dumps({"command": code}))
    assert ret.state == ActionStatusCode.SUCCESS, ret.errmsg
    assert ret.result is not None
    return ret.result[0]["content"]


def count_marked(marker: str) -> str:
    """Code whose answer is how many processes the job sees with ``marker`` in their command line."""
    return (
        "import os\n"
        "def marked():\n"
        "    n = 0\n"
        "    for pid in filter(str.isdigit, os.listdir('/proc')):\n"
        "        try:\n"
        "            with open(f'/proc/{pid}/cmdline', 'rb') as f:\n"
        f"                n += {marker.encode()!r} in f.read()\n"
        "        except OSError:\n"
        "            pass\n"
        "    return n\n"
    )


def test_a_jobs_clean_up_is_done_before_the_next_job_of_its_slot(tool: PythonInterpreter) -> None:
    marker = new_marker()
    # The background process closes its copy of the reply pipe (close_fds), so the answer
    # comes back while it still runs: the clean-up after the answer must kill it. (Outside
    # a sandbox a new session escapes the clean-up: docs/isolation.rst.)
    session = tool._pool.spec.isolation == "sandbox"
    first = (
        "import os, subprocess, sys\n"
        "open('left.txt', 'w').write('x')\n"
        f"subprocess.Popen({sleeper(marker)}, start_new_session={session})\n"
        "os.getcwd()"
    )
    workdir = run(tool, first)
    second = count_marked(marker) + f"(os.path.exists({workdir + '/left.txt'!r}), os.listdir('.'), marked())"
    assert run(tool, second) == "(False, [], 0)"
    assert host_pids_with(marker) == set()


def test_the_answer_is_returned_before_the_clean_up_report_is_read(
    tool: PythonInterpreter, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[tuple[object, ...]] = []
    run_job, settle = _python_pool.Zygote.run, _python_pool.Zygote.settle

    def recording_run(self: _python_pool.Zygote, *args: Any) -> dict[str, Any]:
        reply = run_job(self, *args)
        events.append(("run", self.owed is not None))
        return reply

    def recording_settle(self: _python_pool.Zygote) -> bool:
        owed = self.owed is not None
        settled = settle(self)
        events.append(("settle", owed, settled))
        return settled

    monkeypatch.setattr(_python_pool.Zygote, "run", recording_run)
    monkeypatch.setattr(_python_pool.Zygote, "settle", recording_settle)
    assert run(tool, "1 + 1") == "2"
    assert run(tool, "2 + 2") == "4"
    # Each run returned with its report unread; the second job first read the first's.
    assert events == [("run", True), ("settle", True, True), ("run", True)]


def test_an_error_reply_still_waits_for_the_report(tool: PythonInterpreter) -> None:
    ret = tool(json.dumps({"command": "import os\nos._exit(3)"}))
    assert ret.errmsg == "the process running the code ended (exit status 3) before producing an answer"
    (worker,) = tool._pool.idle
    assert worker.owed is None
    assert run(tool, "'next'") == "next"


def test_the_job_finds_the_zygotes_modules_already_imported(tool: PythonInterpreter) -> None:
    code = (
        "import sys\n"
        "preloaded = sys.modules['_worker.python_worker'].PRELOADED\n"
        "expected = {'collections', 'datetime', 'decimal', 'fractions', 'functools', 'itertools',\n"
        "            'json', 'math', 'random', 're'}\n"
        "(sorted(set(sys.modules) - preloaded), sorted(expected - preloaded))"
    )
    # Twice: the second job comes after a clean-up, which must import nothing either.
    assert [run(tool, code), run(tool, code)] == ["([], [])", "([], [])"]


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid``, parents before their children."""
    children: dict[int, list[int]] = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(name))
    found: list[int] = []
    queue = [pid]
    while queue:
        below = children.get(queue.pop(0), [])
        found += below
        queue += below
    return found


def test_a_waiting_job_process_that_died_is_replaced(tool: PythonInterpreter) -> None:
    assert run(tool, "1") == "1"
    (worker,) = tool._pool.idle
    worker.settle()  # the zygote has cleaned up and forked the next job's process
    waiting = _descendants(worker.proc.pid)[-1]
    pidfd = os.pidfd_open(waiting)
    try:
        os.kill(waiting, signal.SIGKILL)
        assert select.select([pidfd], [], [], 10.0)[0] == [pidfd]
    finally:
        os.close(pidfd)
    assert run(tool, "'served'") == "served"
    assert tool._pool.started == 1


def test_a_forged_answer_then_a_hang_does_not_reach_the_next_job(tool: PythonInterpreter) -> None:
    marker = new_marker()
    # The code answers for itself through the reply pipe, closes it and keeps running:
    # its answer is its own, and the next job waits until the zygote has stopped it.
    session = tool._pool.spec.isolation == "sandbox"
    code = (
        "import os, stat, subprocess, sys, time\n"
        f"subprocess.Popen({sleeper(marker)}, start_new_session={session})\n"
        "fds = [fd for fd in range(3, 64) if os.path.exists(f'/proc/self/fd/{fd}')\n"
        "       and stat.S_ISFIFO(os.fstat(fd).st_mode)\n"
        "       and 'flags:\\t01' in open(f'/proc/self/fdinfo/{fd}').read()]\n"
        'body = b\'{"ok": true, "answer": "its own"}\'\n'
        "for fd in fds:\n"
        "    os.write(fd, b'{\"length\": %d}\\n' % len(body) + body)\n"
        "    os.close(fd)\n"
        "time.sleep(100)"
    )
    assert run(tool, code) == "its own"
    assert run(tool, count_marked(marker) + "marked()") == "0"
    assert host_pids_with(marker) == set()


def test_closing_during_a_call_still_lets_its_clean_up_finish(tmp_path: Path) -> None:
    # Outside a sandbox the job can reach the test's FIFOs: it says when it runs and
    # waits for the word to finish, so the tool is closed while the call is running.
    started, go = tmp_path / "started", tmp_path / "go"
    os.mkfifo(started)
    os.mkfifo(go)
    tool = PythonInterpreter(answer_expr=None, timeout=10, isolation="process")
    code = (
        f"open({str(started)!r}, 'w').write(__import__('os').getcwd())\n"
        f"open({str(go)!r}).read()\n"
        "open('left.txt', 'w').write('x')\n"
        "'done'"
    )
    replies: list[Any] = []
    with nothing_left_behind():
        call = threading.Thread(target=lambda: replies.append(run(tool, code)))
        call.start()
        workdir = started.read_text()
        tool.close()
        go.write_text("go")
        call.join()
        assert replies == ["done"]
        assert tool._pool.idle == [] and tool._pool.count == 0
    assert not os.path.exists(workdir)
