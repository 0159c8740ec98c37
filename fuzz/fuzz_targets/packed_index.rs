#![no_main]
// A block's packed chunk index (`FPCK`), as a remote cache hands one over: it reads or is
// refused, writes back to its own bytes, and a container laid out from it never panics.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(chunks) = forge_iostore::packed::from_bytes(data) else {
        return;
    };
    assert_eq!(forge_iostore::packed::to_bytes(&chunks), data);
    let _ = forge_iostore::lay_out("fuzz_P", &chunks);
});
