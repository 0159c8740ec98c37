//! One test per contract rule: a case that breaks it (asserting the code and the JSON
//! pointer) and cases at its bounds that pass.

use forge_contract::geometry::parse_geometry;
use forge_contract::{parse_manifest, Diagnostic, Severity};
use serde_json::{json, Value};

fn base() -> Value {
    json!({
        "schema_version": 1,
        "name": "Demo",
        "version": "0.2.0",
        "type": "content",
        "summary": "Demo pieces",
        "forge_pack": {
            "schema_version": 1,
            "id": "demo",
            "blocks": [block("floor"), block("wall")]
        }
    })
}

fn block(id: &str) -> Value {
    json!({
        "id": id,
        "name": "Piece",
        "tag": format!("objects\\mjolnir\\forge\\demo\\{id}"),
        "category": "floors",
        "dimensions_m": [4, 4, 0.5],
        "snap_m": 0.5
    })
}

fn check(v: &Value) -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
    let text = serde_json::to_string_pretty(v).unwrap();
    parse_manifest("mjolnir.json", &text).map(|(_, w)| w)
}

/// Applies `change` to the base manifest and expects exactly one error with this code at
/// this pointer.
fn fails(code: &str, pointer: &str, change: impl FnOnce(&mut Value)) {
    let mut v = base();
    change(&mut v);
    let findings = check(&v).expect_err("expected an error");
    let errors: Vec<_> = findings
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(
        errors
            .iter()
            .any(|d| d.code == code && d.pointer == pointer),
        "expected {code} at {pointer}, got {errors:#?}"
    );
    let e = errors.iter().find(|d| d.code == code).unwrap();
    assert!(e.line.is_some() && !e.message.is_empty());
}

fn passes(change: impl FnOnce(&mut Value)) {
    let mut v = base();
    change(&mut v);
    if let Err(findings) = check(&v) {
        panic!("expected to pass, got {findings:#?}");
    }
}

fn b0() -> &'static str {
    "/forge_pack/blocks/0"
}

