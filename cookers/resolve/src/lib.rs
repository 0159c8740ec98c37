//! Which pack releases a profile enables (`docs/launcher.md`, "Requirements"). Every need is a Rust SemVer requirement: a map's dependency range as it
//! is written (a bare complete version is an exact pin, which the caller has already made
//! `=`), a layout's `^<saved version>`, a pack's own dependency ranges. For each pack the
//! newest release that meets every requirement is taken, unless the installed one meets
//! them all (and no update was asked for). Requirements that share no release conflict:
//! the maps keep theirs when some release serves all maps, and the layouts and packs that
//! disagree are left out; otherwise every needer is left out. Everything else is still
//! enabled. A pack's own dependencies are followed to their closure, however deep. Pure:
//! the launcher answers what is installed and what the Hub offers through [`World`].

use std::collections::{BTreeMap, BTreeSet};

use semver::{Version, VersionReq};
use serde::Serialize;

pub mod layout;
pub mod order;

/// Something that needs a pack: a map, a layout, or another pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Need {
    pub slug: String,
    /// Which releases serve it.
    #[serde(serialize_with = "as_text")]
    pub req: VersionReq,
    /// Who needs it, as a chain from what the player enabled: `map crossline`,
    /// `layout Crossline.mvar`, `map crossline → pack foundry-wide 0.2.0`.
    pub who: String,
    /// Maps win a conflict against layouts; layouts are what a player is told to move aside.
    pub kind: NeedKind,
    /// The release that needs it, for a pack's own dependency.
    #[serde(skip)]
    pub via: Option<(String, Version)>,
}

