#![no_main]
// A map's level document, its layout and a saved layout's sidecar: files a player or an
// author wrote. The input is split at its first NUL byte: a level, then a layout checked
// against it (with the level's standard palette).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (level_bytes, layout_bytes) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(level_bytes) else {
        return;
    };
    let _ = forge_resolve::layout::read_sidecar(text);
    let Ok(level) = forge_map::parse_level("level.json", text) else {
        return;
    };
    let palette = forge_map::Palette {
        format: "mjolnir-palette",
        level: level.name.clone(),
        standard: level.standard_palette.clone(),
        custom: Vec::new(),
        preloads: Vec::new(),
        dependencies: Vec::new(),
    };
    if let Ok(layout) = std::str::from_utf8(layout_bytes) {
        let _ = forge_map::check_layout("layout.json", layout, &level, &palette);
    }
});
