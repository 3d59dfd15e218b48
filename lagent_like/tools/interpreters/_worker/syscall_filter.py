"""Loading the sandbox's system-call filter, the last step before user code runs.

Runs inside the sandbox (see the package docstring): standard library only. The parent
compiled the program with libseccomp (``lagent_like/tools/_seccomp.py``) and passes it
as hex in the worker's configuration; here it is only handed to the kernel. It is
loaded after the worker gave up its privileges (a fresh uid, ``no_new_privs``), so the
worker's own set-up is not bound by it, and while the process has one thread, so every
thread and process the code starts inherits it.
"""

from __future__ import annotations

import ctypes

# Annotations only (postponed): importing ``typing`` would slow every sandbox's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) (linux/prctl.h, linux/seccomp.h).
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

#: Per program: the ``prctl`` function, a pointer to the program, and what it points to.
_READY: dict[str, tuple[Any, ...]] = {}


class _Program(ctypes.Structure):
    """``struct sock_fprog``: the number of instructions and where they are."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def prepare(program_hex: str) -> None:
    """Build the kernel's structure and the ``prctl`` call once.

    A zygote calls this before it forks, so that each job only makes the call (building
    it in the job's process costs a few hundred microseconds of copy-on-write faults).
    """
    if program_hex in _READY:
        return
    code = bytes.fromhex(program_hex)
    buffer = ctypes.create_string_buffer(code, len(code))
    program = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    _READY[program_hex] = (prctl, ctypes.byref(program), program, buffer)


def install(program_hex: str) -> None:
    """Load the filter into this process for good (it cannot be removed).

    Raises:
        OSError: the kernel refused it; the caller must not run user code then.
    """
    prepare(program_hex)
    prctl, pointer = _READY[program_hex][:2]
    if prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, pointer, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "the sandbox's system-call filter could not be loaded")
