"""The parent's pipe helpers of the interpreters: whole writes, waits that end at a deadline."""

from __future__ import annotations

import os
import time

import pytest

from lagent_like.tools.interpreters._worker_io import wait_readable, write_all


def test_write_all_writes_more_than_a_pipe_holds_while_the_reader_reads() -> None:
    import threading

    read_end, write_end = os.pipe()
    data = bytes(range(256)) * 1024  # 256 KiB: more than one pipe buffer
    received = bytearray()

    def reader() -> None:
        while chunk := os.read(read_end, 1 << 16):
            received.extend(chunk)

    thread = threading.Thread(target=reader)
    thread.start()
    write_all(write_end, data)
    os.close(write_end)
    thread.join()
    os.close(read_end)
    assert bytes(received) == data


def test_write_all_raises_once_the_reader_is_gone() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        with pytest.raises(BrokenPipeError):
            write_all(write_end, b"x")
    finally:
        os.close(write_end)


def test_wait_readable_ends_at_the_deadline_and_answers_once_data_is_there() -> None:
    read_end, write_end = os.pipe()
    try:
        assert wait_readable(read_end, time.monotonic() - 1) is False
        start = time.monotonic()
        assert wait_readable(read_end, start + 0.05) is False
        assert time.monotonic() - start >= 0.04  # select may wake a hair early
        os.write(write_end, b"x")
        assert wait_readable(read_end, time.monotonic() + 5) is True
    finally:
        os.close(read_end)
        os.close(write_end)
