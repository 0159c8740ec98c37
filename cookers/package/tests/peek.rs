use forge_iostore::{read_chunk, ChunkData, Toc};
use forge_package::Package;
#[test]
fn peek() {
    let dir = std::path::Path::new("/work/shared/fixtures/iostore-ue5.8");
    let global = Toc::parse(&std::fs::read(dir.join("global/global.utoc")).unwrap()).unwrap();
    let gucas = std::fs::read(dir.join("global/global.ucas")).unwrap();
    let ChunkData::Bytes(s) = read_chunk(&global, &gucas, 0).unwrap() else {
        panic!()
    };
    let objects = forge_package::ScriptObjects::read(&s).unwrap();
    for build in [
        "CUE4ParseFixtures-Minimal-Uncompressed-Windows",
        "unversioned/CUE4ParseFixtures-Minimal-Uncompressed-Windows",
    ]
    .into_iter()
    .take(1)
    {
        let toc = Toc::parse(&std::fs::read(dir.join(format!("{build}.utoc"))).unwrap()).unwrap();
        let ucas = std::fs::read(dir.join(format!("{build}.ucas"))).unwrap();
        for (p, i) in toc.directory.as_ref().unwrap().files().unwrap() {
            if !(p.contains("BP_Components.")) {
                continue;
            }
            let ChunkData::Bytes(b) = read_chunk(&toc, &ucas, i as usize).unwrap() else {
                panic!()
            };
            std::fs::write(
                format!(
                    "/tmp/{}-{}",
                    if build.starts_with("un") { "u" } else { "t" },
                    p.rsplit('/').next().unwrap()
                ),
                &b,
            )
            .unwrap();
            let pk = Package::read(&b).unwrap();
            let h = &pk.header;
            println!(
                "== {p} flags {:#x} versioning {:?}",
                h.package_flags,
                h.versioning.as_ref().map(|v| (
                    v.zen_version,
                    v.file_version_ue4,
                    v.file_version_ue5,
                    v.licensee_version,
                    v.custom_versions.len()
                ))
            );
            println!("names {:?}", h.names);
            println!("bulk pad {} {:?}", h.bulk_pad.len(), h.bulk_data);
            println!("public hashes {:x?}", h.imported_public_export_hashes);
            for im in &h.imports {
                println!("import {:?} {:?}", im, objects.path_of(*im));
            }
            for (k, x) in h.exports.iter().enumerate() {
                println!("export {k} {:?} off {} size {} outer {:?} class {:?} {:?} super {:?} tmpl {:?} {:?} hash {:x} flags {:#x} filter {}", h.name_of(x.object_name), x.cooked_serial_offset, x.cooked_serial_size, x.outer, x.class, objects.path_of(x.class), x.super_, x.template, objects.path_of(x.template), x.public_export_hash, x.object_flags, x.filter_flags);
            }
            println!("bundle {:?}", h.bundle);
            println!("deps {:?} {:?}", h.dependency_headers, h.dependency_entries);
            println!(
                "imported {:?} cooked_header_size {}",
                h.imported_packages, h.cooked_header_size
            );
            for (k, x) in pk.exports.iter().enumerate() {
                println!(
                    "X{k} {}",
                    x.iter()
                        .map(|b| format!("{b:02x}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
            }
        }
    }
}
