//! `mjolnir launcher sync`: resolve what the profile's verified maps and saved layouts need
//! against the Hub, install it verified and journaled, and write the catalogs, the Paks
//! layout and `launcher_report.txt`. Each bad item (a file of the profile, a Hub answer, a
//! release) is one finding in the report; everything else is still restored.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use forge_resolve::{Chosen, Need, NeedKind, Policy, Requirement, Resolution, World};
use mjolnir_files::atomic;
use semver::Version;

use crate::api::{self, PackPayload, ReleaseRef};
use crate::client::Hub;
use crate::finding::Finding;
use crate::install::{self, Staged};
use crate::profile::{self, Profile, Verified};
use crate::report::{self, Outcome, Summary};
use crate::{catalogs, paks, MAX_BLOCKS};

pub struct SyncArgs {
    pub hub: String,
    pub profile: PathBuf,
    pub json: bool,
    /// Move each needed pack to the newest release that serves.
    pub update: bool,
    /// The whole sync's deadline.
    pub deadline: Duration,
    /// The most catalog blocks the profile may enable: the native reader's 4,096, or
    /// fewer (the tests lower it to reach it with the stock packs).
    pub max_blocks: usize,
}

pub fn sync(args: &SyncArgs) -> Result<i32, Finding> {
    let profile = Profile {
        root: args.profile.clone(),
    };
    let summary = run(args, &profile);
    let text = report::text(&summary);
    let path = profile.report();
    atomic::write(&path, text.as_bytes())
        .map_err(|e| Finding::new("report_write", path.display().to_string(), e.to_string()))?;
    if args.json {
        print!("{}", json_out::pretty_text(&summary));
    } else {
        print!("{text}");
    }
    Ok(if summary.clean() { 0 } else { 1 })
}

fn run(args: &SyncArgs, profile: &Profile) -> Summary {
    let mut findings: Vec<Finding> = install::recover(profile).into_iter().collect();
    let (trusted, f) = profile::trusted_fingerprints(profile);
    findings.extend(f);
    let (installed, f) = profile::installed(profile, &trusted);
    findings.extend(f);
    let (needs, f) = needs(profile, &trusted);
    findings.extend(f);
    let world = HubWorld::new(Hub::new(&args.hub, args.deadline), &installed);
    let policy = Policy {
        update: args.update,
    };
    let resolution = forge_resolve::resolve(&needs, &world, policy);
    let mut round = Round::default();
    for (slug, chosen) in &resolution.packs {
        round.fetch(&world, profile, &trusted, slug, chosen);
    }
    // A refused update falls back to the installed release, where that one serves.
    let fallback = (args.update && round.outcomes.values().any(|o| *o == Outcome::Refused))
        .then(|| forge_resolve::resolve(&needs, &world, Policy::default()));
    let mut enabled: Vec<&Verified> = resolution
        .packs
        .keys()
        .filter_map(|slug| round.kept(slug, &installed, fallback.as_ref()))
        .collect();
    let bound = args.max_blocks.min(MAX_BLOCKS);
    let kept_blocks = enabled.iter().map(|v| v.blocks()).sum();
    if !round.install(profile, kept_blocks, bound) {
        enabled.clear();
    }
    findings.append(&mut round.findings);
    enabled.extend(round.staged.iter().map(|s| &s.verified));
    enabled.sort_by(|a, b| a.slug.cmp(&b.slug));
    findings.extend(world.findings.into_inner());
    if let Err(f) = catalogs::write(profile, &enabled) {
        findings.push(f);
    }
    let (mut notes, f) = paks::lay_out(profile, &enabled);
    findings.extend(f);
    if needs.is_empty() && profile::archives(&profile.maps()).is_empty() {
        notes.push(format!(
            "nothing to sync: the profile has no map in {} and no saved layout that needs a pack; add a map with `mjolnir launcher add-map MAP.mjolnir --profile {}`",
            profile.maps().display(),
            profile.root.display()
        ));
    }
    let unused = installed
        .values()
        .filter(|v| !resolution.packs.contains_key(&v.slug))
        .map(|v| v.path.display().to_string())
        .collect();
    Summary {
        blocks: enabled.iter().map(|v| v.blocks()).sum(),
        resolution,
        needs,
        outcomes: round.outcomes,
        findings,
        notes,
        unused,
        max_blocks: bound,
    }
}

