//! Inputs the `tag` fuzz target found (fuzz/fuzz_targets/tag.rs): a tag that reads writes
//! back to something that reads the same.

#[test]
fn fuzz_findings_round_trip() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("the findings folder") {
        let path = entry.expect("an entry").path();
        let data = std::fs::read(&path).expect("a finding");
        if let Ok(tag) = forge_tags::Tag::from_bytes(&data) {
            if let Ok(bytes) = tag.to_bytes() {
                let back = forge_tags::Tag::from_bytes(&bytes).expect("a written tag reads back");
                assert!(back == tag, "{} reads back differently", path.display());
            }
        }
        seen += 1;
    }
    assert!(seen > 0, "no findings in {dir}");
}
