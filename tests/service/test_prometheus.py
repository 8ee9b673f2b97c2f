"""Prometheus scrapes a real ``aesp agent``; the control plane reads node usage via PromQL."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from tests.service.conftest import free_port, settings

from aesp.service.promql import PrometheusSource, PromQLClient, PromQLError

pytestmark = pytest.mark.integration
PROMETHEUS = shutil.which("prometheus")


def spawn(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as err:
        return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)


@pytest.fixture
def scraped_agent(tmp_path: Path) -> Iterator[str]:
    """Prometheus URL, once it holds a sample from an agent on node ``prom-node``."""
    if PROMETHEUS is None:
        pytest.skip("the prometheus binary is not installed (Debian package 'prometheus')")
    agent_port, prom_port = free_port(), free_port()
    agent = spawn([sys.executable, "-m", "aesp.cli.agent", "--server", f"http://127.0.0.1:{free_port()}",
                   "--token", "t", "--node", "prom-node", "--no-register", "--tick-s", "0.5",
                   "--metrics-host", "127.0.0.1", "--metrics-port", str(agent_port)],
                  tmp_path / "agent.log")
    config = tmp_path / "prometheus.yml"
    config.write_text(yaml.safe_dump({
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [{"job_name": "aesp-agent",
                            "static_configs": [{"targets": [f"127.0.0.1:{agent_port}"]}]}],
    }))
    prom = spawn([PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                  f"--web.listen-address=127.0.0.1:{prom_port}"], tmp_path / "prometheus.log")
    url = f"http://127.0.0.1:{prom_port}"
    try:
        client, deadline = PromQLClient(url, timeout_s=1.0), time.monotonic() + 25
        while time.monotonic() < deadline:
            try:
                if client.query('aesp_node_cpu_pct{node="prom-node"}'):
                    break
            except PromQLError:
                pass
            time.sleep(0.3)
        else:
            logs = (tmp_path / "prometheus.log").read_text()[-2000:]
            pytest.fail(f"no scrape within 25 s; prometheus log tail:\n{logs}")
        yield url
    finally:
        for proc in (prom, agent):
            proc.terminate()
            proc.wait(10)


def test_control_plane_reads_usage_through_promql(scraped_agent: str, make_client: Any) -> None:
    latest = PrometheusSource(PromQLClient(scraped_agent))()
    t, sample = latest["prom-node"]
    assert sample.cpu_pct is not None and sample.mem_pct is not None and abs(t - time.time()) < 60
    nodes = [{"name": "prom-node", "cpu_milli": 4000, "mem_mib": 4096}]
    client = make_client(settings(nodes=nodes, metrics_source="prometheus",
                                  prometheus_url=scraped_agent), clock=time.time)
    view = client.get("/v1/nodes").json()[0]
    assert view["name"] == "prom-node" and view["up"]
    assert 0 <= view["usage"]["mem_pct"] <= 100 and view["staleness_s"] < 60


def test_promql_errors_are_reported() -> None:
    def broken(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"status": "error", "error": "parse error"})

    with pytest.raises(PromQLError, match="parse error"):
        PromQLClient("http://prom", transport=httpx.MockTransport(broken)).query("up{")
