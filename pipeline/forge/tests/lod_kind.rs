//! A kind that reaches the game, added from outside the Forge layer: a level of detail
//! cooked as its own Unreal package. It is one declaration and one registry line; the
//! set's assembly puts it in the pack's container and its inventory because the kind
//! declares [`Lands::Package`], and nothing else learns its name.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use engine::execute::{self, Finished, Observer, Outcome, Settings};
use engine::graph::{Graph, StepId};
use engine::stat_cache::StatCache;
use engine::store::Store;
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use forge::donors::{self, Donors};
use forge::plan::Planner;
use forge::steps::{self, mesh, Lands, Scope, StepKind, REGISTRY};
use forge::wiring::{PackSource, PackSources, PlanOptions, Wired};

const LOD: &str = "static_mesh_lod1.uasset";
const DONOR: &str = "donor.uasset";

/// The block's mesh as `SM_<block>_LOD1`, written over the donor static mesh.
fn cook_lod(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = steps::source_file(step.block.unwrap_or_default());
    let mut mesh = mesh::read(inputs, &file)?;
    mesh.asset_path.push_str("_LOD1");
    let bytes = forge_mesh::unreal::package(&inputs[DONOR], &mesh, &[])
        .map_err(|e| vec![steps::finding(e.code, &file, e.message)])?;
    Ok(vec![(LOD.to_string(), bytes)])
}

static LOD_KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "lod",
        version: 1,
        outputs: Names::Fixed(|_| vec![LOD.to_string()]),
        runs_under_check: false,
        splices: None,
        cook: cook_lod,
    },
    scope: Scope::Block,
    lands: Lands::Package,
    wire: |w| {
        let donor = steps::donors::of_pack(w, DONOR, steps::donors::STATIC_MESH)?;
        Wired::inputs(vec![mesh::of_block(w), donor])
    },
};

struct Quiet;

impl Observer for Quiet {
    fn finished(&self, _: &Graph, _: StepId, _: &Finished) {}
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn test_donors(out: &Path) -> donors::DonorFiles {
    let donors = Donors {
        paks: repo().join("tests/data/donor-paks"),
        static_mesh: "/Game/Fixtures/Meshes/SM_Fixture".into(),
        actor: "/Game/Fixtures/Blueprints/BP_Components".into(),
        glass_material: None,
        portal_material: None,
        parameters: forge_material::ParameterNames {
            tint: "PrimaryColor".into(),
            opacity: "FixtureRoughness".into(),
            emissive: "EmissiveColor".into(),
        },
    };
    donors::extract(&donors, out).expect("the test donors are in tests/data/donor-paks")
}

#[test]
fn a_package_kind_reaches_the_container_and_the_inventory() {
    let dir = tempfile::tempdir().unwrap();
    let mut registry = REGISTRY.to_vec();
    let after = registry
        .iter()
        .position(|k| k.name == "unreal_actor")
        .unwrap()
        + 1;
    registry.insert(after, &LOD_KIND);

    let stat_cache = StatCache::open(dir.path().join("stat-cache.json"));
    let pack = PackSource {
        id: "foundry".into(),
        dir: repo().join("forge-packs/foundry"),
    };
    let sources = [PackSources::new(&pack, &stat_cache)];
    let options = PlanOptions {
        donors: Some(test_donors(dir.path())),
        ..PlanOptions::default()
    };
    let planner = Planner {
        registry: &registry,
        sources: &sources,
        options: &options,
    };
    let mut graph = Graph::default();
    let packs = planner.plan_packs(&mut graph);
    let blocks = vec!["floor_1x1".to_string()];
    let sets = planner
        .plan_sets(&mut graph, &packs, &[blocks], &[])
        .unwrap();

    let store = Store::open(&dir.path().join("cache")).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let cancel = AtomicBool::new(false);
    let settings = Settings::local(&store, &stat_cache, &pool, &cancel);
    let results = execute::run(&graph, Vec::new(), &settings, &Quiet, &engine::graph::cook);
    for (step, result) in graph.steps.iter().zip(&results) {
        assert!(
            matches!(result.outcome, Outcome::Ran(_)),
            "{}: {:?}",
            step.id,
            result.outcome
        );
    }

    let output = |kind: &str, name: &str| {
        let step = &results[sets[0].planned.set[kind]];
        let o = step.outputs.iter().find(|o| o.name == name).unwrap();
        o.bytes(&store).unwrap()
    };
    let [utoc, _, _] = forge_release::container::container_files("foundry");
    let toc = forge_iostore::Toc::parse(&output("assemble", &utoc)).unwrap();
    let files = toc.directory.as_ref().unwrap().files().unwrap();
    let names: Vec<&str> = files.iter().map(|(f, _)| f.as_str()).collect();
    for package in ["SM_floor_1x1_LOD1", "SM_floor_1x1"] {
        let file = format!("/MJOLNIR/Forge/foundry/floor_1x1/{package}.uasset");
        assert!(
            names.iter().any(|n| n.ends_with(&file)),
            "{file}: {names:?}"
        );
    }

    let inventory: serde_json::Value =
        serde_json::from_slice(&output("documents", steps::documents::INVENTORY)).unwrap();
    let packages = &inventory["visuals"]["floor_1x1"]["packages"];
    assert!(
        packages
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "/Game/MJOLNIR/Forge/foundry/floor_1x1/SM_floor_1x1_LOD1"),
        "{packages}"
    );
    // The set folder takes the package like any cooked output.
    let folders = sets[0].folders(&registry, &results, dir.path(), "foundry");
    assert!(folders.iter().any(|(_, files)| files
        .keys()
        .any(|f| f.ends_with(&format!("floor_1x1/{LOD}")))));
}
