#!/usr/bin/env python3
"""Compares builds of `mjolnir` on the catalog-sized edit (#38), edit by edit.

    python3 tools/bench/interleave.py OLD_BINARY NEW_BINARY [--edits 21] [--blocks 256]
        [--cold 3] [--apart]

On this machine the same binary's edit drifts by a third within the hour, so figures from
series run one after the other credited changes with milliseconds that were not there.
Here the binaries take turns in one workspace (A B, then B A, ...), every edit new to the
cache (`catalog.move_uv`), each after `sync`. Per binary it prints the median wall time and
the median of each phase the cook's own `report.json` gives (`summary.phases_ms`). With
`--cold N` it also takes turns on N cold cooks each of the pack and of a quarter of it,
and prints their peak RSS, the figure #38's memory goal compares.

With `--apart` each binary edits a workspace of its own (the same pack, cooked cold by that
binary), still turn by turn: for changes to what a cook leaves for the next one (the
spare's ledger, the stat cache's journal), which a binary that does not know it would
undo in a shared workspace.

Copy the binaries out of `target/` first: a build in between would replace them.
"""

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402
import catalog  # noqa: E402


def pack(root, blocks):
    """A synthetic pack of `blocks` blocks with the test donors, in `root`."""
    packgen = bench.REPO / "target/release/forge-packgen"
    bench.run([str(packgen), "synth", str(root / "synth"), "--blocks", str(blocks),
               "--triangles", "10000", "--hulls", "8"])
    paks = bench.REPO / "tests/data/donor-paks"
    (root / "pipeline.toml").write_text(
        '[build]\nout = "build"\n\n[[pack]]\nid = "synth"\npath = "synth"\n\n'
        + catalog.DONORS.format(paks=paks))


def turns(binaries, k):
    """The order of turn `k`: forwards, then backwards, so neither always goes first."""
    return binaries if k % 2 == 0 else binaries[::-1]


def edits(binaries, roots, blocks, count):
    """Each binary's wall times and phases over `count` edits, taking turns, each in its
    workspace (`roots[b]`)."""
    seen = {b: {"wall_ms": []} for b in binaries}
    for b in binaries:
        subprocess.run([b, "forge", "cook"], cwd=roots[b], check=True, capture_output=True)
    for k in range(count):
        for b in turns(binaries, k):
            root = roots[b]
            model = root / f"synth/source/models/b{min(100, blocks // 2):03}.glb"
            # A new amount each time: an edit seen before would come from the cache.
            catalog.move_uv(model, 0.001 * (k + 1) + 0.0001 * binaries.index(b))
            subprocess.run(["sync"], check=True)
            wall, _, _ = catalog.timed([b, "forge", "cook"], root)
            seen[b]["wall_ms"].append(wall * 1000)
            report = json.loads((root / "build/report.json").read_text())
            for phase, ms in report["summary"]["phases_ms"].items():
                seen[b].setdefault(phase, []).append(ms)
    return seen


def colds(binaries, roots, count):
    """Each binary's peak RSS (MiB) of `count` cold cooks of each pack, taking turns."""
    peaks = {(b, r.name): [] for b in binaries for r in roots}
    for k in range(count):
        for b in turns(binaries, k):
            for root in roots:
                _, rss, _ = catalog.cold_cook(root, [b, "forge", "cook"], f"{k}-{binaries.index(b)}")
                peaks[(b, root.name)].append(rss / 1024)
    return peaks


def main():
    args = sys.argv[1:]
    binaries = [a for a in args if not a.startswith("--") and not a.isdigit()]
    if len(binaries) < 2:
        sys.exit(__doc__)
    blocks = catalog.arg("--blocks", 256)
    bench.run(["cargo", "build", "--release", "--bin", "forge-packgen"], cwd=bench.REPO)
    with tempfile.TemporaryDirectory(dir=bench.REPO / "target", prefix="bench-interleave-") as tmp:
        root = Path(tmp) / "full"
        root.mkdir()
        pack(root, blocks)
        roots = {b: root for b in binaries}
        if "--apart" in args:
            for i, b in enumerate(binaries):
                roots[b] = Path(tmp) / f"apart-{i}"
                shutil.copytree(root, roots[b])
        seen = edits(binaries, roots, blocks, catalog.arg("--edits", 21))
        for b in binaries:
            medians = {k: round(statistics.median(v), 2) for k, v in seen[b].items()}
            print(f"{b}: edit {medians}")
        cold = catalog.arg("--cold", 0)
        if cold:
            small = Path(tmp) / "quarter"
            small.mkdir()
            pack(small, blocks // 4)
            peaks = colds(binaries, [root, small], cold)
            for b in binaries:
                full, quarter = peaks[(b, "full")], peaks[(b, "quarter")]
                print(f"{b}: cold peak RSS {statistics.median(full):.1f} MiB "
                      f"({min(full):.1f}-{max(full):.1f}), a quarter of the blocks "
                      f"{statistics.median(quarter):.1f} MiB: "
                      f"{statistics.median(full) / statistics.median(quarter):.2f}x")


if __name__ == "__main__":
    main()
