//! Conformance with real UE 5.8 containers (`../shared/fixtures/iostore-ue5.8/`), and the
//! proofs for containers this crate writes. Fixture tests skip with a printed reason when
//! `../shared` is absent.

use std::collections::BTreeSet;
use std::path::PathBuf;

use forge_iostore::ids::{self, ChunkId};
use forge_iostore::{read_chunk, verify, write, ChunkData, Compression, NewChunk, Toc};

fn fixtures() -> Option<PathBuf> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/iostore-ue5.8");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "skipped: {} is absent (the shared fixtures are only in the workplace)",
            dir.display()
        );
        None
    }
}

fn read(dir: &std::path::Path, name: &str) -> (Toc, Vec<u8>, Option<Vec<u8>>) {
    let utoc = std::fs::read(dir.join(format!("{name}.utoc"))).unwrap();
    let ucas = std::fs::read(dir.join(format!("{name}.ucas"))).ok();
    (
        Toc::parse(&utoc).unwrap_or_else(|e| panic!("{name}: {e}")),
        utoc,
        ucas,
    )
}

#[test]
fn ue58_containers_parse_verify_and_round_trip() {
    let Some(dir) = fixtures() else { return };
    for name in [
        "CUE4ParseFixtures-Minimal-Uncompressed-Windows",
        "CUE4ParseFixtures-Minimal-Zlib-Windows",
        "unversioned/CUE4ParseFixtures-Minimal-Uncompressed-Windows",
    ] {
        let (toc, utoc, ucas) = read(&dir, name);
        assert_eq!(toc.chunks.len(), 112, "{name}");
        assert_eq!(toc.seeds.len(), 56, "{name}");
        assert!(toc.overflow.is_empty());
        let stem = name.rsplit('/').next().unwrap();
        assert_eq!(
            toc.container_id,
            ids::name_hash(stem),
            "{name}: the container id is CityHash64 of its name"
        );
        assert_eq!(
            toc.to_bytes(),
            utoc,
            "{name}: read then write gives the same bytes"
        );
        let checks = verify(&toc, ucas.as_deref()).unwrap();
        assert!(
            checks.iter().all(|c| c.resolves),
            "{name}: every chunk resolves through the perfect hash alone"
        );
        assert!(
            checks.iter().all(|c| c.hash_ok == Some(true)),
            "{name}: every chunk matches its BLAKE3-160"
        );
        let with_names: Vec<_> = checks
            .iter()
            .filter(|c| c.package_id_ok.is_some())
            .collect();
        assert!(
            with_names.len() >= 97 && with_names.iter().all(|c| c.package_id_ok == Some(true)),
            "{name}: package ids are CityHash64 of their names"
        );
        let packages: BTreeSet<u64> = checks
            .iter()
            .filter(|c| c.chunk.kind() == ids::EXPORT_BUNDLE_DATA)
            .map(|c| c.chunk.package_id())
            .collect();
        assert_eq!(packages.len(), 97, "{name}: 97 packages");
        let nne = checks
            .iter()
            .find(|c| {
                c.path
                    .as_deref()
                    .is_some_and(|p| p.ends_with("NNE/NNE_Identity.uasset"))
            })
            .unwrap();
        assert_eq!(nne.chunk.package_id(), 0x162e79d98c2b3c2c);
    }
    // The zlib build really is compressed.
    let (toc, _, _) = read(&dir, "CUE4ParseFixtures-Minimal-Zlib-Windows");
    assert_eq!(toc.methods, ["Zlib"]);
    assert!(toc.blocks.iter().any(|b| b.method == 1));
}

#[test]
fn oodle_blocks_are_reported_not_failed() {
    let Some(dir) = fixtures() else { return };
    let (toc, utoc, ucas) = read(&dir, "oodle/CUE4ParseFixtures-Minimal-Oodle-Windows");
    assert_eq!(toc.to_bytes(), utoc);
    let checks = verify(&toc, ucas.as_deref()).unwrap();
    assert!(checks.iter().all(|c| c.resolves));
    assert!(
        checks
            .iter()
            .any(|c| c.unsupported.as_deref() == Some("Oodle")),
        "{:?}",
        toc.methods
    );
}

