"""One clear error line and exit code 2 for bad input, never a traceback."""

from __future__ import annotations

import typer
from rich.console import Console

from aesp.config import ConfigError
from aesp.placement import ProfileError, UnknownPluginError
from aesp.sim.traces import TraceError

USER_ERRORS: tuple[type[BaseException], ...] = (
    ConfigError,
    ProfileError,
    UnknownPluginError,
    TraceError,
    FileNotFoundError,
    IsADirectoryError,
    PermissionError,
    ValueError,
)
EXIT_USAGE = 2

_err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr; return the Exit to raise."""
    _err.print(f"[bold red]error:[/] {message}", markup=True)
    return typer.Exit(EXIT_USAGE)


def describe(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError | IsADirectoryError | PermissionError) and exc.filename:
        return f"{exc.strerror}: {exc.filename}"
    return str(exc)


def run_guarded(app: typer.Typer) -> int:
    """Run the app; user errors become one line on stderr and exit code 2."""
    try:
        result = app(standalone_mode=False)
        if isinstance(result, int):
            return result
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except USER_ERRORS as exc:
        _err.print(f"error: {describe(exc)}", markup=False)
        return EXIT_USAGE
    except (typer.Abort, KeyboardInterrupt):
        _err.print("aborted", markup=False)
        return 130
    except Exception as exc:  # click usage errors carry their own exit codes
        code = getattr(exc, "exit_code", None)
        if code is not None and hasattr(exc, "format_message"):
            _err.print(f"error: {exc.format_message()}", markup=False)
            return int(code)
        raise
    return 0


__all__ = ["EXIT_USAGE", "USER_ERRORS", "describe", "fail", "run_guarded"]
