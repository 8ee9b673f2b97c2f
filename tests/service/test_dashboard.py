"""The dashboard renders live data in headless Chromium (its JS fetches the service's API)."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest
import yaml
from tests.service.conftest import AUTH_A, TOKENS, free_port
from tests.service.test_durability import start

pytestmark = pytest.mark.integration
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def test_dashboard_shows_sites_nodes_and_decisions(tmp_path: Path) -> None:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (Debian package 'chromium')")
    config = tmp_path / "cp.yaml"
    config.write_text(yaml.safe_dump({
        "db_path": str(tmp_path / "cp.db"), "agent_tokens": TOKENS,
        "sites": [{"name": "factory-edge", "region": "eu-central", "tier": "edge"}],
        "nodes": [{"name": "cam-node-1", "site": "factory-edge", "cpu_milli": 4000, "mem_mib": 8192}],
    }))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start(config, port)
    try:
        report = {"agent_id": "agent-a", "node": "cam-node-1", "seq": 0, "time_s": time.time(),
                  "metrics": {"cpu_pct": 63.0, "mem_pct": 41.0}}
        httpx.post(f"{url}/v1/reports", json={"reports": [report]}, headers=AUTH_A).raise_for_status()
        task = {"name": "video-transcode-7", "task_class": "transcode", "cpu_milli": 1000, "mem_mib": 512}
        httpx.post(f"{url}/v1/schedule", json={"tasks": [task]}).raise_for_status()
        dom = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--disable-background-networking", "--no-first-run", "--disable-extensions",
             f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000",
             "--dump-dom", f"{url}/"],
            capture_output=True, text=True, timeout=25, check=False,
        ).stdout
    finally:
        server.terminate()
        server.wait(10)
    assert 'data-loaded="true"' in dom, dom[-2000:]
    assert "live: 1 nodes, 1 sites" in dom
    assert "eu-central" in dom and '<span class="node-name">cam-node-1</span>' in dom
    assert "63.0" in dom                     # the reported CPU %
    assert "video-transcode-7" in dom and "bound" in dom
