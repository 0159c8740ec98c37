#![no_main]
// Oodle blocks: the fixture's Oodle TOC over fuzzed `.ucas` bytes (random, mutated and
// truncated blocks). Every read is a coded error or the TOC's bytes; never a panic, and
// never more memory than the declared sizes.
static UTOC: &[u8] =
    include_bytes!("../../tests/data/oodle/CUE4ParseFixtures-Minimal-Oodle-Windows.utoc");

libfuzzer_sys::fuzz_target!(
    init: {
        // The reader contains oozextract's panics (catch_unwind) and turns them into coded
        // errors, but libfuzzer-sys's hook aborts on every panic before it unwinds. So a
        // panic raised inside oozextract is let through to the reader; any other aborts.
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.location().is_some_and(|l| l.file().contains("oozextract")) {
                abort(info)
            }
        }));
    },
    |data: &[u8]| {
        let toc = forge_iostore::Toc::parse(UTOC).expect("the fixture TOC parses");
        for entry in 0..toc.chunks.len() {
            let read = forge_iostore::read_chunk(&toc, data, entry);
            if let Ok(forge_iostore::ChunkData::Bytes(b)) = read {
                assert_eq!(toc.metas[entry].hash, forge_iostore::hash160(&b));
            }
        }
    }
);
