"""``aesp agent``: the node agent, pushing reports to ``aesp serve``."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from typing import Annotated

import typer

TOKEN_ENV = "AESP_AGENT_TOKEN"


def agent(
    server: Annotated[str, typer.Option(help="Control-plane URL, e.g. https://aesp:8443.")],
    token: Annotated[
        str | None, typer.Option(help=f"Bearer token (default: ${TOKEN_ENV}).", show_default=False)
    ] = None,
    node: Annotated[str | None, typer.Option(help="Node name (default: hostname).")] = None,
    agent_id: Annotated[str | None, typer.Option(help="Agent id (default: node name).")] = None,
    site: Annotated[str, typer.Option(help="Site the node is on.")] = "default",
    tick_s: Annotated[float, typer.Option(help="Seconds between samples.")] = 5.0,
    steady_s: Annotated[float, typer.Option(help="Report interval when steady.")] = 30.0,
    fast_s: Annotated[float, typer.Option(help="Report interval while changing.")] = 5.0,
    buffer: Annotated[int, typer.Option(help="Reports kept while disconnected.")] = 720,
    metrics_host: Annotated[str, typer.Option(help="/metrics bind address.")] = "0.0.0.0",
    metrics_port: Annotated[int, typer.Option(help="/metrics port; 0 disables it.")] = 9101,
    register: Annotated[bool, typer.Option(help="Register the node at start.")] = True,
    ca_bundle: Annotated[
        str | None, typer.Option(help="CA bundle to verify the server's TLS certificate.")
    ] = None,
    max_ticks: Annotated[int | None, typer.Option(help="Stop after this many ticks.")] = None,
) -> None:
    """Collect this host's metrics and report them adaptively (buffering while disconnected)."""
    from aesp.service.agent_runner import AgentConfig, run_agent

    token = token or os.environ.get(TOKEN_ENV)
    if not token:
        raise typer.BadParameter(f"an agent token is required (--token or ${TOKEN_ENV})")
    node = node or socket.gethostname()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    cfg = AgentConfig(
        server=server, token=token, node=node, agent_id=agent_id or node, site=site,
        tick_s=tick_s, steady_s=steady_s, fast_s=fast_s, buffer=buffer,
        metrics_host=metrics_host, metrics_port=metrics_port, register=register,
        verify=ca_bundle or True,
    )
    with contextlib.suppress(KeyboardInterrupt):
        run_agent(cfg, max_ticks=max_ticks)


if __name__ == "__main__":
    typer.run(agent)
