"""The system-call filter of the interpreters' sandboxes, compiled once with libseccomp.

Why a filter on top of bubblewrap's namespaces: the namespaces hide the host, but the
kernel's own interface stays whole, and the rarely used parts of it are where kernel
exploits start. Model code that can make a user namespace gets every namespaced
capability back (a tmpfs without size, nf_tables, ``AF_PACKET``); ``memfd_create``
files escape both ``RLIMIT_AS`` and the sized tmpfs. So, in the spirit of Docker's
default profile, the calls a Python sandbox never needs fail with ``EPERM`` (``clone3``
with ``ENOSYS``, as in Docker: its flags lie in memory a filter cannot read, and the C
library then falls back to ``clone``, whose flags it can). Failing, not killing, lets the
code's ``OSError`` reach the model.

Why libseccomp: it is the library Docker, Podman and systemd build their filters with;
it writes the architecture checks (a 32-bit ``int 0x80`` call on x86-64 is refused too)
and resolves the names. It is a system library (Debian's ``libseccomp2``, installed
with ``apt`` itself), loaded here with ``ctypes``: no Python binding is needed. The
program is compiled once per process, handed to the worker in its configuration, and
loaded by the worker right after it gave up its privileges (``_worker/common.py``).
docs/isolation.rst lists the entries and why each is there: :data:`REFUSED` is the one
home of that list.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import tempfile
from typing import Optional

from ...exceptions import LagentLikeError

#: The namespace flags of ``clone`` and ``unshare`` (linux/sched.h).
NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
#: Only ``unshare`` reads this bit as a namespace; to ``clone`` it is part of the exit signal.
_CLONE_NEWTIME = 0x00000080

#: The calls refused outright (``EPERM``), grouped by why a Python sandbox must not have them.
REFUSED: dict[str, tuple[str, ...]] = {
    "joining another namespace": ("setns",),
    "mounting and changing the root": (
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "open_tree",
        "move_mount",
        "fsopen",
        "fsconfig",
        "fsmount",
        "fspick",
        "mount_setattr",
    ),
    "memory that no limit counts (neither ``RLIMIT_AS`` nor the sized tmpfs)": (
        "memfd_create",
        "memfd_secret",
    ),
    "kernel attack surface: in-kernel programs, profiling, page-fault handling": (
        "bpf",
        "perf_event_open",
        "userfaultfd",
    ),
    "asynchronous I/O that bypasses this filter": ("io_uring_setup", "io_uring_enter", "io_uring_register"),
    "the kernel keyring (shared by every process of a uid)": ("keyctl", "add_key", "request_key"),
    "reading or driving other processes": (
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "process_madvise",
        "pidfd_getfd",
        "kcmp",
    ),
    "kernel modules": ("init_module", "finit_module", "delete_module", "create_module", "query_module"),
    "the machine's state: reboot, swap, clocks, accounting, quotas, names": (
        "kexec_load",
        "kexec_file_load",
        "reboot",
        "swapon",
        "swapoff",
        "settimeofday",
        "clock_settime",
        "clock_adjtime",
        "acct",
        "quotactl",
        "quotactl_fd",
        "sethostname",
        "setdomainname",
    ),
    "raw hardware and kernel internals": (
        "iopl",
        "ioperm",
        "syslog",
        "open_by_handle_at",
        "fanotify_init",
        "lookup_dcookie",
        "uselib",
        "vhangup",
        "_sysctl",
    ),
}

#: ``clone3``: refused with ``ENOSYS`` so that the C library falls back to ``clone``.
NOT_IMPLEMENTED = ("clone3",)

#: libseccomp's actions and constants (seccomp.h).
_ACT_ALLOW = 0x7FFF0000
_ACT_ERRNO = 0x00050000
_ATTR_ACT_BADARCH = 2
_ATTR_CTL_OPTIMIZE = 8
_CMP_MASKED_EQ = 7


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class FilterUnavailableError(LagentLikeError, RuntimeError):
    """libseccomp is missing or refused to build the filter (the message says which)."""


def _errno_action(code: int) -> int:
    return _ACT_ERRNO | (code & 0xFFFF)


@functools.cache
def _library() -> ctypes.CDLL:
    """libseccomp, loaded once, with the prototypes used here."""
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError as exc:
        raise FilterUnavailableError(
            f"libseccomp is missing ({exc}): install the system package libseccomp2 "
            "(Debian, Ubuntu) or libseccomp (Fedora, Alpine)"
        ) from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def _check(result: int, what: str) -> None:
    if result < 0:
        raise FilterUnavailableError(f"libseccomp could not {what}: {os.strerror(-result)}")


def _add(lib: ctypes.CDLL, ctx: int, action: int, name: str, cmp: Optional[_ArgCmp] = None) -> None:
    """Add one rule; a call this architecture does not have is skipped (nothing to refuse)."""
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:  # __NR_SCMP_ERROR, or a pseudo-number of another architecture
        return
    arg = ctypes.pointer(cmp) if cmp is not None else None
    _check(lib.seccomp_rule_add_array(ctx, action, number, 1 if cmp else 0, arg), f"add a rule for {name}")


def _add_namespace_rules(lib: ctypes.CDLL, ctx: int, action: int) -> None:
    """``clone`` and ``unshare`` with any namespace flag set: one rule per bit (rules OR)."""
    # s390 passes clone's flags second (Docker's profile makes the same exception).
    clone_arg = 1 if platform.machine().startswith("s390") else 0
    for bit in NAMESPACE_FLAGS.values():
        _add(lib, ctx, action, "clone", _ArgCmp(clone_arg, _CMP_MASKED_EQ, bit, bit))
    for bit in (*NAMESPACE_FLAGS.values(), _CLONE_NEWTIME):
        _add(lib, ctx, action, "unshare", _ArgCmp(0, _CMP_MASKED_EQ, bit, bit))


def compile_filter(refused: int = errno.EPERM, absent: int = errno.ENOSYS) -> bytes:
    """The filter as a classic BPF program (``struct sock_filter`` array).

    Args:
        refused: the errno of the refused calls (a test passes a marker of its own).
        absent: the errno of ``clone3`` and of calls made through another ABI.

    Raises:
        FilterUnavailableError: libseccomp is missing or failed.
    """
    lib = _library()
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise FilterUnavailableError("libseccomp could not start a filter")
    try:
        # A call made through another ABI (int 0x80 on x86-64) fails instead of killing.
        _check(lib.seccomp_attr_set(ctx, _ATTR_ACT_BADARCH, _errno_action(absent)), "set its ABI rule")
        # A binary tree of the call numbers: fewer instructions per call, so the kernel
        # loads it faster into each job. libseccomp before 2.5 lacks it (then ignored).
        lib.seccomp_attr_set(ctx, _ATTR_CTL_OPTIMIZE, 2)
        _add_namespace_rules(lib, ctx, _errno_action(refused))
        for names in REFUSED.values():
            for name in names:
                _add(lib, ctx, _errno_action(refused), name)
        for name in NOT_IMPLEMENTED:
            _add(lib, ctx, _errno_action(absent), name)
        with tempfile.TemporaryFile() as out:
            _check(lib.seccomp_export_bpf(ctx, out.fileno()), "export the filter")
            out.seek(0)
            return out.read()
    finally:
        lib.seccomp_release(ctx)


def syscall_number(name: str) -> int:
    """The number of the call ``name`` on this machine (negative when it has none)."""
    number: int = _library().seccomp_syscall_resolve_name(name.encode())
    return number


@functools.cache
def program_hex() -> str:
    """The sandbox's filter, compiled once, as the worker's configuration carries it (hex)."""
    return compile_filter().hex()


def problem() -> Optional[str]:
    """Why the filter cannot be built here, or ``None``."""
    try:
        program_hex()
    except FilterUnavailableError as exc:
        return str(exc)
    return None
