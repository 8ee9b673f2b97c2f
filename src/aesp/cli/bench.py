"""``aesp bench``: speed benchmarks, each reported against a baseline run in the same command."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, help="Speed benchmarks.")
