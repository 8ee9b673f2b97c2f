"""``aesp serve``: the control plane (agent ingest, cluster view, scheduling, extender)."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Annotated

import typer

from aesp.service.settings import SettingsError, load_settings


def serve(
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to bind.")] = 8080,
    config: Annotated[
        Path | None, typer.Option(help="Control-plane YAML config (default: $AESP_CONFIG).")
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    """Run the AESP control plane; TLS (and mTLS) come from the config's ``tls`` section."""
    import uvicorn

    from aesp.service.app import create_app

    try:
        settings = load_settings(config)
    except SettingsError as exc:
        raise typer.BadParameter(str(exc), param_hint="--config") from None
    tls = settings.tls
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level=log_level,
        ssl_certfile=tls.certfile if tls else None,
        ssl_keyfile=tls.keyfile if tls else None,
        ssl_ca_certs=tls.client_ca if tls else None,
        ssl_cert_reqs=ssl.CERT_REQUIRED if tls and tls.client_ca else ssl.CERT_NONE,
    )


if __name__ == "__main__":
    typer.run(serve)
