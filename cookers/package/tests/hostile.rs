//! Damaged packages never panic the readers: every single-byte change, and truncation at
//! every length, of the two donors either reads or is refused with a code.

use forge_package::properties::ObjectProperties;
use forge_package::static_mesh::MeshExport;
use forge_package::{ContainerHeader, Package};

fn donor(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../../tests/data/donors/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Reads everything a cook reads from a donor.
fn read_all(bytes: &[u8]) {
    let _ = ContainerHeader::read(bytes);
    let Ok(package) = Package::read(bytes) else {
        return;
    };
    let _ = package.to_bytes();
    let Ok(none) = package.none_slot() else {
        return;
    };
    for (i, export) in package.exports.iter().enumerate() {
        let _ = package.export_path(i);
        let _ = ObjectProperties::read(&mut forge_bytes::Reader::new(export), none);
        if let Ok(mesh) = MeshExport::read(export, none) {
            let _ = mesh.to_bytes();
        }
    }
}

#[test]
fn every_byte_flip_and_truncation_of_the_donors_is_survived() {
    for name in ["SM_Fixture.uasset", "BP_Components.uasset"] {
        let good = donor(name);
        for at in 0..good.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = good.clone();
                bad[at] ^= flip;
                read_all(&bad);
            }
            read_all(&good[..at]);
        }
    }
}
