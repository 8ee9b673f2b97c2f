"""Reading a CSV trace row by row, with the file and line in every error.

Files may be plain or gzip-compressed; gzip is recognised by its magic bytes, so the name need
not end in ``.gz``. Blank lines are skipped.
"""

from __future__ import annotations

import csv
import gzip
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeAlias

from aesp.sim.traces.errors import TraceError

TracePath: TypeAlias = str | os.PathLike[str]
Header: TypeAlias = tuple[str, ...]

_GZIP_MAGIC = b"\x1f\x8b"
# What a damaged file raises while it is read: bad CSV, bad UTF-8, a corrupt or cut gzip stream.
_READ_ERRORS = (csv.Error, UnicodeDecodeError, gzip.BadGzipFile, EOFError)


def open_text(path: TracePath) -> IO[str]:
    """Open a trace as text, decompressing it when it is gzip."""
    path = Path(path)
    with path.open("rb") as raw:
        compressed = raw.read(2) == _GZIP_MAGIC
    if compressed:
        return gzip.open(path, "rt", encoding="utf-8-sig", newline="")
    return path.open(encoding="utf-8-sig", newline="")


@dataclass(frozen=True, slots=True)
class Row:
    """One data row of a trace, whose accessors raise :class:`TraceError` naming its line."""

    path: Path
    line: int
    index: Mapping[str, int]
    cells: Sequence[str]

    def error(self, reason: str) -> TraceError:
        """An error located at this row."""
        return TraceError(self.path, self.line, reason)

    def has(self, column: str) -> bool:
        """Whether the file has this column."""
        return column in self.index

    def text(self, column: str) -> str:
        """The cell, stripped of surrounding blanks."""
        return self.cells[self.index[column]].strip()

    def number(self, column: str) -> float:
        """The cell as a finite, non-negative number."""
        raw = self.text(column)
        if not raw:
            raise self.error(f"{column} is empty")
        try:
            value = float(raw)
        except ValueError:
            raise self.error(f"{column} {raw!r} is not a number") from None
        if not math.isfinite(value):
            raise self.error(f"{column} {raw!r} is not a finite number")
        if value < 0:
            raise self.error(f"{column} {raw!r} is negative")
        return value

    def whole(self, column: str) -> int:
        """The cell as a non-negative whole number (``2`` or ``2.0``)."""
        value = self.number(column)
        if not value.is_integer():
            raise self.error(f"{column} {self.text(column)!r} is not a whole number")
        return int(value)

    def optional_number(self, column: str) -> float | None:
        """The cell as a number, or ``None`` when it is empty."""
        return self.number(column) if self.text(column) else None


def read_header(path: TracePath) -> Header:
    """The column names on a trace's first line.

    Raises:
        TraceError: the file is empty or unreadable.
        FileNotFoundError: the file does not exist.
    """
    with open_text(path) as stream:
        try:
            first = next(csv.reader(stream), None)
        except _READ_ERRORS as e:
            raise TraceError(path, 1, f"unreadable header: {e}") from None
    if not first:
        raise TraceError(path, 1, "empty file: expected a header line")
    return tuple(name.strip() for name in first)


def read_rows(path: TracePath, accepted: Sequence[Header], what: str) -> list[Row]:
    """All data rows of a trace whose header is one of ``accepted``.

    Args:
        path: the file, plain or gzip.
        accepted: headers the format allows.
        what: the format in words, for messages (``"an OpenB node list"``).

    Raises:
        TraceError: unknown header, a row with the wrong number of columns, an unreadable line,
            or no data rows.
    """
    header = read_header(path)
    if header not in accepted:
        expected = " or ".join(repr(",".join(h)) for h in accepted)
        raise TraceError(path, 1, f"header {','.join(header)!r} is not {what}; expected {expected}")
    index = {name: i for i, name in enumerate(header)}
    rows = _data_rows(Path(path), index, len(header))
    if not rows:
        raise TraceError(path, 2, f"no data rows: {what} needs at least one")
    return rows


def _data_rows(path: Path, index: Mapping[str, int], width: int) -> list[Row]:
    rows: list[Row] = []
    with open_text(path) as stream:
        reader = csv.reader(stream)
        try:
            next(reader)
            for cells in reader:
                if not cells:
                    continue
                if len(cells) != width:
                    msg = f"expected {width} columns, found {len(cells)}"
                    raise TraceError(path, reader.line_num, msg)
                rows.append(Row(path, reader.line_num, index, cells))
        except _READ_ERRORS as e:
            raise TraceError(path, reader.line_num + 1, f"unreadable line: {e}") from None
    return rows
