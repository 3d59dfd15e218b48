"""The sandbox's system-call filter, attacked from model code (issue 21, item 1; memfd of item 2).

Model code tries what the filter is there to refuse (a user namespace, ``memfd_create``,
``io_uring``, the keyring, ``ptrace``...) through ``PythonInterpreter`` and
``IPythonInterpreter`` and each outcome is asserted exactly; most of these calls would
succeed for an unprivileged uid without the filter, so each test fails without it. One
test loads the real rule table with marker errnos in a child of the test process, so
that every entry is seen to be refused by the filter and not by the kernel's own checks.
The module checks at its end that nothing is left behind.
"""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import platform
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import last_line, nothing_left_behind, run_py, text

from lagent_like import ActionStatusCode
from lagent_like.exceptions import SandboxUnavailableError
from lagent_like.tools.interpreters import _sandbox as sandbox
from lagent_like.tools.interpreters import _seccomp
from lagent_like.tools.interpreters.ipython_interpreter import IPythonInterpreter
from lagent_like.tools.interpreters.python_interpreter import PythonInterpreter

pytestmark = pytest.mark.skipif(
    sandbox._probe() is not None, reason=f"no sandbox on this machine: {sandbox._probe()}"
)

SUCCESS = ActionStatusCode.SUCCESS
EPERM_LINE = "PermissionError: [Errno 1] Operation not permitted"
ENOSYS_LINE = "OSError: [Errno 38] Function not implemented"
CLONE_NEWUSER = _seccomp.NAMESPACE_FLAGS["CLONE_NEWUSER"]
CLONE_NEWNET = _seccomp.NAMESPACE_FLAGS["CLONE_NEWNET"]


def nr(name: str) -> int:
    return _seccomp.syscall_number(name)


#: What model code writes to reach a raw system call: ``check`` raises the call's errno.
PRELUDE = (
    "import ctypes, os\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "def check(result):\n"
    "    if result == -1:\n"
    "        code = ctypes.get_errno()\n"
    "        raise OSError(code, os.strerror(code))\n"
    "    return result\n"
)


@pytest.fixture(scope="module", autouse=True)
def leaves_nothing_behind() -> Iterator[None]:
    with nothing_left_behind():
        yield


@pytest.fixture(scope="module")
def python() -> Iterator[PythonInterpreter]:
    tool = PythonInterpreter(answer_expr=None, timeout=10, max_processes=16)
    yield tool
    tool.close()


@pytest.fixture(scope="module")
def ipython() -> Iterator[IPythonInterpreter]:
    tool = IPythonInterpreter(timeout=10, max_processes=16)
    yield tool
    tool.close()


# --- refused calls, from model code ---------------------------------------------------


@pytest.mark.parametrize(
    "call, outcome",
    [
        pytest.param(f"check(libc.unshare({CLONE_NEWUSER}))", EPERM_LINE, id="unshare-user"),
        pytest.param(
            f"check(libc.unshare({CLONE_NEWUSER | CLONE_NEWNET}))", EPERM_LINE, id="unshare-user-net"
        ),
        pytest.param(
            f"check(libc.syscall({nr('clone')}, {CLONE_NEWUSER | 17}, 0, 0, 0, 0))",
            EPERM_LINE,
            id="clone-user",
        ),
        # clone3's flags lie in memory: refused as absent, and the C library uses clone.
        pytest.param(f"check(libc.syscall({nr('clone3')}, 0, 0))", ENOSYS_LINE, id="clone3"),
        pytest.param(
            "fd = os.open('/proc/self/ns/user', os.O_RDONLY)\ncheck(libc.setns(fd, 0))",
            EPERM_LINE,
            id="setns",
        ),
        pytest.param('os.memfd_create("4 GB that no limit counts")', EPERM_LINE, id="memfd_create"),
        pytest.param(f"check(libc.syscall({nr('io_uring_setup')}, 8, 0))", EPERM_LINE, id="io_uring_setup"),
        pytest.param(f"check(libc.syscall({nr('userfaultfd')}, 1))", EPERM_LINE, id="userfaultfd-user-mode"),
        pytest.param(
            f"check(libc.syscall({nr('keyctl')}, 0, -3, 1))", EPERM_LINE, id="keyctl-session-keyring"
        ),
        pytest.param(
            f"check(libc.syscall({nr('add_key')}, b'user', b'k', b'v', 1, -2))", EPERM_LINE, id="add_key"
        ),
        pytest.param("check(libc.ptrace(0, 0, None, None))", EPERM_LINE, id="ptrace-traceme"),
        pytest.param(
            f"check(libc.syscall({nr('process_vm_readv')}, os.getpid(), 0, 0, 0, 0, 0))",
            EPERM_LINE,
            id="process_vm_readv-self",
        ),
        pytest.param(
            f"check(libc.syscall({nr('kcmp')}, os.getpid(), os.getpid(), 0, 0, 0))",
            EPERM_LINE,
            id="kcmp-self",
        ),
        pytest.param(
            f"check(libc.syscall({nr('pidfd_getfd')}, os.pidfd_open(os.getpid()), 0, 0))",
            EPERM_LINE,
            id="pidfd_getfd-self",
        ),
        pytest.param(f"check(libc.syscall({nr('perf_event_open')}, 0, 0, -1, -1, 0))", EPERM_LINE, id="perf"),
        pytest.param(f"check(libc.syscall({nr('bpf')}, 0, 0, 0))", EPERM_LINE, id="bpf"),
        pytest.param(
            "check(libc.mount(b'none', b'/mnt/data', b'tmpfs', 0, None))",
            EPERM_LINE,
            id="mount-sizeless-tmpfs",
        ),
        pytest.param(f"check(libc.syscall({nr('fsopen')}, b'tmpfs', 0))", EPERM_LINE, id="fsopen"),
        pytest.param(f"check(libc.syscall({nr('init_module')}, 0, 0, b''))", EPERM_LINE, id="init_module"),
    ],
)
def test_model_code_cannot_make_the_refused_calls(python: PythonInterpreter, call: str, outcome: str) -> None:
    assert last_line(run_py(python, PRELUDE + call)) == outcome
    assert text(run_py(python, "6 * 7")) == "42"