fn as_text<S: serde::Serializer>(req: &VersionReq, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&req.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NeedKind {
    Map,
    Pack,
    Layout,
}

impl Need {
    /// A layout saved with `saved` loads with it or any later release of its caret line.
    pub fn layout(slug: &str, saved: &Version, who: &str) -> Need {
        Need {
            slug: slug.into(),
            req: caret(saved),
            who: who.into(),
            kind: NeedKind::Layout,
            via: None,
        }
    }
}

/// `^v`, the caret line a release belongs to.
pub fn caret(v: &Version) -> VersionReq {
    VersionReq::parse(&format!("^{v}")).expect("a version makes a caret requirement")
}

/// A pack release's own dependency on another pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub slug: String,
    pub req: VersionReq,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chosen {
    pub version: Version,
    /// Whether it must be downloaded (else the installed release serves).
    pub download: bool,
    pub why: String,
    /// The first enabled need it serves, as its chain: what its own dependencies are
    /// reported as needed by.
    #[serde(skip)]
    pub by: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conflict {
    pub slug: String,
    /// Each requirement and who needs it.
    pub requirements: Vec<(String, Vec<String>)>,
    /// The needers left out: move these layouts aside, or use compatible versions.
    pub left_out: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Resolution {
    pub packs: BTreeMap<String, Chosen>,
    pub conflicts: Vec<Conflict>,
    /// Packs needed that no release can serve: `(slug, why)`, the why naming each chain.
    pub missing: Vec<(String, String)>,
}

/// What the launcher knows, asked lazily: the installed release of each pack, the releases
/// the Hub offers, and each release's own dependencies.
pub trait World {
    fn installed(&self, slug: &str) -> Option<Version>;
    fn available(&self, slug: &str) -> Vec<Version>;
    fn dependencies(&self, slug: &str, version: &Version) -> Vec<Requirement>;
}

/// How to choose among the releases that serve.
#[derive(Debug, Clone, Copy, Default)]
pub struct Policy {
    /// Move each pack to the newest release that serves, even when the installed one does.
    pub update: bool,
}

/// Resolves `needs` and the chosen releases' own dependencies to their closure. Each round
/// starts again from the enabled needs plus the dependencies of the releases the last
/// round chose, so a dependency of a release no longer chosen does not linger. It stops
/// when a round chooses what the last one did; a closure n packs deep takes n + 1 rounds.
/// Should choices cycle (each release's dependencies pushing another choice), the rounds
/// stop once every release has been chosen once, and the union of all their dependencies
/// decides.
pub fn resolve(needs: &[Need], world: &dyn World, policy: Policy) -> Resolution {
    let mut seen: BTreeSet<(String, Version)> = BTreeSet::new();
    let mut union: Vec<Need> = needs.to_vec();
    let mut current = resolve_once(needs, world, policy);
    loop {
        let mut next_needs = needs.to_vec();
        let mut fresh = false;
        for (slug, chosen) in &current.packs {
            fresh |= seen.insert((slug.clone(), chosen.version.clone()));
            for need in dependency_needs(slug, chosen, world) {
                if !union
                    .iter()
                    .any(|n| n.slug == need.slug && n.via == need.via)
                {
                    union.push(need.clone());
                }
                next_needs.push(need);
            }
        }
        let next = resolve_once(&next_needs, world, policy);
        if next.packs == current.packs {
            return next;
        }
        if !fresh {
            return resolve_once(&union, world, policy);
        }
        current = next;
    }
}

/// The needs a chosen release adds: one for each of its dependencies, named by the chain
/// that led to it.
fn dependency_needs(slug: &str, chosen: &Chosen, world: &dyn World) -> Vec<Need> {
    world
        .dependencies(slug, &chosen.version)
        .into_iter()
        .map(|dep| Need {
            slug: dep.slug,
            req: dep.req,
            who: format!("{} → pack {slug} {}", chosen.by, chosen.version),
            kind: NeedKind::Pack,
            via: Some((slug.to_string(), chosen.version.clone())),
        })
        .collect()
}

fn resolve_once(needs: &[Need], world: &dyn World, policy: Policy) -> Resolution {
    let mut by_slug: BTreeMap<&str, Vec<&Need>> = BTreeMap::new();
    for need in needs {
        by_slug.entry(&need.slug).or_default().push(need);
    }
    let mut out = Resolution::default();
    for (slug, needs) in by_slug {
        let installed = world.installed(slug);
        let mut releases = world.available(slug);
        releases.extend(installed.clone());
        releases.sort();
        releases.dedup();
        // A requirement no release meets is missing, whatever the others need.
        let (needs, unmet_needs): (Vec<&Need>, Vec<&Need>) = needs
            .into_iter()
            .partition(|n| releases.iter().any(|v| n.req.matches(v)));
        if !unmet_needs.is_empty() {
            out.missing
                .push((slug.to_string(), unmet(slug, &unmet_needs)));
        }
        if needs.is_empty() {
            continue;
        }
        let kept = match settle(slug, &needs, &releases) {
            Ok(kept) => kept,
            Err(conflict) => {
                let kept = conflict.1;
                out.conflicts.push(conflict.0);
                match kept {
                    Some(kept) => kept,
                    None => continue,
                }
            }
        };
        if let Some(chosen) = choose(slug, &kept, &releases, installed.as_ref(), policy) {
            out.packs.insert(slug.to_string(), chosen);
        }
    }
    out
}

fn serves(version: &Version, needs: &[&Need]) -> bool {
    needs.iter().all(|n| n.req.matches(version))
}

/// Which needs, each met by some release, can be served together. All of them when one
/// release meets every requirement. Otherwise the maps' needs, with every other need that
/// still fits, when some release serves all the maps; else none.
type Settled<'n> = Result<Vec<&'n Need>, (Conflict, Option<Vec<&'n Need>>)>;

fn settle<'n>(slug: &str, needs: &[&'n Need], releases: &[Version]) -> Settled<'n> {
    let any_serves = |needs: &[&Need]| releases.iter().any(|v| serves(v, needs));
    if any_serves(needs) {
        return Ok(needs.to_vec());
    }
    let mut kept: Vec<&Need> = needs
        .iter()
        .copied()
        .filter(|n| n.kind == NeedKind::Map)
        .collect();
    let kept = if any_serves(&kept) {
        let mut others: Vec<&Need> = needs
            .iter()
            .copied()
            .filter(|n| n.kind != NeedKind::Map)
            .collect();
        others.sort_by_key(|n| n.kind);
        for need in others {
            kept.push(need);
            if !any_serves(&kept) {
                kept.pop();
            }
        }
        Some(kept)
    } else {
        None
    };
    let mut requirements: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for n in needs {
        requirements
            .entry(n.req.to_string())
            .or_default()
            .push(n.who.clone());
    }
    let left_out = needs
        .iter()
        .filter(|n| !kept.as_ref().is_some_and(|k| k.contains(n)))
        .map(|n| n.who.clone())
        .collect();
    let conflict = Conflict {
        slug: slug.to_string(),
        requirements: requirements.into_iter().collect(),
        left_out,
    };
    Err((conflict, kept))
}

fn choose(
    slug: &str,
    needs: &[&Need],
    releases: &[Version],
    installed: Option<&Version>,
    policy: Policy,
) -> Option<Chosen> {
    let wants = needs
        .iter()
        .map(|n| format!("{} ({})", n.req, n.who))
        .collect::<Vec<_>>()
        .join(", ");
    let by = needs.first().map_or(String::new(), |n| n.who.clone());
    let newest = releases.iter().rev().find(|v| serves(v, needs))?;
    let (version, download, why) = match installed.filter(|v| serves(v, needs)) {
        Some(v) if !policy.update || v == newest => {
            (v.clone(), false, format!("installed {v} meets {wants}"))
        }
        _ => (
            newest.clone(),
            true,
            format!("newest release of {slug} on the Hub that meets {wants}"),
        ),
    };
    Some(Chosen {
        version,
        download,
        why,
        by,
    })
}

fn unmet(slug: &str, needs: &[&Need]) -> String {
    let wants: Vec<String> = needs
        .iter()
        .map(|n| format!("{} (needed by {})", n.req, n.who))
        .collect();
    format!(
        "no release of {slug} installed or on the Hub matches {}",
        wants.join(" and ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    fn req(s: &str) -> VersionReq {
        VersionReq::parse(s).unwrap()
    }

    fn need(slug: &str, range: &str, who: &str, kind: NeedKind) -> Need {
        Need {
            slug: slug.into(),
            req: req(range),
            who: who.into(),
            kind,
            via: None,
        }
    }

    #[derive(Default)]
    struct Fixture {
        installed: BTreeMap<String, Version>,
        available: BTreeMap<String, Vec<Version>>,
        deps: BTreeMap<(String, Version), Vec<Requirement>>,
    }

    impl Fixture {
        fn offers(mut self, slug: &str, versions: &[&str]) -> Self {
            self.available
                .insert(slug.into(), versions.iter().map(|s| v(s)).collect());
            self
        }

        fn has(mut self, slug: &str, version: &str) -> Self {
            self.installed.insert(slug.into(), v(version));
            self
        }

        fn depends(mut self, slug: &str, version: &str, on: &str, range: &str) -> Self {
            self.deps
                .entry((slug.into(), v(version)))
                .or_default()
                .push(Requirement {
                    slug: on.into(),
                    req: req(range),
                });
            self
        }
    }

    impl World for Fixture {
        fn installed(&self, slug: &str) -> Option<Version> {
            self.installed.get(slug).cloned()
        }
        fn available(&self, slug: &str) -> Vec<Version> {
            self.available.get(slug).cloned().unwrap_or_default()
        }
        fn dependencies(&self, slug: &str, version: &Version) -> Vec<Requirement> {
            let key = (slug.to_string(), version.clone());
            self.deps.get(&key).cloned().unwrap_or_default()
        }
    }

    fn chosen(r: &Resolution, slug: &str) -> (String, bool) {
        let c = &r.packs[slug];
        (c.version.to_string(), c.download)
    }

    #[test]
    fn the_newest_that_serves_unless_an_installed_one_does() {
        let world = Fixture::default().offers("foundry", &["0.2.0", "0.2.3", "0.3.0"]);
        let needs = [need("foundry", "^0.2.0", "map canvas", NeedKind::Map)];
        let r = resolve(&needs, &world, Policy::default());
        assert_eq!(chosen(&r, "foundry"), ("0.2.3".into(), true));
        let world = world.has("foundry", "0.2.1");
        let r = resolve(&needs, &world, Policy::default());
        assert_eq!(chosen(&r, "foundry"), ("0.2.1".into(), false));
        // An update moves it to the newest of the line.
        let r = resolve(&needs, &world, Policy { update: true });
        assert_eq!(chosen(&r, "foundry"), ("0.2.3".into(), true));
        // A layout saved with 0.2.2 needs the later release.
        let later = [
            needs[0].clone(),
            Need::layout("foundry", &v("0.2.2"), "layout a.mvar"),
        ];
        let r = resolve(&later, &world, Policy::default());
        assert_eq!(chosen(&r, "foundry"), ("0.2.3".into(), true));
    }

    #[test]
    fn every_requirement_form_means_what_semver_says() {
        let world = Fixture::default().offers(
            "foundry",
            &["0.2.0", "0.2.3", "0.3.0", "1.2.0", "1.2.7", "1.3.0"],
        );
        for (range, expect) in [
            ("=0.2.0", Some("0.2.0")),
            ("~0.2.0", Some("0.2.3")),
            (">=0.2.0, <0.3.0", Some("0.2.3")),
            ("~1.2.0", Some("1.2.7")),
            ("^1.2.0", Some("1.3.0")),
            (">=0.2.1, <0.2.3", None),
        ] {
            let needs = [need("foundry", range, "map m", NeedKind::Map)];
            let r = resolve(&needs, &world, Policy::default());
            let got = r.packs.get("foundry").map(|c| c.version.to_string());
            assert_eq!(got.as_deref(), expect, "{range}");
            if expect.is_none() {
                let (slug, why) = &r.missing[0];
                assert_eq!(slug, "foundry");
                assert!(why.contains(">=0.2.1, <0.2.3 (needed by map m)"), "{why}");
            }
        }
    }

    #[test]
    fn a_requirement_nothing_meets_is_missing_and_the_others_are_still_served() {
        let world = Fixture::default().offers("foundry", &["0.2.0", "0.2.3"]);
        let needs = [
            need("foundry", "=9.9.9", "map future", NeedKind::Map),
            need("foundry", "^0.2.0", "map canvas", NeedKind::Map),
        ];
        let r = resolve(&needs, &world, Policy::default());
        assert_eq!(chosen(&r, "foundry").0, "0.2.3");
        assert!(
            r.missing[0].1.contains("=9.9.9 (needed by map future)"),
            "{:?}",
            r.missing
        );
        assert!(r.conflicts.is_empty());
    }

    #[test]
    fn requirements_that_share_no_release_leave_the_layouts_out() {
        let world = Fixture::default()
            .offers("foundry", &["0.2.0", "0.3.0"])
            .offers("roadworks", &["0.2.0"]);
        let needs = [
            need("foundry", "^0.2.0", "map canvas", NeedKind::Map),
            Need::layout("foundry", &v("0.3.0"), "layout new.mvar"),
            need("roadworks", "^0.2.0", "map circuit", NeedKind::Map),
        ];
        let r = resolve(&needs, &world, Policy::default());
        assert_eq!(r.conflicts[0].left_out, ["layout new.mvar"]);
        assert_eq!(chosen(&r, "foundry").0, "0.2.0");
        assert_eq!(chosen(&r, "roadworks").0, "0.2.0");
        // Two maps pinned to two releases: both are left out, each with its requirement.
        let maps = [
            need("foundry", "=0.2.0", "map a", NeedKind::Map),
            need("foundry", "=0.3.0", "map b", NeedKind::Map),
        ];
        let r = resolve(&maps, &world, Policy::default());
        assert!(!r.packs.contains_key("foundry"));
        assert_eq!(r.conflicts[0].left_out, ["map a", "map b"]);
        assert_eq!(
            r.conflicts[0].requirements,
            [
                ("=0.2.0".to_string(), vec!["map a".to_string()]),
                ("=0.3.0".to_string(), vec!["map b".to_string()])
            ]
        );
    }

    #[test]
    fn a_closure_of_any_depth_is_followed_and_named_by_its_chain() {
        let mut world = Fixture::default();
        for i in 0..10 {
            world = world.offers(&format!("p{i}"), &["1.0.0"]);
            if i < 9 {
                world = world.depends(&format!("p{i}"), "1.0.0", &format!("p{}", i + 1), "^1");
            }
        }
        let world = world.depends("p9", "1.0.0", "absent", "^1");
        let needs = [need("p0", "^1.0.0", "map deep", NeedKind::Map)];
        let r = resolve(&needs, &world, Policy::default());
        assert_eq!(r.packs.len(), 10);
        let (slug, why) = &r.missing[0];
        assert_eq!(slug, "absent");
        assert!(
            why.contains("map deep → pack p0 1.0.0 → pack p1 1.0.0")
                && why.contains("→ pack p9 1.0.0"),
            "{why}"
        );
    }

    #[test]
    fn a_dependency_of_a_release_no_longer_chosen_does_not_linger() {
        // Installed wide 0.2.0 needs foundry ^0.2; the map needs wide ^0.3, whose 0.3.0
        // needs foundry ^0.3. Only the latter counts.
        let world = Fixture::default()
            .has("wide", "0.2.0")
            .offers("wide", &["0.2.0", "0.3.0"])
            .offers("foundry", &["0.2.5", "0.3.1"])
            .depends("wide", "0.2.0", "foundry", "^0.2")
            .depends("wide", "0.3.0", "foundry", "^0.3");
        let needs = [need("wide", "^0.3.0", "map m", NeedKind::Map)];
        let r = resolve(&needs, &world, Policy::default());
        assert!(r.conflicts.is_empty(), "{:?}", r.conflicts);
        assert_eq!(chosen(&r, "foundry").0, "0.3.1");
    }

    #[test]
    fn a_dependency_cycle_terminates() {
        let world = Fixture::default()
            .offers("a", &["1.0.0"])
            .offers("b", &["1.0.0"])
            .depends("a", "1.0.0", "b", "^1")
            .depends("b", "1.0.0", "a", "^1");
        let needs = [need("a", "^1", "map m", NeedKind::Map)];
        let r = resolve(&needs, &world, Policy::default());
        assert_eq!(r.packs.len(), 2);
    }
}
