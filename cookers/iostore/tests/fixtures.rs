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

/// A chunk's name across builds: its id, but for the container header, whose id is the
/// container's own.
fn key(id: &ChunkId) -> String {
    if id.kind() == ids::CONTAINER_HEADER {
        "container_header".to_string()
    } else {
        format!("{id:?}")
    }
}

/// Every chunk of a container, by [`key`], read through its blocks.
fn all_chunks(toc: &Toc, ucas: &[u8]) -> std::collections::BTreeMap<String, Vec<u8>> {
    toc.chunks
        .iter()
        .enumerate()
        .map(|(entry, id)| match read_chunk(toc, ucas, entry).unwrap() {
            ChunkData::Bytes(b) => (key(id), b),
            ChunkData::Unsupported(m) => panic!("entry {entry}: {m}"),
        })
        .collect()
}

/// The Oodle build's chunks are the uncompressed build's, byte for byte, but for the
/// container header, which differs only in the container id its TOC names.
fn assert_same_as_uncompressed(
    oodle: &Toc,
    chunks: &std::collections::BTreeMap<String, Vec<u8>>,
    expected: &std::collections::BTreeMap<String, Vec<u8>>,
) {
    assert_eq!(chunks.len(), 112);
    assert!(chunks.keys().eq(expected.keys()), "the same chunks");
    let mut differing = 0;
    for (name, bytes) in chunks {
        let want = &expected[name];
        if bytes == want {
            continue;
        }
        differing += 1;
        assert_eq!(name, "container_header", "{name} differs");
        assert_eq!(bytes.len(), want.len());
        let positions: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] != want[i]).collect();
        let start = (0..bytes.len().saturating_sub(7))
            .find(|&i| bytes[i..i + 8] == oodle.container_id.to_le_bytes())
            .expect("the header names its container");
        assert!(
            positions.iter().all(|&i| (start..start + 8).contains(&i)),
            "only the container id differs: {positions:?}"
        );
    }
    assert_eq!(differing, 1, "only the container header differs");
}

#[test]
fn the_oodle_build_reads_byte_for_byte_as_the_uncompressed_build() {
    let Some(dir) = fixtures() else { return };
    let (toc, utoc, ucas) = read(&dir, "oodle/CUE4ParseFixtures-Minimal-Oodle-Windows");
    assert_eq!(toc.to_bytes(), utoc);
    assert_eq!(toc.methods, ["Oodle"]);
    let ucas = ucas.unwrap();
    let (plain, _, plain_ucas) = read(&dir, "CUE4ParseFixtures-Minimal-Uncompressed-Windows");
    let expected = all_chunks(&plain, &plain_ucas.unwrap());
    assert_same_as_uncompressed(&toc, &all_chunks(&toc, &ucas), &expected);
    let checks = verify(&toc, Some(&ucas)).unwrap();
    assert!(checks.iter().all(|c| c.resolves && c.hash_ok == Some(true)));
}

/// The repository's copy of the Oodle build (`tests/data/oodle`), and the BLAKE3 of each
/// of the uncompressed build's chunks, so the comparison runs without `../shared`.
fn repo_oodle() -> (Toc, Vec<u8>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/oodle");
    let name = "CUE4ParseFixtures-Minimal-Oodle-Windows";
    let utoc = std::fs::read(dir.join(format!("{name}.utoc"))).unwrap();
    let ucas = std::fs::read(dir.join(format!("{name}.ucas"))).unwrap();
    (Toc::parse(&utoc).unwrap(), ucas)
}

fn expected_hashes() -> std::collections::BTreeMap<String, String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/oodle/uncompressed.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn hashes(
    chunks: &std::collections::BTreeMap<String, Vec<u8>>,
) -> std::collections::BTreeMap<String, String> {
    chunks
        .iter()
        .map(|(name, b)| (name.clone(), blake3::hash(b).to_hex().to_string()))
        .collect()
}

#[test]
fn every_oodle_chunk_decodes_to_the_uncompressed_builds_bytes() {
    let (toc, ucas) = repo_oodle();
    let chunks = all_chunks(&toc, &ucas);
    let got = hashes(&chunks);
    let want = expected_hashes();
    assert_eq!(got.len(), 112);
    let differing: Vec<&String> = got.keys().filter(|k| got[*k] != want[*k]).collect();
    // The container header names its own container; the rest are the same bytes.
    assert_eq!(differing, ["container_header"]);
    assert!(chunks.keys().eq(want.keys()), "the same chunks");
}

