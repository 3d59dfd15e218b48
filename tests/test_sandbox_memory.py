"""Memory bounded per sandbox, and a zygote that survives what a job leaves (issue 21, items 2 and 8).

The cgroup code is tested against a temporary directory laid out as a cgroup v2 tree
(the cgroups of a development machine belong to its host: nothing here writes there);
the fallback, the IPC namespace per job and the clean-up are tested for real, as an
attacker would try them. The module checks at its end that nothing is left: no child
process, no file in ``/tmp`` or ``/dev/shm``, no SysV object in the host's namespace.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import nothing_left_behind

from lagent_like import ActionReturn, ActionStatusCode
from lagent_like.tools.interpreters import _cgroup
from lagent_like.tools.interpreters import _sandbox as sandbox
from lagent_like.tools.interpreters.ipython_interpreter import IPythonInterpreter
from lagent_like.tools.interpreters.python_interpreter import PythonInterpreter

MB = 1024 * 1024
SUCCESS = ActionStatusCode.SUCCESS
API_ERROR = ActionStatusCode.API_ERROR

needs_sandbox = pytest.mark.skipif(
    sandbox._probe() is not None, reason=f"no sandbox on this machine: {sandbox._probe()}"
)
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="a fresh IPC namespace per job needs root")


@pytest.fixture(scope="module", autouse=True)
def leaves_nothing_behind() -> Iterator[None]:
    with nothing_left_behind():
        yield


def run_py(tool: PythonInterpreter, code: str) -> ActionReturn:
    return tool(json.dumps({"command": code}))


def answer(ret: ActionReturn) -> str:
    assert ret.state == SUCCESS, ret.errmsg
    assert ret.result is not None
    return str(ret.result[0]["content"])


# --- the cgroup v2 code, on a temporary tree ------------------------------------------

V1_HOST = "32 31 0:29 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
HYBRID = V1_HOST + "30 25 0:27 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
UNIFIED = "30 25 0:27 / /sys/fs/cgroup rw,nosuid,nodev - cgroup2 cgroup2 rw,nsdelegate\n"


@pytest.mark.parametrize(
    ("mountinfo", "mounts"),
    [
        pytest.param(V1_HOST, [], id="v1-only"),
        pytest.param(HYBRID, ["/sys/fs/cgroup/unified"], id="hybrid"),
        pytest.param(UNIFIED, ["/sys/fs/cgroup"], id="unified"),
    ],
)
def test_the_cgroup_v2_mount_is_read_from_mountinfo(
    tmp_path: Path, mountinfo: str, mounts: list[str]
) -> None:
    path = tmp_path / "mountinfo"
    path.write_text(mountinfo)
    assert _cgroup.cgroup2_mounts(str(path)) == mounts


def cgroup_tree(root: Path, controllers: str = "cpuset cpu io memory hugetlb pids rdma misc") -> Path:
    """``root`` laid out as the top of a cgroup v2 hierarchy, with the package's directory
    as the kernel would show it once made."""
    root.mkdir(exist_ok=True)
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text("cpu\n")
    (root / "lagent_like").mkdir()
    (root / "lagent_like" / "cgroup.subtree_control").write_text("\n")
    return root


def test_prepare_enables_memory_and_pids_for_the_package_directory(tmp_path: Path) -> None:
    root = cgroup_tree(tmp_path / "cg")
    assert _cgroup.prepare(str(root)) == _cgroup.CgroupSupport(str(root / "lagent_like"))
    assert (root / "cgroup.subtree_control").read_text() == "+memory +pids"
    assert (root / "lagent_like" / "cgroup.subtree_control").read_text() == "+memory +pids"


def test_prepare_uses_a_delegated_directory_as_it_is(tmp_path: Path) -> None:
    root = cgroup_tree(tmp_path / "cg")
    (root / "cgroup.subtree_control").write_text("memory pids\n")
    assert _cgroup.prepare(str(root), str(root)) == _cgroup.CgroupSupport(str(root))
    assert (root / "cgroup.subtree_control").read_text() == "memory pids\n"  # already on: not written


@pytest.mark.parametrize(
    ("controllers", "reason"),
    [
        pytest.param("", "lacks the memory and pids controllers", id="hybrid-unified-without-controllers"),
        pytest.param("cpu memory", "lacks the pids controller", id="no-pids"),
    ],
)
def test_prepare_says_which_controller_is_missing(tmp_path: Path, controllers: str, reason: str) -> None:
    root = cgroup_tree(tmp_path / "cg", controllers)
    assert _cgroup.prepare(str(root)) == _cgroup.CgroupSupport(None, f"the cgroup v2 tree at {root} {reason}")
    assert (root / "cgroup.subtree_control").read_text() == "cpu\n"  # nothing written


def test_prepare_refuses_a_directory_that_is_no_cgroup(tmp_path: Path) -> None:
    assert _cgroup.prepare(str(tmp_path)) == _cgroup.CgroupSupport(
        None, f"{tmp_path} is not a cgroup v2 directory (No such file or directory)"
    )
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    ("delegated", "mounted", "euid", "expected"),
    [
        pytest.param(True, False, 1000, "{root}", id="delegated-by-the-environment"),
        pytest.param(False, True, 0, "{root}/lagent_like", id="root-on-a-cgroup2-host"),
        pytest.param(False, False, 0, "no cgroup v2 hierarchy is mounted (a cgroup v1 host)", id="v1-host"),
        pytest.param(
            False,
            True,
            1000,
            "not root, and LAGENT_LIKE_CGROUP names no delegated cgroup v2 directory",
            id="not-root-not-delegated",
        ),
    ],
)
def test_support_finds_where_sandboxes_get_their_cgroups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, delegated: bool, mounted: bool, euid: int, expected: str
) -> None:
    root = cgroup_tree(tmp_path / "cg")
    if delegated:
        monkeypatch.setenv("LAGENT_LIKE_CGROUP", str(root))
    else:
        monkeypatch.delenv("LAGENT_LIKE_CGROUP", raising=False)
    monkeypatch.setattr(_cgroup, "cgroup2_mounts", lambda: [str(root)] if mounted else [])
    monkeypatch.setattr(_cgroup.os, "geteuid", lambda: euid)
    found = _cgroup.support.__wrapped__()
    if expected.startswith("{root}"):
        assert found == _cgroup.CgroupSupport(expected.format(root=root))
    else:
        assert found == _cgroup.CgroupSupport(None, expected)


@pytest.fixture
def fake_cgroups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Sandboxes get their cgroups under a temporary tree; removing one removes its files
    (the kernel's part, on a real cgroup)."""
    parent = cgroup_tree(tmp_path / "cg") / "lagent_like"
    monkeypatch.setattr(_cgroup, "support", lambda: _cgroup.CgroupSupport(str(parent)))
    monkeypatch.setattr(_cgroup, "_rmdir", shutil.rmtree)
    return parent


