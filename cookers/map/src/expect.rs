//! What a level says its layout holds (`expect` in the level document): the number of
//! authored objects, counts of particular entries, and the height of its raised decks.
//! The cook checks a stock map's stated facts with these, and an author's map the same way.

use forge_contract::{child, Catalog, Diagnostic, Findings};

use crate::layout::Layout;

pub use crate::level::Expect;

/// How far a deck's top may be from the stated height.
const HEIGHT_TOLERANCE_M: f64 = 0.001;

pub fn check(
    file: &str,
    text: &str,
    expect: &Expect,
    layout: &Layout,
    catalogs: &[&Catalog],
) -> Vec<Diagnostic> {
    let mut f = Findings::new(file, text);
    if let Some(n) = expect.objects.filter(|n| *n != layout.objects.len()) {
        f.error(
            "expect_objects",
            "/expect/objects",
            format!(
                "the layout places {} objects, not the {n} stated",
                layout.objects.len()
            ),
        );
    }
    for (name, n) in &expect.counts {
        let (entry, team) = match name.split_once('/') {
            Some((entry, team)) if ["red", "blue", "neutral"].contains(&team) => {
                (entry, Some(team))
            }
            _ => (name.as_str(), None),
        };
        let found = layout
            .objects
            .iter()
            .filter(|o| o.palette == entry && (team.is_none() || o.team.as_deref() == team))
            .count();
        if found != *n {
            f.error(
                "expect_count",
                &child("/expect/counts", name),
                format!("the layout has {found} of {name}, not the {n} stated"),
            );
        }
    }
    if let Some(height) = expect.deck_height_m {
        for object in &layout.objects {
            let Some((pack, block)) = object.palette.split_once('/') else {
                continue;
            };
            let entry = catalogs
                .iter()
                .filter(|c| c.id == pack)
                .flat_map(|c| &c.blocks)
                .find(|e| e.id == block);
            if let Some(entry) = entry.filter(|e| e.category == "decks") {
                let top = object.position_m[2] + entry.dimensions_m[2];
                if (top - height).abs() > HEIGHT_TOLERANCE_M {
                    f.error(
                        "deck_height",
                        "/expect/deck_height_m",
                        format!(
                            "{} at {:?} tops out at {top} m, not {height} m",
                            object.palette, object.position_m
                        ),
                    );
                }
            }
        }
    }
    f.into_vec()
}
