"""Makes three Forge pieces with bpy, as an artist would: each a visual mesh and UCX_
collision hulls, saved as a .blend and exported as a .gltf (Blender's own exporter).

    python3 pieces.py OUT_DIR [--plugged]

- wall_door: a 4 x 0.5 x 3 m wall with a 1.2 x 2.2 m doorway (posts and a lintel);
  with --plugged, the visual mesh also fills the doorway (the hulls stay open).
- ramp: a 4 x 2 m wedge rising 1 m along +X.
- plate: a 2 x 2 x 0.2 m slab.

Each piece NAME gives OUT_DIR/NAME.blend and OUT_DIR/NAME_gltf.gltf (with its .bin).
"""
import os
import sys

import bpy

out, plugged = sys.argv[1], "--plugged" in sys.argv


def box(lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    verts = [(x, y, z) for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)]
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    return verts, faces


def wedge(length, width, rise):
    verts = [(-length / 2, -width / 2, 0), (length / 2, -width / 2, 0), (length / 2, width / 2, 0),
             (-length / 2, width / 2, 0), (length / 2, -width / 2, rise), (length / 2, width / 2, rise)]
    faces = [(0, 3, 2, 1), (0, 1, 4), (3, 5, 2), (1, 2, 5, 4), (0, 4, 5, 3)]
    return verts, faces


def merged(parts):
    verts, faces = [], []
    for v, f in parts:
        base = len(verts)
        verts += v
        faces += [tuple(i + base for i in face) for face in f]
    return verts, faces


def add(name, shape, material):
    verts, faces = shape
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.materials.append(material)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)


def piece(name, visual, hulls):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    steel = bpy.data.materials.new("steel")
    add(name, merged(visual), steel)
    for hull_name, shape in hulls:
        add("UCX_" + hull_name, shape, steel)
    bpy.ops.wm.save_as_mainfile(filepath=os.path.join(out, name + ".blend"))
    bpy.ops.export_scene.gltf(filepath=os.path.join(out, name + "_gltf.gltf"),
                              export_format="GLTF_SEPARATE", export_yup=True,
                              export_apply=True, export_animations=False)


posts = [("post_left", box((-2, -0.25, 0), (-0.6, 0.25, 3))),
         ("post_right", box((0.6, -0.25, 0), (2, 0.25, 3))),
         ("lintel", box((-0.6, -0.25, 2.2), (0.6, 0.25, 3)))]
plug = [box((-0.6, -0.05, 0), (0.6, 0.05, 2.2))] if plugged else []
piece("wall_door", [s for _, s in posts] + plug, posts)
piece("ramp", [wedge(4, 2, 1)], [("slope", wedge(4, 2, 1))])
piece("plate", [box((-1, -1, 0), (1, 1, 0.2))], [("slab", box((-1, -1, 0), (1, 1, 0.2)))])
sys.stdout.flush()
# bpy as a module can crash while tearing down; the files are written.
os._exit(0)
