#!/usr/bin/env python3
"""Measures a fresh clone cooking the stock packs from a warm remote cache, against a local
cold cook and a local no-op, in one run, and writes the section "Remote cache" of
BENCHMARKS.md.

Run from the repository root: python3 tools/bench/remote.py
Needs hyperfine and nginx (Debian: apt-get install hyperfine nginx-core). The remote is
nginx with WebDAV on a loopback port, as the tests and docs/ci.md set it up.

The transfer time is every object the fresh clone downloads (each step's entry and its
blobs), fetched one after another over one kept-alive connection: the wire's share of the
fresh clone's time. The goal: the fresh clone within 3x the local no-op plus that.
"""

import http.client
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from bench import FRESH, TRASH, hyperfine, run, workspace
from sections import replace_section

REPO = Path(__file__).resolve().parents[2]
SECTION = "## Remote cache"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(root):
    port = free_port()
    user = "user root;\n" if os.geteuid() == 0 else ""
    (root / "data/cache").mkdir(parents=True)
    (root / "nginx.conf").write_text(
        f"""{user}worker_processes 2;
error_log {root}/error.log;
pid {root}/nginx.pid;
events {{ worker_connections 256; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path {root}/body;
  proxy_temp_path {root}/proxy;
  fastcgi_temp_path {root}/fastcgi;
  uwsgi_temp_path {root}/uwsgi;
  scgi_temp_path {root}/scgi;
  server {{
    listen 127.0.0.1:{port};
    location /cache/ {{
      root {root}/data;
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
      client_max_body_size 0;
    }}
  }}
}}
"""
    )
    proc = subprocess.Popen(["nginx", "-p", str(root), "-c", str(root / "nginx.conf"), "-g", "daemon off;"])
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    raise SystemExit("nginx did not start")


def transfer_ms(port, data):
    """Every entry and blob the server holds, fetched in turn over one connection."""
    paths = sorted(p.relative_to(data) for p in data.rglob("*") if p.is_file())
    conn = http.client.HTTPConnection("127.0.0.1", port)
    best = None
    for _ in range(5):
        started = time.perf_counter()
        total = 0
        for rel in paths:
            conn.request("GET", f"/cache/{rel}")
            total += len(conn.getresponse().read())
        took = (time.perf_counter() - started) * 1000
        best = took if best is None else min(best, took)
    return best, len(paths), total


def main():
    run(["cargo", "build", "--release", "-p", "mjolnir-pipeline"], cwd=REPO)
    mjolnir = str(REPO / "target/release/mjolnir")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        server, port = start_nginx(tmp / "nginx")
        url = f"http://127.0.0.1:{port}/cache"
        try:
            warm, fresh = tmp / "warm", tmp / "fresh"
            for ws in (warm, fresh):
                ws.mkdir()
                workspace(ws)
            # The first machine fills the remote.
            run([mjolnir, "forge", "cook", "--remote-cache", url], cwd=warm)
            cold = hyperfine("cold", f"{mjolnir} forge cook", warm, prepare=FRESH, runs=10)
            run([mjolnir, "forge", "cook"], cwd=warm)
            noop = hyperfine("noop", f"{mjolnir} forge cook", warm, runs=20)
            # A fresh clone each run: no build folder, so no local cache.
            remote = hyperfine("remote", f"{mjolnir} forge cook --remote-cache {url}", fresh, prepare=FRESH, runs=10)
            report = (fresh / "build/report.json").read_text()
            wire, objects, size = transfer_ms(port, tmp / "nginx/data/cache")
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait()
            shutil.rmtree(TRASH, ignore_errors=True)
    import json

    summary = json.loads(report)["summary"]
    goal = 3 * noop["median_ms"] + wire
    verdict = "within" if remote["median_ms"] <= goal else "over"
    section = f"""{SECTION}

Written by `python3 tools/bench/remote.py`, one run, {os.cpu_count()} cores: the three stock
packs ({summary['steps']} steps). The remote is nginx with WebDAV on loopback. The fresh
clone has no build folder, so every step comes from the remote: {summary['remote']['hits']}
hits, {summary['remote']['bytes_down'] / 1e6:.1f} MB. The transfer time is the
{objects} objects the server holds ({size / 1e6:.1f} MB), fetched one after another over one
connection. Hyperfine medians.

| cook | median |
|---|---|
| local cold (empty build folder) | {cold['median_ms']:.0f} ms |
| local no-op | {noop['median_ms']:.1f} ms |
| fresh clone from the warm remote | {remote['median_ms']:.0f} ms |
| transfer alone | {wire:.0f} ms |

**Goal: at most 3x the no-op plus the transfer = {goal:.0f} ms; the fresh clone took
{remote['median_ms']:.0f} ms, {verdict} the goal.**
"""
    replace_section(SECTION, section)
    print(section)


if __name__ == "__main__":
    main()
