#![no_main]
// An entry a remote cache server sent: a Bazel ActionResult, decoded against its key with
// no trusted writer (parsed whole, then refused at the signature), and read as a bundle's
// entry, whose signature the bundle's covers.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = engine::remote::action_result::decode("0123456789abcdef", data, &[]);
    let _ = engine::remote::action_result::decode_vouched(data);
});
