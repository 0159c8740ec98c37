"""Exports glTF test inputs with Blender's own exporter, plus what Blender shows.

Run with Blender as a Python module (PyPI `bpy`):
    python -m venv .venv && .venv/bin/pip install bpy
    .venv/bin/python tools/blender/export_fixtures.py cookers/gltf/tests/fixtures/blender

It builds a small hierarchy with parented, rotated and non-uniformly scaled objects and two
materials, exports it as .gltf + .bin and as .glb, and writes expected.json: the world-space
position of every vertex as Blender computes it (Blender's world is right-handed, Z up,
metres, which is the pipeline's pack space). The import test compares against it.
"""

import json
import math
import sys
from pathlib import Path

import bpy
from mathutils import Euler, Vector

out = Path(sys.argv[-1])
out.mkdir(parents=True, exist_ok=True)

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene


def material(name, rgba):
    m = bpy.data.materials.new(name)
    m.diffuse_color = rgba
    return m


steel = material("steel", (0.55, 0.57, 0.6, 1.0))
paint = material("paint", (0.95, 0.85, 0.2, 1.0))


def box(name, size, mat_faces):
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    obj = bpy.context.active_object
    obj.name = name
    obj.data.name = name + "_mesh"
    obj.scale = size
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    for mat in (steel, paint):
        obj.data.materials.append(mat)
    for i, poly in enumerate(obj.data.polygons):
        poly.material_index = mat_faces(i)
    return obj


# A parent deck, moved, turned 30 degrees about Z and scaled unevenly.
deck = box("deck", (4.0, 2.0, 0.5), lambda i: 0)
deck.location = (3.0, -1.0, 0.25)
deck.rotation_euler = Euler((0.0, 0.0, math.radians(30.0)))
deck.scale = (1.0, 1.5, 1.0)

# A child post, parented to the deck, tilted about X and scaled, with a painted top.
post = box("post", (0.3, 0.3, 2.0), lambda i: 1 if i == 5 else 0)
post.parent = deck
post.location = (1.5, 0.5, 1.25)
post.rotation_euler = Euler((math.radians(15.0), 0.0, math.radians(-45.0)))
post.scale = (1.0, 1.0, 0.8)

bpy.context.view_layer.update()

expected = {"blender": bpy.app.version_string, "objects": {}}
lo = [math.inf] * 3
hi = [-math.inf] * 3
for obj in (deck, post):
    verts = []
    for v in obj.data.vertices:
        w = obj.matrix_world @ v.co
        verts.append([round(c, 6) for c in w])
        for i in range(3):
            lo[i] = min(lo[i], w[i])
            hi[i] = max(hi[i], w[i])
    expected["objects"][obj.name] = verts
expected["bounds_m"] = {"min": [round(c, 6) for c in lo], "max": [round(c, 6) for c in hi]}
expected["materials"] = ["steel", "paint"]

common = dict(export_yup=True, export_apply=True, export_normals=True, export_texcoords=True, export_materials="EXPORT", use_selection=False)
bpy.ops.export_scene.gltf(filepath=str(out / "hierarchy.gltf"), export_format="GLTF_SEPARATE", **common)
bpy.ops.export_scene.gltf(filepath=str(out / "hierarchy.glb"), export_format="GLB", **common)
(out / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
print("wrote", sorted(p.name for p in out.iterdir()))
