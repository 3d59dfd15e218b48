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

#: prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) (linux/prctl.h, linux/seccomp.h).
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


class _Program(ctypes.Structure):
    """``struct sock_fprog``: the number of instructions and where they are."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(program_hex: str) -> None:
    """Load the filter into this process for good (it cannot be removed).

    Raises:
        OSError: the kernel refused it; the caller must not run user code then.
    """
    code = bytes.fromhex(program_hex)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "the sandbox's system-call filter could not be loaded")
