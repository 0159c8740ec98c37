#![no_main]
// A block's index in its set's container (`FBLK`), as a remote cache hands one over: it
// reads or is refused, writes back to its own bytes, and a container laid out from it
// never panics.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    use forge_release::container::IndexedBlockChunks;
    let Ok(index) = IndexedBlockChunks::from_bytes(data) else {
        return;
    };
    assert_eq!(index.to_bytes(), data);
    let _ = forge_release::container::lay_out("fuzz", &[index]);
});