#[test]
fn pack_id_is_a_slug() {
    let set = |id: String| {
        move |v: &mut Value| {
            v["forge_pack"]["id"] = json!(id);
            for (i, b) in v["forge_pack"]["blocks"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .enumerate()
            {
                b["tag"] = json!(format!(
                    "objects\\mjolnir\\forge\\{id}\\{}",
                    ["floor", "wall"][i]
                ));
            }
        }
    };
    for bad in ["a", "-ab", "Demo", "de_mo", "de mo", &"a".repeat(65)] {
        fails("bad_pack_id", "/forge_pack/id", set(bad.to_string()));
    }
    for ok in ["ab", "9-lives", &"a".repeat(64)] {
        passes(set(ok.to_string()));
    }
    fails("pack_id_not_slug", "/forge_pack/id", |v| {
        v["slug"] = json!("other")
    });
    passes(|v| v["slug"] = json!("demo"));
}

#[test]
fn block_ids_and_categories() {
    for bad in [
        "",
        "_a",
        "-a",
        "A",
        "a.b",
        "..",
        "a\\b",
        "a/b",
        &"z".repeat(65),
    ] {
        fails("bad_id", &format!("{}/id", b0()), |v| {
            v["forge_pack"]["blocks"][0]["id"] = json!(bad)
        });
        fails("bad_category", &format!("{}/category", b0()), |v| {
            v["forge_pack"]["blocks"][0]["category"] = json!(bad)
        });
    }
    for ok in ["a", "0", "a-b_c", &"z".repeat(64)] {
        passes(|v| {
            v["forge_pack"]["blocks"][0] = block(ok);
            v["forge_pack"]["blocks"][0]["category"] = json!(ok);
        });
    }
    fails("duplicate_id", "/forge_pack/blocks/1/id", |v| {
        v["forge_pack"]["blocks"][1] = block("floor")
    });
}

#[test]
fn names() {
    for bad in ["", "   ", &"n".repeat(81)] {
        fails("bad_name", &format!("{}/name", b0()), |v| {
            v["forge_pack"]["blocks"][0]["name"] = json!(bad)
        });
    }
    fails("bad_name", "/name", |v| v["name"] = json!(""));
    passes(|v| v["forge_pack"]["blocks"][0]["name"] = json!("é".repeat(80)));
    passes(|v| v["forge_pack"]["blocks"][0]["name"] = json!("x"));
}

#[test]
fn tag_is_exact() {
    for bad in [
        "objects\\mjolnir\\forge\\demo\\wall",
        "objects/mjolnir/forge/demo/floor",
        "objects\\mjolnir\\forge\\other\\floor",
        "Objects\\mjolnir\\forge\\demo\\floor",
    ] {
        fails("bad_tag", &format!("{}/tag", b0()), |v| {
            v["forge_pack"]["blocks"][0]["tag"] = json!(bad)
        });
    }
}

#[test]
fn block_count() {
    fails("block_count", "/forge_pack/blocks", |v| {
        v["forge_pack"]["blocks"] = json!([])
    });
    let many = |n: usize| {
        move |v: &mut Value| {
            v["forge_pack"]["blocks"] =
                json!((0..n).map(|i| block(&format!("b{i}"))).collect::<Vec<_>>())
        }
    };
    fails("block_count", "/forge_pack/blocks", many(257));
    passes(many(256));
    passes(many(1));
}

#[test]
fn dimensions_and_snap() {
    for bad in [json!(0), json!(-1), json!(0.0)] {
        fails("bad_dimensions", &format!("{}/dimensions_m/2", b0()), |v| {
            v["forge_pack"]["blocks"][0]["dimensions_m"][2] = bad.clone()
        });
        fails("bad_snap", &format!("{}/snap_m", b0()), |v| {
            v["forge_pack"]["blocks"][0]["snap_m"] = bad.clone()
        });
    }
    fails("wrong_length", &format!("{}/dimensions_m", b0()), |v| {
        v["forge_pack"]["blocks"][0]["dimensions_m"] = json!([4, 4])
    });
    fails("wrong_type", &format!("{}/dimensions_m/1", b0()), |v| {
        v["forge_pack"]["blocks"][0]["dimensions_m"][1] = json!("4")
    });
    passes(|v| v["forge_pack"]["blocks"][0]["dimensions_m"] = json!([1e-9, 1e6, 0.001]));
    passes(|v| {
        v["forge_pack"]["blocks"][0]
            .as_object_mut()
            .unwrap()
            .remove("snap_m");
    });
    // A number too large for f64 is infinite; JSON cannot spell NaN.
    let text = serde_json::to_string(&base())
        .unwrap()
        .replacen("[4,4,0.5]", "[4,4,1e999]", 1);
    let findings = parse_manifest("m", &text).unwrap_err();
    assert!(
        findings
            .iter()
            .any(|d| d.code == "bad_dimensions" || d.code == "not_json"),
        "{findings:#?}"
    );
}

#[test]
fn versions() {
    for bad in ["0.2", "v0.2.0", "1.0.0.0", "01.0.0", ""] {
        fails("bad_version", "/version", |v| v["version"] = json!(bad));
    }
    let long = format!("1.0.0-{}", "a".repeat(90));
    passes(|v| v["version"] = json!(long));
    fails("version_too_long", "/version", |v| {
        v["version"] = json!(format!("{long}b"))
    });
    // +build metadata is a warning here; the packer refuses it for a publishable archive.
    let mut v = base();
    v["version"] = json!("0.2.0+local.1");
    let warnings = check(&v).unwrap();
    assert_eq!(warnings[0].code, "version_build_metadata");
    assert_eq!(warnings[0].severity, Severity::Warning);
}

#[test]
fn dependencies() {
    passes(
        |v| v["deps"] = json!([{"slug": "foundry", "range": "^1.2.3"}, {"slug": "roadworks", "range": ">=1.2.3, <2.0.0"}, {"slug": "pins", "range": "1.2.3"}]),
    );
    fails("bad_dep_range", "/deps/0/range", |v| {
        v["deps"] = json!([{"slug": "foundry", "range": "latest"}])
    });
    fails("bad_dep_slug", "/deps/0/slug", |v| {
        v["deps"] = json!([{"slug": "Foundry", "range": "^1"}])
    });
    fails(
        "duplicate_dep",
        "/deps/1/slug",
        |v| {
            v["deps"] =
                json!([{"slug": "foundry", "range": "^1"}, {"slug": "foundry", "range": "^2"}])
        },
    );
    fails("unknown_field", "/deps/0/optional", |v| {
        v["deps"] = json!([{"slug": "foundry", "range": "^1", "optional": true}])
    });
    fails("missing_field", "/deps/0/range", |v| {
        v["deps"] = json!([{"slug": "foundry"}])
    });
    fails("self_dependency", "/deps/0/slug", |v| {
        v["deps"] = json!([{"slug": "demo", "range": "^1"}])
    });
    let mut v = base();
    v["deps"] = json!([{"slug": "foundry", "range": "1.2.3"}]);
    let (m, _) = parse_manifest("m", &v.to_string()).unwrap();
    let pin = &m.deps[0].range;
    assert!(
        pin.matches(&semver::Version::new(1, 2, 3)) && !pin.matches(&semver::Version::new(1, 2, 4)),
        "a bare version is an exact pin"
    );
}

#[test]
fn entry_kinds() {
    passes(|v| v["forge_pack"]["blocks"][0]["kind"] = json!("block"));
    passes(|v| v["forge_pack"]["blocks"][0]["kind"] = Value::Null);
    for reserved in forge_contract::manifest::RESERVED_KINDS {
        fails("kind_not_supported", &format!("{}/kind", b0()), |v| {
            v["forge_pack"]["blocks"][0]["kind"] = json!(reserved)
        });
    }
    fails("unknown_kind", &format!("{}/kind", b0()), |v| {
        v["forge_pack"]["blocks"][0]["kind"] = json!("spaceship")
    });
}

#[test]
fn schema_versions() {
    fails("schema_too_new", "/schema_version", |v| {
        v["schema_version"] = json!(2)
    });
    fails("schema_too_new", "/forge_pack/schema_version", |v| {
        v["forge_pack"]["schema_version"] = json!(7)
    });
    fails("bad_schema_version", "/schema_version", |v| {
        v["schema_version"] = json!(0)
    });
    fails("wrong_type", "/schema_version", |v| {
        v["schema_version"] = json!("1")
    });
    let mut v = base();
    v["schema_version"] = json!(2);
    let e = check(&v).unwrap_err();
    assert!(e[0].message.contains("update"), "{}", e[0].message);
}

#[test]
fn required_features() {
    passes(|v| v["forge_pack"]["requires"] = json!([]));
    fails("unknown_feature", "/forge_pack/requires/0", |v| {
        v["forge_pack"]["requires"] = json!(["turrets"])
    });
}

#[test]
fn type_is_content() {
    fails("bad_type", "/type", |v| v["type"] = json!("map"));
    fails("missing_field", "/type", |v| {
        v.as_object_mut().unwrap().remove("type");
    });
}

#[test]
fn lights() {
    let light = |v: &mut Value, l: Value| v["forge_pack"]["blocks"][0]["light"] = l;
    let good = json!({"offset_m": [0, 0, 3.1], "color_rgb": [1, 0.05, 0.03], "intensity_cd": 70, "radius_m": 8});
    passes(|v| light(v, good.clone()));
    passes(|v| light(v, Value::Null));
    passes(|v| {
        light(
            v,
            json!({"offset_m": [-100, 100, 0], "color_rgb": [0, 0, 1], "intensity_cd": 10000, "radius_m": 100}),
        )
    });
    let p = format!("{}/light", b0());
    let cases = [
        ("offset_m", json!([0, 0, 100.01]), "offset_m/2"),
        ("offset_m", json!([-100.5, 0, 0]), "offset_m/0"),
        ("color_rgb", json!([1.01, 0, 0]), "color_rgb/0"),
        ("color_rgb", json!([0, -0.1, 0]), "color_rgb/1"),
        ("intensity_cd", json!(0), "intensity_cd"),
        ("intensity_cd", json!(10000.5), "intensity_cd"),
        ("radius_m", json!(0), "radius_m"),
        ("radius_m", json!(100.5), "radius_m"),
    ];
    for (field, value, at) in cases {
        let mut l = good.clone();
        l[field] = value;
        fails("bad_light", &format!("{p}/{at}"), |v| light(v, l));
    }
    let mut l = good.clone();
    l["shadow"] = json!(true);
    fails("unknown_field", &format!("{p}/shadow"), |v| light(v, l));
    let mut l = good;
    l.as_object_mut().unwrap().remove("radius_m");
    fails("missing_field", &format!("{p}/radius_m"), |v| light(v, l));
}

#[test]
fn lifts_doors_and_surfaces() {
    let p = b0();
    passes(|v| {
        v["forge_pack"]["blocks"][0]["lift"] =
            json!({"travel_m": [0, 0, 100], "speed_m_s": 20, "dwell_s": 0})
    });
    fails("bad_lift", &format!("{p}/lift/speed_m_s"), |v| {
        v["forge_pack"]["blocks"][0]["lift"] =
            json!({"travel_m": [0, 0, 4], "speed_m_s": 0, "dwell_s": 1})
    });
    fails("bad_lift", &format!("{p}/lift/travel_m"), |v| {
        v["forge_pack"]["blocks"][0]["lift"] =
            json!({"travel_m": [0, 0, 0], "speed_m_s": 1, "dwell_s": 1})
    });
    fails("bad_lift", &format!("{p}/lift/dwell_s"), |v| {
        v["forge_pack"]["blocks"][0]["lift"] =
            json!({"travel_m": [0, 0, 1], "speed_m_s": 1, "dwell_s": 61})
    });
    fails("unknown_field", &format!("{p}/lift/loop"), |v| {
        v["forge_pack"]["blocks"][0]["lift"] =
            json!({"travel_m": [0, 0, 1], "speed_m_s": 1, "dwell_s": 1, "loop": true})
    });
    passes(|v| {
        v["forge_pack"]["blocks"][0]["door"] =
            json!({"aperture": "doorway", "slide_m": [0, 0, 3], "open_s": 10, "close_delay_s": 60})
    });
    fails("bad_door", &format!("{p}/door/open_s"), |v| {
        v["forge_pack"]["blocks"][0]["door"] =
            json!({"aperture": "doorway", "slide_m": [0, 0, 3], "open_s": 10.5, "close_delay_s": 1})
    });
    fails("bad_door", &format!("{p}/door/aperture"), |v| {
        v["forge_pack"]["blocks"][0]["door"] =
            json!({"aperture": "Door Way", "slide_m": [0, 0, 3], "open_s": 1, "close_delay_s": 1})
    });
    passes(
        |v| v["forge_pack"]["blocks"][0]["surfaces"] = json!([{"slot": "glass", "profile": "glass", "opacity": 0}, {"slot": "portal", "profile": "portal", "opacity": 1, "tint_rgb": [0, 0.5, 1]}]),
    );
    fails("bad_surfaces", &format!("{p}/surfaces/0/profile"), |v| {
        v["forge_pack"]["blocks"][0]["surfaces"] =
            json!([{"slot": "glass", "profile": "mirror", "opacity": 1}])
    });
    fails("bad_surfaces", &format!("{p}/surfaces/0/opacity"), |v| {
        v["forge_pack"]["blocks"][0]["surfaces"] =
            json!([{"slot": "glass", "profile": "glass", "opacity": 1.5}])
    });
    fails("bad_surfaces", &format!("{p}/surfaces/1/slot"), |v| {
        v["forge_pack"]["blocks"][0]["surfaces"] = json!([{"slot": "g", "profile": "glass", "opacity": 1}, {"slot": "g", "profile": "portal", "opacity": 1}])
    });
    fails("bad_surfaces", &format!("{p}/surfaces"), |v| {
        v["forge_pack"]["blocks"][0]["surfaces"] = json!([])
    });
    let seventeen: Vec<Value> = (0..17)
        .map(|i| json!({"slot": format!("s{i}"), "profile": "glass", "opacity": 1}))
        .collect();
    fails("bad_surfaces", &format!("{p}/surfaces"), |v| {
        v["forge_pack"]["blocks"][0]["surfaces"] = json!(seventeen)
    });
    fails("unknown_field", &format!("{p}/surfaces/0/shader"), |v| {
        v["forge_pack"]["blocks"][0]["surfaces"] =
            json!([{"slot": "glass", "profile": "glass", "opacity": 1, "shader": "x"}])
    });
}

#[test]
fn unknown_descriptive_fields_are_ignored() {
    passes(|v| {
        v["credits"] = json!(["someone"]);
        v["forge_pack"]["preview_hint"] = json!("front");
        v["forge_pack"]["blocks"][0]["credit"] = json!("someone");
    });
}

#[test]
fn syntax_and_type_errors_name_line_and_column() {
    let e = parse_manifest("m.json", "{\n  \"schema_version\": 1,\n  \"name\": \n}").unwrap_err();
    assert_eq!(
        (e[0].code, e[0].line, e[0].column),
        ("not_json", Some(4), Some(1))
    );
    let text = "{\n  \"schema_version\": 1,\n  \"name\": 7,\n  \"version\": \"0.2.0\",\n  \"type\": \"content\"\n}";
    let e = parse_manifest("m.json", text).unwrap_err();
    assert_eq!(
        (e[0].code, e[0].pointer.as_str(), e[0].line, e[0].column),
        ("wrong_type", "/name", Some(3), Some(11))
    );
    assert_eq!(
        e[0].to_string(),
        "error[wrong_type]: m.json:3:11 at /name: expected a string, found a number"
    );
    let e = parse_manifest("m.json", "[1, 2]").unwrap_err();
    assert_eq!(e[0].code, "wrong_type");
}

#[test]
fn every_violation_is_reported_at_once() {
    let mut v = base();
    v["version"] = json!("nope");
    v["forge_pack"]["blocks"][0]["dimensions_m"] = json!([0, 4, 4]);
    v["forge_pack"]["blocks"][1]["tag"] = json!("x");
    v["forge_pack"]["requires"] = json!(["turrets"]);
    let codes: Vec<&str> = check(&v).unwrap_err().iter().map(|d| d.code).collect();
    for code in [
        "bad_version",
        "bad_dimensions",
        "bad_tag",
        "unknown_feature",
    ] {
        assert!(codes.contains(&code), "{codes:?}");
    }
}

#[test]
fn garbage_never_panics() {
    let text = serde_json::to_string_pretty(&base()).unwrap();
    for cut in 0..text.len() {
        let _ = parse_manifest("m", &text[..cut]);
    }
    for junk in [
        "null",
        "1",
        "\"x\"",
        "{\"forge_pack\": []}",
        "{\"forge_pack\": {\"blocks\": {}}}",
        "{\"deps\": 5}",
    ] {
        assert!(parse_manifest("m", junk).is_err());
    }
}

// geometry.json

fn geometry_base() -> Value {
    let cube = json!([
        [-2, -2, 0],
        [2, -2, 0],
        [-2, 2, 0],
        [2, 2, 0],
        [-2, -2, 0.5],
        [2, -2, 0.5],
        [-2, 2, 0.5],
        [2, 2, 0.5]
    ]);
    json!({
        "schema_version": 1,
        "pack": "demo",
        "blocks": [
            {"id": "floor", "origin": "bottom_centre", "hulls": [{"name": "slab", "material": "steel", "points": cube}],
             "supports": [{"name": "top", "min_m": [-1.9, -1.9], "max_m": [1.9, 1.9], "height_m": 0.5}],
             "joins": [{"name": "east", "edge": "+x", "height_m": 0.5}]},
            {"id": "wall", "origin": "bottom_centre", "hulls": [{"name": "panel", "material": "concrete", "points": cube}],
             "apertures": [{"name": "doorway", "kind": "door", "centre_m": [0, 0, 1.5], "axis": "y", "width_m": 2, "height_m": 3}]}
        ]
    })
}

fn geometry_check(manifest: &Value, geometry: &Value) -> Result<(), Vec<Diagnostic>> {
    let (m, _) = parse_manifest("m", &manifest.to_string()).unwrap();
    parse_geometry(
        "geometry.json",
        &serde_json::to_string_pretty(geometry).unwrap(),
        m.catalog().unwrap(),
    )
    .map(|_| ())
}

fn geometry_fails(code: &str, pointer: &str, change: impl FnOnce(&mut Value)) {
    let mut g = geometry_base();
    change(&mut g);
    let e = geometry_check(&base(), &g).expect_err("expected an error");
    assert!(
        e.iter().any(|d| d.code == code && d.pointer == pointer),
        "expected {code} at {pointer}, got {e:#?}"
    );
}

#[test]
fn geometry_rules() {
    geometry_check(&base(), &geometry_base()).unwrap();
    geometry_fails("hull_points", "/blocks/0/hulls/0/points", |g| {
        g["blocks"][0]["hulls"][0]["points"] = json!([[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    });
    let many: Vec<Value> = (0..256).map(|i| json!([i, 0, 0])).collect();
    geometry_fails("hull_points", "/blocks/0/hulls/0/points", |g| {
        g["blocks"][0]["hulls"][0]["points"] = json!(many)
    });
    geometry_fails("bad_geometry_value", "/blocks/0/hulls/0/points/1/2", |g| {
        g["blocks"][0]["hulls"][0]["points"][1][2] = json!(1000.5)
    });
    geometry_fails("bad_origin", "/blocks/0/origin", |g| {
        g["blocks"][0]["origin"] = json!("centre")
    });
    geometry_fails("missing_connectors", "/blocks/0", |g| {
        g["blocks"][0]["origin"] = json!("entry_floor")
    });
    geometry_fails("unknown_block", "/blocks/1/id", |g| {
        g["blocks"][1]["id"] = json!("roof")
    });
    geometry_fails("missing_geometry", "/blocks", |g| {
        g["blocks"].as_array_mut().unwrap().pop();
    });
    geometry_fails("duplicate_name", "/blocks/0/hulls/1/name", |g| {
        let hull = g["blocks"][0]["hulls"][0].clone();
        g["blocks"][0]["hulls"].as_array_mut().unwrap().push(hull);
    });
    geometry_fails("bad_support", "/blocks/0/supports/0/max_m", |g| {
        g["blocks"][0]["supports"][0]["max_m"] = json!([-1.9, 1.9])
    });
    geometry_fails("bad_join", "/blocks/0/joins/0/edge", |g| {
        g["blocks"][0]["joins"][0]["edge"] = json!("north")
    });
    geometry_fails("bad_aperture", "/blocks/1/apertures/0/axis", |g| {
        g["blocks"][1]["apertures"][0]["axis"] = json!("z")
    });
    geometry_fails("bad_geometry_value", "/blocks/1/apertures/0/width_m", |g| {
        g["blocks"][1]["apertures"][0]["width_m"] = json!(0)
    });
    geometry_fails("geometry_pack_mismatch", "/pack", |g| {
        g["pack"] = json!("other")
    });
    geometry_fails("schema_too_new", "/schema_version", |g| {
        g["schema_version"] = json!(2)
    });
    geometry_fails("unknown_field", "/blocks/0/colour", |g| {
        g["blocks"][0]["colour"] = json!("red")
    });
    geometry_fails("hull_count", "/blocks/0/hulls", |g| {
        g["blocks"][0]["hulls"] = json!([])
    });
    geometry_fails("bad_waiver", "/blocks/0/waivers/0/reason", |g| {
        g["blocks"][0]["waivers"] =
            json!([{"check": "apertures", "reason": " ", "reviewed_by": "x"}])
    });
    let mut m = base();
    m["forge_pack"]["blocks"][1]["door"] =
        json!({"aperture": "hatch", "slide_m": [0, 0, 3], "open_s": 1, "close_delay_s": 1});
    let e = geometry_check(&m, &geometry_base()).unwrap_err();
    assert_eq!(e[0].code, "door_aperture_missing");
    assert_eq!(e[0].pointer, "/blocks/1/apertures");
}

#[test]
fn repeated_keys_are_refused() {
    let text = serde_json::to_string_pretty(&base()).unwrap().replacen(
        "\"name\": \"Demo\",",
        "\"name\": \"Demo\",\n  \"name\": \"Other\",",
        1,
    );
    let findings = parse_manifest("mjolnir.json", &text).expect_err("a repeated key");
    let dup = findings.iter().find(|d| d.code == "duplicate_key").unwrap();
    assert_eq!(dup.pointer, "/name");
    assert!(dup.line.is_some());
}

#[test]
fn names_hold_no_control_or_direction_characters() {
    fails("control_character", "/forge_pack/blocks/0/name", |v| {
        v["forge_pack"]["blocks"][0]["name"] = json!("Floor\u{202E}rood");
    });
    fails("control_character", "/name", |v| {
        v["name"] = json!("Demo\u{7}")
    });
    passes(|v| v["forge_pack"]["blocks"][0]["name"] = json!("Floor — café 2×2"));
}

#[test]
fn an_unknown_feature_is_refused_wherever_it_is_required() {
    fails("unknown_feature", "/requires/0", |v| {
        v["requires"] = json!(["turrets"])
    });
    fails("unknown_feature", "/forge_pack/requires/0", |v| {
        v["forge_pack"]["requires"] = json!(["turrets"])
    });
    fails("unknown_feature", "/forge_pack/blocks/1/requires/0", |v| {
        v["forge_pack"]["blocks"][1]["requires"] = json!(["turrets"])
    });
    passes(|v| v["requires"] = json!([]));
}
