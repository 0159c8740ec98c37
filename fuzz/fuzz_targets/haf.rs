#![no_main]
// A HAF config folder's pack file.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = haf::parse("pack.json", "pack", text);
    }
});
