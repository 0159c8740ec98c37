//! A map's placed objects, and their checks against the palette, the bounds and the
//! object budget.

use forge_contract::{child, Diagnostic, Findings};
use serde::{Deserialize, Serialize};

use crate::bake::Palette;
use crate::level::Level;

pub const FORMAT: &str = "mjolnir-layout";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    pub format: String,
    pub objects: Vec<Placed>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placed {
    /// A standard palette entry, or `<pack>/<block>`.
    pub palette: String,
    /// Where the piece's origin goes, pack-space metres.
    pub position_m: [f64; 3],
    /// Turn about Z, degrees.
    #[serde(default)]
    pub yaw_deg: f64,
    /// `red`, `blue` or `neutral`, for starts and team objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

/// Every placed object names a palette entry and lies inside the bounds, and the layout
/// fits the object budget.
pub fn check_layout(
    file: &str,
    text: &str,
    level: &Level,
    palette: &Palette,
) -> Result<Layout, Vec<Diagnostic>> {
    let layout: Layout =
        serde_json::from_str(text).map_err(|e| vec![forge_contract::syntax_error(file, &e)])?;
    let mut f = Findings::new(file, text);
    if layout.format != FORMAT {
        f.error(
            "bad_layout",
            "/format",
            format!("the format is {:?}, not {FORMAT:?}", layout.format),
        );
    }
    if layout.objects.len() > level.object_budget {
        f.error(
            "over_budget",
            "/objects",
            format!(
                "{} objects; {} allows {}",
                layout.objects.len(),
                level.name,
                level.object_budget
            ),
        );
    }
    let [min, max] = level.bounds_m;
    for (i, object) in layout.objects.iter().enumerate() {
        let at = child("/objects", i);
        if palette.index_of(&object.palette).is_none() {
            f.error(
                "unknown_palette_entry",
                &child(&at, "palette"),
                format!("{:?} is not in {}'s palette", object.palette, level.name),
            );
        }
        let p = object.position_m;
        if (0..3).any(|k| !(min[k]..=max[k]).contains(&p[k])) {
            f.error(
                "out_of_bounds",
                &child(&at, "position_m"),
                format!(
                    "{p:?} lies outside {}'s bounds {min:?}..{max:?}",
                    level.name
                ),
            );
        }
        if let Some(team) = &object.team {
            if !["red", "blue", "neutral"].contains(&team.as_str()) {
                f.error(
                    "bad_team",
                    &child(&at, "team"),
                    format!("{team:?} is not red, blue or neutral"),
                );
            }
        }
    }
    if f.has_errors() {
        return Err(f.into_vec());
    }
    Ok(layout)
}
