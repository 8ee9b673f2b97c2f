"""Shared fixtures for the command-line tests."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from aesp.cli.main import main

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def aesp(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """Run ``main()`` in this process with ``aesp simulate ARGS``; returns code and output."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        monkeypatch.setattr(sys, "argv", ["aesp", "simulate", *args])
        capsys.readouterr()
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), code, out.out, out.err)

    return run
