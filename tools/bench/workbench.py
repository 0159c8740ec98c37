#!/usr/bin/env python3
"""Times our previews against Blender Workbench on the same pieces at the same size, and
writes the section "Previews against Blender Workbench" of BENCHMARKS.md.

Run from the repository root: python3 tools/bench/workbench.py
Needs `bpy` (pip install 'bpy>=4.2,<5'; `.ci/run` installs it). Ours are the criterion
medians of `cargo bench -p forge-render --bench render -- render_512` (512², lit, smooth
normals, outlines, grid; three pieces also textured). Workbench renders each stock Foundry model at 512² with its
default studio lighting and outlines, from the camera our render's sidecar would give,
timing only `bpy.ops.render.render` (the median of five, after one warm-up render), not
Blender's start-up or the glTF import.
"""

import json
import shutil
import statistics
import struct
import subprocess
import sys
import zlib
from pathlib import Path

from sections import replace_section

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "forge-packs/foundry/source/models"
SIZE = 512
SECTION = "## Previews against Blender Workbench"
# Timed textured too, with the checker the criterion bench uses (render_512_textured).
TEXTURED = ["floor_2x2", "stairs_2x4", "wall_window"]
WORK = REPO / "target" / "workbench"

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
    scene.display.shading.color_type = "TEXTURE" if "textured" in path else "MATERIAL"
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


def checker_png(path):
    """The criterion bench's 512² checker: 32-texel squares of sRGB 200 and 90."""
    rows = b"".join(
        b"\x00" + bytes(v for x in range(512) for v in [200 if (x // 32 + y // 32) % 2 == 0 else 90] * 3 + [255])
        for y in range(512)
    )
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    header = struct.pack(">IIBBBBB", 512, 512, 8, 6, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def textured_copies():
    """Each TEXTURED model with the checker as every material's base-colour texture."""
    WORK.mkdir(parents=True, exist_ok=True)
    checker_png(WORK / "checker.png")
    out = []
    for name in TEXTURED:
        doc = json.loads((MODELS / f"{name}.gltf").read_text())
        for b in doc["buffers"]:
            shutil.copy(MODELS / b["uri"], WORK / b["uri"])
        doc["images"] = [{"uri": "checker.png"}]
        doc["textures"] = [{"source": 0}]
        for m in doc["materials"]:
            m.setdefault("pbrMetallicRoughness", {})["baseColorTexture"] = {"index": 0}
        path = WORK / f"{name}.textured.gltf"
        path.write_text(json.dumps(doc))
        out.append(path)
    return out


def workbench(models):
    script = REPO / "target" / "workbench_bench.py"
    script.parent.mkdir(exist_ok=True)
    script.write_text(WORKBENCH)
    out = subprocess.run(
        [sys.executable, str(script), *map(str, models), str(SIZE)],
        check=True, text=True, capture_output=True,
    ).stdout
    rows = [json.loads(l.split(" ", 1)[1]) for l in out.splitlines() if l.startswith("WORKBENCH ")]
    return {r["model"].removesuffix(".gltf"): r["seconds"] for r in rows}


def ours():
    subprocess.run(
        ["cargo", "bench", "-p", "forge-render", "--bench", "render", "--", "render_512"],
        cwd=REPO, check=True, capture_output=True,
    )
    found = {}
    for group, suffix in (("render_512", ""), ("render_512_textured", ".textured")):
        for est in (REPO / "target/criterion" / group).glob("*/new/estimates.json"):
            found[est.parts[-3] + suffix] = json.loads(est.read_text())["median"]["point_estimate"] / 1e9
    return found


def main():
    try:
        import bpy  # noqa: F401  (only to say early that it is missing)
    except ImportError:
        sys.exit("bpy is not installed: pip install 'bpy>=4.2,<5'")
    models = sorted(MODELS.glob("*.gltf")) + textured_copies()
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
lit and smooth-shaded with outlines and the grid (criterion median; the outline and
resolve passes share rows across this machine's two cores), against
Blender {bpy_version()} Workbench with its default studio lighting and outlines (median
of five `bpy.ops.render.render` calls after a warm-up; start-up and import not counted;
headless, so its OpenGL is Mesa's software renderer, which also uses every core).
Rows ending `.textured` carry a 512² checker texture on every material (Workbench
colouring by texture). The target is at least 20× faster.

**Median ratio: {ratio:.1f}× faster; slowest piece: {worst:.1f}×.**

| piece | ours | Workbench | ratio |
|---|---|---|---|
{rows}"""
    replace_section(SECTION, section)
    print(section)


def bpy_version():
    import bpy
    return bpy.app.version_string


if __name__ == "__main__":
    main()
