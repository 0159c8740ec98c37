#!/usr/bin/env python3
"""The donor lookup in a Paks folder at a real game's size (#37): prints the figures that
BENCHMARKS.md's "A game-sized Paks folder" section records.

Run from the repository root after `cargo build --release`: python3 tools/bench/paks.py
Needs hyperfine and ninja. Generates 300 containers of 4,096 chunks each (TOCs of about
380 KB, 115 MB in all) with `forge-packgen game-paks`, the test donors in the middle one.

- lookup, cold index: the stock packs' cook with every step cached and the Paks index
  removed, so each TOC's chunk ids are read (page cache warm).
- lookup, cold disk: the same, once, after dropping the page cache (needs root; skipped
  otherwise).
- lookup, warm index: the same cook with the index in place (no TOC is opened but the
  donors' own).
- no-op: the sealed no-op cook with these donors, against ninja on a graph of the same
  shape (bench.py's comparison).
- peak memory of the cold-index cook.
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402

REPO = bench.REPO
MESH = "/Game/Fixtures/Meshes/SM_Fixture"
ACTOR = "/Game/Fixtures/Blueprints/BP_Components"
# As the tests' donors: the fixture material instance serves glass and portal surfaces.
MATERIALS = ('glass_material = "/Game/Fixtures/Materials/MI_Fixture"\n'
             'portal_material = "/Game/Fixtures/Materials/MI_Fixture"\n'
             'tint_parameter = "PrimaryColor"\nopacity_parameter = "FixtureRoughness"\n')


def main():
    mjolnir = REPO / "target/release/mjolnir"
    packgen = REPO / "target/release/forge-packgen"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paks = root / "Paks"
        bench.run([str(packgen), "game-paks", str(REPO / "tests/data/donors"), str(paks)])
        tocs = list(paks.glob("*.utoc"))
        toc_bytes = sum(p.stat().st_size for p in tocs)
        bench.workspace(root)
        toml = (root / "pipeline.toml").read_text()
        toml += f'[donors]\npaks = "{paks}"\nstatic_mesh = "{MESH}"\nactor = "{ACTOR}"\n' + MATERIALS
        (root / "pipeline.toml").write_text(toml)
        cook = f"{mjolnir} forge cook --explain"
        bench.run(cook.split(), cwd=root)
        index = root / "build/donors/paks-index.json"
        cold = bench.hyperfine("lookup-cold", cook, root, prepare=f"rm -f {index}", runs=10)
        warm = bench.hyperfine("lookup-warm", cook, root, runs=10)
        rss = bench.peak_rss_kib(["sh", "-c", f"rm -f {index} && {cook}"], root)
        disk = None
        if Path("/proc/sys/vm/drop_caches").exists():
            drop = subprocess.run(["sh", "-c", f"rm -f {index}; sync; echo 3 > /proc/sys/vm/drop_caches"])
            if drop.returncode == 0:
                disk = bench.hyperfine("lookup-disk", cook, root, runs=1, warmup=0)
        noop, ninja, steps = bench.noop_against_ninja(mjolnir, root)
        print(json.dumps({
            "containers": len(tocs),
            "toc_mb": round(toc_bytes / 1e6, 1),
            "lookup_cold_index_ms": round(cold["median_ms"], 1),
            "lookup_cold_disk_ms": disk and round(disk["median_ms"], 1),
            "lookup_warm_index_ms": round(warm["median_ms"], 1),
            "peak_rss_mib": rss and round(rss / 1024, 1),
            "noop_ms": round(noop["median_ms"], 1),
            "ninja_noop_ms": round(ninja["median_ms"], 1),
            "noop_over_ninja": round(noop["median_ms"] / ninja["median_ms"], 2),
            "steps": steps,
        }, indent=2))


if __name__ == "__main__":
    main()
