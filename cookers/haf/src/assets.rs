//! File assets: a model's sounds and skins resolve against the owning pack's own folder
//! first, then the legacy shared `haf_sounds/` and `haf_skins/`.

use serde_json::Value;

use crate::resolve::Resolution;

/// The model keys that name files, and the folder each looks in.
const KEYS: &[(&str, &str, &str)] = &[
    ("soundFile", "sounds", "haf_sounds"),
    ("soundStartFile", "sounds", "haf_sounds"),
    ("soundStopFile", "sounds", "haf_sounds"),
    ("textureFile", "skins", "haf_skins"),
];

/// A pack's own folder, relative to the config folder: `haf_packs/<mod>/` for
/// `haf_packs/<mod>/pack.json`, the sibling `haf_packs/<mod>/` for `haf_packs/<mod>.json`,
/// none for the legacy base file.
pub fn pack_folder(file: &str) -> Option<String> {
    if let Some(folder) = file.strip_suffix("/pack.json") {
        return Some(folder.to_string());
    }
    file.strip_prefix("haf_packs/")
        .and_then(|f| f.strip_suffix(".json"))
        .map(|name| format!("haf_packs/{name}"))
}

/// Finds every merged model's files with `exists` (paths relative to the config folder);
/// each missing one is a warning naming its pack.
pub fn check(r: &mut Resolution, exists: impl Fn(&str) -> bool) {
    let mut warnings = Vec::new();
    for (owner, model) in r.models.values() {
        let Some(placed) = r.order.iter().find(|p| &p.pack.mod_id == owner) else {
            continue;
        };
        let own = pack_folder(&placed.pack.file);
        for (key, folder, shared) in KEYS {
            let Some(name) = model.get(*key).and_then(Value::as_str) else {
                continue;
            };
            let mut places: Vec<String> =
                own.iter().map(|o| format!("{o}/{folder}/{name}")).collect();
            places.push(format!("{shared}/{name}"));
            if !places.iter().any(|p| exists(p)) {
                warnings.push(format!(
                    "WARNING: {owner}: {key} {name:?} is in none of {}",
                    places.join(", ")
                ));
            }
        }
    }
    r.warnings.extend(warnings);
}
