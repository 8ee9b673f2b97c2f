"""Measure ``aesp agent``'s footprint: RSS, CPU overhead and install size.

Usage: ``python -m aesp.service.measure_agent [--seconds 30] [--tick-s 1]``

Starts ``aesp serve`` and ``aesp agent`` (as ``python -m aesp.cli.agent``, without the rest of
the CLI) on 127.0.0.1, lets the agent report for ``--seconds``, and prints JSON with the agent
process's peak and final RSS, its CPU time over the run as a percentage of one core, and the
on-disk size of the Python distributions the agent process imports (the interpreter excluded).
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx
import psutil
import yaml

_IMPORTS = (
    "import sys, json, aesp.cli.agent, aesp.service.agent_runner;"
    "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def install_size_bytes() -> dict[str, int]:
    """Bytes on disk per distribution whose modules the agent process imports."""
    out = subprocess.run([sys.executable, "-c", _IMPORTS], capture_output=True, text=True,
                         check=True).stdout
    top_level = json.loads(out)
    owners = metadata.packages_distributions()
    sizes: dict[str, int] = {}
    for module in top_level:
        for dist in owners.get(module, []):
            if dist in sizes:
                continue
            files = metadata.files(dist) or []
            sizes[dist] = sum(
                p.stat().st_size for f in files if (p := Path(str(f.locate()))).is_file()
            )
    aesp_src = Path(__file__).resolve().parents[1]
    sizes["aesp (agent modules)"] = sum(
        p.stat().st_size for sub in ("core", "perception", "service", "cli")
        for p in (aesp_src / sub).rglob("*.py")
    )
    sizes.pop("aesp", None)
    return sizes


def _wait_ready(url: str, deadline_s: float = 20.0) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            if httpx.get(f"{url}/readyz", timeout=0.5).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise TimeoutError("control plane did not start")


def measure(seconds: float, tick_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "cp.yaml"
        cfg.write_text(yaml.safe_dump({"db_path": f"{tmp}/cp.db", "agent_tokens": {"m": "t"}}))
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [sys.executable, "-m", "aesp.cli.serve", "--port", str(port), "--config", str(cfg),
             "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_ready(url)
            agent = subprocess.Popen(
                [sys.executable, "-m", "aesp.cli.agent", "--server", url, "--token", "t",
                 "--node", "measured", "--agent-id", "m", "--tick-s", str(tick_s),
                 "--fast-s", str(tick_s), "--metrics-host", "127.0.0.1",
                 "--metrics-port", str(_free_port())],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            proc = psutil.Process(agent.pid)
            time.sleep(3.0)  # imports and the first tick are start-up, not steady-state overhead
            cpu0, t0, peak = proc.cpu_times(), time.monotonic(), 0
            while time.monotonic() - t0 < seconds:
                peak = max(peak, proc.memory_info().rss)
                time.sleep(0.5)
            cpu1, wall = proc.cpu_times(), time.monotonic() - t0
            rss, uss = proc.memory_info().rss, proc.memory_full_info().uss
            reports = len(httpx.get(f"{url}/v1/reports", params={"node": "measured"}).json())
            agent.terminate()
            agent.wait(10)
        finally:
            server.terminate()
            server.wait(10)
    busy = (cpu1.user + cpu1.system) - (cpu0.user + cpu0.system)
    sizes = install_size_bytes()
    return {
        "seconds": round(wall, 1), "tick_s": tick_s, "reports_stored": reports,
        "rss_mib_peak": round(peak / 2**20, 1), "rss_mib_final": round(rss / 2**20, 1),
        "uss_mib_final": round(uss / 2**20, 1),
        "cpu_pct_of_one_core": round(100.0 * busy / wall, 2),
        "install_mib_total": round(sum(sizes.values()) / 2**20, 1),
        "install_mib_by_distribution": {k: round(v / 2**20, 2) for k, v in sorted(sizes.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--tick-s", type=float, default=1.0)
    args = parser.parse_args()
    print(json.dumps(measure(args.seconds, args.tick_s), indent=2))


if __name__ == "__main__":
    main()
