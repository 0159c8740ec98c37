//! Which pack releases a profile enables (the seed's "Updating a pack" and "Saved layouts
//! and downloads"): maps record `^<version>`, layouts the version they were saved with;
//! each pack's needs must fall on one caret line, the newest need of that line sets the
//! floor, an installed release at or past it serves as it is, and otherwise the newest
//! release of the line is taken. Needs on two lines of one pack conflict: the needers are
//! left out, and everything else is still enabled. Packs' own dependencies are followed to
//! their closure. Pure: the launcher passes what it found and what the Hub offers.

use std::collections::BTreeMap;

use semver::{Version, VersionReq};
use serde::Serialize;

pub mod layout;
pub mod order;

/// Something that needs a pack: a map, a layout, or another pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Need {
    pub slug: String,
    /// The release it was built or saved with; it needs that or a later one of its line.
    pub version: Version,
    /// `map crossline`, `layout Crossline.mvar`, `pack foundry 0.2.0`.
    pub who: String,
    /// Maps win a conflict against layouts; layouts are what the seed says to move aside.
    pub kind: NeedKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NeedKind {
    Map,
    Pack,
    Layout,
}

/// The caret line a version belongs to: `^0.2.3` is 0.2.x, `^1.4.0` is 1.x.
pub fn line(version: &Version) -> String {
    match (version.major, version.minor) {
        (0, 0) => format!("0.0.{}", version.patch),
        (0, minor) => format!("0.{minor}"),
        (major, _) => format!("{major}"),
    }
}

fn in_line(floor: &Version, candidate: &Version) -> bool {
    VersionReq::parse(&format!("^{floor}")).is_ok_and(|r| r.matches(candidate))
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chosen {
    pub version: Version,
    /// Whether it must be downloaded (else the installed release serves).
    pub download: bool,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conflict {
    pub slug: String,
    /// Each line and who needs it.
    pub lines: Vec<(String, Vec<String>)>,
    /// The needers left out: move these layouts aside, or use compatible versions.
    pub left_out: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Resolution {
    pub packs: BTreeMap<String, Chosen>,
    pub conflicts: Vec<Conflict>,
    /// Packs needed that no release can serve: `(slug, why)`.
    pub missing: Vec<(String, String)>,
}

/// A release's own dependencies: `(slug, version)` of each pack it needs.
pub type Dependencies<'a> = &'a dyn Fn(&str, &Version) -> Vec<(String, Version)>;

/// What the launcher knows: the installed release of each pack, the releases the Hub
/// offers, and each release's own dependencies.
pub struct World<'a> {
    pub installed: &'a BTreeMap<String, Version>,
    pub available: &'a BTreeMap<String, Vec<Version>>,
    pub dependencies: Dependencies<'a>,
}

pub fn resolve(needs: &[Need], world: &World) -> Resolution {
    let mut needs = needs.to_vec();
    let mut out = Resolution::default();
    // Each round adds the chosen releases' own dependencies; a closure is reached when a
    // round adds nothing (bounded by the number of releases there are).
    for _ in 0..=world.available.values().map(Vec::len).sum::<usize>() {
        out = resolve_once(&needs, world);
        let mut added = false;
        for (slug, chosen) in &out.packs {
            for (dep, version) in (world.dependencies)(slug, &chosen.version) {
                let who = format!("pack {slug} {}", chosen.version);
                if !needs.iter().any(|n| n.slug == dep && n.who == who) {
                    needs.push(Need {
                        slug: dep,
                        version,
                        who,
                        kind: NeedKind::Pack,
                    });
                    added = true;
                }
            }
        }
        if !added {
            break;
        }
    }
    out
}

fn resolve_once(needs: &[Need], world: &World) -> Resolution {
    let mut by_slug: BTreeMap<&str, Vec<&Need>> = BTreeMap::new();
    for need in needs {
        by_slug.entry(&need.slug).or_default().push(need);
    }
    let mut out = Resolution::default();
    for (slug, needs) in by_slug {
        let mut lines: BTreeMap<String, Vec<&Need>> = BTreeMap::new();
        for need in &needs {
            lines.entry(line(&need.version)).or_default().push(need);
        }
        let kept = if lines.len() == 1 {
            lines.into_values().next().expect("one line")
        } else {
            match settle(slug, lines, &mut out) {
                Some(kept) => kept,
                None => continue,
            }
        };
        let floor = kept
            .iter()
            .map(|n| &n.version)
            .max()
            .expect("a need")
            .clone();
        let setter = kept
            .iter()
            .find(|n| n.version == floor)
            .map_or("", |n| n.who.as_str())
            .to_string();
        match choose(slug, &floor, &setter, world) {
            Ok(chosen) => {
                out.packs.insert(slug.to_string(), chosen);
            }
            Err(why) => out.missing.push((slug.to_string(), why)),
        }
    }
    out
}

/// Two or more lines of one pack: the maps' line wins when the maps agree on one, and the
/// layouts (and packs) on other lines are left out; otherwise every needer is left out.
fn settle<'n>(
    slug: &str,
    lines: BTreeMap<String, Vec<&'n Need>>,
    out: &mut Resolution,
) -> Option<Vec<&'n Need>> {
    let map_lines: Vec<&String> = lines
        .iter()
        .filter(|(_, n)| n.iter().any(|n| n.kind == NeedKind::Map))
        .map(|(l, _)| l)
        .collect();
    let winner = match map_lines.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    };
    let listed = lines
        .iter()
        .map(|(l, n)| (l.clone(), n.iter().map(|n| n.who.clone()).collect()))
        .collect();
    let left_out: Vec<String> = lines
        .iter()
        .filter(|(l, _)| Some(*l) != winner.as_ref())
        .flat_map(|(_, n)| n.iter().map(|n| n.who.clone()))
        .collect();
    out.conflicts.push(Conflict {
        slug: slug.to_string(),
        lines: listed,
        left_out,
    });
    let mut lines = lines;
    winner.and_then(|w| lines.remove(&w))
}

