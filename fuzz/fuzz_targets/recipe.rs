#![no_main]
// A spliced output's recipe (`MJSP`), as a remote cache hands one over: it reads or is
// refused, and one that fits its sources (each taken to hold the bytes the recipe is bound
// to) assembles to exactly its length.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(recipe) = engine::Recipe::from_bytes(data) else {
        return;
    };
    let source = std::sync::Arc::new(vec![7u8; 4096]);
    let bound: std::collections::HashMap<&str, Option<String>> = recipe
        .sources()
        .iter()
        .map(String::as_str)
        .zip(recipe.source_hashes())
        .collect();
    let Ok(len) = recipe.check(|name| Some((source.len() as u64, bound.get(name)?.clone()?)))
    else {
        return;
    };
    // Each copy takes 21 bytes of the recipe and makes at most 4096: the length is
    // bounded by the input.
    let made = recipe.assemble(|_| Ok::<_, ()>(source.clone())).unwrap();
    assert_eq!(made.len() as u64, len);
    // Written front to back (when its sources come in runs), its hash is the bytes'.
    let mut written = std::io::Cursor::new(Vec::new());
    if let Some(hash) = recipe.write(&mut written, |_| Ok::<_, ()>(source.clone())).unwrap() {
        assert_eq!(hash, blake3::hash(&made));
    }
    assert_eq!(written.into_inner(), made);
});
