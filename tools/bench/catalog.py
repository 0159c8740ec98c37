#!/usr/bin/env python3
"""Edit to result at the catalog's full size (#38): prints the figures BENCHMARKS.md's
"One-block edit at the catalog's size" section records, from one run.

Run from the repository root after `cargo build --release`:
    python3 tools/bench/catalog.py [--blocks 256] [--edits 7]

The pack is `forge-packgen synth --blocks N --triangles 10000 --hulls 8`, cooked with the
test donors. Every timed edit moves one texture coordinate of one block's model by a new
amount, so each is new to the cache (an edit toggled back and forth is served from the cache
every other time and hides the real cost).

- cold: cooks into an empty build folder, with `--jobs 1` and `--jobs 2` (the 2-thread
  speedup), twice each taking turns, the faster of each kept, and its peak RSS;
- no-op: hyperfine median;
- edit: each edit's wall time and peak RSS, and the cache growth per edit;
- ideal edit: the no-op, plus the edited block's own steps from the report, plus the
  fastest of the `cp` of the changed container files taken after each edit (the copy swings
  several-fold on this disk, and would flatter the ratio when slow).
"""

import json
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402

REPO = bench.REPO
DONORS = ('[donors]\npaks = "{paks}"\nstatic_mesh = "/Game/Fixtures/Meshes/SM_Fixture"\n'
          'actor = "/Game/Fixtures/Blueprints/BP_Components"\n')


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def move_uv(glb, amount):
    """Adds `amount` to the first texture coordinate of a GLB's first primitive."""
    b = bytearray(glb.read_bytes())
    json_len = struct.unpack_from("<I", b, 12)[0]
    gltf = json.loads(b[20:20 + json_len])
    attributes = gltf["meshes"][0]["primitives"][0]["attributes"]
    accessor = gltf["accessors"][attributes.get("TEXCOORD_0", attributes["POSITION"])]
    view = gltf["bufferViews"][accessor["bufferView"]]
    at = 20 + json_len + 8 + view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    struct.pack_into("<f", b, at, struct.unpack_from("<f", b, at)[0] + amount)
    glb.write_bytes(b)


def timed(command, cwd):
    """Wall seconds, peak RSS (KiB) and CPU seconds (user + system) of one run."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M %U %S"] + command, cwd=cwd, text=True, capture_output=True, check=True)
    wall = time.perf_counter() - start
    rss, user, system = [l for l in proc.stderr.splitlines() if l.count(" ") == 2][-1].split()
    return wall, int(rss), float(user) + float(system)


def cold_cook(root, command, k):
    """One cook into an empty build folder. The last one is moved aside, not deleted:
    deleting thousands of files just before a run slows the next one's file creation."""
    if (root / "build").exists():
        (root / "build").rename(root / f"old-build-{k}")
    subprocess.run(["sync"], check=True)
    return timed(command, root)


def copy_time(content, root, k):
    """Milliseconds of one copy of the set's container files into a new folder, after
    `sync` like the timed cooks. Taken after each edit, so the copies meet the disk as the
    edits do: one copy swings several-fold on this disk within the hour."""
    subprocess.run(["sync"], check=True)
    start = time.perf_counter()
    shutil.copytree(content, root / f"copy-{k}")
    elapsed = (time.perf_counter() - start) * 1000
    shutil.rmtree(root / f"copy-{k}")
    return elapsed


def replace_time(content, root):
    """Milliseconds of copying the set's container files over the copies the edit before
    left, after `sync`: what replacing them costs (an existing file is truncated, freeing
    its blocks and pages), where `copy_time` writes new files."""
    kept = root / "replaced"
    if not kept.exists():
        shutil.copytree(content, kept)
    subprocess.run(["sync"], check=True)
    start = time.perf_counter()
    for f in sorted(content.iterdir()):
        shutil.copyfile(f, kept / f.name)
    return (time.perf_counter() - start) * 1000


