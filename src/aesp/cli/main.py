"""The ``aesp`` command line. Each command group lives in its own module."""

from __future__ import annotations

import sys

import typer

from aesp.cli import agent, bench, perception, serve, simulate, train
from aesp.cli.errors import run_guarded

app = typer.Typer(
    name="aesp",
    help="AESP: a closed-loop scheduler for cloud-edge fleets.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def root() -> None:
    """AESP: perceive, predict, decide, act, for cloud-edge fleets."""


app.command("simulate")(simulate.simulate)
app.command("serve")(serve.serve)
app.command("agent")(agent.agent)
app.add_typer(train.app, name="train", help="Train and evaluate the placement policy.")
app.add_typer(bench.app, name="bench", help="Speed benchmarks (placement, service, extender).")
app.add_typer(perception.app, name="perception", help="Perception experiments: reporting policies under faults.")

try:  # Command groups that are optional at import time register themselves if present.
    from aesp.cli import forecast

    app.add_typer(forecast.app, name="forecast", help="Load forecasting on real traces.")
except ImportError:  # pragma: no cover
    pass


def main() -> None:
    """Console-script entry point."""
    sys.exit(run_guarded(app))


if __name__ == "__main__":
    main()
