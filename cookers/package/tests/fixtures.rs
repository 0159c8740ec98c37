//! Round trips of every package in the UE 5.8 fixture builds. The packages and container
//! headers of both builds are copied into `tests/data/ue58-fixtures/` (Apache-2.0, from
//! CUE4Parse; `forge-packgen fixture-packages`), so these always run; the tests that need
//! the original containers or the global container read `../shared` and skip with a
//! printed reason when it is absent.

use std::path::{Path, PathBuf};

use forge_iostore::{read_chunk, ChunkData, Toc};
use forge_package::Package;

fn fixtures() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/iostore-ue5.8");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: {} is absent", dir.display());
        None
    }
}

const BUILDS: [&str; 2] = [
    "CUE4ParseFixtures-Minimal-Uncompressed-Windows",
    "unversioned/CUE4ParseFixtures-Minimal-Uncompressed-Windows",
];

/// The repository's copies of the two builds' packages.
fn copies() -> [PathBuf; 2] {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/ue58-fixtures");
    [dir.join("Tagged"), dir.join("Unversioned")]
}

/// Every chunk of `kind` in a build, with its TOC path.
fn chunks(dir: &Path, build: &str, kind: u8) -> Vec<(String, Vec<u8>)> {
    chunks_of(&dir.join(build), kind)
}

/// Every chunk of `kind` in the container `stem`.utoc/.ucas, with its TOC path.
fn chunks_of(stem: &Path, kind: u8) -> Vec<(String, Vec<u8>)> {
    let toc = Toc::parse(&std::fs::read(stem.with_extension("utoc")).unwrap()).unwrap();
    let ucas = std::fs::read(stem.with_extension("ucas")).unwrap();
    let paths: std::collections::BTreeMap<u32, String> = toc
        .directory
        .as_ref()
        .map(|d| {
            d.files()
                .unwrap()
                .into_iter()
                .map(|(p, i)| (i, p))
                .collect()
        })
        .unwrap_or_default();
    (0..toc.chunks.len())
        .filter(|&i| toc.chunks[i].kind() == kind)
        .map(|i| {
            let ChunkData::Bytes(bytes) = read_chunk(&toc, &ucas, i).unwrap() else {
                panic!("chunk {i} is not readable")
            };
            (paths.get(&(i as u32)).cloned().unwrap_or_default(), bytes)
        })
        .collect()
}

#[test]
fn every_fixture_package_reads_and_writes_back_byte_for_byte() {
    let mut count = 0;
    for copy in copies() {
        let build = copy.display();
        for (path, bytes) in chunks_of(&copy, 1) {
            let package = Package::read(&bytes).unwrap_or_else(|e| panic!("{build} {path}: {e}"));
            assert!(package.header.package_name().is_some(), "{path}");
            let written = package.to_bytes();
            assert!(
                written == bytes,
                "{build} {path}: {}",
                difference(&written, &bytes)
            );
            count += 1;
        }
    }
    assert_eq!(count, 194);
}

#[test]
fn the_copies_hold_the_fixture_builds_packages_and_headers_unchanged() {
    let Some(dir) = fixtures() else { return };
    for (build, copy) in BUILDS.iter().zip(copies()) {
        for kind in [1, 6] {
            let sorted = |mut list: Vec<(String, Vec<u8>)>| {
                list.sort_by(|a, b| a.1.cmp(&b.1));
                list.into_iter().map(|c| c.1).collect::<Vec<_>>()
            };
            assert!(
                sorted(chunks_of(&copy, kind)) == sorted(chunks(&dir, build, kind)),
                "{build}, chunk type {kind}"
            );
        }
    }
}

/// Where two byte strings first differ, for a message that fits on a screen.
fn difference(written: &[u8], read: &[u8]) -> String {
    let at = written
        .iter()
        .zip(read)
        .position(|(a, b)| a != b)
        .unwrap_or(written.len().min(read.len()));
    format!(
        "written {} bytes, read {}; first difference at {at}: {:?} against {:?}",
        written.len(),
        read.len(),
        &written[at..(at + 16).min(written.len())],
        &read[at..(at + 16).min(read.len())]
    )
}