#[test]
fn the_repositorys_expected_hashes_are_the_uncompressed_builds() {
    let Some(dir) = fixtures() else { return };
    let (plain, _, plain_ucas) = read(&dir, "CUE4ParseFixtures-Minimal-Uncompressed-Windows");
    let got = hashes(&all_chunks(&plain, &plain_ucas.unwrap()));
    if std::env::var_os("MJOLNIR_WRITE_FIXTURES").is_some() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/oodle/uncompressed.json");
        std::fs::write(path, serde_json::to_vec_pretty(&got).unwrap()).unwrap();
    }
    assert_eq!(
        got,
        expected_hashes(),
        "regenerate with MJOLNIR_WRITE_FIXTURES=1"
    );
}

#[test]
fn a_corrupt_oodle_block_is_a_coded_error_never_a_panic_or_wrong_bytes() {
    let (toc, ucas) = repo_oodle();
    let oodle_entries: Vec<usize> = (0..toc.chunks.len())
        .filter(|&e| {
            let span = forge_iostore::chunk_span(&toc, e).unwrap();
            toc.blocks
                .iter()
                .any(|b| b.method == 1 && b.offset >= span.start && b.offset < span.end)
        })
        .take(40)
        .collect();
    assert!(oodle_entries.len() >= 20, "{}", oodle_entries.len());
    let mut refused = 0;
    for (k, &entry) in oodle_entries.iter().enumerate() {
        let span = forge_iostore::chunk_span(&toc, entry).unwrap();
        // Flip one bit inside the entry's first block, and cut another entry's block short.
        let mut bad = ucas.clone();
        let at = span.start as usize + (k * 37) % (span.end - span.start) as usize;
        bad[at] ^= 1 << (k % 8);
        match read_chunk(&toc, &bad, entry) {
            Err(e) => {
                assert!(
                    e.code.starts_with("ucas_oodle"),
                    "{}: {}",
                    e.code,
                    e.message
                );
                refused += 1;
            }
            Ok(ChunkData::Bytes(b)) => {
                let meta = &toc.metas[entry];
                assert_eq!(
                    meta.hash,
                    forge_iostore::hash160(&b),
                    "wrong bytes never pass"
                );
            }
            Ok(ChunkData::Unsupported(m)) => panic!("{m}"),
        }
        let cut = &ucas[..span.start as usize + 3];
        let e = read_chunk(&toc, cut, entry).unwrap_err();
        assert_eq!(e.code, "ucas_out_of_range");
    }
    assert!(refused > 0);
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

#[test]
fn twenty_thousand_mutated_and_truncated_oodle_blocks_never_panic_or_pass_wrong_bytes() {
    let (toc, mut ucas) = repo_oodle();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut refused, mut passed) = (0, 0);
    for _ in 0..20_000 {
        let entry = (next() % toc.chunks.len() as u64) as usize;
        let span = forge_iostore::chunk_span(&toc, entry).unwrap();
        let width = span.end - span.start;
        if width == 0 {
            continue;
        }
        // Up to four bytes overwritten inside the entry's blocks, then put back.
        let flips: Vec<(usize, u8)> = (0..1 + next() % 4)
            .map(|_| ((span.start + next() % width) as usize, next() as u8))
            .collect();
        let saved: Vec<u8> = flips.iter().map(|&(at, _)| ucas[at]).collect();
        flips.iter().for_each(|&(at, b)| ucas[at] = b);
        let cut = (span.start + next() % (width + 1)) as usize;
        let bytes = if next() % 4 == 0 {
            &ucas[..cut]
        } else {
            &ucas[..]
        };
        match read_chunk(&toc, bytes, entry) {
            Err(e) => {
                assert!(
                    e.code.starts_with("ucas_"),
                    "entry {entry}: {}: {}",
                    e.code,
                    e.message
                );
                refused += 1;
            }
            Ok(ChunkData::Bytes(b)) => {
                assert_eq!(toc.metas[entry].hash, forge_iostore::hash160(&b));
                passed += 1;
            }
            Ok(ChunkData::Unsupported(m)) => panic!("{m}"),
        }
        flips
            .iter()
            .zip(&saved)
            .rev()
            .for_each(|(&(at, _), &b)| ucas[at] = b);
    }
    // A flip may land on bytes no block uses (or write the byte already there).
    assert!(refused > 10_000, "{refused} refused, {passed} passed");
}
