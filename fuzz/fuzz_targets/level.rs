#![no_main]
// A map's level document and a saved layout's sidecar: files a player or an author wrote.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = forge_map::parse_level("level.json", text);
        let _ = forge_resolve::layout::read_sidecar(text);
    }
});