#[test]
fn the_fixture_container_headers_read_and_write_back_and_match_the_packages() {
    for copy in copies() {
        let build = copy.display();
        let [(_, bytes)] = &chunks_of(&copy, 6)[..] else {
            panic!("{build}: not one container header")
        };
        let header = forge_package::ContainerHeader::read(bytes).unwrap();
        let written = header.to_bytes();
        assert!(
            &written == bytes,
            "{build}: {}",
            difference(&written, bytes)
        );
        let packages = chunks_of(&copy, 1);
        assert_eq!(header.packages.len(), packages.len());
        for (path, bytes) in packages {
            let package = Package::read(&bytes).unwrap();
            let name = package.header.package_name().unwrap();
            let id = forge_iostore::ids::name_hash(&name);
            let entry = header
                .entry(id)
                .unwrap_or_else(|| panic!("{path}: no store entry"));
            let imported: Vec<u64> = package
                .header
                .imported_packages
                .iter()
                .map(|p| forge_iostore::ids::name_hash(p))
                .collect();
            assert_eq!(entry.imported_packages, imported, "{path}");
        }
    }
}

#[test]
fn the_global_script_objects_name_every_imported_class_and_hashes_follow_the_paths() {
    let Some(dir) = fixtures() else { return };
    let [(_, script)] = &chunks(&dir, "global/global", 5)[..] else {
        panic!("no script objects")
    };
    let objects = forge_package::ScriptObjects::read(script).unwrap();
    let static_mesh = forge_package::object_index::script_import("/Script/Engine.StaticMesh");
    assert_eq!(
        objects.path_of(static_mesh).as_deref(),
        Some("/Script/Engine.StaticMesh")
    );
    for build in BUILDS {
        for (path, bytes) in chunks(&dir, build, 1) {
            let package = Package::read(&bytes).unwrap();
            for import in &package.header.imports {
                if let forge_package::ObjectIndex::ScriptImport(_) = import {
                    let name = objects
                        .path_of(*import)
                        .unwrap_or_else(|| panic!("{path}: {import:?}"));
                    assert_eq!(
                        forge_package::object_index::script_import(&name),
                        *import,
                        "{path}: {name}"
                    );
                }
            }
            for (i, export) in package.header.exports.iter().enumerate() {
                if export.public_export_hash != 0 {
                    let inner = export_path(&package, i);
                    assert_eq!(
                        forge_package::object_index::public_export_hash(&inner),
                        export.public_export_hash,
                        "{path}: {inner}"
                    );
                }
            }
        }
    }
}

/// An export's path inside its package: its outers' names and its own, joined by `/`.
fn export_path(package: &Package, index: usize) -> String {
    let export = &package.header.exports[index];
    let name = package.header.name_of(export.object_name).unwrap();
    match export.outer {
        forge_package::ObjectIndex::Export(outer) => {
            format!("{}/{name}", export_path(package, outer as usize))
        }
        _ => name,
    }
}

/// Levels, Niagara scripts, control rigs and data assets with inline objects serialize
/// native data before or instead of a plain tag list, so not every export starts with one;
/// the donors' exports all do, and most others.
#[test]
fn tagged_exports_start_with_a_property_list_that_writes_back() {
    const DONORS: [&str; 3] = [
        "/SM_Fixture.uasset",
        "/BP_Components.uasset",
        "/BP_Fixture.uasset",
    ];
    // A class export holds its struct and children, not a tag list.
    let class =
        forge_package::object_index::script_import("/Script/Engine.BlueprintGeneratedClass");
    let (mut lists, mut others) = (0, 0);
    for (path, bytes) in chunks_of(&copies()[0], 1) {
        let package = Package::read(&bytes).unwrap();
        let Some(none) = package.header.names.iter().position(|n| n == "None") else {
            continue;
        };
        for (i, export) in package.exports.iter().enumerate() {
            let mut r = forge_bytes::Reader::new(export);
            let properties = match forge_package::properties::ObjectProperties::read(&mut r, none) {
                Ok(p) => p,
                Err(e)
                    if !DONORS.iter().any(|d| path.ends_with(d))
                        || package.header.exports[i].class == class =>
                {
                    println!("{path} export {i}: {e} (native data first)");
                    others += 1;
                    continue;
                }
                Err(e) => panic!("{path} export {i}: {e}"),
            };
            let mut w = forge_bytes::Writer::default();
            properties.write(&mut w);
            assert_eq!(w.bytes, export[..r.position()], "{path} export {i}");
            lists += 1;
        }
    }
    println!("{lists} property lists written back, {others} exports with native data first");
    assert!(lists > 4 * others, "{lists} lists, {others} others");
}

