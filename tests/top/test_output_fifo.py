"""``-o FIFO`` with no reader (issue 40 L4) blocked analyze, report and export forever in open(2): it is refused
in words, exit 5; a FIFO with its reader still gets the output."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.files import write_output


def test_a_fifo_nobody_reads_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[BaseException | None] = []

    def write() -> None:
        try:
            write_output(fifo, b"report\n")
            got.append(None)
        except InputError as e:
            got.append(e)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    writer.join(30)  # a bound for the failing case only: the writer blocked in open() is then freed below
    if writer.is_alive():
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # lets the blocked open return
        pytest.fail("write_output blocked on a FIFO without a reader")
    assert isinstance(got[0], InputError) and "nobody is reading" in str(got[0])


def test_a_fifo_with_its_reader_gets_the_output(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_output(fifo, b"report\n")
        assert os.read(reader, 100) == b"report\n"
    finally:
        os.close(reader)
