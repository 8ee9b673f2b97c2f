"""No acknowledged report is lost when the server is killed (``kill -9``) in the middle of load.

Clients post batches to a real ``aesp serve`` process and record every report id the server
acknowledged with a 2xx; the server is SIGKILLed at a random moment, restarted on the same
SQLite file, and every acknowledged id must be there.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from pathlib import Path

import httpx
import yaml
from tests.service.conftest import TOKENS, free_port

from aesp.service.bench import start_server, stop_server

BATCH = 20


def _client(url: str, agent: str, token: str, acked: list[str], stop: threading.Event) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    seq = 0
    with httpx.Client(base_url=url, timeout=2.0) as client:
        while not stop.is_set():
            reports = [{"agent_id": agent, "node": f"node-{agent}", "seq": seq + k,
                        "time_s": time.time(), "metrics": {"cpu_pct": float(k)}}
                       for k in range(BATCH)]
            try:
                resp = client.post("/v1/reports", json={"reports": reports}, headers=headers)
            except httpx.HTTPError:
                return  # the server is gone: nothing more can be acknowledged
            if resp.is_success:
                acked.extend(f"{agent}:{r['seq']}" for r in reports)
            seq += BATCH


def test_acknowledged_reports_survive_kill_9_mid_load(tmp_path: Path) -> None:
    config = tmp_path / "cp.yaml"
    config.write_text(yaml.safe_dump({"db_path": str(tmp_path / "cp.db"), "agent_tokens": TOKENS}))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    server = start_server(config, port, log)
    acked: dict[str, list[str]] = {agent: [] for agent in TOKENS}
    stop = threading.Event()
    threads = [threading.Thread(target=_client, args=(url, a, t, acked[a], stop), daemon=True)
               for a, t in TOKENS.items()]
    try:
        for t in threads:
            t.start()
        time.sleep(random.Random(os.getpid()).uniform(0.5, 2.0))
        os.kill(server.pid, signal.SIGKILL)
        server.wait(10)
    finally:
        stop.set()
        stop_server(server)
        for t in threads:
            t.join(10)
    sent = sum(len(v) for v in acked.values())
    assert sent > 0, "no report was acknowledged before the kill"
    server = start_server(config, port, log)
    try:
        stored = httpx.get(f"{url}/v1/reports", params={"limit": 100_000}, timeout=10).json()
    finally:
        stop_server(server)
    ids = {f"{r['agent_id']}:{r['seq']}" for r in stored}
    lost = [i for ids_of in acked.values() for i in ids_of if i not in ids]
    assert not lost, f"{len(lost)} of {sent} acknowledged reports lost, e.g. {lost[:5]}"