def test_the_code_has_no_capability_and_runs_filtered(python: PythonInterpreter) -> None:
    code = (
        "fields = dict(line.split(':\\t', 1) for line in open('/proc/self/status').read().splitlines())\n"
        "[fields[key].strip() for key in ('CapEff', 'CapPrm', 'NoNewPrivs', 'Seccomp')]"
    )
    assert text(run_py(python, code)) == "['0000000000000000', '0000000000000000', '1', '2']"


def test_a_process_the_code_starts_inherits_the_filter(python: PythonInterpreter) -> None:
    code = (
        "import subprocess, sys\n"
        "child = 'import os\\ntry:\\n    os.memfd_create(\"x\")\\nexcept OSError as e:\\n    print(e.errno)'\n"
        "subprocess.run([sys.executable, '-I', '-S', '-c', child], capture_output=True, text=True).stdout"
    )
    assert text(run_py(python, code)) == "1\n"


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the 32-bit ABI (int 0x80) is x86-64's")
def test_the_32_bit_abi_does_not_bypass_the_filter(python: PythonInterpreter) -> None:
    # mov eax, 310 (i386 unshare); mov ebx, CLONE_NEWUSER; int 0x80; ret
    code = (
        "import ctypes, mmap, struct\n"
        "machine = b'\\xb8' + struct.pack('<I', 310) + b'\\xbb' + struct.pack('<I', 0x10000000) + b'\\xcd\\x80\\xc3'\n"
        "page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
        "page.write(machine)\n"
        "ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()"
    )
    assert text(run_py(python, code)) == str(-errno.ENOSYS)


def test_ipython_code_cannot_make_a_user_namespace_or_a_memfd(ipython: IPythonInterpreter) -> None:
    ret = ipython({"command": PRELUDE + f"check(libc.unshare({CLONE_NEWUSER}))"})
    assert ret.errmsg is not None and ret.errmsg.splitlines()[-1] == EPERM_LINE
    ret = ipython({"command": 'os.memfd_create("x")'})
    assert ret.errmsg is not None and ret.errmsg.splitlines()[-1] == EPERM_LINE
    status = "open('/proc/self/status').read().split('Seccomp:')[1].split()[0]"
    assert text(ipython({"command": status})) == "'2'"


@pytest.mark.skipif(importlib.util.find_spec("IPython") is None, reason="needs the [ipython] extra")
def test_ipython_interactive_code_runs_filtered() -> None:
    from lagent_like.tools.interpreters.ipython_interactive import IPythonInteractive

    shell = IPythonInteractive(timeout=10)
    try:
        ret = shell({"command": 'import os\nos.memfd_create("x")'})
        assert ret.errmsg is not None and EPERM_LINE in ret.errmsg
        status = "print(open('/proc/self/status').read().split('Seccomp:')[1].split()[0])"
        assert text(shell({"command": status})).strip() == "2"
    finally:
        shell.close()


# --- as an ordinary user ------------------------------------------------------------------

