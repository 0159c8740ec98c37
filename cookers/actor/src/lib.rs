//! The actor cooker: the Unreal actor that places one block's mesh in Forge.
//!
//! The actor's root is the piece's authored origin (bottom centre for Foundry, the entry
//! floor for Roadworks). Its mesh component sits at the offset the mesh cooker recorded,
//! which undoes the mesh's re-centring. Visual collision is off, because the Blam
//! simulation owns collision. A catalog `light` becomes a movable, shadowless,
//! inverse-square point light. `lift`, `door` and `surfaces` are carried over in Unreal
//! units. The class path comes from the pack and block ids and nothing else, so a pack
//! cannot name an arbitrary actor.
//!
//! The actor is a versioned JSON document (`docs/formats/actor.md`). [`Actor::to_json`]
//! writes it and [`Actor::from_json`] reads it back and checks it.
//!
//! ```
//! use forge_contract::parse_manifest;
//! let text = r#"{"schema_version": 1, "name": "Demo", "version": "0.1.0", "type": "content",
//!   "forge_pack": {"schema_version": 1, "id": "demo", "blocks": [{"id": "lamp", "name": "Lamp",
//!   "tag": "objects\\mjolnir\\forge\\demo\\lamp", "category": "lights", "dimensions_m": [1, 1, 3],
//!   "light": {"offset_m": [1, 2, 0], "color_rgb": [1, 1, 1], "intensity_cd": 70, "radius_m": 8}}]}}"#;
//! let (manifest, _) = parse_manifest("mjolnir.json", text).unwrap();
//! let entry = &manifest.catalog().unwrap().blocks[0];
//! let actor = forge_actor::cook("demo", entry, forge_contract::Origin::BottomCentre, [0.0, 0.0, 150.0]);
//! assert_eq!(actor.light.unwrap().relative_location_cm, [100.0, -200.0, 0.0]);
//! ```

pub mod unreal;

use forge_contract::{Entry, Origin};
use forge_units::{pack_to_unreal, CENTIMETRES_PER_METRE};
use serde::{Deserialize, Serialize};

