"""Worker-side code shared by the interpreters: giving up root before running user code.

The interpreters' workers are separate Python processes started from a source string
(with ``-I``, so they cannot import this package). This module holds the part both
workers need as source text, which each places into its own worker source.
"""

from __future__ import annotations

#: Defines ``NOBODY``, ``world_readable(path)``, ``needs_read_capability()`` and
#: ``drop_privileges(keep_read, ambient)``; the worker must have imported ``ctypes``,
#: ``os`` and ``sys``.
PRIVILEGES = r'''
NOBODY = 65534


def world_readable(path):
    """Whether users other than the owner can reach and read ``path``."""
    parts = os.path.realpath(path).split(os.sep)
    for i in range(2, len(parts) + 1):
        try:
            mode = os.stat(os.sep.join(parts[:i]) or os.sep).st_mode
        except OSError:
            return False
        if not mode & 0o001:
            return False
    return True


def needs_read_capability():
    """Whether ``nobody`` needs CAP_DAC_READ_SEARCH to read the Python installation."""
    places = [sys.executable] + [p for p in sys.path if p and os.path.isdir(p)]
    return not all(world_readable(p) for p in places)


def drop_privileges(keep_read, ambient):
    """Become ``nobody`` so that RLIMIT_NPROC applies (it does not to root).

    With ``keep_read``, CAP_DAC_READ_SEARCH is kept (when the Python installation is not
    readable by other users); with ``ambient`` also for programs the code starts.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    if keep_read:
        libc.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS
    os.setgroups([])
    os.setresgid(NOBODY, NOBODY, NOBODY)
    os.setresuid(NOBODY, NOBODY, NOBODY)
    if keep_read:
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
        inheritable = 1 << 2 if ambient else 0
        data = (ctypes.c_uint32 * 6)(1 << 2, 1 << 2, inheritable, 0, 0, 0)  # CAP_DAC_READ_SEARCH
        libc.capset(header, data)
        if ambient:
            libc.prctl(47, 2, 2, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH
'''
