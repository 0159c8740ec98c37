#![no_main]
// Oodle blocks: the fixture's Oodle TOC over fuzzed `.ucas` bytes (random, mutated and
// truncated blocks). Every read is a coded error or the TOC's bytes; never a panic, and
// never more memory than the declared sizes.
static UTOC: &[u8] =
    include_bytes!("../../tests/data/oodle/CUE4ParseFixtures-Minimal-Oodle-Windows.utoc");

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let toc = forge_iostore::Toc::parse(UTOC).expect("the fixture TOC parses");
    for entry in 0..toc.chunks.len() {
        if let Ok(forge_iostore::ChunkData::Bytes(b)) = forge_iostore::read_chunk(&toc, data, entry) {
            assert_eq!(toc.metas[entry].hash, forge_iostore::hash160(&b));
        }
    }
});
