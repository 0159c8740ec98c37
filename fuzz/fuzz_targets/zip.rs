#![no_main]
// The one reader of other people's ZIPs: whatever the archive declares, it reads within
// its limits or refuses.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let limits = bounded_zip::Limits { members: 64, member_bytes: 1 << 20, total_bytes: 4 << 20 };
    let _ = bounded_zip::read(data, limits, |_| true);
});
