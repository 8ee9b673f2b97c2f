"""An accepted report survives ``kill -9`` of a real server process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml
from tests.service.conftest import AUTH_A, TOKENS, free_port


def start(config: Path, port: int) -> subprocess.Popen[bytes]:
    log = config.with_suffix(".log")
    with log.open("ab") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "aesp.cli.serve", "--host", "127.0.0.1", "--port", str(port),
             "--config", str(config), "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=err,
        )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=0.5).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
        if proc.poll() is not None:
            raise RuntimeError(f"server died: {log.read_text()}")
    proc.kill()
    raise TimeoutError("server did not become ready")


def test_report_survives_kill_9(tmp_path: Path) -> None:
    config = tmp_path / "cp.yaml"
    config.write_text(yaml.safe_dump({"db_path": str(tmp_path / "cp.db"), "agent_tokens": TOKENS}))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    now = time.time()
    batch = {"reports": [{"agent_id": "agent-a", "node": "h1", "seq": 7, "time_s": now,
                          "metrics": {"cpu_pct": 42.5}}]}
    proc = start(config, port)
    try:
        assert httpx.post(f"{url}/v1/reports", json=batch, headers=AUTH_A).json()["accepted"] == 1
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    proc = start(config, port)
    try:
        back = httpx.get(f"{url}/v1/reports", params={"node": "h1"}).json()
        assert [(r["seq"], r["metrics"]["cpu_pct"]) for r in back] == [(7, 42.5)]
        again = httpx.post(f"{url}/v1/reports", json=batch, headers=AUTH_A).json()
        assert again == {"accepted": 0, "duplicates": 1}
    finally:
        proc.terminate()
        proc.wait(10)