/// One sync's downloads: what became of each chosen pack, the verified downloads waiting
/// to be installed, and what was refused.
#[derive(Default)]
struct Round {
    outcomes: BTreeMap<String, Outcome>,
    staged: Vec<Staged>,
    findings: Vec<Finding>,
}

impl Round {
    /// Downloads and verifies `chosen` when it must be downloaded.
    fn fetch(
        &mut self,
        world: &HubWorld,
        profile: &Profile,
        trusted: &[String],
        slug: &str,
        chosen: &Chosen,
    ) {
        if !chosen.download {
            self.outcomes.insert(slug.to_string(), Outcome::Installed);
            return;
        }
        let attempt = world
            .payload(slug, &chosen.version)
            .ok_or_else(|| {
                Finding::new(
                    "hub_missing_release",
                    api::release_id(slug, &chosen.version),
                    "the Hub lists this release but serves no payload for it",
                )
            })
            .and_then(|payload| {
                install::download(&world.hub, profile, slug, chosen, &payload, trusted)
            });
        match attempt {
            Ok(mut s) => {
                s.replaces = world.installed.get(slug).map(|i| i.path.clone());
                self.staged.push(s);
                self.outcomes.insert(slug.to_string(), Outcome::Downloaded);
            }
            Err(f) => {
                self.findings.push(f);
                self.outcomes.insert(slug.to_string(), Outcome::Refused);
            }
        }
    }

    /// The installed release of `slug` that stays enabled: the one resolution kept, or
    /// after a refused update the one the fallback resolution keeps.
    fn kept<'v>(
        &self,
        slug: &str,
        installed: &'v BTreeMap<String, Verified>,
        fallback: Option<&Resolution>,
    ) -> Option<&'v Verified> {
        let serves = match self.outcomes.get(slug) {
            Some(Outcome::Installed) => true,
            Some(Outcome::Refused) => {
                fallback.is_some_and(|r| r.packs.get(slug).is_some_and(|c| !c.download))
            }
            _ => false,
        };
        installed.get(slug).filter(|_| serves)
    }

    /// Installs the staged downloads when they and the `kept` blocks are within `bound`;
    /// else refuses them all. Returns whether the kept releases stay enabled.
    fn install(&mut self, profile: &Profile, kept_blocks: usize, bound: usize) -> bool {
        let blocks = kept_blocks
            + self
                .staged
                .iter()
                .map(|s| s.verified.blocks())
                .sum::<usize>();
        if blocks <= bound {
            if let Err(f) = install::commit(profile, &self.staged) {
                self.findings.push(f);
                self.staged.clear();
            }
            return true;
        }
        self.findings.push(Finding::new("too_many_blocks", profile.root.display().to_string(), format!("the profile would enable {blocks} catalog blocks, counted from the verified archives; the native inventory reader takes at most {bound}; nothing was installed")));
        for s in &self.staged {
            self.outcomes
                .insert(s.verified.slug.clone(), Outcome::Refused);
        }
        self.staged.clear();
        install::discard(profile);
        kept_blocks <= bound
    }
}

/// What the verified maps and the readable saved layouts need.
fn needs(profile: &Profile, trusted: &[String]) -> (Vec<Need>, Vec<Finding>) {
    let (maps, mut findings) = profile::maps(profile, trusted);
    let mut needs = Vec::new();
    for map in &maps {
        for dep in &map.manifest.deps {
            needs.push(Need {
                slug: dep.slug.clone(),
                req: dep.range.clone(),
                who: format!("map {}", map.slug),
                kind: NeedKind::Map,
                via: None,
            });
        }
    }
    let (layouts, f) = profile::layouts(profile);
    findings.extend(f);
    for layout in layouts {
        let who = format!(
            "layout {}",
            layout
                .mvar
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
        );
        let mut newest: BTreeMap<&str, &Version> = BTreeMap::new();
        for row in &layout.rows {
            let v = newest.entry(&row.slug).or_insert(&row.version);
            if row.version > **v {
                *v = &row.version;
            }
        }
        needs.extend(
            newest
                .into_iter()
                .map(|(slug, v)| Need::layout(slug, v, &who)),
        );
    }
    (needs, findings)
}

