//! `unreal_material`: a block's glass and portal surfaces as the pack's own material
//! instances, `MI_<block>_<slot>`, written over the donor material instance of each
//! surface's profile. Planned for a block with surfaces when the cook has donors.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::catalog;
use super::coded::diagnostic;
use super::common::{input, params, source_file, text};
use super::kind::{Lands, Scope};
use crate::donors::{Role, GLASS_MATERIAL, PORTAL_MATERIAL};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "unreal_material",
        version: forge_material::VERSION,
        outputs: Names::Dynamic,
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Package,
    wire,
};

/// What every output's name starts with.
pub const PREFIX: &str = "MI_";

/// The package file of a block's surface: `MI_<block>_<slot>.uasset`.
pub fn output(block: &str, slot: &str) -> String {
    format!("{PREFIX}{block}_{slot}.uasset")
}

/// A block's surfaces as the pack's manifest declares them: `(slot, profile)`. Read at
/// plan time, remembered by the stat cache against the manifest's content; the catalog
/// step validates the same text, so a malformed surface fails there.
pub fn of_block(w: &Wiring) -> Vec<(String, String)> {
    // Gathered by block once per cook: asked of the whole list by each of every block's
    // steps, planning was quadratic in the blocks.
    let by_block = w.sources.surfaces(|| {
        let path = w.sources.pack.dir.join(catalog::MANIFEST);
        let facts = w
            .stat_cache()
            .derived(&path, KIND.name, KIND.version, declared_surfaces)
            .unwrap_or_default();
        let mut by_block: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for line in &facts {
            let mut parts = line.split('\t');
            if let (Some(b), Some(slot), Some(profile)) = (parts.next(), parts.next(), parts.next())
            {
                let surface = (slot.to_string(), profile.to_string());
                by_block.entry(b.to_string()).or_default().push(surface);
            }
        }
        by_block
    });
    by_block.get(w.block()).cloned().unwrap_or_default()
}

/// `block\tslot\tprofile` for every surface of every block of a manifest; none when the
/// manifest does not read (the catalog step reports why).
fn declared_surfaces(bytes: &[u8]) -> Vec<String> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
    let Ok((manifest, _)) = forge_contract::parse_manifest(catalog::MANIFEST, text) else {
        return Vec::new();
    };
    let blocks = manifest.catalog().map_or(&[][..], |c| &c.blocks);
    blocks
        .iter()
        .flat_map(|b| {
            b.surfaces
                .iter()
                .map(move |s| format!("{}\t{}\t{}", b.id, s.slot, s.profile.name()))
        })
        .collect()
}

fn role(profile: &str) -> Role {
    match profile {
        "portal" => PORTAL_MATERIAL,
        _ => GLASS_MATERIAL,
    }
}

#[derive(Serialize, Deserialize)]
struct Params {
    parameters: [String; 3],
}

fn wire(w: &Wiring) -> Option<Wired> {
    let donors = w.options.donors.as_ref()?;
    let surfaces = of_block(w);
    if surfaces.is_empty() {
        return None;
    }
    let mut inputs = vec![catalog::entry(w)];
    for role in [GLASS_MATERIAL, PORTAL_MATERIAL] {
        if surfaces.iter().any(|(_, p)| self::role(p) == role) {
            inputs.extend(super::donors::of_pack(w, role.output, role));
        }
    }
    let names = &donors.parameters;
    let params = Params {
        parameters: [
            names.tint.clone(),
            names.opacity.clone(),
            names.emissive.clone(),
        ],
    };
    Some(Wired {
        inputs,
        params: serde_json::to_string(&params).expect("serializes"),
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(catalog::MANIFEST);
    let entry = forge_contract::parse_entry(&file, step.pack, text(inputs, "entry.json", &file)?)?;
    let Params {
        parameters: [tint, opacity, emissive],
    } = params(step, &file)?;
    let names = forge_material::ParameterNames {
        tint,
        opacity,
        emissive,
    };
    let mut out = Vec::new();
    for surface in &entry.surfaces {
        let profile = surface.profile.name();
        let role = role(profile);
        if !inputs.contains_key(role.output) {
            return Err(vec![finding(
                "donor_material_missing",
                &file,
                format!(
                    "block {:?}: its {profile} surface on slot {:?} needs a donor material instance; set [donors] {profile}_material (or --donor-{profile}) in pipeline.toml",
                    entry.id, surface.slot
                ),
            )]);
        }
        let donor = input(inputs, role.output, &file)?;
        let bytes = forge_material::package(donor, step.pack, &entry.id, surface, &names)
            .map_err(|e| diagnostic(&file, &e))?;
        out.push((output(&entry.id, &surface.slot), bytes));
    }
    Ok(out)
}
