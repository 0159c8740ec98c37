#![no_main]
// An asset job manifest, linted as `mjolnir manifest lint` does.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = asset_manifest::lint("manifest.json", text, None);
    }
});
