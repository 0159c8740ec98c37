#![no_main]
// The zen package and container header readers: a donor from the game's Paks is bytes
// someone else wrote, so any input parses or is refused, never panics.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = forge_package::Package::read(data);
    let _ = forge_package::container_header::ContainerHeader::read(data);
});