def sandbox_cgroups(parent: Path) -> list[Path]:
    return [path for path in parent.iterdir() if path.is_dir()]


@needs_sandbox
def test_each_sandbox_gets_a_cgroup_with_its_limits_joined_before_it_starts(fake_cgroups: Path) -> None:
    tool = PythonInterpreter(answer_expr=None, memory_mb=300, max_processes=16, disk_mb=32, pool_size=2)
    try:
        assert answer(run_py(tool, "6 * 7")) == "42"
        [group] = sandbox_cgroups(fake_cgroups)
        assert group.name == f"{os.getpid()}-{group.name.split('-')[1]}"
        assert (group / "memory.max").read_text() == str((300 + 2 * 32 + 64) * MB)
        assert (group / "pids.max").read_text() == str(16 + _cgroup.OWN_PROCESSES)
        assert (group / "cgroup.procs").read_text() == "0"  # written by bwrap's process itself
        assert tool.memory_bound == (
            f"a cgroup per sandbox under {fake_cgroups}: memory.max 428 MB (its processes, the files "
            "in /mnt/data and /dev/shm, memfd files and shared memory together), pids.max 20"
        )
    finally:
        tool.close()
    assert sandbox_cgroups(fake_cgroups) == []


@needs_sandbox
def test_an_ipython_session_gets_a_cgroup_removed_with_the_session(fake_cgroups: Path) -> None:
    tool = IPythonInterpreter(timeout=20, memory_mb=None, max_processes=8, disk_mb=16)
    try:
        ret = tool({"command": "6 * 7"})
        assert ret.state == SUCCESS, ret.errmsg
        [group] = sandbox_cgroups(fake_cgroups)
        assert (group / "memory.max").read_text() == "max"
        assert (group / "pids.max").read_text() == str(8 + _cgroup.OWN_PROCESSES)
    finally:
        tool.close()
    assert sandbox_cgroups(fake_cgroups) == []