#: Run as uid 65534: a sandbox of its own (bubblewrap's user namespace), attacked the same way.
AS_USER = (
    "import json, sys\n"
    "from lagent_like.tools.interpreters import _sandbox as sandbox\n"
    "from lagent_like.tools.interpreters.python_interpreter import PythonInterpreter\n"
    "argv = sandbox._bwrap_argv(sandbox.bwrap_path(), sandbox.SandboxSpec(), pid1=True)\n"
    "tool = PythonInterpreter(answer_expr=None)\n"
    "ret = tool(json.dumps({'command': sys.argv[2]}))\n"
    "tool.close()\n"
    "print(json.dumps([ret.errmsg, '--disable-userns' in argv]))\n"
)


def user_python() -> list[str]:
    """A Python that uid 65534 can run with this checkout and its packages (or none)."""
    paths = [str(Path(__file__).resolve().parents[1]), *[p for p in sys.path if p.endswith("-packages")]]
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for python in (sys.executable, f"/usr/bin/{version}"):
        argv = [python, "-I", "-c", f"import sys; sys.path[:0] = {paths!r}; exec(sys.argv[1])"]
        try:
            ok = subprocess.run(
                [*argv, "import lagent_like"], user=65534, group=65534, extra_groups=[], cwd="/"
            )
        except OSError:
            continue
        if ok.returncode == 0:
            return argv
    return []


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to uid 65534 needs root")
def test_an_ordinary_user_cannot_make_a_user_namespace_either() -> None:
    argv = user_python()
    if not argv:
        pytest.skip("no Python here that uid 65534 can run with this checkout")
    code = PRELUDE + f"check(libc.unshare({CLONE_NEWUSER}))"
    proc = subprocess.run(
        [*argv, AS_USER, code],
        user=65534,
        group=65534,
        extra_groups=[],
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": "/"},
    )
    assert proc.returncode == 0, proc.stderr
    errmsg, disables_userns = json.loads(proc.stdout)
    assert (errmsg.splitlines()[-1], disables_userns) == (EPERM_LINE, True)


# --- what Python needs still works ------------------------------------------------------


@pytest.mark.parametrize(
    "code, answer",
    [
        pytest.param(
            "import threading\nout = []\nt = threading.Thread(target=out.append, args=(7,))\n"
            "t.start()\nt.join()\nout",
            "[7]",
            id="threads",
        ),
        pytest.param(
            "import subprocess, sys\n"
            "subprocess.run([sys.executable, '-c', 'print(6 * 7)'], capture_output=True, text=True).stdout",
            "42\n",
            id="subprocess-of-python",
        ),
        pytest.param(
            "import os\npid = os.fork()\nif pid == 0:\n    os._exit(3)\nos.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])",
            "3",
            id="fork",
        ),
        pytest.param(
            "import multiprocessing\nwith multiprocessing.get_context('fork').Pool(2) as pool:\n"
            "    result = pool.map(abs, [-1, -2, -3])\nresult",
            "[1, 2, 3]",
            id="multiprocessing",
        ),
        pytest.param(
            "import ctypes\nlibc = ctypes.CDLL(None)\narr = (ctypes.c_int * 3)(3, 1, 2)\n"
            "cmp = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))"
            "(lambda a, b: a[0] - b[0])\nlibc.qsort(arr, 3, 4, cmp)\nlist(arr)",
            "[1, 2, 3]",
            id="ctypes-callback",
        ),
        pytest.param(
            "import tempfile\nwith tempfile.TemporaryFile() as f:\n    f.write(b'x' * 10)\n    f.seek(0)\n"
            "    data = f.read()\nlen(data)",
            "10",
            id="temporary-file",
        ),
    ],
)
def test_what_python_needs_still_works(python: PythonInterpreter, code: str, answer: str) -> None:
    assert text(run_py(python, code)) == answer


# --- every entry of the table, refused by the filter itself --------------------------------

#: Runs as root in a child of the test process: imports, drops to uid 65534 with
#: ``no_new_privs`` (so no call that slips through can touch the host), loads the given
#: program and makes each call with zero arguments.
PROBE = """
import ctypes, json, os, sys
from lagent_like.tools.interpreters._worker.syscall_filter import install
program, calls = sys.argv[1], json.loads(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)
libc.prctl(38, 1, 0, 0, 0)
install(program)
out = {}
for name, number, flags in calls:
    ctypes.set_errno(0)
    result = libc.syscall(number, flags, 0, 0, 0, 0, 0)
    out[name] = ctypes.get_errno() if result == -1 else 0
print(json.dumps(out))
"""