/// Version of this cooker; part of every actor step's key.
pub const VERSION: u32 = 1;
pub const FORMAT: &str = "mjolnir-forge-actor";
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Actor {
    pub format: String,
    pub version: u32,
    pub pack: String,
    pub block: String,
    /// `/Game/MJOLNIR/Forge/<pack>/<block>/BP_<block>.BP_<block>_C`.
    pub class_path: String,
    /// The authored origin convention the root stands for.
    pub origin: String,
    pub mesh: MeshComponent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub light: Option<PointLight>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lift: Option<LiftData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub door: Option<DoorData>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub surfaces: Vec<SurfaceData>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshComponent {
    pub asset: String,
    /// Restores the authored transform after the mesh's re-centring.
    pub relative_location_cm: [f64; 3],
    /// Always `NoCollision`: the simulation owns collision.
    pub collision: String,
    pub generate_overlap_events: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointLight {
    pub relative_location_cm: [f64; 3],
    pub mobility: String,
    pub cast_shadows: bool,
    pub inverse_squared_falloff: bool,
    pub intensity_units: String,
    pub intensity: f64,
    pub attenuation_radius_cm: f64,
    pub light_color: [f64; 3],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiftData {
    pub travel_cm: [f64; 3],
    pub speed_cm_s: f64,
    pub dwell_s: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoorData {
    pub aperture: String,
    pub slide_cm: [f64; 3],
    pub open_s: f64,
    pub close_delay_s: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurfaceData {
    pub slot: String,
    pub profile: String,
    pub opacity: f64,
    pub tint_rgb: [f64; 3],
}

/// The actor's package: `/Game/MJOLNIR/Forge/<pack>/<block>/BP_<block>`.
pub fn package_path(pack_id: &str, block_id: &str) -> String {
    format!(
        "{}{block_id}/BP_{block_id}",
        forge_contract::ids::unreal_root(pack_id)
    )
}

/// `/Game/MJOLNIR/Forge/<pack>/<block>/BP_<block>.BP_<block>_C`.
pub fn class_path(pack_id: &str, block_id: &str) -> String {
    format!("{}.BP_{block_id}_C", package_path(pack_id, block_id))
}

/// Why bytes are not an actor the game can use.
#[derive(Debug, thiserror::Error)]
pub enum ActorError {
    #[error("not an actor document: {0}")]
    NotAnActor(#[from] serde_json::Error),
    /// It reads, but breaks a rule the game relies on; the message says which.
    #[error("{0}")]
    Invalid(String),
}

impl From<String> for ActorError {
    fn from(why: String) -> Self {
        ActorError::Invalid(why)
    }
}

impl From<&str> for ActorError {
    fn from(why: &str) -> Self {
        ActorError::Invalid(why.to_string())
    }
}

/// Builds the actor of `entry`. `mesh_offset_cm` is the mesh cooker's recorded offset.
pub fn cook(pack_id: &str, entry: &Entry, origin: Origin, mesh_offset_cm: [f64; 3]) -> Actor {
    let mesh_asset = forge_mesh::asset_path(pack_id, &entry.id);
    Actor {
        format: FORMAT.into(),
        version: FORMAT_VERSION,
        pack: pack_id.into(),
        block: entry.id.clone(),
        class_path: class_path(pack_id, &entry.id),
        origin: origin.as_str().into(),
        mesh: MeshComponent {
            asset: mesh_asset,
            relative_location_cm: mesh_offset_cm,
            collision: "NoCollision".into(),
            generate_overlap_events: false,
        },
        light: entry.light.as_ref().map(|l| PointLight {
            relative_location_cm: pack_to_unreal(l.offset_m),
            mobility: "Movable".into(),
            cast_shadows: false,
            inverse_squared_falloff: true,
            intensity_units: "Candelas".into(),
            intensity: l.intensity_cd,
            attenuation_radius_cm: l.radius_m * CENTIMETRES_PER_METRE,
            light_color: l.color_rgb,
        }),
        lift: entry.lift.as_ref().map(|l| LiftData {
            travel_cm: pack_to_unreal(l.travel_m),
            speed_cm_s: l.speed_m_s * CENTIMETRES_PER_METRE,
            dwell_s: l.dwell_s,
        }),
        door: entry.door.as_ref().map(|d| DoorData {
            aperture: d.aperture.clone(),
            slide_cm: pack_to_unreal(d.slide_m),
            open_s: d.open_s,
            close_delay_s: d.close_delay_s,
        }),
        surfaces: entry
            .surfaces
            .iter()
            .map(|s| SurfaceData {
                slot: s.slot.clone(),
                profile: s.profile.name().into(),
                opacity: s.opacity,
                tint_rgb: s.tint_rgb,
            })
            .collect(),
    }
}

impl Actor {
    pub fn to_json(&self) -> Vec<u8> {
        json_out::pretty(self)
    }

    /// Reads an actor and checks what the game relies on: the format, a class path derived
    /// from the ids, collision off, and a shadowless movable light.
    pub fn from_json(bytes: &[u8]) -> Result<Actor, ActorError> {
        let actor: Actor = serde_json::from_slice(bytes)?;
        if actor.format != FORMAT || actor.version != FORMAT_VERSION {
            return Err(format!(
                "unsupported actor format {} v{}",
                actor.format, actor.version
            )
            .into());
        }
        if actor.class_path != class_path(&actor.pack, &actor.block) {
            return Err(format!(
                "class path {:?} is not derived from the pack and block ids",
                actor.class_path
            )
            .into());
        }
        if actor.mesh.collision != "NoCollision" {
            return Err("visual collision must be disabled".into());
        }
        if let Some(l) = &actor.light {
            if l.cast_shadows || l.mobility != "Movable" || !l.inverse_squared_falloff {
                return Err("a Forge light is movable, shadowless and inverse-square".into());
            }
        }
        Ok(actor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use forge_contract::parse_manifest;

    fn entry(extra: &str) -> Entry {
        let text = format!(
            r#"{{"schema_version": 1, "name": "Demo", "version": "0.1.0", "type": "content",
            "forge_pack": {{"schema_version": 1, "id": "demo", "blocks": [{{"id": "b", "name": "B",
            "tag": "objects\\mjolnir\\forge\\demo\\b", "category": "c", "dimensions_m": [1, 1, 1]{extra}}}]}}}}"#
        );
        parse_manifest("m", &text)
            .unwrap()
            .0
            .forge_pack
            .unwrap()
            .blocks
            .remove(0)
    }

    #[test]
    fn seed_light_offsets_convert() {
        let a = cook(
            "demo",
            &entry(
                r#", "light": {"offset_m": [0, 0, 3.1], "color_rgb": [1, 0.05, 0.03], "intensity_cd": 70, "radius_m": 8}"#,
            ),
            Origin::BottomCentre,
            [0.0; 3],
        );
        let l = a.light.unwrap();
        assert_eq!(l.relative_location_cm, [0.0, 0.0, 310.0]);
        assert_eq!(l.attenuation_radius_cm, 800.0);
        assert_eq!(l.intensity, 70.0);
        assert!(!l.cast_shadows && l.inverse_squared_falloff);
        let a = cook(
            "demo",
            &entry(
                r#", "light": {"offset_m": [1, 2, 0], "color_rgb": [1, 1, 1], "intensity_cd": 1, "radius_m": 1}"#,
            ),
            Origin::BottomCentre,
            [0.0; 3],
        );
        assert_eq!(a.light.unwrap().relative_location_cm, [100.0, -200.0, 0.0]);
    }

    #[test]
    fn utilities_carry_over_in_unreal_units() {
        let a = cook(
            "demo",
            &entry(
                r#", "lift": {"travel_m": [0, 1, 4.5], "speed_m_s": 2, "dwell_s": 1.5}, "surfaces": [{"slot": "glass", "profile": "glass", "opacity": 0.35}]"#,
            ),
            Origin::BottomCentre,
            [0.0, 0.0, 25.0],
        );
        let lift = a.lift.as_ref().unwrap();
        assert_eq!(lift.travel_cm, [0.0, -100.0, 450.0]);
        assert_eq!(lift.speed_cm_s, 200.0);
        assert_eq!(a.surfaces[0].profile, "glass");
        assert_eq!(a.mesh.collision, "NoCollision");
        assert_eq!(a.class_path, "/Game/MJOLNIR/Forge/demo/b/BP_b.BP_b_C");
        let back = Actor::from_json(&a.to_json()).unwrap();
        assert_eq!(back, a);
        assert_eq!(back.to_json(), a.to_json());
    }

    #[test]
    fn the_reader_refuses_what_the_game_must_not_get() {
        let a = cook("demo", &entry(""), Origin::EntryFloor, [0.0; 3]);
        let mut forged = a.clone();
        forged.class_path = "/Script/Engine.Actor".into();
        assert!(Actor::from_json(&forged.to_json()).is_err());
        let mut colliding = a.clone();
        colliding.mesh.collision = "BlockAll".into();
        assert!(Actor::from_json(&colliding.to_json()).is_err());
        let text = String::from_utf8(a.to_json()).unwrap().replacen(
            "\"pack\"",
            "\"extra\": 1, \"pack\"",
            1,
        );
        assert!(Actor::from_json(text.as_bytes()).is_err());
        assert!(Actor::from_json(b"{").is_err());
    }
}