#[test]
fn the_fixture_static_meshes_read_to_their_end_and_write_back() {
    let mut meshes = 0;
    for (path, bytes) in chunks_of(&copies()[0], 1) {
        if !path.contains("/Meshes/SM_") {
            continue;
        }
        let package = Package::read(&bytes).unwrap();
        let none = package
            .header
            .names
            .iter()
            .position(|n| n == "None")
            .unwrap();
        let index = package
            .export_named(path.rsplit('/').next().unwrap().trim_end_matches(".uasset"))
            .unwrap();
        let mesh = forge_package::static_mesh::MeshExport::read(&package.exports[index], none)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(!mesh.lods[0].positions.is_empty(), "{path}");
        assert_eq!(mesh.has_nanite(), path.contains("SM_Nanite"), "{path}");
        assert_eq!(mesh.to_bytes(), package.exports[index], "{path}");
        meshes += 1;
    }
    assert_eq!(meshes, 2);
}

#[test]
fn every_fixture_package_has_its_header_tables_8_byte_aligned() {
    let mut count = 0;
    for copy in copies() {
        for (path, bytes) in chunks_of(&copy, 1) {
            let offsets = forge_package::header::table_offsets(&bytes).unwrap();
            assert!(offsets.iter().all(|o| o % 8 == 0), "{path}: {offsets:?}");
            count += 1;
        }
    }
    assert_eq!(count, 194);
}

/// The test donors' static mesh package, SM_Fixture from the tagged fixture build.
fn donor_mesh() -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/donors");
    std::fs::read(dir.join("SM_Fixture.uasset")).unwrap()
}

#[test]
fn the_nanite_blocks_bulk_entry_is_where_unreal_records_it() {
    // SM_Fixture's map entry 2 (empty, flags 0) is the Nanite block's streamable pages,
    // recorded right after its index in the mesh export: the rule a rewrite follows.
    let bytes = donor_mesh();
    let package = Package::read(&bytes).unwrap();
    let none = package.none_slot().unwrap();
    let mesh = forge_package::static_mesh::MeshExport::read(&package.exports[2], none).unwrap();
    let (index, offset) = mesh.nanite_bulk().unwrap();
    assert_eq!(index, 2);
    let entry = &package.header.bulk_data[index];
    assert_eq!((entry.serial_offset, entry.serial_size), (offset, 0));
    assert_eq!(offset, 2317);
}

/// Packages whose legacy headers differ only in their names: the same build, classes,
/// versions and table sizes.
fn same_shape(package: &Package) -> String {
    let h = &package.header;
    let classes: Vec<_> = h.exports.iter().map(|x| (x.class, x.outer)).collect();
    format!(
        "{:?} {:?} {classes:?} names {} imported {} bulk {} dependencies {}",
        h.versioning,
        h.imports,
        h.names.len(),
        h.imported_packages.len(),
        h.bulk_data.len(),
        h.dependency_entries.len()
    )
}

#[test]
fn cooked_header_sizes_of_fixture_packages_of_one_shape_differ_by_their_names() {
    let mut shapes = std::collections::BTreeMap::<String, Vec<(String, i64)>>::new();
    for copy in copies() {
        for (path, bytes) in chunks_of(&copy, 1) {
            let package = Package::read(&bytes).unwrap();
            let key = format!("{} {}", copy.display(), same_shape(&package));
            let rest = package.header.legacy_header_rest;
            shapes.entry(key).or_default().push((path, rest));
        }
    }
    let mut pairs = 0;
    for members in shapes.values() {
        for (path, rest) in members {
            assert_eq!(*rest, members[0].1, "{path} against {}", members[0].0);
        }
        pairs += members.len() - 1;
    }
    // 37 packages share a shape with an earlier one: textures of one class in several
    // formats, sound waves, curves and audio-analysis assets.
    assert_eq!(pairs, 37);
}

#[test]
fn a_renamed_package_records_the_longer_legacy_header() {
    let bytes = donor_mesh();
    let mut package = Package::read(&bytes).unwrap();
    let before = package.header.cooked_header_size();
    assert_eq!(
        package.to_bytes(),
        bytes,
        "an unchanged package keeps its value"
    );
    let old_path = package.header.package_name().unwrap();
    let new_path = format!("{old_path}_Longer");
    let old_short = old_path.rsplit('/').next().unwrap().to_string();
    let new_short = format!("{old_short}_Renamed");
    package
        .rename(&new_path, &[(old_short.clone(), new_short.clone())])
        .unwrap();
    // The path grows in the name map and in the summary; the export's name in the map.
    let grown = 2 * (new_path.len() - old_path.len()) + (new_short.len() - old_short.len());
    assert_eq!(package.header.cooked_header_size(), before + grown as u32);
    let written = Package::read(&package.to_bytes()).unwrap();
    assert_eq!(written.header.cooked_header_size(), before + grown as u32);
}