/// The Hub and the installed releases as resolution asks for them: each release list and
/// payload fetched once, when first needed, and checked before anything in it is used.
struct HubWorld<'a> {
    hub: Hub,
    installed: &'a BTreeMap<String, Verified>,
    lists: RefCell<BTreeMap<String, Vec<Version>>>,
    payloads: RefCell<BTreeMap<String, Option<PackPayload>>>,
    findings: RefCell<Vec<Finding>>,
}

impl<'a> HubWorld<'a> {
    fn new(hub: Hub, installed: &'a BTreeMap<String, Verified>) -> Self {
        HubWorld {
            hub,
            installed,
            lists: RefCell::default(),
            payloads: RefCell::default(),
            findings: RefCell::default(),
        }
    }

    fn found(&self, f: Finding) {
        self.findings.borrow_mut().push(f);
    }

    fn fetch_list(&self, slug: &str) -> Vec<Version> {
        if let Err(why) = api::checked_slug(slug) {
            self.found(Finding::new(
                "bad_slug",
                api::truncated(slug),
                format!("a dependency names {why}; nothing is fetched for it"),
            ));
            return Vec::new();
        }
        let path = api::releases_path(slug);
        let list = match self.hub.json::<Vec<ReleaseRef>>(&path, api::MAX_LIST_BYTES) {
            Ok(list) => list.unwrap_or_default(),
            Err(f) => {
                self.found(f);
                return Vec::new();
            }
        };
        if list.len() > api::MAX_RELEASES {
            self.found(Finding::new(
                "hub_too_large",
                self.hub.url(&path),
                format!(
                    "{} releases listed; at most {}",
                    list.len(),
                    api::MAX_RELEASES
                ),
            ));
            return Vec::new();
        }
        let mut versions = Vec::new();
        for entry in &list {
            match api::checked_release(slug, entry) {
                Ok(v) => versions.push(v),
                Err(why) => self.found(Finding::new(
                    "hub_bad_release",
                    self.hub.url(&path),
                    format!("{why}; that release is ignored"),
                )),
            }
        }
        versions
    }

    /// The payload of `slug` `version`, checked to be that release's.
    fn payload(&self, slug: &str, version: &Version) -> Option<PackPayload> {
        let id = api::release_id(slug, version);
        if let Some(known) = self.payloads.borrow().get(&id) {
            return known.clone();
        }
        let path = api::payload_path(&id);
        let payload = match self.hub.json::<PackPayload>(&path, api::MAX_PAYLOAD_BYTES) {
            Ok(Some(p))
                if p.id == id && p.slug == slug && p.release_version == version.to_string() =>
            {
                Some(p)
            }
            Ok(Some(_)) => {
                self.found(Finding::new(
                    "hub_mismatch",
                    self.hub.url(&path),
                    format!("the payload is not {id}'s"),
                ));
                None
            }
            Ok(None) => None,
            Err(f) => {
                self.found(f);
                None
            }
        };
        self.payloads.borrow_mut().insert(id, payload.clone());
        payload
    }
}

impl World for HubWorld<'_> {
    fn installed(&self, slug: &str) -> Option<Version> {
        self.installed.get(slug).map(|v| v.version.clone())
    }

    fn available(&self, slug: &str) -> Vec<Version> {
        if let Some(list) = self.lists.borrow().get(slug) {
            return list.clone();
        }
        let list = self.fetch_list(slug);
        self.lists
            .borrow_mut()
            .insert(slug.to_string(), list.clone());
        list
    }

    fn dependencies(&self, slug: &str, version: &Version) -> Vec<Requirement> {
        if let Some(v) = self.installed.get(slug).filter(|v| &v.version == version) {
            return v
                .manifest
                .deps
                .iter()
                .map(|d| Requirement {
                    slug: d.slug.clone(),
                    req: d.range.clone(),
                })
                .collect();
        }
        let Some(payload) = self.payload(slug, version) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for dep in &payload.dependencies {
            match forge_contract::version::parse_range(&dep.range) {
                Ok(req) => out.push(Requirement {
                    slug: dep.slug.clone(),
                    req,
                }),
                Err(e) => self.found(Finding::new(
                    "hub_bad_dependency",
                    api::release_id(slug, version),
                    format!(
                        "dependency {:?} has range {:?}: {e}",
                        api::truncated(&dep.slug),
                        api::truncated(&dep.range)
                    ),
                )),
            }
        }
        out
    }
}
