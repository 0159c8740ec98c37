#![no_main]
// An entry a remote cache server sent: a Bazel ActionResult, decoded against its key.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = engine::remote::action_result::decode("0123456789abcdef", data);
});
