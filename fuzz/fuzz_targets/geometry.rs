#![no_main]
// geometry.json against the stock Foundry catalog.
use std::sync::OnceLock;

fn catalog() -> &'static forge_contract::Catalog {
    static CATALOG: OnceLock<forge_contract::Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let text = include_str!("../../forge-packs/foundry/mjolnir.json");
        forge_contract::parse_manifest("mjolnir.json", text).expect("the stock catalog is valid").0.forge_pack.expect("a catalog")
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = forge_contract::parse_geometry("geometry.json", text, catalog());
        let _ = forge_contract::geometry::parse_block("geometry.json", text);
    }
});