fn choose(slug: &str, floor: &Version, setter: &str, world: &World) -> Result<Chosen, String> {
    if let Some(installed) = world
        .installed
        .get(slug)
        .filter(|v| in_line(floor, v) && *v >= floor)
    {
        return Ok(Chosen {
            version: installed.clone(),
            download: false,
            why: format!("installed {installed} serves ^{floor} ({setter})"),
        });
    }
    let newest = world
        .available
        .get(slug)
        .into_iter()
        .flatten()
        .filter(|v| in_line(floor, v) && *v >= floor && v.pre.is_empty())
        .max();
    match newest {
        Some(v) => Ok(Chosen {
            version: v.clone(),
            download: true,
            why: format!("newest release of ^{floor} on the Hub ({setter})"),
        }),
        None => Err(format!(
            "no release of {slug} in ^{floor} (needed by {setter}) is installed or on the Hub"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    fn need(slug: &str, version: &str, who: &str, kind: NeedKind) -> Need {
        Need {
            slug: slug.into(),
            version: v(version),
            who: who.into(),
            kind,
        }
    }

    fn world<'a>(
        installed: &'a BTreeMap<String, Version>,
        available: &'a BTreeMap<String, Vec<Version>>,
        deps: Dependencies<'a>,
    ) -> World<'a> {
        World {
            installed,
            available,
            dependencies: deps,
        }
    }

    #[test]
    fn the_newest_of_the_line_unless_an_installed_one_serves() {
        let available = BTreeMap::from([(
            "foundry".to_string(),
            vec![v("0.2.0"), v("0.2.3"), v("0.3.0")],
        )]);
        let none = BTreeMap::new();
        let no_deps = |_: &str, _: &Version| Vec::new();
        let needs = [need("foundry", "0.2.0", "map canvas", NeedKind::Map)];
        let r = resolve(&needs, &world(&none, &available, &no_deps));
        assert_eq!(r.packs["foundry"].version, v("0.2.3"));
        assert!(r.packs["foundry"].download);
        let installed = BTreeMap::from([("foundry".to_string(), v("0.2.1"))]);
        let r = resolve(&needs, &world(&installed, &available, &no_deps));
        assert_eq!(
            (
                r.packs["foundry"].version.clone(),
                r.packs["foundry"].download
            ),
            (v("0.2.1"), false)
        );
        // A layout saved with 0.2.2 needs the later release.
        let later = [
            needs[0].clone(),
            need("foundry", "0.2.2", "layout a.mvar", NeedKind::Layout),
        ];
        let r = resolve(&later, &world(&installed, &available, &no_deps));
        assert_eq!(r.packs["foundry"].version, v("0.2.3"));
    }

    #[test]
    fn two_lines_leave_the_layouts_out_and_keep_the_rest() {
        let available = BTreeMap::from([
            ("foundry".to_string(), vec![v("0.2.0"), v("0.3.0")]),
            ("roadworks".to_string(), vec![v("0.2.0")]),
        ]);
        let none = BTreeMap::new();
        let no_deps = |_: &str, _: &Version| Vec::new();
        let needs = [
            need("foundry", "0.2.0", "map canvas", NeedKind::Map),
            need("foundry", "0.3.0", "layout new.mvar", NeedKind::Layout),
            need("roadworks", "0.2.0", "map circuit", NeedKind::Map),
        ];
        let r = resolve(&needs, &world(&none, &available, &no_deps));
        assert_eq!(r.conflicts[0].left_out, ["layout new.mvar"]);
        assert_eq!(r.packs["foundry"].version, v("0.2.0"));
        assert_eq!(r.packs["roadworks"].version, v("0.2.0"));
        // Two maps on two lines: both are left out.
        let maps = [
            need("foundry", "0.2.0", "map a", NeedKind::Map),
            need("foundry", "0.3.0", "map b", NeedKind::Map),
        ];
        let r = resolve(&maps, &world(&none, &available, &no_deps));
        assert!(!r.packs.contains_key("foundry"));
        assert_eq!(r.conflicts[0].left_out, ["map a", "map b"]);
    }

    #[test]
    fn a_packs_own_dependencies_are_followed() {
        let available = BTreeMap::from([
            ("foundry-wide".to_string(), vec![v("0.2.0")]),
            ("foundry".to_string(), vec![v("0.2.5")]),
        ]);
        let none = BTreeMap::new();
        let deps = |slug: &str, _: &Version| {
            if slug == "foundry-wide" {
                vec![("foundry".to_string(), v("0.2.0"))]
            } else {
                Vec::new()
            }
        };
        let needs = [need(
            "foundry-wide",
            "0.2.0",
            "map crossline",
            NeedKind::Map,
        )];
        let r = resolve(&needs, &world(&none, &available, &deps));
        assert_eq!(r.packs["foundry"].version, v("0.2.5"));
    }
}
