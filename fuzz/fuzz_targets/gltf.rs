#![no_main]
// glTF and GLB import from bytes (external buffers: one empty and one echo of the input).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let external = std::collections::BTreeMap::from([("model.bin".to_string(), data.to_vec())]);
    let _ = forge_gltf::external_uris("model.gltf", data);
    if let Ok(mesh) = forge_gltf::import("model.gltf", data, &external) {
        let bytes = mesh.to_bytes();
        assert_eq!(forge_gltf::ImportedMesh::from_bytes(&bytes).expect("a written mesh reads back"), mesh);
    }
});
