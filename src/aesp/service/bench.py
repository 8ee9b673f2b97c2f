"""Control-plane benchmarks: agent ingest against a real server, and the extender verbs.

``service_bench``: starts ``aesp serve`` (uvicorn, one process) on 127.0.0.1 with a temporary
config and SQLite file, and drives ``agents`` simulated agents from a *separate* process (this
module's ``loadgen`` entry point: one asyncio loop, one keep-alive connection per agent). Each agent posts
one report (all twelve metrics) every ``interval_s`` seconds, the agents' phases staggered evenly
over the interval, for ``duration_s`` seconds. Latency is measured by the client, from just before
the request is sent to the parsed response. Everything stops by itself: the load generator after
``duration_s`` (plus at most one request timeout), the server when the load generator is done.

``extender_bench``: builds a NodeList of ``nodes`` realistic node objects (zones and regions,
arch, tier and jurisdiction labels, allocatable CPU/memory/pods and ``nvidia.com/gpu`` with a GPU
product label on a fifth of them) and a mix of pods, and times ``filter`` and ``prioritize``
in-process through the ASGI app (``httpx.ASGITransport``: the full FastAPI stack, request body
parsing and response encoding included, no sockets). Request bodies are encoded once up front, so
the client's JSON encoding is not counted. Both ``nodeCacheCapable`` modes are measured: full
``Nodes`` objects per call, and ``NodeNames`` resolved against the service's node registry.

Run as ``python -m aesp.service.bench loadgen ...`` only from :func:`service_bench`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import yaml

READY_TIMEOUT_S = 30.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentiles_ms(latencies_s: Sequence[float]) -> tuple[float, float]:
    """(p50, p99) in ms of latencies in seconds; NaN for an empty list."""
    if not latencies_s:
        return float("nan"), float("nan")
    p50, p99 = np.percentile(np.asarray(latencies_s) * 1e3, [50, 99])
    return round(float(p50), 2), round(float(p99), 2)


def agent_token(i: int) -> str:
    return f"bench-token-{i:05d}"


def agent_id(i: int) -> str:
    return f"bench-agent-{i:05d}"


def start_server(config: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """``aesp serve`` on 127.0.0.1:``port``, returned once ``/readyz`` answers 200."""
    with log.open("ab") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "aesp.cli.serve", "--host", "127.0.0.1", "--port", str(port),
             "--config", str(config), "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=err,
        )
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"aesp serve exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1.0).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    proc.wait(10)
    raise TimeoutError(f"aesp serve on port {port} did not become ready in {READY_TIMEOUT_S} s")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


# --------------------------------------------------------------------------- load generator


def _report_body(i: int, seq: int, rng: random.Random) -> bytes:
    metrics = {
        "cpu_pct": round(rng.uniform(5, 95), 2), "mem_pct": round(rng.uniform(10, 90), 2),
        "disk_pct": round(rng.uniform(20, 80), 2),
        "disk_io_bytes_per_s": round(rng.uniform(0, 5e7)),
        "net_rx_bytes_per_s": round(rng.uniform(0, 1e8)),
        "net_tx_bytes_per_s": round(rng.uniform(0, 1e8)),
        "latency_to_aggregator_ms": round(rng.uniform(0.2, 40), 2),
        "load_avg_1m": round(rng.uniform(0, 8), 2), "gpu_pct": round(rng.uniform(0, 100), 2),
        "gpu_mem_pct": round(rng.uniform(0, 100), 2),
        "temperature_c": round(rng.uniform(35, 80), 1), "power_watts": round(rng.uniform(80, 700)),
    }
    report = {"agent_id": agent_id(i), "node": f"bench-node-{i:05d}", "seq": seq,
              "time_s": time.time(), "metrics": metrics}
    return json.dumps({"schema_version": 1, "reports": [report]}, separators=(",", ":")).encode()


class _Conn:
    """One agent's keep-alive HTTP/1.1 connection (asyncio streams: httpx's connection pool
    scales quadratically with waiting requests and became the bottleneck at 1,000 agents)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.reconnects = 0

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
        self.reader = self.writer = None

    async def _exchange(self, request: bytes) -> tuple[int, bytes]:
        if self.reader is None or self.writer is None or self.reader.at_eof():
            await self.close()
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            self.reconnects += 1
        self.writer.write(request)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionResetError("connection closed before a response")
        status = int(status_line.split(b" ", 2)[1])
        length, close = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
            elif name.strip().lower() == b"connection" and value.strip().lower() == b"close":
                close = True
        body = await self.reader.readexactly(length)
        if close:
            await self.close()
        return status, body

    async def post(self, path: str, headers: str, body: bytes, timeout_s: float) -> tuple[int, bytes]:
        """POST once; a keep-alive connection the server closed meanwhile is reopened and the
        (idempotent) request sent again, as an HTTP client library would."""
        request = (f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{headers}"
                   f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        for attempt in (0, 1):
            try:
                return await asyncio.wait_for(self._exchange(request), timeout_s)
            except (ConnectionError, asyncio.IncompleteReadError) as exc:
                await self.close()
                if attempt:
                    raise ConnectionError(str(exc)) from exc
            except BaseException:
                await self.close()
                raise
        raise AssertionError("unreachable")


async def _drive(
    host: str, port: int, agents: int, duration_s: float, interval_s: float, timeout_s: float,
) -> dict[str, Any]:
    latencies: list[float] = []
    lags: list[float] = []
    accepted = errors = 0
    error_kinds: dict[str, int] = {}
    conns = [_Conn(host, port) for _ in range(agents)]
    t0 = time.monotonic() + 0.5

    def fail(kind: str) -> None:
        nonlocal errors
        errors += 1
        error_kinds[kind] = error_kinds.get(kind, 0) + 1

    async def agent(i: int) -> None:
        nonlocal accepted
        rng = random.Random(i)
        headers = f"Authorization: Bearer {agent_token(i)}\r\nContent-Type: application/json\r\n"
        seq, due = 0, t0 + interval_s * i / agents
        while due < t0 + duration_s:
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            body = _report_body(i, seq, rng)
            start = time.monotonic()
            lags.append(start - due)
            try:
                status, answer = await conns[i].post("/v1/reports", headers, body, timeout_s)
                done = time.monotonic()
                if status == 200 and json.loads(answer).get("accepted") == 1:
                    accepted += 1
                    latencies.append(done - start)
                else:
                    fail(f"HTTP {status}")
            except (TimeoutError, OSError, ValueError) as exc:
                fail(type(exc).__name__)
            seq += 1
            due += interval_s
        await conns[i].close()

    await asyncio.gather(*(agent(i) for i in range(agents)))
    lag50, lag99 = percentiles_ms(lags)
    p50, p99 = percentiles_ms(latencies)
    return {"accepted": accepted, "errors": errors, "error_kinds": error_kinds,
            "p50_ms": p50, "p99_ms": p99, "send_lag_p50_ms": lag50, "send_lag_p99_ms": lag99,
            "connections_opened": sum(c.reconnects for c in conns)}


def _loadgen_main(argv: Sequence[str]) -> None:
    p = argparse.ArgumentParser(prog="python -m aesp.service.bench loadgen")
    p.add_argument("--url", required=True)
    p.add_argument("--agents", type=int, required=True)
    p.add_argument("--duration", type=float, required=True)
    p.add_argument("--interval", type=float, default=5.0)
    p.add_argument("--timeout", type=float, default=5.0)
    a = p.parse_args(argv)
    if not a.url.startswith("http://127.0.0.1:"):
        raise SystemExit("the load generator only targets http://127.0.0.1")
    port = int(a.url.rsplit(":", 1)[1].strip("/"))
    out = asyncio.run(_drive("127.0.0.1", port, a.agents, a.duration, a.interval, a.timeout))
    print(json.dumps(out))


def service_bench(
    agents: int, duration_s: float, interval_s: float = 5.0, timeout_s: float = 5.0,
) -> dict[str, Any]:
    """Run the ingest benchmark (see module doc) and return its JSON-able result."""
    if agents < 1 or duration_s <= 0:
        raise ValueError("agents must be >= 1 and duration_s > 0")
    with tempfile.TemporaryDirectory(prefix="aesp-bench-") as tmp:
        config, db = Path(tmp) / "cp.yaml", Path(tmp) / "cp.db"
        config.write_text(yaml.safe_dump({
            "db_path": str(db), "agent_tokens": {agent_id(i): agent_token(i) for i in range(agents)},
        }))
        port = _free_port()
        server = start_server(config, port, Path(tmp) / "serve.log")
        try:
            cmd = [sys.executable, "-m", "aesp.service.bench", "loadgen",
                   "--url", f"http://127.0.0.1:{port}", "--agents", str(agents),
                   "--duration", str(duration_s), "--interval", str(interval_s),
                   "--timeout", str(timeout_s)]
            gen = subprocess.run(cmd, capture_output=True, text=True, check=False,
                                 timeout=duration_s + 4 * timeout_s + 60)
            if gen.returncode != 0:
                raise RuntimeError(f"load generator failed: {gen.stderr[-2000:]}")
            client = json.loads(gen.stdout.strip().splitlines()[-1])
        finally:
            stop_server(server)
        with sqlite3.connect(db) as conn:
            stored = int(conn.execute("SELECT COUNT(*) FROM reports").fetchone()[0])
    accepted = int(client["accepted"])
    return {
        "agents": agents, "duration_s": duration_s, "accepted": accepted,
        "accepted_per_s": round(accepted / duration_s, 1),
        "p50_ms": client["p50_ms"], "p99_ms": client["p99_ms"], "errors": client["errors"],
        "interval_s": interval_s, "offered_per_s": round(agents / interval_s, 1),
        "stored": stored, "error_kinds": client["error_kinds"],
        "send_lag_p50_ms": client["send_lag_p50_ms"], "send_lag_p99_ms": client["send_lag_p99_ms"],
        "connections_opened": client["connections_opened"],
        "cpus": os.cpu_count(),
    }


# --------------------------------------------------------------------------- extender

_REGIONS = ("eu-west", "eu-central", "us-east", "us-west", "ap-south")
_GPU_PRODUCTS = ("NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3", "Tesla-T4", "NVIDIA-L4")


def kube_node_list(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` node objects as kube-scheduler sends them (see module doc)."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        region = _REGIONS[i % len(_REGIONS)]
        zone = f"{region}-{'abcd'[(i // len(_REGIONS)) % 4]}"
        edge = i % 7 == 0
        gpus = rng.choice((1, 2, 4, 8)) if i % 5 == 0 else 0
        arch = "arm64" if i % 6 == 0 and not gpus else "amd64"
        cpu = rng.choice(("4", "8", "16", "32", "64", "95500m"))
        allocatable = {"cpu": cpu, "memory": f"{rng.choice((8, 16, 32, 64, 128, 256))}Gi",
                       "ephemeral-storage": "95Gi", "hugepages-2Mi": "0", "pods": "110"}
        labels = {
            "kubernetes.io/arch": arch, "kubernetes.io/os": "linux",
            "kubernetes.io/hostname": f"node-{i:05d}",
            "node.kubernetes.io/instance-type": rng.choice(("m6i.2xlarge", "c7g.4xlarge", "p4d")),
            "topology.kubernetes.io/region": region, "topology.kubernetes.io/zone": zone,
            "aesp.io/tier": "edge" if edge else "cloud",
            "aesp.io/jurisdiction": "EU" if region.startswith("eu") else region[:2].upper(),
        }
        if gpus:
            allocatable["nvidia.com/gpu"] = str(gpus)
            labels["nvidia.com/gpu.product"] = rng.choice(_GPU_PRODUCTS)
        capacity = {**allocatable, "memory": allocatable["memory"]}
        items.append({
            "metadata": {"name": f"node-{i:05d}", "uid": f"uid-node-{i:05d}", "labels": labels,
                         "resourceVersion": str(1000 + i),
                         "annotations": {"node.alpha.kubernetes.io/ttl": "0"}},
            "spec": {"podCIDR": f"10.{i // 250}.{i % 250}.0/24"},
            "status": {
                "capacity": capacity, "allocatable": allocatable,
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
                "nodeInfo": {"architecture": arch, "operatingSystem": "linux",
                             "kubeletVersion": "v1.31.2"},
                "addresses": [{"type": "InternalIP", "address": f"10.0.{i // 250}.{i % 250}"}],
            },
        })
    return items


def kube_pods(n: int, seed: int = 1) -> list[dict[str, Any]]:
    """A mix of CPU-only and GPU pods, some with arch selectors and AESP annotations."""
    rng = random.Random(seed)
    pods = []
    for i in range(n):
        requests: dict[str, str] = {"cpu": rng.choice(("250m", "1", "2", "4")),
                                    "memory": rng.choice(("256Mi", "2Gi", "8Gi"))}
        annotations: dict[str, str] = {}
        selector: dict[str, str] = {}
        if i % 2 == 0:
            requests["nvidia.com/gpu"] = rng.choice(("1", "2"))
            annotations["aesp.io/task-class"] = rng.choice(("training", "inference"))
        if i % 3 == 0:
            selector["kubernetes.io/arch"] = "amd64"
        if i % 4 == 0:
            annotations["aesp.io/jurisdictions"] = "EU"
        pods.append({
            "metadata": {"name": f"bench-pod-{i}", "namespace": "bench", "uid": f"uid-pod-{i}",
                         "annotations": annotations},
            "spec": {"containers": [{"name": "main", "resources": {"requests": requests,
                                                                   "limits": requests}}],
                     "nodeSelector": selector, "priority": 0},
            "status": {},
        })
    return pods


async def _time_verbs(
    app: Any, bodies: list[bytes], verbs: Sequence[str], prefix: str, repeats: int,
) -> dict[str, dict[str, float]]:
    transport = httpx.ASGITransport(app=app)
    out: dict[str, dict[str, float]] = {}
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        headers = {"Content-Type": "application/json"}
        for verb in verbs:
            lat: list[float] = []
            for _ in range(repeats):
                for body in bodies:
                    start = time.perf_counter()
                    resp = await client.post(f"{prefix}/{verb}", content=body, headers=headers)
                    resp.json()
                    lat.append(time.perf_counter() - start)
                    if resp.status_code != 200:
                        raise RuntimeError(f"{verb}: HTTP {resp.status_code}: {resp.text[:500]}")
                    if verb == "filter" and resp.json()["Error"]:
                        raise RuntimeError(f"filter: {resp.json()['Error']}")
            p50, p99 = percentiles_ms(lat)
            out[verb] = {"p50_ms": p50, "p99_ms": p99, "max_ms": round(max(lat) * 1e3, 2)}
    return out


async def _extender_async(nodes: int, pods: int, repeats: int, tmp: str) -> dict[str, Any]:
    from aesp.service.app import create_app
    from aesp.service.settings import ServiceSettings

    items = kube_node_list(nodes)
    names = [n["metadata"]["name"] for n in items]
    pod_list = kube_pods(pods)
    prefix = "/scheduler"
    full = [json.dumps({"Pod": p, "Nodes": {"metadata": {}, "items": items}, "NodeNames": None},
                       separators=(",", ":")).encode() for p in pod_list]
    cached = [json.dumps({"Pod": p, "Nodes": None, "NodeNames": names},
                         separators=(",", ":")).encode() for p in pod_list]
    results: dict[str, dict[str, dict[str, float]]] = {}
    first_ms = 0.0
    for mode, bodies in (("nodeCacheCapable=false", full), ("nodeCacheCapable=true", cached)):
        # a fresh service per mode; its first full call registers the nodes (as kube-scheduler's
        # first calls, or agents registering, would) and is timed separately
        app = create_app(ServiceSettings(db_path=f"{tmp}/{mode}.db"))
        async with app.router.lifespan_context(app):
            warm = time.perf_counter()
            await _time_verbs(app, full[:1], ["filter"], prefix, 1)
            first_ms = (time.perf_counter() - warm) * 1e3
            await _time_verbs(app, bodies[:1], ["filter", "prioritize"], prefix, 1)
            gc.collect()
            results[mode] = await _time_verbs(app, bodies, ["filter", "prioritize"], prefix,
                                              repeats)
        del app
        gc.collect()
    return {"first_call_ms": round(first_ms, 1), "results": results,
            "request_bytes": {"full": len(full[0]), "names": len(cached[0])}}


def extender_bench(nodes: int, pods: int = 20, repeats: int = 1) -> dict[str, Any]:
    """Time filter and prioritize in-process (see module doc); ``pods * repeats`` calls per verb
    and mode."""
    if nodes < 1 or pods < 1 or repeats < 1:
        raise ValueError("nodes, pods and repeats must be >= 1")
    with tempfile.TemporaryDirectory(prefix="aesp-bench-") as tmp:
        out = asyncio.run(_extender_async(nodes, pods, repeats, tmp))
    by_mode = out["results"]
    return {
        "nodes": nodes, "calls": pods * repeats,
        "results": by_mode["nodeCacheCapable=true"],
        "results_by_mode": by_mode,
        "first_call_ms": out["first_call_ms"],
        "request_bytes": out["request_bytes"],
        "transport": "in-process ASGI (httpx.ASGITransport), request bodies pre-encoded",
        "cpus": os.cpu_count(),
    }


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "loadgen":
        _loadgen_main(sys.argv[2:])
    else:
        raise SystemExit("usage: python -m aesp.service.bench loadgen --url ... (see aesp bench)")
