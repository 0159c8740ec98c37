#![no_main]
// The .utoc reader: a TOC that parses writes back to the same bytes, and verifying it
// (with the input reused as its .ucas) never panics.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(toc) = forge_iostore::Toc::parse(data) {
        assert_eq!(toc.to_bytes(), data, "a parsed TOC writes back to its bytes");
        let _ = forge_iostore::verify(&toc, Some(data));
    }
});
