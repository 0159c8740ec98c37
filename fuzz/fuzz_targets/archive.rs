#![no_main]
// The archive verifier (the Hub's scan) on arbitrary bytes.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = forge_release::scan::scan(data, &forge_release::scan::ScanOptions::default());
});
