#!/usr/bin/env bash
# Seeds each fuzz target's corpus with the stock files (run from the repository root after a
# cook, so the cooked containers, tags and an archive exist).
set -euo pipefail
cd "$(dirname "$0")/.."
c=fuzz/corpus
mkdir -p $c/manifest $c/geometry $c/gltf $c/utoc $c/tag $c/archive $c/collision $c/oodle
# The stock packs (historical releases are catalogs only, in forge-packs/historical/).
for p in forge-packs/foundry forge-packs/foundry-wide forge-packs/roadworks; do
  cp "$p/mjolnir.json" "$c/manifest/$(basename "$p").json"
  cp "$p/source/geometry.json" "$c/geometry/$(basename "$p").json"
done
cp forge-packs/foundry/source/models/floor_2x2.gltf forge-packs/roadworks/source/models/road_curve_45_left.glb $c/gltf/
cp build/game/foundry/all/content/foundry_P.utoc $c/utoc/
# The container bomb: every block at one 16 MiB zlib stream (tests/bad-inputs/).
cp tests/bad-inputs/container-bomb.utoc $c/utoc/
# The Oodle target reads the fixture TOC over its input: the real .ucas is its seed.
cp tests/data/oodle/CUE4ParseFixtures-Minimal-Oodle-Windows.ucas $c/oodle/
cp build/game/foundry/all/cooked/wall_door/wall_door.* $c/tag/
target/release/mjolnir forge pack build/game/foundry/all/mjolnir.json --content build/game/foundry/all/content --out $c/archive/foundry.mjolnir >/dev/null
# The collision target reads its format from the first byte: 0 model, 1 MOPP, 2 polyhedra.
for b in wall_door floor_2x2 bridge_4; do
  d=build/game/foundry/all/cooked/$b
  { printf '\x00'; cat "$d/collision.fcol"; } >"$c/collision/$b.fcol"
  { printf '\x01'; cat "$d/mopp.fmop"; } >"$c/collision/$b.fmop"
  { printf '\x02'; cat "$d/polyhedra.fpol"; } >"$c/collision/$b.fpol"
done
