#!/usr/bin/env python3
"""Measures a fresh clone cooking the stock packs from a warm remote cache, against a local
cold cook and a local no-op, in one run, and writes the section "Remote cache" of
BENCHMARKS.md.

Run from the repository root: python3 tools/bench/remote.py
Needs hyperfine and nginx (Debian: apt-get install hyperfine nginx-core). The remote is
nginx with WebDAV on a loopback port, as the tests and docs/ci.md set it up.

The same run then puts `delay_proxy.py` between the fresh clone and nginx, adding 10, 20
and 40 ms to each request, and points a fresh clone at a remote that accepts and never
answers, and at one where nothing listens. The goals (issue #34): with 20 ms no slower
than a local cold cook, with 40 ms within 1.5 times it, and a stalled or dead remote at
most 2 s over it.
"""

import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from bench import hyperfine, run, workspace
from sections import replace_section

REPO = Path(__file__).resolve().parents[2]
SECTION = "## Remote cache"
# RFC 8032 test 1: the writer key the warm machine signs with, and its public key.
WRITER_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
WRITER_KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"


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


def issue_workload(ws, packgen):
    """The stock packs with the test donors, plus a 48-block synthetic pack: the workload
    of issue #34's targets."""
    run([packgen, "synth", str(ws / "packs/synth48"), "--blocks", "48", "--triangles", "1000",
         "--hulls", "2", "--seed", "1", "--id", "synth48"])
    with open(ws / "pipeline.toml", "a") as f:
        f.write('[[pack]]\nid = "synth48"\npath = "packs/synth48"\n\n')
        f.write(f'[donors]\npaks = "{REPO / "tests/data/donor-paks"}"\n'
                'static_mesh = "/Game/Fixtures/Meshes/SM_Fixture"\n'
                'actor = "/Game/Fixtures/Blueprints/BP_Components"\n'
                'glass_material = "/Game/Fixtures/Materials/MI_Fixture"\n'
                'portal_material = "/Game/Fixtures/Materials/MI_Fixture"\n'
                'tint_parameter = "PrimaryColor"\nopacity_parameter = "FixtureRoughness"\n\n')


def start_proxy(target, delay_ms, stall=False):
    port = free_port()
    cmd = ["python3", str(Path(__file__).with_name("delay_proxy.py")), str(port), str(target), str(delay_ms)]
    proc = subprocess.Popen(cmd + (["--stall"] if stall else []))
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the delay proxy did not start")


def slow_links(mjolnir, fresh, fresh_folder, nginx_port):
    """Fresh clones through 10, 20 and 40 ms of added latency, a stalled and a dead remote."""

    def clone(name, delay, runs, setting=None, stall=False):
        """A fresh clone's median through a proxy, with one `[cache]` setting changed."""
        config = "pipeline.toml"
        if setting:
            config = f"{name}.toml"
            text = (fresh / "pipeline.toml").read_text()
            (fresh / config).write_text(text.replace("[cache]", f"[cache]\n{setting}", 1))
        proxy, port = start_proxy(nginx_port, delay, stall)
        try:
            url = f"http://127.0.0.1:{port}/cache"
            command = f"{mjolnir} forge cook --config {config} --remote-cache {url}"
            return hyperfine(name, command, fresh, prepare=fresh_folder, runs=runs)["median_ms"]
        finally:
            proxy.terminate()
            proxy.wait()

    out = {f"{d} ms": clone(f"delay{d}", d, 10) for d in (10, 20, 40)}
    # The same link with as many requests in flight as cores, as before the I/O pool.
    out["20 ms, 2 in flight"] = clone("two", 20, 3, "remote_connections = 2")
    out["stalled"] = clone("stalled", 0, 3, "remote_timeout_s = 1", stall=True)
    dead = f"http://127.0.0.1:{free_port()}/cache"
    out["down"] = hyperfine("down", f"{mjolnir} forge cook --remote-cache {dead}", fresh,
                            prepare=fresh_folder, runs=3)["median_ms"]
    return out


