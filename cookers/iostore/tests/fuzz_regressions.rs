//! Inputs the `utoc` fuzz target found (fuzz/fuzz_targets/utoc.rs): a TOC that parses
//! writes back to its own bytes, and verifying it never panics.

#[test]
fn fuzz_findings_round_trip() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("the findings folder") {
        let path = entry.expect("an entry").path();
        let data = std::fs::read(&path).expect("a finding");
        if let Ok(toc) = forge_iostore::Toc::parse(&data) {
            let back = toc.to_bytes();
            let first = back.iter().zip(&data).position(|(a, b)| a != b);
            assert!(
                back == data,
                "{}: lengths {} {}, first difference at {first:?}",
                path.display(),
                back.len(),
                data.len()
            );
            let _ = forge_iostore::verify(&toc, Some(&data));
        }
        seen += 1;
    }
    assert!(seen > 0, "no findings in {dir}");
}
