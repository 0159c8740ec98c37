#![no_main]
// The tag reader: a tag that reads writes back to something that reads the same.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(tag) = forge_tags::Tag::from_bytes(data) {
        if let Ok(bytes) = tag.to_bytes() {
            assert_eq!(forge_tags::Tag::from_bytes(&bytes).expect("a written tag reads back"), tag);
        }
    }
});
