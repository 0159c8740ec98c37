//! Inputs the `gltf` fuzz target found (fuzz/fuzz_targets/gltf.rs): each must import to an
//! error or to a mesh that survives its own writer and reader.

#[test]
fn fuzz_findings_import_cleanly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("the findings folder") {
        let data = std::fs::read(entry.expect("an entry").path()).expect("a finding");
        let external = std::collections::BTreeMap::from([("model.bin".to_string(), data.clone())]);
        if let Ok(mesh) = forge_gltf::import("model.gltf", &data, &external) {
            let bytes = mesh.to_bytes();
            let back =
                forge_gltf::ImportedMesh::from_bytes(&bytes).expect("a written mesh reads back");
            assert_eq!(back.to_bytes(), bytes);
            assert!(mesh.normals.iter().flatten().all(|c| c.is_finite()));
        }
        seen += 1;
    }
    assert!(seen > 0, "no findings in {dir}");
}

#[test]
fn nan_normals_are_refused_with_a_code() {
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fuzz/crash-f3f7578b02f40738472853dedbfb63a673329165"
    ))
    .expect("the finding");
    let external = std::collections::BTreeMap::from([("model.bin".to_string(), data.clone())]);
    let err = forge_gltf::import("model.gltf", &data, &external).expect_err("NaN normals");
    assert_eq!(err.code, "gltf_nan_attribute", "{err:?}");
}
