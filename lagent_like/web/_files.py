"""Which local files the inspector's page may download, and how each is opened.

A result item names a path, and the model chose it: serving whatever it names would
hand any host file (``/etc/shadow``, an SSH key) to the page, and an HTML or SVG file
would run as script on the inspector's own origin. So a file is served only from a
directory the operator named (``--files-dir``, ``inspect(files_dirs=...)``) or a tool
declares as its own (a ``files_root`` attribute: the PPT tool's ``root``), under an
opaque random id, and the route sends it as a download (see :mod:`.app`).
"""

from __future__ import annotations

import mimetypes
import os
import secrets
import stat
import threading
from collections.abc import Iterable
from typing import IO, Any, Optional

from ._errors import InspectorError

__all__ = ["INLINE_TYPES", "ResultFiles"]

#: Media types sent as they are (the page shows images); any other file is sent as
#: ``application/octet-stream``, so that no browser renders it as a document.
INLINE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"})


def _inside(path: str, root: str) -> bool:
    return os.path.commonpath([root, path]) == root


class ResultFiles:
    """The files results named that the page may fetch, each under an opaque id.

    Args:
        dirs: the directories the operator allows files from.
        actions: the executor's tools; a tool's ``files_root`` (a directory path, or
            ``None``) is allowed too, read whenever a result names a file.

    Raises:
        TypeError: ``dirs`` is one path, not a list of them.
        ValueError: one of ``dirs`` is not a directory.
    """

    def __init__(self, dirs: Iterable[str], actions: Any) -> None:
        if isinstance(dirs, (str, bytes, os.PathLike)):
            raise TypeError(f"files_dirs takes a list of directories, not one: files_dirs=[{dirs!r}]")
        given = [os.fspath(d) for d in dirs]
        for directory in given:
            if not os.path.isdir(directory):
                raise ValueError(f"the files directory {directory} is not a directory")
        self.dirs = tuple(os.path.realpath(d) for d in given)
        self._actions = actions
        self._by_key: dict[str, str] = {}
        self._by_path: dict[str, str] = {}
        self._lock = threading.Lock()

    def roots(self) -> tuple[str, ...]:
        """The directories files are served from now: the operator's and the tools'."""
        tools = (getattr(action, "files_root", None) for action in self._actions.values())
        return self.dirs + tuple(os.path.realpath(root) for root in tools if isinstance(root, str))

    def describe(self, path: str) -> dict[str, str]:
        """``{'href': ...}`` for a file the page may fetch, else ``{'not_served': why}``."""
        real = os.path.realpath(path)
        if not any(_inside(real, root) for root in self.roots()):
            return {"not_served": self._outside(path)}
        with self._lock:
            key = self._by_path.get(real)
            if key is None:
                key = secrets.token_urlsafe(16)
                self._by_key[key], self._by_path[real] = real, key
        return {"href": f"/api/files/{key}"}

    def open(self, key: str) -> tuple[IO[bytes], str, int, str]:
        """The open file of ``key``, its name, its size and the media type to send.

        The path is checked again (a link swapped in since the result named it is
        refused), its last component is opened without following a link, and only a
        regular file is sent.

        Raises:
            InspectorError: no result named that id, or the file is gone (404); the
                file is now outside the served directories, or not a regular file (403).
        """
        path = self._by_key.get(key)
        if path is None:
            raise InspectorError(404, f"no result file has the id {key!r}")
        real = os.path.realpath(path)
        if real != path or not any(_inside(real, root) for root in self.roots()):
            raise InspectorError(403, self._outside(path))
        try:
            # Non-blocking: a FIFO swapped in must not hang the server's loop on open.
            fd = os.open(real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            raise InspectorError(404, f"the result file {os.path.basename(path)} is gone") from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise InspectorError(403, f"the result file {os.path.basename(path)} is not a regular file")
        kind: Optional[str] = mimetypes.guess_type(real)[0]
        media = kind if kind in INLINE_TYPES else "application/octet-stream"
        return os.fdopen(fd, "rb"), os.path.basename(real), info.st_size, media

    def _outside(self, path: str) -> str:
        where = ", ".join(self.roots()) or "none named"
        return (
            f"not served: {path} is outside the directories the inspector serves files from ({where}); "
            "name its directory with --files-dir (or inspect(files_dirs=...))"
        )
