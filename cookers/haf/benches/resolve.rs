//! Resolving 500 packs with 10,000 models in all (the loader's scale target in `docs/haf.md`: under 100 ms).
//! Run: `cargo bench -p haf`.

use criterion::{criterion_group, criterion_main, Criterion};
use haf::{parse, resolve, Module};
use serde_json::json;

fn bench(c: &mut Criterion) {
    // 500 packs of 20 models; every tenth pack overrides one pawn of the pack before it and
    // clashes on another; packs load after their predecessor, and half match a module.
    let texts: Vec<(String, String)> = (0..500)
        .map(|i| {
            let models: Vec<_> = (0..20)
                .map(|m| json!({"resourceName": format!("r{i}_{m}"), "pawnDescription": format!("Pawn_{i}_{m}")}))
                .chain((i % 10 == 0 && i > 0).then(|| json!({"resourceName": "x", "pawnDescription": format!("Pawn_{}_0", i - 1)})))
                .collect();
            let pack = json!({
                "schemaVersion": 1,
                "modId": format!("mod{i:03}"),
                "loadAfter": if i > 0 { vec![format!("mod{:03}", i - 1)] } else { vec![] },
                "overrides": [{"modId": format!("mod{:03}", i.max(1) - 1), "pawnDescription": format!("Pawn_{}_0", i.max(1) - 1)}],
                "unitScales": [{"match": "Cavalry", "scale": 0.99}],
                "models": models,
            });
            (format!("mod{i:03}"), pack.to_string())
        })
        .collect();
    let modules: Vec<Module> = (0..250)
        .map(|i| Module {
            name: format!("mod{:03}", i * 2),
            guid: None,
            index: 500 - i,
        })
        .collect();
    c.bench_function("resolve_500_packs_10000_models", |b| {
        b.iter(|| {
            let packs = texts
                .iter()
                .map(|(name, text)| parse(&format!("haf_packs/{name}.json"), name, text).unwrap())
                .collect();
            resolve(packs, Some(&modules)).report()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
