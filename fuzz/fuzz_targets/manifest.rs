#![no_main]
// The manifest/catalog reader: any text gives findings or a manifest, never a panic.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = forge_contract::parse_manifest("mjolnir.json", text);
    }
});