#[test]
fn a_lone_global_toc_reads_without_its_ucas() {
    let Some(dir) = fixtures() else { return };
    let (toc, utoc, ucas) = read(&dir, "global-no-ucas");
    assert!(ucas.is_none());
    assert_eq!(toc.chunks.len(), 1);
    assert_eq!(toc.to_bytes(), utoc);
    assert!(verify(&toc, None).unwrap()[0].resolves);
}

fn chunks(n: usize, seed: u64) -> Vec<NewChunk> {
    (0..n)
        .map(|i| {
            let name = format!("/Game/MJOLNIR/Forge/test/p{i}");
            let len = ((seed as usize + i * 7919) % 150_000) + 1;
            let data: Vec<u8> = (0..len).map(|k| ((k * 31 + i * 7) % 251) as u8).collect();
            NewChunk {
                id: ChunkId::new(ids::name_hash(&name), 0, if i % 2 == 0 { 1 } else { 2 }),
                data,
                path: Some(format!(
                    "MJOLNIR/Forge/test/p{i}.{}",
                    if i % 2 == 0 { "uasset" } else { "ubulk" }
                )),
            }
        })
        .collect()
}

#[test]
fn written_containers_resolve_every_chunk_at_every_count() {
    for n in 1..=64 {
        for compression in [Compression::None, Compression::Zlib] {
            let input = chunks(n, n as u64);
            let (utoc, ucas) = write("forge_test_P", &input, compression).unwrap();
            let toc = Toc::parse(&utoc).unwrap();
            assert!(toc.overflow.is_empty(), "n={n}: nothing spills");
            assert_eq!(toc.to_bytes(), utoc, "n={n}: round trip");
            let checks = verify(&toc, Some(&ucas)).unwrap();
            assert!(
                checks.iter().all(|c| c.resolves && c.hash_ok == Some(true)),
                "n={n} {compression:?}"
            );
            for c in &input {
                let entry = ids::lookup(&toc.seeds, toc.chunks.len(), &c.id).unwrap();
                assert_eq!(
                    read_chunk(&toc, &ucas, entry).unwrap(),
                    ChunkData::Bytes(c.data.clone()),
                    "n={n}"
                );
            }
            assert!(
                ucas.len() % 16 == 0 && toc.blocks.iter().all(|b| b.offset % 16 == 0),
                "blocks are 16-aligned"
            );
            // Deterministic: the same input gives the same bytes.
            assert_eq!(
                write("forge_test_P", &input, compression).unwrap(),
                (utoc, ucas)
            );
        }
    }
}

#[test]
fn hostile_tocs_give_coded_errors() {
    let (utoc, ucas) = write("forge_test_P", &chunks(9, 3), Compression::Zlib).unwrap();
    for cut in 0..utoc.len() {
        assert!(Toc::parse(&utoc[..cut]).is_err(), "cut at {cut}");
    }
    let code = |b: &[u8]| Toc::parse(b).unwrap_err().code;
    let mut v = utoc.clone();
    v[16] = 7;
    assert_eq!(code(&v), "utoc_version");
    let mut e = utoc.clone();
    e[0x50] |= 2;
    assert_eq!(code(&e), "utoc_encrypted");
    let mut huge = utoc.clone();
    huge[0x18..0x1C].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(code(&huge), "utoc_count_overflow");
    let mut seeds = utoc.clone();
    seeds[0x54..0x58].copy_from_slice(&0x4000_0000u32.to_le_bytes());
    assert_eq!(code(&seeds), "utoc_count_overflow");
    // Offsets past the .ucas.
    let toc = Toc::parse(&utoc).unwrap();
    assert_eq!(
        read_chunk(&toc, &ucas[..ucas.len() / 2], toc.chunks.len() - 1)
            .unwrap_err()
            .code,
        "ucas_out_of_range"
    );
    // A directory cycle and a bad string index.
    let mut cyclic = toc.clone();
    let dir = cyclic.directory.as_mut().unwrap();
    let child = dir.directories[0].first_child;
    dir.directories[child as usize].first_child = 0;
    assert_eq!(
        verify(&Toc::parse(&cyclic.to_bytes()).unwrap(), None)
            .unwrap_err()
            .code,
        "utoc_directory_cycle"
    );
    let mut bad = toc.clone();
    bad.directory.as_mut().unwrap().files[0].name = 9999;
    assert_eq!(
        verify(&Toc::parse(&bad.to_bytes()).unwrap(), None)
            .unwrap_err()
            .code,
        "utoc_directory_string"
    );
}