REFUSED_MARK, ABSENT_MARK = errno.ENOTRECOVERABLE, errno.EOWNERDEAD


def calls_in_table() -> list[tuple[str, int, int]]:
    calls = [(name, nr(name), 0) for names in _seccomp.REFUSED.values() for name in names if nr(name) >= 0]
    calls += [(name, nr(name), 0) for name in _seccomp.NOT_IMPLEMENTED]
    for flag, bit in _seccomp.NAMESPACE_FLAGS.items():
        calls.append((f"unshare {flag}", nr("unshare"), bit))
        # With a namespace flag the call is refused before it could fork.
        calls.append((f"clone {flag}", nr("clone"), bit | 17))
    return calls


@pytest.mark.skipif(os.geteuid() != 0, reason="the probe drops to uid 65534, which needs root")
def test_every_entry_of_the_table_is_refused_by_the_filter() -> None:
    calls = calls_in_table()
    marked = _seccomp.compile_filter(REFUSED_MARK, ABSENT_MARK).hex()
    allowed = [("getpid", nr("getpid"), 0), ("unshare CLONE_FS", nr("unshare"), 0x200)]
    root = str(Path(__file__).resolve().parents[1])
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, marked, json.dumps(calls + allowed)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"},
        cwd="/",
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    expected = {name: (ABSENT_MARK if name == "clone3" else REFUSED_MARK) for name, _, _ in calls}
    assert {name: seen[name] for name in expected} == expected
    assert (seen["getpid"], seen["unshare CLONE_FS"]) == (0, 0)
    assert len(expected) >= 60


def test_the_docs_list_every_entry_of_the_filter() -> None:
    docs = (Path(__file__).resolve().parents[1] / "docs" / "isolation.rst").read_text()
    names = [name for names in _seccomp.REFUSED.values() for name in names]
    names += [*_seccomp.NOT_IMPLEMENTED, *_seccomp.NAMESPACE_FLAGS, "unshare", "clone"]
    assert [name for name in names if f"``{name}``" not in docs] == []


# --- no filter, no sandbox ---------------------------------------------------------------


def test_without_libseccomp_the_interpreters_refuse_and_name_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real_cdll = _seccomp.ctypes.CDLL

    def no_libseccomp(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "libseccomp.so.2":
            raise OSError("libseccomp.so.2: cannot open shared object file: No such file or directory")
        return real_cdll(name, *args, **kwargs)

    monkeypatch.setattr(_seccomp.ctypes, "CDLL", no_libseccomp)
    caches = (sandbox._probe, _seccomp._library, _seccomp.program_hex)
    for cache in caches:
        cache.cache_clear()
    try:
        with pytest.raises(SandboxUnavailableError) as info:
            PythonInterpreter()
        assert str(info.value) == (
            "PythonInterpreter cannot isolate model-written code on this machine: no system-call filter: "
            "libseccomp is missing (libseccomp.so.2: cannot open shared object file: No such file or "
            "directory): install the system package libseccomp2 (Debian, Ubuntu) or libseccomp (Fedora, "
            "Alpine). Pass isolation='process' to run it in a plain child process instead (unsafe for "
            "untrusted code: see docs/isolation.rst)."
        )
    finally:
        monkeypatch.undo()
        for cache in caches:
            cache.cache_clear()


def test_a_filter_the_kernel_refuses_means_no_code_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    python = PythonInterpreter(answer_expr=None)
    ipython = IPythonInterpreter(timeout=10)
    # One instruction that is not a return: the kernel rejects the program (EINVAL).
    monkeypatch.setattr(_seccomp, "program_hex", lambda: "0000000000000000")
    try:
        ret = run_py(python, "open('/mnt/data/ran', 'w').write('unfiltered')")
        assert ret.state == ActionStatusCode.API_ERROR
        assert ret.errmsg is not None
        assert ret.errmsg.startswith("the process running the code ended (exit status 71)")
        ret = ipython({"command": "6 * 7"})
        assert ret.errmsg == (
            "the Python process exited with code 1; the session was restarted and its state was lost"
        )
        # A new tool's trial sandbox loads the filter too: it refuses to start, and says why.
        sandbox._probe.cache_clear()
        with pytest.raises(SandboxUnavailableError) as info:
            PythonInterpreter()
        assert "or load the system-call filter: Traceback" in str(info.value)
        assert "OSError: [Errno 22] the sandbox's system-call filter could not be loaded." in str(info.value)
    finally:
        python.close()
        ipython.close()
        monkeypatch.undo()
        sandbox._probe.cache_clear()
