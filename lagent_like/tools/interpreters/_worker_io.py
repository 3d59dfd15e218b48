"""The parent's ends of an interpreter worker's pipes: whole writes, waits with a deadline.

The code in a sandbox may stall, flood or close the pipes (and socket) its worker
shares with the agent, so the interpreters write a job whole or learn why not, and
every wait for the worker ends at a deadline.
"""

from __future__ import annotations

import os
import select
import socket
import time
from typing import Union


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``.

    Raises:
        OSError: the reader is gone (the worker died) or the pipe broke.
    """
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def wait_readable(source: Union[int, socket.socket], deadline: float) -> bool:
    """Wait until ``source`` can be read: ``False`` once ``deadline`` (monotonic) has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        return False
    ready, _, _ = select.select([source], [], [], left)
    return bool(ready)
