#!/usr/bin/env python3
"""Times our previews against Blender Workbench on the same pieces at the same size, and
writes the section "Previews against Blender Workbench" of BENCHMARKS.md.

Run from the repository root: python3 tools/bench/workbench.py
Needs `bpy` (pip install 'bpy>=4.2,<5'; `.ci/run` installs it). Ours are the criterion
medians of `cargo bench -p forge-render --bench render -- render_512` (512², lit, smooth
normals, outlines, grid). Workbench renders each stock Foundry model at 512² with its
default studio lighting and outlines, from the camera our render's sidecar would give,
timing only `bpy.ops.render.render` (the median of five, after one warm-up render), not
Blender's start-up or the glTF import.
"""

import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "forge-packs/foundry/source/models"
SIZE = 512
SECTION = "## Previews against Blender Workbench"

# Runs inside Blender's Python (the bpy module); prints one JSON line per model.
WORKBENCH = r'''
import bpy, json, math, os, statistics, sys, time
from mathutils import Vector
size = int(sys.argv[-1])
for path in sys.argv[1:-1]:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    scene = bpy.context.scene
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.show_object_outline = True
    scene.render.resolution_x = scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    meshes = [o for o in scene.objects if o.type == "MESH"]
    corners = [o.matrix_world @ Vector(c) for o in meshes for c in o.bound_box]
    lo = Vector([min(c[k] for c in corners) for k in range(3)])
    hi = Vector([max(c[k] for c in corners) for k in range(3)])
    centre, radius = (lo + hi) / 2, (hi - lo).length / 2
    data = bpy.data.cameras.new("preview")
    data.sensor_fit = "VERTICAL"
    data.angle = math.radians(35)
    camera = bpy.data.objects.new("preview", data)
    scene.collection.objects.link(camera)
    scene.camera = camera
    az, el = math.radians(-60), math.radians(30)
    distance = radius / math.sin(math.radians(17.5)) * 1.05
    camera.location = centre + Vector((math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el))) * distance
    camera.rotation_euler = (centre - camera.location).to_track_quat("-Z", "Y").to_euler()
    scene.render.filepath = "/tmp/workbench-preview.png"
    bpy.ops.render.render(write_still=False)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        bpy.ops.render.render(write_still=False)
        times.append(time.perf_counter() - t)
    print("WORKBENCH " + json.dumps({"model": os.path.basename(path), "seconds": statistics.median(times)}), flush=True)
os._exit(0)
'''


def workbench(models):
    script = REPO / "target" / "workbench_bench.py"
    script.parent.mkdir(exist_ok=True)
    script.write_text(WORKBENCH)
    out = subprocess.run(
        [sys.executable, str(script), *map(str, models), str(SIZE)],
        check=True, text=True, capture_output=True,
    ).stdout
    rows = [json.loads(l.split(" ", 1)[1]) for l in out.splitlines() if l.startswith("WORKBENCH ")]
    return {Path(r["model"]).stem: r["seconds"] for r in rows}


def ours():
    subprocess.run(
        ["cargo", "bench", "-p", "forge-render", "--bench", "render", "--", "render_512"],
        cwd=REPO, check=True, capture_output=True,
    )
    found = {}
    for est in (REPO / "target/criterion/render_512").glob("*/new/estimates.json"):
        found[est.parts[-3]] = json.loads(est.read_text())["median"]["point_estimate"] / 1e9
    return found


def main():
    try:
        import bpy  # noqa: F401  (only to say early that it is missing)
    except ImportError:
        sys.exit("bpy is not installed: pip install 'bpy>=4.2,<5'")
    models = sorted(MODELS.glob("*.gltf"))
    theirs = workbench(models)
    mine = ours()
    blocks = sorted(set(theirs) & set(mine))
    rows = "".join(
        f"| {b} | {mine[b] * 1e3:.1f} ms | {theirs[b] * 1e3:.0f} ms | {theirs[b] / mine[b]:.1f}× |\n"
        for b in blocks
    )
    ratio = statistics.median(theirs[b] / mine[b] for b in blocks)
    worst = min(theirs[b] / mine[b] for b in blocks)
    section = f"""{SECTION}

Written by `python3 tools/bench/workbench.py`. Each stock Foundry piece at {SIZE}², ours
lit and smooth-shaded with outlines and the grid (criterion median, one core), against
Blender {bpy_version()} Workbench with its default studio lighting and outlines (median
of five `bpy.ops.render.render` calls after a warm-up; start-up and import not counted).
The target is at least 20× faster.

**Median ratio: {ratio:.1f}× faster; slowest piece: {worst:.1f}×.**

| piece | ours | Workbench | ratio |
|---|---|---|---|
{rows}"""
    path = REPO / "BENCHMARKS.md"
    text = path.read_text()
    start = text.find("\n" + SECTION)
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + text[end if end >= 0 else len(text):]
    at = text.find("\n## Fuzzing")
    at = at if at >= 0 else len(text)
    text = text[:at] + "\n" + section + text[at:]
    path.write_text(text)
    print(section)


def bpy_version():
    import bpy
    return bpy.app.version_string


if __name__ == "__main__":
    main()
