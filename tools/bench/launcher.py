#!/usr/bin/env python3
"""Resolves and syncs 500 packs against a local Hub and writes the section "Launcher" of
BENCHMARKS.md.

Run from the repository root: python3 tools/bench/launcher.py [PACKS]
Needs nginx (Debian: apt-get install nginx-core) and GNU time (/usr/bin/time) for the peak
memory. It builds the release binaries, makes PACKS synthetic packs (500 by default) of 8
blocks each (4,000 blocks, under the profile's bound of 4,096) with `forge-packgen synth`,
cooks them with the test donors, signs each release, publishes them with `hub index`, and
serves the Hub with nginx on a loopback port. A signed map needs every pack. Then:

- a cold sync: a fresh profile resolves, downloads, verifies and installs every pack;
- a warm sync: the same profile again, where everything installed serves.

Each figure is the median of a few runs, since the machine is noisy; the peak memory is
the largest resident set of the sync process.
"""

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sections import replace_section

REPO = Path(__file__).resolve().parents[2]
SECTION = "## Launcher (500 packs)"
SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
BLOCKS = 8
DONORS = """[donors]
paks = "{paks}"
static_mesh = "/Game/Fixtures/Meshes/SM_Fixture"
actor = "/Game/Fixtures/Blueprints/BP_Components"
"""


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(root, site):
    port = free_port()
    user = "user root;\n" if os.geteuid() == 0 else ""
    (root / "nginx.conf").write_text(
        f"""{user}worker_processes 2;
error_log {root}/error.log;
pid {root}/nginx.pid;
events {{ worker_connections 256; }}
http {{
  access_log off;
  sendfile on;
  client_body_temp_path {root}/body;
  proxy_temp_path {root}/proxy;
  fastcgi_temp_path {root}/fastcgi;
  uwsgi_temp_path {root}/uwsgi;
  scgi_temp_path {root}/scgi;
  server {{
    listen 127.0.0.1:{port};
    location / {{ root {site}; }}
  }}
}}
""")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    proc = subprocess.Popen([nginx, "-p", str(root), "-c", str(root / "nginx.conf"), "-g", "daemon off;"], stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.05)
    raise SystemExit("nginx did not start")


def make_packs(root, mjolnir, packgen, count):
    names = [f"p{i:03}" for i in range(count)]
    toml = '[build]\nout = "build"\n\n'
    for name in names:
        run([packgen, "synth", str(root / "packs" / name), "--blocks", str(BLOCKS), "--triangles", "100", "--hulls", "1", "--id", name])
        toml += f'[[pack]]\nid = "{name}"\npath = "packs/{name}"\n\n'
    toml += DONORS.format(paks=REPO / "tests/data/donor-paks")
    (root / "pipeline.toml").write_text(toml)
    started = time.monotonic()
    run([mjolnir, "forge", "cook"], cwd=root)
    cook_s = time.monotonic() - started
    (root / "seed.hex").write_text(SEED)
    (root / "releases").mkdir()
    for name in names:
        run([mjolnir, "forge", "pack", f"build/game/{name}/all/mjolnir.json", "--content", f"build/game/{name}/all/content",
             "--out", f"releases/{name}-0.1.0.mjolnir", "--sign-seed", "seed.hex"], cwd=root)
    return names, cook_s


def make_map(root, mjolnir, names):
    """A signed map whose level lists every pack. Its container is the test donors' (no
    pack's packages: a map may not carry those)."""
    packs = []
    for name in names:
        manifest = json.loads((root / f"build/game/{name}/all/mjolnir.json").read_text())
        blocks = [{"id": b["id"], "tag": b["tag"]} for b in manifest["forge_pack"]["blocks"]]
        packs.append({"slug": name, "version": "0.1.0", "blocks": blocks})
    level = {"format": "mjolnir-level", "name": "Bench", "slug": "bench", "version": "1.0.0", "build": "standalone",
             "bounds_m": [[-10, -10, -1], [10, 10, 10]], "object_budget": 100, "standard_palette": [],
             "blam": {"map_variant": True, "forge_packs": packs}}
    (root / "level.json").write_text(json.dumps(level))
    baked = root / "baked"
    baked.mkdir()
    donors = REPO / "tests/data/donor-paks"
    for ext in ("utoc", "ucas"):
        source = next(donors.glob(f"*.{ext}"))
        shutil.copy(source, baked / f"bench_P.{ext}")
    run([mjolnir, "map", "pack", "level.json", "--content", "baked", "--out", "bench.mjolnir", "--sign-seed", "seed.hex"], cwd=root)


def timed_sync(mjolnir, hub, profile):
    time_bin = "/usr/bin/time" if Path("/usr/bin/time").exists() else None
    cmd = [mjolnir, "launcher", "sync", "--hub", hub, "--profile", str(profile)]
    if time_bin:
        cmd = [time_bin, "-f", "%M"] + cmd
    started = time.monotonic()
    proc = subprocess.run(cmd, text=True, capture_output=True)
    elapsed = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"sync failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    lines = [l for l in proc.stderr.strip().splitlines() if l.strip().isdigit()]
    return elapsed, int(lines[-1]) if lines else None, proc.stdout


def fresh_profile(root, n):
    profile = root / f"profile-{n}"
    (profile / "maps").mkdir(parents=True)
    (profile / "trusted-keys.txt").write_text(KEY + "\n")
    shutil.copy(root / "bench.mjolnir", profile / "maps/bench.mjolnir")
    return profile


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    run(["cargo", "build", "--release", "-p", "mjolnir-pipeline", "-p", "forge-packgen"], cwd=REPO)
    mjolnir = str(REPO / "target/release/mjolnir")
    packgen = str(REPO / "target/release/forge-packgen")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        names, cook_s = make_packs(root, mjolnir, packgen, count)
        make_map(root, mjolnir, names)
        started = time.monotonic()
        run([mjolnir, "hub", "index", "releases", "--out", "hub"], cwd=root)
        index_s = time.monotonic() - started
        server_root = root / "nginx"
        server_root.mkdir()
        nginx, hub = start_nginx(server_root, root / "hub")
        try:
            cold, warm, report = [], [], ""
            for n in range(3):
                profile = fresh_profile(root, n)
                cold.append(timed_sync(mjolnir, hub, profile))
                warm.append(timed_sync(mjolnir, hub, profile))
                report = cold[-1][2]
        finally:
            nginx.terminate()
            nginx.wait()
        archive_mb = sum(p.stat().st_size for p in (root / "hub/files").iterdir()) / 1e6
    head = report.splitlines()[1] if report else ""
    med = lambda runs, i: statistics.median(r[i] for r in runs)
    rss = lambda runs: max((r[1] or 0) for r in runs) / 1024
    section = f"""{SECTION}

`python3 tools/bench/launcher.py`: {count} synthetic packs of {BLOCKS} blocks
({count * BLOCKS} blocks, {archive_mb:.1f} MB of signed archives), published with `hub index` and
served by nginx on a loopback port; one signed map needs them all. Medians of 3 runs.

| what | time | peak memory |
|---|---|---|
| cold sync: resolve, download, verify, install, catalogs, Paks | {med(cold, 0):.2f} s | {rss(cold):.0f} MiB |
| warm sync: everything installed serves | {med(warm, 0):.2f} s | {rss(warm):.0f} MiB |
| `hub index` of the {count} releases | {index_s:.2f} s | |
| (setup) cooking the {count} packs | {cook_s:.1f} s | |

The report's summary line: `{head}`.
"""
    replace_section(SECTION, section)
    print(section)


if __name__ == "__main__":
    main()