def test_a_sandbox_cgroup_that_cannot_be_made_is_none_and_logged(
    fake_cgroups: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.rmtree(fake_cgroups)
    with caplog.at_level(logging.WARNING, logger="lagent_like.sandbox"):
        assert _cgroup.sandbox_cgroup(100, 4, 8) is None
    [record] = caplog.records
    assert record.getMessage().startswith(f"lagent_like: no cgroup for this sandbox ({fake_cgroups}): ")


def test_a_cgroup_left_under_this_pid_by_an_earlier_process_is_stepped_over(
    fake_cgroups: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_cgroup, "_counter", itertools.count(1))
    (fake_cgroups / f"{os.getpid()}-1").mkdir()
    group = _cgroup.sandbox_cgroup(100, 4, 8)
    assert group is not None
    assert group.path == str(fake_cgroups / f"{os.getpid()}-2")
    assert (Path(group.path) / "memory.max").read_text() == str((100 + 2 * 8 + 64) * MB)
    group.remove()
    assert sorted(path.name for path in sandbox_cgroups(fake_cgroups)) == [f"{os.getpid()}-1"]


# --- the fallback, on this machine ----------------------------------------------------

no_cgroup_here = pytest.mark.skipif(
    _cgroup.support().parent is not None, reason="this machine gives sandboxes a cgroup"
)


@no_cgroup_here
@needs_sandbox
def test_without_a_cgroup_the_first_tool_says_so_once(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_cgroup, "_noticed", [])
    reason = _cgroup.support().reason
    with caplog.at_level(logging.WARNING, logger="lagent_like.sandbox"):
        first, second = PythonInterpreter(), IPythonInterpreter()
    first.close()
    second.close()
    assert [record.getMessage() for record in caplog.records] == [
        f"lagent_like: no cgroup per sandbox: {reason}. Memory is bounded per process "
        "(RLIMIT_AS) and by the caps of docs/isolation.rst, not per sandbox."
    ]
    assert (
        first.memory_bound
        == second.memory_bound
        == (
            f"no cgroup per sandbox ({reason}): 1024 MB of address space per process (RLIMIT_AS), "
            "at most 64 processes, /mnt/data and /dev/shm of 256 MB each, 1024 open files per process"
        )
    )


def test_without_a_sandbox_the_bound_is_per_process_only() -> None:
    tool = PythonInterpreter(isolation="process", memory_mb=200)
    tool.close()
    assert (
        tool.memory_bound == "no sandbox: 200 MB of address space per process (RLIMIT_AS), nothing per call"
    )


# --- shared memory dies with the job --------------------------------------------------

LIBC = """import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
"""

MAKE_SEGMENT = (
    LIBC
    + """ident = libc.shmget(0x5EC3E7, 1 << 20, 0o1666)
address = libc.shmat(ident, None, 0)
ctypes.memmove(address, b"secret", 6)
libc.shmdt(ctypes.c_void_p(address))
queue = libc.msgget(0x5EC3E8, 0o1666)
(ident >= 0, queue >= 0, len(open("/proc/sysvipc/shm").read().splitlines()))
"""
)

FIND_SEGMENT = (
    LIBC
    + """found = libc.shmget(0x5EC3E7, 0, 0)
lost = ctypes.get_errno()
queue = libc.msgget(0x5EC3E8, 0)
(found, errno.errorcode[lost], queue, open("/proc/sysvipc/shm").read().splitlines()[1:])
"""
)


@pytest.fixture
def python() -> Iterator[PythonInterpreter]:
    tool = PythonInterpreter(answer_expr=None, timeout=10, memory_mb=256, max_processes=16)
    yield tool
    tool.close()


@needs_sandbox
def test_shared_memory_a_call_made_is_gone_in_the_next_call(python: PythonInterpreter) -> None:
    assert answer(run_py(python, MAKE_SEGMENT)) == "(True, True, 2)"
    assert answer(run_py(python, FIND_SEGMENT)) == "(-1, 'ENOENT', -1, [])"
    assert python._pool.started == 1


@needs_sandbox
@as_root
@pytest.mark.parametrize(
    ("code", "expected"),
    [
        pytest.param(
            LIBC + "libc.shmget(0, 257 << 20, 0o600), errno.errorcode[ctypes.get_errno()]",
            "(-1, 'EINVAL')",
            id="one-segment-above-memory_mb",
        ),
        pytest.param(
            LIBC + "[libc.shmget(0, 200 << 20, 0o600) >= 0, libc.shmget(0, 200 << 20, 0o600),"
            " errno.errorcode[ctypes.get_errno()]]",
            "[True, -1, 'ENOSPC']",
            id="segments-above-memory_mb-together",
        ),
        pytest.param(
            LIBC + "[libc.msgget(0, 0o600) >= 0 for _ in range(17)]",
            str([True] * 16 + [False]),
            id="message-queues",
        ),
    ],
)
def test_a_calls_sysv_shared_memory_keeps_to_its_memory_limit(
    python: PythonInterpreter, code: str, expected: str
) -> None:
    assert answer(run_py(python, code)) == expected


SWEEP = """import ctypes, os, sys
sys.path.insert(0, sys.argv[1])
from _worker import ipc
assert ipc.libc().unshare(0x08000000) == 0  # a namespace of its own: the host's objects are safe
libc = ipc.libc()
made = [libc.shmget(0, 4096, 0o600), libc.msgget(0, 0o600), libc.semget(0, 1, 0o600)]
print(min(made) >= 0, ipc.remove_objects(), open("/proc/sysvipc/shm").read().count(chr(10)))
"""


@as_root
def test_the_zygote_removes_every_sysv_object_its_namespace_holds() -> None:
    worker_root = str(Path(sandbox._WORKER_DIR).parent)
    out = subprocess.run(
        [sys.executable, "-c", SWEEP, worker_root], capture_output=True, text=True, check=True
    )
    assert out.stdout == "True 3 1\n"


# --- other caps of the fallback ----------------------------------------------------------


@needs_sandbox
def test_a_call_holds_at_most_1024_descriptors(python: PythonInterpreter) -> None:
    code = "len([open('/dev/null') for _ in range(1100)])"
    ret = run_py(python, code)
    assert ret.state == API_ERROR and ret.errmsg is not None
    assert ret.errmsg.endswith(
        "OSError: [Errno 24] Too many open files: '/dev/null'\n(the open-file limit is 1024)"
    )
    assert (
        answer(run_py(python, "import resource\nresource.getrlimit(resource.RLIMIT_NOFILE)"))
        == "(1024, 1024)"
    )


@needs_sandbox
def test_the_job_not_the_zygote_is_the_first_to_die_when_memory_runs_out(python: PythonInterpreter) -> None:
    assert answer(run_py(python, "open('/proc/self/oom_score_adj').read()")) == "1000\n"


# --- what a job leaves behind ---------------------------------------------------------

DEEP = """import os
os.chdir("/mnt/data")
for _ in range(3000):
    os.mkdir("d")
    os.chdir("d")
open("bottom", "w").write("x")
"""

LEFTOVERS = [
    pytest.param(DEEP + "'made'", id="3000-deep-tree"),
    pytest.param(
        DEEP + "os.chdir('/mnt/data/d/d')\nos.chmod('.', 0)\nos.chmod('/mnt/data/d', 0)\n'made'",
        id="deep-tree-mode-000",
    ),
    pytest.param(
        "import os\nopen('/mnt/data/f', 'w').close()\nos.chmod('/mnt/data', 0)\n'made'", id="workdir-mode-000"
    ),
    pytest.param(
        "import os\nos.makedirs('/mnt/data/a/b/c')\nopen('/mnt/data/a/b/c/f', 'w').close()\n"
        "for p in ('/mnt/data/a/b/c', '/mnt/data/a/b', '/mnt/data/a'):\n    os.chmod(p, 0)\n'made'",
        id="nested-mode-000",
    ),
    pytest.param(
        "import os, socket\nos.mkfifo('/dev/shm/fifo')\ns = socket.socket(socket.AF_UNIX)\n"
        "s.bind('/mnt/data/sock')\nos.symlink('/usr', '/mnt/data/usr')\nos.symlink('/mnt/data', '/mnt/data/loop')\n"
        "os.link('/dev/shm/fifo', '/dev/shm/hard')\nos.mkdir('/dev/shm/ro')\nopen('/dev/shm/ro/f', 'w').close()\n"
        "os.chmod('/dev/shm/ro', 0o500)\n'made'",
        id="fifo-socket-symlinks-read-only-dir",
    ),
    pytest.param(
        "import os\nos.chdir('/mnt/data')\nfor i in range(20):\n    name = 'x' * 255\n    os.mkdir(name)\n"
        "    os.chdir(name)\nopen('f', 'w').close()\n'made'",
        id="path-longer-than-path-max",
    ),
    pytest.param(
        "import fcntl, os, struct\nfd = os.open('/mnt/data/f', os.O_CREAT | os.O_WRONLY)\n"
        "try:\n    fcntl.ioctl(fd, 0x40086602, struct.pack('l', 0x10))\n"
        "except OSError as exc:\n    print(exc.errno)\n'made'",
        id="immutable-file-attempt",
    ),
]


@needs_sandbox
@pytest.mark.parametrize("code", LEFTOVERS)
def test_the_zygote_survives_what_a_job_leaves_behind(python: PythonInterpreter, code: str) -> None:
    assert answer(run_py(python, code)) == "made"
    listing = "import os\n(sorted(os.listdir('/mnt/data')), sorted(os.listdir('/dev/shm')))"
    assert answer(run_py(python, listing)) == "([], [])"
    assert python._pool.started == 1  # the same sandbox answered: it was not rebuilt


def test_without_a_sandbox_a_deep_work_directory_is_removed_too() -> None:
    # 3000 directories in the host's /tmp: slow on a loaded disk; the limit only guards a hang.
    tool = PythonInterpreter(answer_expr=None, isolation="process", timeout=60)
    try:
        made = DEEP.replace('os.chdir("/mnt/data")', "") + "'made'"  # in its work directory
        assert answer(run_py(tool, made)) == "made"
        assert answer(run_py(tool, "6 * 7")) == "42"
        assert tool._pool.started == 1
    finally:
        tool.close()