def main():
    run(["cargo", "build", "--release", "-p", "mjolnir-pipeline", "-p", "forge-packgen"], cwd=REPO)
    mjolnir = str(REPO / "target/release/mjolnir")
    packgen = str(REPO / "target/release/forge-packgen")
    # In memory when the machine has a tmpfs: the three cooks write thousands of small
    # files, and a disk still flushing the last run's made the figures drift run to run.
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        tmp = Path(tmp)
        where = "tmpfs" if str(tmp).startswith("/dev/shm") else "disk"
        trash = tmp / "trash"
        fresh_folder = f"sh -c 'mkdir -p {trash} && mv build {trash}/$(date +%s%N) 2>/dev/null; true'"
        server, port = start_nginx(tmp / "nginx")
        url = f"http://127.0.0.1:{port}/cache"
        try:
            warm, fresh = tmp / "warm", tmp / "fresh"
            for ws in (warm, fresh):
                ws.mkdir()
                workspace(ws)
                issue_workload(ws, packgen)
            # The first machine writes, signed with its writer key; the fresh clone trusts it.
            (warm / "writer.key").write_text(WRITER_SEED)
            with open(warm / "pipeline.toml", "a") as f:
                f.write('\n[cache]\nwriter_key = "writer.key"\n')
            with open(fresh / "pipeline.toml", "a") as f:
                f.write(f'\n[cache]\ntrusted_writers = ["{WRITER_KEY}"]\n')
            # The first machine fills the remote.
            run([mjolnir, "forge", "cook", "--remote-cache", url], cwd=warm)
            cold = hyperfine("cold", f"{mjolnir} forge cook", warm, prepare=fresh_folder, runs=10)
            run([mjolnir, "forge", "cook"], cwd=warm)
            noop = hyperfine("noop", f"{mjolnir} forge cook", warm, runs=20)
            # A fresh clone each run: no build folder, so no local cache.
            remote = hyperfine("remote", f"{mjolnir} forge cook --remote-cache {url}", fresh, prepare=fresh_folder, runs=10)
            report = (fresh / "build/report.json").read_text()
            slow = slow_links(mjolnir, fresh, fresh_folder, port)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait()
    import json

    summary = json.loads(report)["summary"]
    counts = summary["remote"]
    connections = 32
    section = f"""{SECTION}

Written by `python3 tools/bench/remote.py`, one run, {os.cpu_count()} cores, workspaces on
{where}: the three stock packs with the test donors and a 48-block synthetic pack
({summary['steps']} steps). The remote is nginx with WebDAV on loopback. The fresh
clone has no build folder, so every step comes from the remote: {counts['hits']} hits, of
which {counts['bundled_entries']} came in the cook's bundle, in {counts['requests']}
requests and {counts['bytes_down'] / 1e6:.1f} MB; {counts['downloaded_blobs']} of
{counts['listed_blobs']} large outputs were fetched (the rest no step or set file read).
Hyperfine medians.

| cook | median |
|---|---|
| local cold (empty build folder) | {cold['median_ms']:.0f} ms |
| local no-op | {noop['median_ms']:.1f} ms |
| fresh clone from the warm remote | {remote['median_ms']:.0f} ms |

Over a slow link (`delay_proxy.py` adds the delay to each request), and against remotes
that fail: a fresh clone each run, 10 runs each (3 for the failing remotes; the stalled
one with `remote_timeout_s = 1`). The fresh clone asks for the cook's bundle (one
request), then downloads the large outputs its sets hold while it looks its steps up
(one more round trip, {connections} requests in flight at most). The row with 2 requests
in flight (`remote_connections = 2`, one per core, as before the I/O pool) shows what the
bundle leaves to the pool: little.

| fresh clone | median | against local cold | goal |
|---|---|---|---|
| +10 ms per request | {slow['10 ms']:.0f} ms | {slow['10 ms'] / cold['median_ms']:.2f}x | |
| +20 ms per request | {slow['20 ms']:.0f} ms | {slow['20 ms'] / cold['median_ms']:.2f}x | at most 1x |
| +40 ms per request | {slow['40 ms']:.0f} ms | {slow['40 ms'] / cold['median_ms']:.2f}x | at most 1.5x |
| +20 ms, 2 requests in flight (one per core, as before the I/O pool) | {slow['20 ms, 2 in flight']:.0f} ms | {slow['20 ms, 2 in flight'] / cold['median_ms']:.2f}x | |
| a remote that stalls | {slow['stalled']:.0f} ms | +{(slow['stalled'] - cold['median_ms']) / 1000:.2f} s | at most +2 s |
| a remote that is down | {slow['down']:.0f} ms | +{(slow['down'] - cold['median_ms']) / 1000:.2f} s | at most +2 s |
"""
    replace_section(SECTION, section)
    print(section)


if __name__ == "__main__":
    main()
