#![no_main]
// A spliced output's recipe (`MJSP`), as a remote cache hands one over: it reads or is
// refused, and one that fits its sources assembles to exactly its length.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(recipe) = engine::Recipe::from_bytes(data) else {
        return;
    };
    let source = std::sync::Arc::new(vec![7u8; 4096]);
    let Ok(len) = recipe.check(|_| Some(source.len() as u64)) else {
        return;
    };
    // Each copy takes 21 bytes of the recipe and makes at most 4096: the length is
    // bounded by the input.
    let made = recipe.assemble(|_| Ok::<_, ()>(source.clone())).unwrap();
    assert_eq!(made.len() as u64, len);
});
