"""The one error every trace reader raises for a malformed file."""

from __future__ import annotations

import os
from pathlib import Path


class TraceError(ValueError):
    """A trace file that cannot be read as its format says.

    The message names the file, the 1-based line and what is wrong, e.g.
    ``openb_pod_list_default.csv:17: cpu_milli 'abc' is not a number``.

    Attributes:
        path: the file.
        line: the 1-based line number the problem is on (1 for the header or an empty file).
        reason: what is wrong, without the location.
    """

    def __init__(self, path: str | os.PathLike[str], line: int, reason: str) -> None:
        self.path = Path(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.path.name}:{line}: {reason}")

    def __reduce__(self) -> tuple[type[TraceError], tuple[Path, int, str]]:
        # Keeps the error picklable (e.g. across a process pool) despite the 3-argument init.
        return (type(self), (self.path, self.line, self.reason))