def du(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def main():
    figures = measure(arg("--blocks", 256), arg("--edits", 7))
    print(json.dumps(figures, indent=2))
    print(markdown(figures))


def measure(blocks, edits):
    """The section's figures from one run, with release binaries already built."""
    mjolnir = REPO / "target/release/mjolnir"
    packgen = REPO / "target/release/forge-packgen"
    (REPO / "target").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=REPO / "target", prefix="bench-catalog-") as tmp:
        root = Path(tmp)
        bench.run([str(packgen), "synth", str(root / "synth"), "--blocks", str(blocks),
                   "--triangles", "10000", "--hulls", "8"])
        paks = REPO / "tests/data/donor-paks"
        (root / "pipeline.toml").write_text('[build]\nout = "build"\n\n[[pack]]\nid = "synth"\npath = "synth"\n\n' + DONORS.format(paks=paks))
        cook = [str(mjolnir), "forge", "cook"]
        # Each cold cook twice, the thread counts taking turns, and the faster of each kept:
        # on this disk the first cold cook after the pack is written waits on its
        # writeback (a `--jobs 1` cook read 6.1 s once, against 2.0 s on tmpfs).
        runs = {1: [], 2: []}
        for turn in range(2):
            for jobs in runs:
                runs[jobs].append(cold_cook(root, cook + ["--jobs", str(jobs)], f"{jobs}-{turn}"))
        cold = {jobs: min(timed_runs) for jobs, timed_runs in runs.items()}
        small = root / "small"
        small.mkdir()
        bench.run([str(packgen), "synth", str(small / "synth"), "--blocks", str(blocks // 4),
                   "--triangles", "10000", "--hulls", "8"])
        (small / "pipeline.toml").write_text((root / "pipeline.toml").read_text())
        small_cold = cold_cook(small, cook + ["--jobs", "2"], 0)
        noop = bench.hyperfine("catalog-noop", " ".join(cook), root, runs=20, warmup=3)
        edited = f"b{min(100, blocks // 2):03}"
        model = root / f"synth/source/models/{edited}.glb"
        walls, rsss, growth, own, own_bytes, copies, replaces = [], [], [], [], [], [], []
        phases = {}
        for k in range(1, edits + 1):
            before = du(root / "build/cache")
            move_uv(model, 0.001 * k)
            subprocess.run(["sync"], check=True)
            wall, rss, _ = timed(cook, root)
            walls.append(wall)
            rsss.append(rss)
            growth.append(du(root / "build/cache") - before)
            report = json.loads((root / "build/report.json").read_text())
            mine = [s for s in report["steps"] if s["status"] == "run" and f"/{edited}" in s["id"]]
            own.append(sum(s["duration_ms"] for s in mine))
            for phase, ms in report["summary"]["phases_ms"].items():
                phases.setdefault(phase, []).append(ms)
            own_bytes.append(sum(o["size"] for s in mine for o in s["outputs"]))
            copies.append(copy_time(root / "build/game/synth/all/content", root, k))
            replaces.append(replace_time(root / "build/game/synth/all/content", root))
        copies.sort()
        cp_ms, cp_median_ms = copies[0], copies[len(copies) // 2]
        walls.sort()
        median = walls[len(walls) // 2] * 1000
        ideal = noop["median_ms"] + sorted(own)[len(own) // 2] + cp_ms
        replace_ms = sorted(replaces)[0]
        replacing = noop["median_ms"] + sorted(own)[len(own) // 2] + replace_ms
        return {
            "blocks": blocks,
            "edits": edits,
            "cold_j1_s": round(cold[1][0], 2),
            "cold_j2_s": round(cold[2][0], 2),
            "speedup_2_threads": round(cold[1][0] / cold[2][0], 2),
            "cold_peak_mib": round(cold[2][1] / 1024, 1),
            "cold_cpu_s": round(cold[2][2], 2),
            "small_blocks": blocks // 4,
            "small_cold_peak_mib": round(small_cold[1] / 1024, 1),
            "noop_ms": round(noop["median_ms"], 1),
            "edit_median_ms": round(median, 1),
            "edit_range_ms": [round(walls[0] * 1000), round(walls[-1] * 1000)],
            "edit_peak_mib": round(max(rsss) / 1024, 1),
            "ideal_edit_ms": round(ideal, 1),
            "own_steps_ms": round(sorted(own)[len(own) // 2], 1),
            "cp_ms": round(cp_ms, 1),
            "cp_median_ms": round(cp_median_ms, 1),
            "edit_over_ideal": round(median / ideal, 2),
            "replace_ms": round(replace_ms, 1),
            "ideal_replacing_ms": round(replacing),
            "edit_over_ideal_replacing": round(median / replacing, 1),
            "cache_growth_per_edit_mb": round(sorted(growth)[len(growth) // 2] / 1e6, 2),
            "block_outputs_mb": round(sorted(own_bytes)[len(own_bytes) // 2] / 1e6, 2),
            "edit_phases_ms": {p: round(sorted(v)[len(v) // 2], 1) for p, v in phases.items()},
            "growth_over_block_outputs": round(sorted(growth)[len(growth) // 2]
                                               / max(1, sorted(own_bytes)[len(own_bytes) // 2]), 2),
        }


HEADING = "## One-block edit at the catalog's size"


def markdown(r):
    """BENCHMARKS.md's section for figures from `measure`."""
    lo, hi = r["edit_range_ms"]
    phases = ", ".join(f"{p} {ms} ms" for p, ms in r["edit_phases_ms"].items())
    return f"""{HEADING} ({r['blocks']} blocks; #38)

The pack is `forge-packgen synth --blocks {r['blocks']} --triangles 10000 --hulls 8`, with the
test donors; release build. Each edit moves one texture coordinate of one block's model by a
new amount, so every edit is new to the cache.

`python3 tools/bench/catalog.py` (or `bench.py`, which writes this section), one run
({r['edits']} edits):

| measure | here | goal |
|---|---|---|
| cold, `--jobs 2` (the faster of two, taking turns with `--jobs 1`) | {r['cold_j2_s']} s; user + system {r['cold_cpu_s']} s, so wall = {r['cold_j2_s'] / (r['cold_cpu_s'] / 2):.2f} × (user + system) / 2 | wall at most 1.15 × (user + system) / 2 |
| cold, `--jobs 1` (the faster of two) | {r['cold_j1_s']} s | |
| 2-thread speedup | {r['speedup_2_threads']}× | at least 1.8× |
| cold peak RSS | {r['cold_peak_mib']} MiB | at most 150 MB |
| cold peak RSS of the {r['small_blocks']}-block pack | {r['small_cold_peak_mib']} MiB: the {r['blocks']}-block cook takes {r['cold_peak_mib'] / r['small_cold_peak_mib']:.2f}× as much | within 10% (1.1×) |
| no-op | {r['noop_ms']} ms | |
| one-block edit (median; range {lo}–{hi} ms) | **{r['edit_median_ms']} ms** | at most 1.5× the ideal |
| ideal edit (no-op + the block's own steps + the fastest `cp` of the container, one taken after each edit) | {r['ideal_edit_ms']} ms: {r['noop_ms']} + {r['own_steps_ms']} + {r['cp_ms']} (the median copy: {r['cp_median_ms']} ms) | |
| edit / ideal | **{r['edit_over_ideal']}×** (20.6× in #38's measurement) | 1.5× |
| the ideal with the `cp` over the copies the edit before left (the fastest; an existing file is truncated first, as the set folder's container is replaced) | {r['ideal_replacing_ms']} ms, with the `cp` {r['replace_ms']} ms: edit / that ideal **{r['edit_over_ideal_replacing']}×** | |
| edit peak RSS | {r['edit_peak_mib']} MiB | |
| cache growth per edit | {r['cache_growth_per_edit_mb']} MB: {r['growth_over_block_outputs']}× the edited block's own outputs ({r['block_outputs_mb']} MB); 30.1 MB before the `.ucas` was spliced | at most 2× the block's outputs |

Where the edits' time went, from each one's `report.json` (`summary.phases_ms`, medians):
{phases}. The rest of an edit's wall time is the process's start and exit, the reports,
and saving the caches.

The cold cook's system time (creating its thousands of files) swings several-fold on this
disk from run to run while its user time stays put, and the 2-thread speedup with it: eleven
runs of this script in #38's fifth session read from 1.51× to 2.10× (median 1.84×).

How the edit got here, measured by hand with `/usr/bin/time` over 7 edits:

| | one-block edit | assemble in it |
|---|---|---|
| before (#38's measurement) | 1,195 ms | 920 ms |
| each block's chunks packed once (`block_chunks`) | 1.03–1.22 s | 329 ms |
| and planning no longer quadratic in the blocks | 0.64–0.79 s | 393 ms of 625 ms |
| and each block's facts its own step (`block_facts`) | 0.38–0.55 s | 137 ms of 357 ms |
| and the `.ucas` spliced from each block's packed data (`engine::splice`) | 148–166 ms | 25 ms |
| and the keyed logs parsed lazily, a source stat'ed once per cook, probing in bounded waves, the set folder listed in parallel | 89–99 ms | 15 ms |
| and a step's dependents probed as soon as it ran, ahead of the hits (each link of the block's chain had waited about 3 ms for a wave), actions looked up under a shared lock | 83–87 ms (bench medians) | 14 ms |
| and a set's blocks wired in parallel (planning 8.5 ms to 5.5 ms) | 75–89 ms (bench medians) | 14 ms |
| and the set's container and documents made side by side, each block's index and facts parsed in parallel; the stat cache as rows keyed by the path's bytes; a miss explained in time linear in its inputs (a million comparisons for the set's step); an upstream output found by binary search (the catalog's per-block entries had made planning and probing quadratic in the blocks); the use log compacted every eighth cook | 69 ms against 84 ms for the previous binary, 15 edits interleaved | 7 ms |
| and a block's index in its container one file (`FBLK`), not three, so the set's step reads 512 small files back from the store, not 1,024 | 75 ms against 92.5 ms for the previous binary, 13 edits interleaved | reading its inputs 3.1 ms (7.2 ms before) |
| and the `.ucas` recipe bound to its blocks' bytes (#38's seventh session): until then an edit whose chunks kept their sizes made the same recipe, and the set folder kept the old `.ucas` under the new TOC (`inspect`: one chunk failing its hash), so every timed edit above skipped writing the 28 MB container; now each one writes it | 87–172 ms, median 112 ms (`catalog.py`, the write included) | 7 ms; writing the container 20–30 ms of the edit |
| and the container written into the one it replaced last time (`build/spare/`), its unchanged blocks' data not hashed again (the stat cache knows their blob files by stamp), read back for its hash in 1 MiB reads; the edited block's chain probed first; a miss explained after its cook; the stat cache saved beside the reports; freed memory kept at hand (`mallopt`) | writing the container 36–40 ms with the fix alone, 17–18 ms with these; the edit 75.3 ms to 71.7 ms with `mallopt` alone (20 interleaved edits) | |
| and (#38's eighth session) `report.json` listing only the steps that did not come from the cache (729 KB of records every edit before); every step downstream of the edit's changed sources probed ahead of the hits as it becomes ready, even after a hit (the edited block's `checks` had waited 3 ms behind the pack's hits once its hull steps were found cached); the container's read-back hash split between the pool's threads (4.5 ms to 3.5 ms) | 59.0 and 67.2 ms to 54.7 and 57.1 ms (11 edits each, two alternating series) | |
| and whether each set file holds its output settled where its folder is listed, on the pool (the sweep's serial pass was 1.7 ms) | 54.1 and 55.0 ms to 50.8 and 52.5 ms (the same) | |
| and a hit's key made from borrowed names and hashes, with no input records kept | 53.6 and 55.6 ms to 51.4 and 54.4 ms (the same) | |
| and the new container written while the rest of the set folder is swept (its spare, new or reused, outside the folder): the sweep (6.5 ms) and the write (13.5 ms), one after the other, became 15.5–17 ms for both | 52.9 and 55.4 ms to 50.7 and 51.9 ms (the same); 47 ms in `catalog.py` | |
| and (#38's ninth session) the container written into its spare only in the 64 KiB leaves where it differs, each kept leaf checked against the spare's ledger (28 MB written per edit became 7 leaves, 448 KiB); the set folder's sweep (5.5–9 ms) is now what the write waits for | 46.1 ms to 43.1 ms (21 edits each, interleaved, fresh workspaces; every edit ran `block_chunks`) | |
| and (#38's twelfth session) the spare's kept leaves left unread while the spare is exactly as its ledger last stamped it: a written file's modification time is set a nanosecond back, so no later write, even in the same clock tick, leaves its stamp as it was (`docs/formats/splice.md`); 27 MB no longer read and hashed per edit | 39.9 ms to 36.4 ms, the set folder 10.5 to 7.0 ms (24 edits each, in runs of 8 per binary after 2 untimed edits: a stamp takes two cooks to carry over, so binaries cannot alternate edit by edit) | |
| and the report page drawing a card only for the blocks the cook ran a step of or previewed (256 before), reading only their checks out of the set's report | 35.8 ms to 34.9 ms (`interleave.py --edits 21`) | |
| and the stat cache saving a cook's changes to a journal beside it (`stat-cache.log`) rather than writing its 4,000 rows again; the file is written whole once the journal holds a quarter of its bytes | 43.2 to 41.4 ms and 50.4 to 45.1 ms (`interleave.py --edits 21 --apart`, two runs, the binaries in either order; each binary in a workspace of its own, since the older one ignores the journal) | |
| and the set's container known from its spare's ledger while it is as the ledger stamped it (`docs/formats/splice.md`): the sweep no longer reads the 28 MB container a cook wrote within the stat cache's racy window to learn which recipe it holds. The edits above are new each time and never met it; an edit back to a container made before did, and so does the cook right after an edit | the set folder 11.5 to 6.8 ms for an edit back (6 edits each, two series per binary); 9.4 to 5.7 ms in a cook right after an edit with every step cached | |
| and the no-op seal's stamps checked sources first, set files last (the check stops at the first change, and the sources sorted after `build/`): an edit after a no-op stat'ed the set folder's 3,600 files before reaching its model. The edits above follow edits, which leave no seal | the first edit after a no-op 48.1 to 42.4 ms (8 turns, alternating binaries) | |
| and the use log written while the reports are, not before them | 41.2 to 40.4 ms (`interleave.py --edits 21`) | |
| and (#38's thirteenth session) each block's facts borrowed as unparsed JSON and copied into the set's documents token by token (`serde-transcode`), not parsed into trees; a model's accessors read as arrays, not one small vector per element (a 10,000-triangle model's indices were 30,000 allocations) | 39.9 to 38.4 ms (`interleave.py --edits 21`) | |
| and `crate_index` writing its sorted ids out directly, not formatting each byte into strings and a tree | the step 0.72 to 0.12 ms, on the edit's path after `assemble` (4 edits, timers in the step) | |
| and the set's documents (catalog, inventory, checks report, change list) a step of their own, `documents`, beside `assemble`, which lays the container out from the blocks' chunks alone: the two read different inputs and run side by side, and an edit that changes no container chunk (a material's name) lays no container out | 33.5 to 32.3 ms, the run 15.65 to 14.55 ms (`interleave.py --edits 21`) | `assemble` 4.2–4.7 ms and `documents` 3.0–3.2 ms side by side, against 4.5–5.7 ms for both |
| and the container's perfect hash giving each single-chunk bucket its slot from a cursor, not a search from the first slot (quadratic in the chunks); package names joined without formatting | | `assemble` 4.55 to 4.35 ms (4 edits each, alternating) |
| and the seal's list of a cook's set files and their folders made once each, in the files' order, not kept sorted in a tree of paths (6.8 ms at 256 blocks). An edit is not sealed; the cook after it, or after a touch, with every step cached, is | that cook 27.6 to 21.7 ms (a model touched before each, 15 each alternating) | |
| and (#38's fourteenth session) an action log line in the log's own shape read without serde (`json_shape`; any other line left to serde, a proptest holding the two to one answer), its seal compared as hex on the stack | a cook with every step cached after a touched model, `--jobs 1`: its run 11.09 to 10.41 ms, the cook 35.2 to 34.0 ms (24 each, alternating); the edit 33.0 against 33.2 ms in one run (`interleave.py --edits 15`) and 41.9 to 38.8 ms with the change below in a slower one (`--edits 21`): within the spread of such runs | |
| and the folders a cook materialized kept for its seal when it may seal, not gathered a second time (0.6 ms at 256 blocks) | the cook after a touched model 30.1 to 28.9 ms (30 each, alternating) | |
| and a set of more than 64 blocks reading its blocks' chunk indexes and facts a group of 16 at a time (`block_group`, `FGRP`): `assemble` and `documents` read 16 files where each read 256, with the same container and documents | 40.4 to 38.4 ms and 42.5 to 39.9 ms, the run 17.8 to 16.1 and 18.7 to 17.1 ms (`interleave.py --edits 21 --apart`, two runs, the binaries in either order) | `assemble` about 4 to 2.7–2.9 ms and `documents` 3.1 to 1.5–1.6 ms; the group's own step 0.33–0.36 ms on the edit's path |
| and the TOC's directory walked with each folder queued once (each folder had been checked against every folder still queued: quadratic in a hostile index's siblings), its paths and the namespace check's names in one buffer; a cached output's name and hash taken from its record; no progress counted when none is shown | | `assemble` 2.66 to 2.47 ms (16 edits each, alternating); a cook with every step cached, `--jobs 1`, its run 13.1 to 12.6 ms |

With the `.ucas` spliced, the cache stores a recipe of a few KiB for it instead of a new
container, and the edit's peak RSS fell from 174 MiB to 43 MiB. A step's outputs over 64 KiB
are then let go once stored and read back from the store when needed: the cold peak fell
from 324.5 MiB to 49 MiB, with the containers byte for byte the same.

Cold memory, by hand (`heaptrack` heap peak and RSS, 256 blocks, 2 threads):

| | heap peak | RSS |
|---|---|---|
| large outputs let go once stored | 30.0 MB | 51.5 MiB |
| and every output let go once the steps that read it are done, set files read once | 24.7 MB | 44.0 MiB |
| and let go at once when a reader still waits on other steps (a set's step waits for every block); workers given upstream outputs only | 17.9 MB | 39–41 MiB |
| and `report.json`'s records streamed to its file, not built in memory | | 37–39 MiB |
| (#38's fifth session, same measure) | 15.8 MB | 33–35 MiB |
| and the keyed logs' appended values left in the file, not kept | 13.3 MB | 32–37 MiB |
| (#38's eleventh session, same measure, build folder on tmpfs; RSS of three runs) | 14.65 MB | 30.2–31.0 MiB (64 blocks: 18.3–18.9) |
| and the lowest runnable step first, so a cold cook finishes the blocks it started before it starts others (breadth first, it held every block's small outputs at once) | 12.96 MB | unchanged |
| and `geometry.json` parsed once, for its validation and its split by block | | unchanged |
| and its entries parsed one at a time: the document as one tree was 9 MiB of the cook's first 20 ms | 13.06 MB (the peak is now in the run) | 28.3–28.8 MiB, of it 17.2–17.6 anonymous (20.0–20.7 before); 64 blocks: 19.6–19.9, the same anonymous memory and a MiB more of the binary's own pages |
| and an output's rare parts (a remote hit's, a spliced output's) boxed | 12.22 MB | 27.5–28.0 MiB (64 blocks: 19.5–20.0) |
| and an input record's hash and size its upstream output's, shared, not copied | 11.87 MB | 27.3 MiB against 27.8 (`interleave.py --cold 4`: within the runs' spread) |
| and a keyed log's read values boxed, so the slots never read are small | 11.62 MB | |
| and the scheduler's dependencies and dependents in one list each, not one per step (one of them was cloned at every finished step) | 10.85 MB | |
| and the plan's steps reserved with room for the set's own, not doubled for them (the steps' vector at the peak 0.85 to 0.43 MB) | 11.14 MB in the run measured: its peak fell where `assemble` held 1.48 MB of parsed block facts, against 1.0 MB the run before | |
| (#38's thirteenth session, same measure) | 10.75 MB, at `assemble`: the parsed block facts 1.7 MB of it | 26.1–26.9 MiB (64 blocks: 19.5–20.1; heap 5.30 MB) |
| and the block facts borrowed unparsed; a model's accessor elements as arrays (its indices had been 1.9 MB of the cook's peak while they were read) | 9.66 MB, still at the end of the run: the set's steps beside every step's records | medians of `interleave.py --cold 3` 26.7 to 26.2 MiB (64 blocks: 20.2 to 20.0; heap 4.77 MB): 1.33× to 1.31× |
| and the set's documents a step of their own (`documents`) | 10.37 MB | 25.4–26.0 MiB (64 blocks: 19.4–19.7) |
| and a step's input records without a copy of each input's name (the report takes it from the step) | 9.93 MB: the peak now while blocks cook, two mesh steps' inputs read back (1.2 MB) beside every step's records | within the runs' spread |

What the 256-block cook still holds that the 64-block one does not is per step, about
3 KB each (`heaptrack`, 12.2 MB heap peak at 256 blocks): each step's outputs (1.3 MB),
its input records for the report (1.5 MB), the plan (0.9 MB), the results (0.6 MB), the
action log's and fingerprint log's indexes (1.0 MB). RSS follows the high-water mark of
each thread's allocator arena, not the heap peak: the cook's first 20 ms (the geometry
document) set one arena's mark until its entries were parsed one at a time, and the
plan and the run's records set another's. Flat memory needs the per-step records kept on
disk, or a block's steps planned, run and let go block by block; the RSS of identical runs
swings by a MiB or two, more than most single changes move it.

Where an edit's time goes now (phase medians of 15 edits timed by hand from process start
in #38's ninth session, each edit rewriting the container, in a loop of edits and `sync`s
without the bench's copies between them): opening the action log and the stat cache
2.0 ms; planning the 3,333 steps 4.4 ms; the run 22.6 ms: the edited block's chain (its
own steps, which the ideal counts, about 10 ms), the 3,300 hits probed beside it (about
3 µs each, on the one thread the chain leaves), which the set's `assemble` waits for, then
`assemble` itself 5 ms and `crate_index` 0.7 ms; gathering the set's files 1.1 ms; writing
the set folder 11 ms; the reports, the use log and saving the stat cache 2.8 ms. In the
set folder's 11 ms the new container is written (7–9 ms: checking the spare's 429 kept
leaves against its ledger, 27 MB read and hashed, 5 ms; then 7 leaves written) while the
folder is swept (listing 259 folders and stat'ing 3,593 files: 5.5–6 ms alone, 9–10 ms
beside the write; a bare walk of the folder with one stat per file takes 6.5 ms on one
thread here), then the block's other changed files (1.4 ms). This machine drifts by a
third within the hour: the same binary's edit read 43 ms and, 20 minutes later, 52–64 ms
in the same workspace and in a fresh one (the bench's copies between edits make no
difference: 75.2 against 76.1 ms, 11 edits each, interleaved). Only figures interleaved in
one run compare: `python3 tools/bench/interleave.py OLD NEW` takes two builds through edits
(and, with `--cold N`, cold cooks) turn by turn and prints each one's medians.

In #38's tenth session, timers inside the probe put each of the edit's 3,333 hits at about
2.7 µs (its key 0.9 µs, its action record read and its seal checked 1.2 µs, its outputs
0.3 µs): 9 ms on the thread the edited block's chain leaves free, so the set's `assemble`
starts 1.5–3.5 ms after the chain. Three changes aimed at that path (records read borrowing
from the log's line, the fingerprint log read on a thread of its own, waves of 128 steps a
thread) each read 2–3 ms faster in series run one after the other, and no faster (or, for
the thread, slower) in 25 edits alternating binaries edit by edit; none was kept.

In #38's eleventh session the steps of a pack and of a block came to share their pack's id,
block name and folder, and a set's steps were reserved at once: planning 3.8 to 3.4 ms (21
edits alternating binaries). A release build with fat LTO and one codegen unit made no
difference to the edit (51.4 against 49.9 ms, 11 edits alternating); process start and exit
with no work (`mjolnir --version`) take 1.9 ms here, against 0.6 ms for `/bin/true`. The
session's first and last builds through `interleave.py --edits 11 --cold 4`: the edit 46.4
to 44.0 ms; the cold peak 31.0 to 26.3 MiB at 256 blocks (1.64× to 1.32× the 64-block
cook's), and 18.9 to 19.9 MiB at 64, where the anonymous memory fell (8.7 to 8.4 MiB) and
the binary's own mapped pages grew by 1.3 MiB (its text grew by 86 KB; which pages a run
touches moves with the code's layout).

In #38's twelfth session, profiled with frame pointers over 30 edits (shares of the edit's
CPU): stat-ing the set folder's 3,593 files is half of the sweep, and the sweep (about 6 ms)
is now what sets the set folder's time; probing the 3,300 hits is 18% (keys 7.7%, action
records read and their seals checked 10.6%); opening and saving the stat cache 9%; loading
the action and fingerprint logs 10%, two thirds of it the page faults and copies of reading
the files in; `assemble` reads its 512 inputs back in 1.8–2.3 ms of its 5.4–6.3. Tried and
dropped: the set folder surveyed while the steps ran, on a thread the system schedules only
on an idle core (`SCHED_IDLE`): the set folder went from 10.3 to 7.4 ms, planning from 3.0 to
4.8 ms and the run from 17.8 to 20.9 ms, the edit 39.6 to 41.4 ms (10 edits alternating); a
spin loop at `SCHED_IDLE` beside the edit took it from 38 to 55 ms, so on this machine no
core is idle enough to lend. mimalloc as the allocator: the phases 5 ms shorter but the edit
no faster (46.0 against 46.2 ms, 15 edits alternating) and the cold peak 104 MiB against
26.4 (with eager commit off: 40.7 against 39.3 ms, 68 MiB). Three runs of this script in
that session, on its changes as they landed, read the edit at 37, 41 and 40 ms against
ideals of 24, 25 and 25 ms, and the cold peaks' ratio at 1.30×, 1.28× and 1.40× (the
64-block peak 19.2, 20.1 and 18.6 MiB): the table above is the last of them.

In #38's thirteenth session the heap's course through a 256-block cold cook (`heaptrack`,
massif snapshots) was flat at 6.5–7 MB while the blocks cooked and rose to its peak at the
set's steps: the 64-block cook's sat at about 4 MB. The difference is per step, about 1.3 KB
each, spread over a dozen holders (the scheduler's results 0.9 MB, the plan 1.6 MB, the
outputs' records 0.6 MB, the input records kept for the report 0.9 MB, the logs' appended
keys 0.7 MB, keys and hashes as hex text 0.5 MB). The RSS is 11.5 MiB of the binary's own
mapped pages in both cooks; the anonymous memory is 14.5 MiB at 256 blocks and 8–10 at 64,
so the goal needs about 3.5 MiB less at 256 blocks, which is most of the per-step records:
block by block, as above. A cook with every step cached but not sealed takes 20 MiB at 256
blocks (13.4 at 64). On the edit: the block's chain ends about 8.5 ms into the run, and the
3,300 hits probed on the other thread end 1.5–2.5 ms later (their keys 1.7 ms of CPU, the
action records' parse 1 ms and seals 0.9 ms, stat lookups 0.5 ms), which the set's two
steps wait for. Tried and dropped: a memo of each block (its steps' keys and outputs
recorded after each cook under one fingerprint of all the block reads from outside it,
and the whole block taken from that record on its first probe). Looking a block up cost
38 µs at first and 22–28 µs once its record was sealed as written and read borrowing from
its text, against about 39 µs for its 13 probes, and the edit read 34.2 ms against 32.1 ms
without it (`interleave.py --edits 21 --apart`): the steps' outputs must still be read
from a record and made, each step is still scheduled, and a block's steps probed side by
side wait for the one thread that looks the block up. This script's runs in that session,
on its changes as they landed: the edit 40 ms against an ideal of 23 (1.8×, after
`crate_index`), 36 against 23 (1.6×, after `documents`), 35 against 23 (1.52×, after the
perfect hash), then on the same code later 41.3 against 24.3 and 42.6 against 24.6
(1.70× and 1.73×, the edit's range 38–64 ms): the table above is the last. The cold cook
fell from 1.27 to 1.04 s with two threads and from 2.4 to 2.0 s with one (256 blocks, on
tmpfs, two runs each alternating binaries), its user time from 1.96 to 1.45 s, once a
model's accessors stopped allocating a vector per element.

In #38's fourteenth session `perf stat` put an edit at 62 ms of CPU in 38 ms of wall time
(1.6 CPUs busy, 4,000 page faults, 350 context switches), against 8.5 ms of CPU for the
sealed no-op: on two cores the edit is bound by its CPU, so only work taken out of it, not
work moved to another thread, shortens it. Per edit (call graphs over 10 edits; the
profiler inflates every share alike): sweeping the set folder 7.5 ms (its `statx` calls
3.8), the steps that ran 10.6, probing the 3,300 hits 3.9, planning 3, opening the two
caches 1.9, loading the fingerprint log to explain the misses 0.6–1.2, the use log
0.6–0.9, malloc and free about 4, page faults about 3.5 (half of them reading the logs
into fresh buffers), BLAKE3 over keys and seals about 2.5. `assemble` takes 4 ms once the
probes end: reading its 256 inputs 1.6 ms (while `documents` reads its 256), laying the
container out 1.3 ms (the directory index 0.36, the namespace check over the written TOC
0.25, the header 0.21, the perfect hash 0.17, the duplicate check 0.10), storing 0.5 ms.
Tried and dropped: the stat cache's rows read by the same kind of shaped reader (opening
it went from 1.35 to 1.26 ms: its cost is 7,700 allocations and their page faults, not the
JSON); mimalloc again (a cold peak of 90–108 MiB); `MALLOC_ARENA_MAX=2` (cold peaks of
25.6–26.5 MiB against 25.9–27.0 at 256 blocks, within the spread: one 64-block run without
it read 30.3 MiB). This script's runs in that session: 35.1 ms against an ideal of 23.0
(1.53×) before the groups; with them 33.8 against 22.8 (1.48×; the run phase 15.2 to 13.6
ms), then in a slower hour (the no-op 8.8 ms, the block's own steps 12.1 ms, the cold cook
2.5 s) 41.5 against 28.8 (1.44×, cold peaks 26.6 and 19.9 MiB: 1.34×), then 38.5 against
22.6 (1.70×: its phases add up to 26.8 ms, and 11.7 ms more went to the process's start,
reports, logs and exit on this disk, against 5.5 ms in the run before; the edit's range
30–77 ms), and last, after the directory walk and the progress changes, the table above:
1.47×, with the cold cooks in a slow stretch of the disk (a 2-thread speedup of 1.70×). So
the edit meets its goal in three runs of four since the groups, and the speedup in three of
four. The set's steps now wait about 1.3 ms after the
group's step for the other blocks' hits to be probed. Tried and dropped: the coordinator
probing a wave itself while one worker cooks and the other waits, rather than handing the
wave to the pool (two context switches a wave): 38.4 to 36.4 ms in one run and 35.6 to 35.9
in the next (`interleave.py --edits 21 --apart`), so no change.

The ideal's `cp` is the fastest of the copies taken after each edit, each after `sync`, so
the copies meet the disk as the edits do. Copies taken after the whole series (as until
#38's sixth session) read 69 ms at best in one run while interleaved ones read 8.1–8.5 ms:
on this disk one copy swings several-fold within the hour, and against a slow copy the
ratio read anywhere from 0.8× to 2.4×.
"""


if __name__ == "__main__":
    main()
