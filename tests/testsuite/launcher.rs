//! The launcher against a Hub served over real HTTP (nginx when it is installed, else
//! Python's `http.server`, and Python servers that misbehave on purpose), each on a
//! loopback port: which releases a profile gets, what it refuses, and what a lying Hub
//! can and cannot do to a profile.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};
use support::{repo, stderr, Workspace};

/// RFC 8032 test 1: a seed and its public key.
const SEED: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const KEY: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const OTHER_KEY: &str = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c";

/// A web server on a loopback port, stopped when dropped.
enum Server {
    Python(Child, String),
    Nginx(support::Nginx),
}

impl Server {
    fn url(&self) -> &str {
        match self {
            Server::Python(_, url) => url,
            Server::Nginx(n) => &n.url,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Server::Python(child, _) = self {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The static Hub in `dir`: nginx when installed, else Python's `http.server`.
fn serve_static(dir: &Path) -> Option<Server> {
    match support::Nginx::static_site(dir) {
        Some(n) => Some(Server::Nginx(n)),
        None => serve(dir, None),
    }
}

/// Python serving `dir`, or running `script` (given the port) to misbehave.
fn serve(dir: &Path, script: Option<&str>) -> Option<Server> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
    let mut command = Command::new("python3");
    match script {
        Some(code) => command.args(["-c", code, &port.to_string()]),
        None => command.args([
            "-m",
            "http.server",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
        ]),
    };
    let child = match command
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            support::skip(&format!("python3 cannot start a web server ({e})"));
            return None;
        }
    };
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(Server::Python(child, format!("http://127.0.0.1:{port}")));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    support::skip("the web server did not start");
    None
}

/// Signed releases of the workspace's stock packs in `releases/`: foundry at 0.2.0,
/// 0.2.3, 0.3.0, 1.2.0, 1.2.7 and 1.3.0, the others at 0.2.0. Indexed into `hub/`.
fn releases(ws: &Workspace, packs: &[&str]) {
    ws.cook(&[]);
    std::fs::write(ws.path("seed.hex"), SEED).unwrap();
    std::fs::create_dir_all(ws.path("releases")).unwrap();
    let foundry = ["0.2.0", "0.2.3", "0.3.0", "1.2.0", "1.2.7", "1.3.0"];
    for (pack, versions) in [
        ("foundry", &foundry[..]),
        ("foundry-wide", &["0.2.0"]),
        ("roadworks", &["0.2.0"]),
    ] {
        if !packs.contains(&pack) {
            continue;
        }
        for version in versions {
            pack_release(
                ws,
                pack,
                version,
                |_| {},
                &format!("releases/{pack}-{version}.mjolnir"),
            );
        }
    }
    let out = ws.mjolnir(&["hub", "index", "releases", "--out", "hub"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Packs the cooked `pack` at `version`, its manifest changed by `change`, signed.
fn pack_release(
    ws: &Workspace,
    pack: &str,
    version: &str,
    change: impl FnOnce(&mut Value),
    out: &str,
) {
    let text =
        std::fs::read_to_string(ws.path(&format!("build/game/{pack}/all/mjolnir.json"))).unwrap();
    let mut manifest: Value = serde_json::from_str(&text).unwrap();
    manifest["version"] = json!(version);
    change(&mut manifest);
    let path = ws.path(&format!("manifest-{pack}-{version}.json"));
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    let content = format!("build/game/{pack}/all/content");
    let out = ws.mjolnir(&[
        "forge",
        "pack",
        path.to_str().unwrap(),
        "--content",
        &content,
        "--out",
        out,
        "--sign-seed",
        "seed.hex",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A baked map's container, as the game's level bake would leave it: a stand-in, by file
/// name.
fn map_container(slug: &str) -> BTreeMap<String, Vec<u8>> {
    let chunk = forge_iostore::NewChunk {
        id: forge_iostore::ids::ChunkId::new(
            forge_iostore::ids::name_hash(&format!("/Game/Maps/{slug}")),
            0,
            2,
        ),
        data: slug.as_bytes().to_vec(),
        path: Some(format!("Maps/{slug}.ubulk")),
    };
    let (utoc, ucas) = forge_iostore::write(
        &format!("{slug}_P"),
        &[chunk],
        forge_iostore::Compression::None,
    )
    .unwrap();
    BTreeMap::from([
        (format!("{slug}_P.utoc"), utoc),
        (format!("{slug}_P.ucas"), ucas),
    ])
}

/// A signed map release named `slug` whose manifest needs `deps` (slug, range).
fn signed_map(slug: &str, deps: &[(&str, &str)]) -> Vec<u8> {
    let deps: Vec<Value> = deps
        .iter()
        .map(|(s, r)| json!({"slug": s, "range": r}))
        .collect();
    let manifest = json!({"schema_version": 1, "name": "Needy", "slug": slug, "version": "1.0.0",
        "type": "content", "deps": deps});
    let level = json!({"format": "mjolnir-level", "name": slug, "slug": slug});
    let content = map_container(slug);
    let prepared = forge_release::prepare_map(
        manifest.to_string().as_bytes(),
        level.to_string().as_bytes(),
        None,
        &content,
    )
    .unwrap();
    let key = forge_release::signature::key_from_seed(SEED.as_bytes()).unwrap();
    let signer = forge_release::archive::Signer {
        key: &key,
        signed_at: "2026-01-01T00:00:00Z".into(),
    };
    forge_release::archive::write(&prepared.members, slug, "1.0.0", Some(signer)).unwrap()
}

/// A profile trusting `keys`, with these stock maps enabled (baked and signed).
fn profile(ws: &Workspace, name: &str, keys: &[&str], maps: &[&str]) -> PathBuf {
    let dir = ws.path(name);
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    std::fs::write(dir.join("trusted-keys.txt"), keys.join("\n")).unwrap();
    std::fs::write(ws.path("seed.hex"), SEED).unwrap();
    for map in maps {
        let level = repo().join(format!("forge-maps/{map}/level.json"));
        let baked = ws.path(&format!("baked-{map}"));
        std::fs::create_dir_all(&baked).unwrap();
        for (name, bytes) in map_container(map) {
            std::fs::write(baked.join(name), bytes).unwrap();
        }
        let out = ws.mjolnir(&[
            "map",
            "pack",
            level.to_str().unwrap(),
            "--content",
            baked.to_str().unwrap(),
            "--out",
            dir.join(format!("maps/{map}.mjolnir")).to_str().unwrap(),
            "--sign-seed",
            "seed.hex",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    dir
}

/// A profile trusting the test key whose one enabled map needs `deps`.
fn profile_needing(ws: &Workspace, name: &str, deps: &[(&str, &str)]) -> PathBuf {
    let dir = profile(ws, name, &[KEY], &[]);
    std::fs::write(dir.join("maps/needy.mjolnir"), signed_map("needy", deps)).unwrap();
    dir
}

fn sync_with(ws: &Workspace, hub: &str, profile: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec![
        "launcher",
        "sync",
        "--hub",
        hub,
        "--profile",
        profile.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = ws.mjolnir(&args);
    (
        out.status.code(),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out)),
    )
}

fn sync(ws: &Workspace, hub: &str, profile: &Path) -> (Option<i32>, String) {
    sync_with(ws, hub, profile, &[])
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The archives in the profile's `packs/`.
fn installed(profile: &Path) -> Vec<String> {
    let mut names = files_in(&profile.join("packs"));
    names.retain(|n| n.ends_with(".mjolnir"));
    names
}

/// The slugs and versions `installed.txt` lists, each once.
fn catalog_releases(profile: &Path) -> Vec<String> {
    let text =
        std::fs::read_to_string(profile.join("ue4ss/MJOLNIRForgePacks/installed.txt")).unwrap();
    let mut out: Vec<String> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            format!("{}-{}", f[1], f[2])
        })
        .collect();
    out.dedup();
    out
}

/// A saved layout of `map` using foundry's floor_1x1 at palette index 4, saved with
/// `version`.
fn save_layout(profile: &Path, map: &str, version: &str) -> PathBuf {
    let dir = profile.join("ue4ss/Mods/MJOLNIRForge/layouts");
    std::fs::create_dir_all(&dir).unwrap();
    let mvar = dir.join(format!("{map}.mvar"));
    std::fs::write(&mvar, b"MVAR....fpk1....objects").unwrap();
    let row = format!(
        "4\tobjects\\mjolnir\\forge\\foundry\\floor_1x1\tfoundry\t{version}\t{}\n",
        "00".repeat(32)
    );
    std::fs::write(
        dir.join(format!("{map}.mvar.packs")),
        format!("forge-packs 1\n{row}"),
    )
    .unwrap();
    mvar
}

fn edit_json(path: &Path, change: impl FnOnce(&mut Value)) {
    let mut value: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    change(&mut value);
    std::fs::write(path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
}

#[test]
fn a_profile_resolves_installs_and_refuses_over_http() {
    let ws = Workspace::with_packs(&["foundry", "foundry-wide", "roadworks"]);
    releases(&ws, &["foundry", "foundry-wide", "roadworks"]);
    let Some(hub) = serve_static(&ws.path("hub")) else {
        return;
    };

    // The stock maps resolve against the stock packs; foundry is the newest of ^0.2.0.
    let p = profile(
        &ws,
        "profile",
        &[KEY],
        &["forge-canvas", "crossline", "roadworks-circuit"],
    );
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        installed(&p),
        [
            "foundry-0.2.3.mjolnir",
            "foundry-wide-0.2.0.mjolnir",
            "roadworks-0.2.0.mjolnir"
        ],
        "{text}"
    );
    assert!(
        text.contains("[foundry]  0.2.3  downloaded  newest release of foundry on the Hub that meets ^0.2.0 (map crossline)"),
        "{text}"
    );
    let txt = std::fs::read_to_string(p.join("ue4ss/MJOLNIRForgePacks/installed.txt")).unwrap();
    assert!(
        txt.starts_with("forge-packs-installed 1\n")
            && txt.contains("objects\\mjolnir\\forge\\foundry\\floor_1x1\tfoundry\t0.2.3\t"),
        "{txt}"
    );
    let json: Value = serde_json::from_slice(
        &std::fs::read(p.join("ue4ss/MJOLNIRForgePacks/installed.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["packs"].as_array().unwrap().len(), 3);
    // Each enabled release's containers are laid out with a generated .pak stub.
    assert_eq!(
        files_in(&p.join("Paks/MJOLNIR/foundry")),
        [
            "foundry_P.pak",
            "foundry_P.ucas",
            "foundry_P.utoc",
            "release.txt"
        ]
    );
    assert_eq!(
        std::fs::read(p.join("Paks/MJOLNIR/foundry/foundry_P.pak")).unwrap(),
        forge_iostore::pak_stub()
    );

    // Installed and serving: nothing is downloaded again.
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("[foundry]  0.2.3  installed"), "{text}");

    // A layout saved with 0.3.0 needs another line: it is left out, the rest restored.
    save_layout(&p, "Forge Canvas", "0.3.0");
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("CONFLICTS:") && text.contains("layout Forge Canvas.mvar"),
        "{text}"
    );
    assert_eq!(installed(&p).len(), 3, "{text}");
    // An orphan sidecar needs nothing.
    std::fs::remove_file(p.join("ue4ss/Mods/MJOLNIRForge/layouts/Forge Canvas.mvar")).unwrap();
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(0), "{text}");

    // A signer the profile does not trust: refused, with the line that would trust it.
    let untrusting = profile(&ws, "untrusting", &[OTHER_KEY], &[]);
    std::fs::write(
        untrusting.join("maps/needy.mjolnir"),
        signed_map("needy", &[("foundry", "^0.2.0")]),
    )
    .unwrap();
    let (code, text) = sync(&ws, hub.url(), &untrusting);
    assert_eq!(code, Some(1));
    assert!(
        text.contains("map_refused")
            && text.contains(&format!("add this line to trusted-keys.txt: {KEY}")),
        "{text}"
    );
    assert!(installed(&untrusting).is_empty());
    // Pasting that line is enough.
    std::fs::write(
        untrusting.join("trusted-keys.txt"),
        format!("{OTHER_KEY}\n{KEY}\n"),
    )
    .unwrap();
    let (code, text) = sync(&ws, hub.url(), &untrusting);
    assert_eq!(code, Some(0), "{text}");

    // An archive whose bytes are not the Hub's SHA-256: refused, reported as refused.
    let archive = ws.path("hub/files/foundry-0.2.3.mjolnir");
    let mut bytes = std::fs::read(&archive).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&archive, bytes).unwrap();
    let fresh = profile(&ws, "fresh", &[KEY], &["forge-canvas"]);
    let (code, text) = sync(&ws, hub.url(), &fresh);
    assert_eq!(code, Some(1));
    assert!(
        text.contains("archive_sha256") && text.contains("[foundry]  0.2.3  refused"),
        "{text}"
    );
    assert!(installed(&fresh).is_empty());
    assert!(catalog_releases(&fresh).is_empty());
}

#[test]
fn each_requirement_form_installs_what_semver_says() {
    let ws = Workspace::with_packs(&["foundry"]);
    releases(&ws, &["foundry"]);
    let Some(hub) = serve_static(&ws.path("hub")) else {
        return;
    };
    for (i, (range, expect)) in [
        ("0.2.0", Some("0.2.0")),
        ("=0.2.0", Some("0.2.0")),
        ("~0.2.0", Some("0.2.3")),
        (">=0.2.0, <0.3.0", Some("0.2.3")),
        ("~1.2.0", Some("1.2.7")),
        ("^1.2.0", Some("1.3.0")),
        (">=0.2.1, <0.2.3", None),
    ]
    .into_iter()
    .enumerate()
    {
        let p = profile_needing(&ws, &format!("p{i}"), &[("foundry", range)]);
        let (code, text) = sync(&ws, hub.url(), &p);
        match expect {
            Some(v) => {
                assert_eq!(code, Some(0), "{range}: {text}");
                assert_eq!(
                    installed(&p),
                    [format!("foundry-{v}.mjolnir")],
                    "{range}: {text}"
                );
                assert_eq!(catalog_releases(&p), [format!("foundry-{v}")], "{range}");
            }
            None => {
                assert_eq!(code, Some(1), "{range}: {text}");
                assert!(
                    text.contains("MISSING: foundry: no release of foundry installed or on the Hub matches >=0.2.1, <0.2.3 (needed by map needy)"),
                    "{text}"
                );
                assert!(installed(&p).is_empty());
            }
        }
    }
    // Two maps whose requirements share no release: both are left out, each named.
    let p = profile_needing(&ws, "two", &[("foundry", "=0.2.0")]);
    std::fs::write(
        p.join("maps/other.mjolnir"),
        signed_map("other", &[("foundry", "=0.2.3")]),
    )
    .unwrap();
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("foundry: =0.2.0 (map needy) vs =0.2.3 (map other)"),
        "{text}"
    );
    assert!(installed(&p).is_empty());
}

/// Copies the Hub so that one test's lies do not reach another's.
fn hub_copy(ws: &Workspace, name: &str) -> PathBuf {
    let dir = ws.path(name);
    support::copy_dir(&ws.path("hub"), &dir);
    dir
}

#[test]
fn a_lying_hub_changes_a_profile_only_by_a_refusal() {
    let ws = Workspace::with_packs(&["foundry", "roadworks"]);
    releases(&ws, &["foundry", "roadworks"]);
    // With 0.2.0 installed, the Hub lists "0.2.9" and serves the signed 0.2.0 archive for
    // it, SHA-256 and release version made to match: a rollback.
    let rollback = hub_copy(&ws, "hub-rollback");
    let old = std::fs::read(rollback.join("files/foundry-0.2.0.mjolnir")).unwrap();
    std::fs::write(rollback.join("files/foundry-0.2.9.mjolnir"), &old).unwrap();
    let mut payload: Value = serde_json::from_slice(
        &std::fs::read(rollback.join("api/v1/releases/foundry-0.2.0/forge-pack")).unwrap(),
    )
    .unwrap();
    payload["id"] = json!("foundry-0.2.9");
    payload["release_version"] = json!("0.2.9");
    payload["archive"] = json!("/files/foundry-0.2.9.mjolnir");
    std::fs::create_dir_all(rollback.join("api/v1/releases/foundry-0.2.9")).unwrap();
    std::fs::write(
        rollback.join("api/v1/releases/foundry-0.2.9/forge-pack"),
        payload.to_string(),
    )
    .unwrap();
    edit_json(&rollback.join("api/v1/packs/foundry/releases"), |list| {
        list.as_array_mut()
            .unwrap()
            .push(json!({"id": "foundry-0.2.9", "version": "0.2.9"}))
    });
    // Roadworks' signed archive served as foundry 0.3.0's.
    let swapped = rollback.join("files/foundry-0.3.0.mjolnir");
    let roadworks = std::fs::read(rollback.join("files/roadworks-0.2.0.mjolnir")).unwrap();
    std::fs::write(&swapped, &roadworks).unwrap();
    edit_json(
        &rollback.join("api/v1/releases/foundry-0.3.0/forge-pack"),
        |p| p["archive_sha256"] = json!(forge_release::signature::sha256_hex(&roadworks)),
    );
    let Some(hub) = serve_static(&rollback) else {
        return;
    };
    let p = profile_needing(&ws, "rollback", &[("foundry", "=0.2.0")]);
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(0), "{text}");
    let before = support::tree(&p.join("packs"));
    std::fs::write(
        p.join("maps/needy.mjolnir"),
        signed_map("needy", &[("foundry", "^0.2.0")]),
    )
    .unwrap();
    let (code, text) = sync_with(&ws, hub.url(), &p, &["--update"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("hub_mismatch") && text.contains("the archive is release 0.2.0, not 0.2.9"),
        "{text}"
    );
    assert_eq!(support::tree(&p.join("packs")), before, "{text}");
    assert_eq!(
        catalog_releases(&p),
        ["foundry-0.2.0"],
        "the installed release still serves"
    );
    let p = profile_needing(&ws, "swapped", &[("foundry", "=0.3.0")]);
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("the archive is pack \"roadworks\", not foundry"),
        "{text}"
    );
    assert!(installed(&p).is_empty());
    drop(hub);

    // A payload whose catalog claims one block for an archive of many; a dependency slug
    // that climbs out of the profile; a release list entry naming a file outside.
    let lies = hub_copy(&ws, "hub-lies");
    edit_json(
        &lies.join("api/v1/releases/foundry-0.2.3/forge-pack"),
        |p| p["catalog"]["blocks"].as_array_mut().unwrap().truncate(1),
    );
    edit_json(
        &lies.join("api/v1/releases/roadworks-0.2.0/forge-pack"),
        |p| p["dependencies"] = json!([{"slug": "../../escape", "range": "^1.0.0"}, {"slug": "/abs", "range": "^1.0.0"}]),
    );
    edit_json(&lies.join("api/v1/packs/roadworks/releases"), |list| {
        list.as_array_mut()
            .unwrap()
            .push(json!({"id": "../../roadworks-9.9.9", "version": "9.9.9"}))
    });
    let Some(hub) = serve_static(&lies) else {
        return;
    };
    let p = profile_needing(
        &ws,
        "lies",
        &[("foundry", "^0.2.0"), ("roadworks", "^0.2.0")],
    );
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("the archive's catalog is not the one the Hub published"),
        "{text}"
    );
    assert!(
        text.contains("bad_slug") && text.contains("hub_bad_release"),
        "{text}"
    );
    assert!(
        !ws.path("escape-1.0.0.mjolnir").exists()
            && !ws.path("lies/../escape-1.0.0.mjolnir").exists()
    );
    // Roadworks' archive lists no such dependencies: the payload lied about it too.
    assert!(
        text.contains("the archive's dependencies are not the ones the Hub published"),
        "{text}"
    );
    assert!(installed(&p).is_empty(), "{text}");
    drop(hub);

    // One pack's answers are broken (a 500, a release list too large to be one), the
    // other's fine: the fine one is still installed and enabled.
    let broken = hub_copy(&ws, "hub-broken");
    std::fs::write(
        broken.join("api/v1/packs/roadworks/releases"),
        vec![b' '; 2 << 20],
    )
    .unwrap();
    std::fs::create_dir_all(broken.join("api/v1/packs/ghost")).unwrap();
    std::fs::write(
        broken.join("api/v1/packs/ghost/releases"),
        "<html>oops</html>",
    )
    .unwrap();
    let script = r#"
import http.server, sys
class H(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith('/api/v1/packs/foundry-wide/'):
            self.send_response(500); self.end_headers(); return
        return super().do_GET()
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
"#;
    let Some(hub) = serve(&broken, Some(script)) else {
        return;
    };
    let p = profile_needing(
        &ws,
        "broken",
        &[
            ("foundry", "^0.2.0"),
            ("roadworks", "^0.2.0"),
            ("foundry-wide", "^0.2.0"),
            ("ghost", "^1.0.0"),
        ],
    );
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("hub_too_large")
            && text.contains("hub_status")
            && text.contains("error[hub_payload]"),
        "{text}"
    );
    assert_eq!(installed(&p), ["foundry-0.2.3.mjolnir"], "{text}");
    assert_eq!(catalog_releases(&p), ["foundry-0.2.3"]);
}

#[test]
fn a_dependency_chain_of_ten_is_followed_to_its_end() {
    let ws = Workspace::without_donors(&[]);
    let hub = ws.path("hub");
    for i in 0..10 {
        let slug = format!("p{i}");
        let id = format!("{slug}-1.0.0");
        std::fs::create_dir_all(hub.join(format!("api/v1/packs/{slug}"))).unwrap();
        std::fs::create_dir_all(hub.join(format!("api/v1/releases/{id}"))).unwrap();
        std::fs::write(
            hub.join(format!("api/v1/packs/{slug}/releases")),
            json!([{"id": id, "version": "1.0.0"}]).to_string(),
        )
        .unwrap();
        let payload = json!({"id": id, "slug": slug, "release_version": "1.0.0", "archive_sha256": "00",
            "dependencies": [{"slug": format!("p{}", i + 1), "range": "^1.0.0"}],
            "catalog": {"schema_version": 1, "id": slug, "blocks": []}, "archive": format!("/files/{id}.mjolnir")});
        std::fs::write(
            hub.join(format!("api/v1/releases/{id}/forge-pack")),
            payload.to_string(),
        )
        .unwrap();
    }
    let Some(server) = serve_static(&hub) else {
        return;
    };
    let p = profile_needing(&ws, "profile", &[("p0", "^1.0.0")]);
    let (code, text) = sync(&ws, server.url(), &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("[p9]  1.0.0"), "all ten are resolved: {text}");
    assert!(
        text.contains("MISSING: p10: no release of p10 installed or on the Hub matches ^1.0.0 (needed by map needy → pack p0 1.0.0 → pack p1 1.0.0"),
        "{text}"
    );
    // None of them has an archive: each is refused, none installed.
    assert_eq!(text.matches("hub_missing_release").count(), 10, "{text}");
    assert!(installed(&p).is_empty());
}

#[test]
fn the_hub_publishes_only_what_the_hub_accepts() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    std::fs::write(ws.path("seed.hex"), SEED).unwrap();
    std::fs::create_dir_all(ws.path("incoming")).unwrap();
    pack_release(
        &ws,
        "foundry",
        "0.2.0",
        |_| {},
        "incoming/foundry-0.2.0.mjolnir",
    );
    // Unsigned: refused, unless for a local test.
    let out = ws.mjolnir(&[
        "forge",
        "pack",
        "build/game/foundry/all/mjolnir.json",
        "--content",
        "build/game/foundry/all/content",
        "--out",
        "unsigned/foundry-0.2.0.mjolnir",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let index = |dir: &str, extra: &[&str]| {
        let mut args = vec!["hub", "index", dir, "--out", "hub"];
        args.extend_from_slice(extra);
        let out = ws.mjolnir(&args);
        (
            out.status.code(),
            format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out)),
        )
    };
    let (code, text) = index("unsigned", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("error[unsigned]"), "{text}");
    assert!(!ws.path("hub/files/foundry-0.2.0.mjolnir").exists());
    let (code, text) = index("incoming", &[]);
    assert_eq!(code, Some(0), "{text}");

    // The same version with other bytes: refused, and the published bytes stay.
    let published = std::fs::read(ws.path("hub/files/foundry-0.2.0.mjolnir")).unwrap();
    std::fs::create_dir_all(ws.path("again")).unwrap();
    pack_release(
        &ws,
        "foundry",
        "0.2.0",
        |m| m["summary"] = json!("Other words"),
        "again/foundry-0.2.0.mjolnir",
    );
    let (code, text) = index("again", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("error[version_reused]"), "{text}");
    assert_eq!(
        std::fs::read(ws.path("hub/files/foundry-0.2.0.mjolnir")).unwrap(),
        published
    );

    // A release that drops an entry of its line, or resizes one: refused. A new line may.
    std::fs::create_dir_all(ws.path("next")).unwrap();
    pack_release(
        &ws,
        "foundry",
        "0.2.1",
        |m| {
            m["forge_pack"]["blocks"].as_array_mut().unwrap().pop();
        },
        "next/foundry-0.2.1.mjolnir",
    );
    let (code, text) = index("next", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("error[entry_dropped]"), "{text}");
    assert!(!ws.path("hub/files/foundry-0.2.1.mjolnir").exists());

    // A feature no one knows, at the top level or in an entry: refused.
    for (n, change) in [
        (
            2,
            Box::new(|m: &mut Value| m["requires"] = json!(["turrets"])) as Box<dyn Fn(&mut Value)>,
        ),
        (
            3,
            Box::new(|m: &mut Value| m["forge_pack"]["blocks"][0]["requires"] = json!(["turrets"])),
        ),
    ] {
        let dir = format!("feature-{n}");
        std::fs::create_dir_all(ws.path(&dir)).unwrap();
        let manifest = ws.path("build/game/foundry/all/mjolnir.json");
        let mut value: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
        value["version"] = json!(format!("0.2.{n}"));
        change(&mut value);
        // The packer refuses it too; zip it by hand as a hostile author would.
        let archive = support_zip(&ws, &value, &dir);
        assert!(archive.exists());
        let (code, text) = index(&dir, &[]);
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("error[unknown_feature]"), "{text}");
    }

    // What was published is the read API, the Forge catalog and a detail page.
    let payload: Value = serde_json::from_slice(
        &std::fs::read(ws.path("hub/api/v1/releases/foundry-0.2.0/forge-pack")).unwrap(),
    )
    .unwrap();
    assert_eq!(payload["release_version"], "0.2.0");
    let catalog: Value =
        serde_json::from_slice(&std::fs::read(ws.path("hub/api/v1/forge")).unwrap()).unwrap();
    let pack = &catalog["packs"][0];
    assert_eq!(pack["slug"], "foundry");
    let pieces = pack["pieces"].as_array().unwrap();
    assert_eq!(
        pieces.len(),
        payload["catalog"]["blocks"].as_array().unwrap().len()
    );
    assert!(pieces
        .iter()
        .all(|p| p["dimensions_m"].is_array() && p["name"].is_string()));
    assert_eq!(pack["page"], "/forge/foundry.html");
    if let Some(chromium) = support::chromium() {
        let dom = ws.dom(chromium, "hub/forge/foundry.html");
        assert!(
            dom.contains(&format!("<h1>{}</h1>", pack["name"].as_str().unwrap())),
            "{dom}"
        );
        assert_eq!(
            dom.matches("<tr data-piece=").count(),
            pieces.len(),
            "{dom}"
        );
        let first = &pieces[0];
        let dims: Vec<String> = first["dimensions_m"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| format!("{} m", d.as_f64().unwrap()))
            .collect();
        assert!(dom.contains(&dims.join(" × ")), "{dom}");
    }

    // A map release has its own payload, no Forge catalog.
    std::fs::create_dir_all(ws.path("maps")).unwrap();
    std::fs::write(
        ws.path("maps/needy-1.0.0.mjolnir"),
        signed_map("needy", &[("foundry", "^0.2.0")]),
    )
    .unwrap();
    let (code, text) = index("maps", &[]);
    assert_eq!(code, Some(0), "{text}");
    let map: Value = serde_json::from_slice(
        &std::fs::read(ws.path("hub/api/v1/releases/needy-1.0.0/map")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        map["dependencies"],
        json!([{"slug": "foundry", "range": "^0.2.0"}])
    );
    assert!(!ws
        .path("hub/api/v1/releases/needy-1.0.0/forge-pack")
        .exists());
}

/// A signed archive of the cooked foundry content under `manifest`, zipped without the
/// packer's checks, in `dir/`.
fn support_zip(ws: &Workspace, manifest: &Value, dir: &str) -> PathBuf {
    let mut members = BTreeMap::new();
    members.insert(
        "mjolnir.json".to_string(),
        manifest.to_string().into_bytes(),
    );
    for name in ["foundry_P.utoc", "foundry_P.ucas"] {
        members.insert(
            format!("content/{name}"),
            std::fs::read(ws.path(&format!("build/game/foundry/all/content/{name}"))).unwrap(),
        );
    }
    let key = forge_release::signature::key_from_seed(SEED.as_bytes()).unwrap();
    let signer = forge_release::archive::Signer {
        key: &key,
        signed_at: "2026-01-01T00:00:00Z".into(),
    };
    let version = manifest["version"].as_str().unwrap();
    let bytes = forge_release::archive::write(&members, "foundry", version, Some(signer)).unwrap();
    let path = ws.path(&format!("{dir}/foundry-{version}.mjolnir"));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn forge_verify_refuses_members_the_contract_does_not_list() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/game/foundry/all/mjolnir.json")).unwrap(),
    )
    .unwrap();
    let clean = support_zip(&ws, &manifest, ".");
    let out = ws.mjolnir(&["forge", "verify", clean.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut members = BTreeMap::new();
    members.insert(
        "mjolnir.json".to_string(),
        manifest.to_string().into_bytes(),
    );
    for name in ["foundry_P.utoc", "foundry_P.ucas"] {
        members.insert(
            format!("content/{name}"),
            std::fs::read(ws.path(&format!("build/game/foundry/all/content/{name}"))).unwrap(),
        );
    }
    members.insert("source/geometry.json".to_string(), b"{}".to_vec());
    members.insert("notes.txt".to_string(), b"hello".to_vec());
    let key = forge_release::signature::key_from_seed(SEED.as_bytes()).unwrap();
    let signer = forge_release::archive::Signer {
        key: &key,
        signed_at: "2026-01-01T00:00:00Z".into(),
    };
    let bytes = forge_release::archive::write(&members, "foundry", "0.2.0", Some(signer)).unwrap();
    std::fs::write(ws.path("extra.mjolnir"), bytes).unwrap();
    let out = ws.mjolnir(&["forge", "verify", "extra.mjolnir"]);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("unlisted_member")
            && text.contains("source/geometry.json")
            && text.contains("notes.txt"),
        "{text}"
    );
}

#[test]
fn the_profile_lists_exactly_the_enabled_verified_releases() {
    let ws = Workspace::with_packs(&["foundry", "roadworks"]);
    releases(&ws, &["foundry", "roadworks"]);
    let Some(hub) = serve_static(&ws.path("hub")) else {
        return;
    };
    let p = profile_needing(&ws, "profile", &[("foundry", "=0.2.0")]);
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(0), "{text}");
    // A stray unsigned archive and a release nothing needs, copied in by hand: neither is
    // in the catalogs, and the stray one is reported.
    let out = ws.mjolnir(&[
        "forge",
        "pack",
        "build/game/roadworks/all/mjolnir.json",
        "--content",
        "build/game/roadworks/all/content",
        "--out",
        p.join("packs/roadworks-0.2.0.mjolnir").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::write(p.join("packs/junk.mjolnir"), b"PK\x03\x04 truncated").unwrap();
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("archive_refused")
            && text.contains("junk.mjolnir")
            && text.contains("roadworks-0.2.0.mjolnir"),
        "{text}"
    );
    assert_eq!(catalog_releases(&p), ["foundry-0.2.0"], "{text}");
    std::fs::remove_file(p.join("packs/junk.mjolnir")).unwrap();
    std::fs::remove_file(p.join("packs/roadworks-0.2.0.mjolnir")).unwrap();
    std::fs::copy(
        ws.path("releases/roadworks-0.2.0.mjolnir"),
        p.join("packs/roadworks-0.2.0.mjolnir"),
    )
    .unwrap();
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("NOT ENABLED") && text.contains("roadworks-0.2.0.mjolnir"),
        "{text}"
    );
    assert_eq!(catalog_releases(&p), ["foundry-0.2.0"]);
    assert_eq!(files_in(&p.join("Paks/MJOLNIR")), ["foundry"]);

    // --update moves foundry within its line, as far as the map allows.
    std::fs::write(
        p.join("maps/needy.mjolnir"),
        signed_map("needy", &[("foundry", "^0.2.0")]),
    )
    .unwrap();
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("[foundry]  0.2.0  installed"), "{text}");
    let (code, text) = sync_with(&ws, hub.url(), &p, &["--update"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("[foundry]  0.2.3  downloaded") && text.contains("restart the game"),
        "{text}"
    );
    assert_eq!(
        installed(&p),
        ["foundry-0.2.3.mjolnir", "roadworks-0.2.0.mjolnir"]
    );
    assert_eq!(catalog_releases(&p), ["foundry-0.2.3"]);
    // A FIFO in place of the Paks stamp blocks nothing: it is not a file, so the release
    // is laid out again.
    let stamp = p.join("Paks/MJOLNIR/foundry/release.txt");
    std::fs::remove_file(&stamp).unwrap();
    if Command::new("mkfifo")
        .arg(&stamp)
        .status()
        .is_ok_and(|s| s.success())
    {
        let (code, text) = sync(&ws, hub.url(), &p);
        assert_eq!(code, Some(0), "{text}");
        assert!(std::fs::metadata(&stamp).unwrap().is_file(), "{text}");
    }

    // An unsigned map is refused and drives nothing.
    let unsigned = ws.path("unsigned-map");
    std::fs::create_dir_all(&unsigned).unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("mjolnir.json", zip::write::SimpleFileOptions::default())
        .unwrap();
    let manifest = json!({"schema_version": 1, "name": "Sneaky", "slug": "sneaky", "version": "1.0.0", "type": "content",
        "deps": [{"slug": "no-such-pack", "range": "^1.0.0"}]});
    std::io::Write::write_all(&mut zip, manifest.to_string().as_bytes()).unwrap();
    std::fs::write(
        p.join("maps/sneaky.mjolnir"),
        zip.finish().unwrap().into_inner(),
    )
    .unwrap();
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("map_refused")
            && text.contains("sneaky.mjolnir")
            && !text.contains("no-such-pack"),
        "{text}"
    );
    assert_eq!(
        catalog_releases(&p),
        ["foundry-0.2.3"],
        "everything else is restored"
    );
    std::fs::remove_file(p.join("maps/sneaky.mjolnir")).unwrap();

    // Each bad sidecar gets its own code, and the rest is still restored.
    let layouts = p.join("ue4ss/Mods/MJOLNIRForge/layouts");
    type MakeSidecar<'a> = &'a dyn Fn(&Path);
    let cases: [(&str, MakeSidecar); 5] = [
        ("sidecar_format", &|s| {
            std::fs::write(s, "not a sidecar\n").unwrap()
        }),
        ("sidecar_too_new", &|s| {
            std::fs::write(s, "forge-packs 2\n").unwrap()
        }),
        ("sidecar_not_utf8", &|s| {
            std::fs::write(s, b"forge-packs 1\n\xff\xfe\n").unwrap()
        }),
        ("sidecar_not_a_file", &|s| {
            std::fs::create_dir_all(s).unwrap()
        }),
        ("sidecar_row", &|s| {
            std::fs::write(s, "forge-packs 1\n1\t2\n").unwrap()
        }),
    ];
    for (code_expected, make) in cases {
        save_layout(&p, "Bad", "0.2.0");
        let sidecar = layouts.join("Bad.mvar.packs");
        std::fs::remove_file(&sidecar).unwrap();
        make(&sidecar);
        let (code, text) = sync(&ws, hub.url(), &p);
        assert_eq!(code, Some(1), "{text}");
        assert!(
            text.contains(&format!("error[{code_expected}]")),
            "{code_expected}: {text}"
        );
        assert_eq!(catalog_releases(&p), ["foundry-0.2.3"], "{code_expected}");
        let _ = std::fs::remove_dir_all(&sidecar);
        let _ = std::fs::remove_file(&sidecar);
    }
    // A FIFO in the sidecar's place blocks neither sync nor layout check.
    let sidecar = layouts.join("Bad.mvar.packs");
    let made = Command::new("mkfifo")
        .arg(&sidecar)
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let (code, text) = sync(&ws, hub.url(), &p);
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("error[sidecar_not_a_file]"), "{text}");
        let out = ws.mjolnir(&[
            "layout",
            "check",
            layouts.join("Bad.mvar").to_str().unwrap(),
            "--profile",
            p.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stderr(&out).contains("sidecar_not_a_file"),
            "{}",
            stderr(&out)
        );
    } else {
        support::skip("the FIFO sidecar (mkfifo is not available)");
    }
}

#[test]
fn a_sync_killed_at_any_stage_of_an_install_is_made_consistent() {
    let ws = Workspace::with_packs(&["foundry"]);
    releases(&ws, &["foundry"]);
    let Some(hub) = serve_static(&ws.path("hub")) else {
        return;
    };
    for stage in ["staged", "journaled", "renamed", "removed"] {
        let p = profile_needing(&ws, &format!("killed-{stage}"), &[("foundry", "=0.2.0")]);
        let (code, text) = sync(&ws, hub.url(), &p);
        assert_eq!(code, Some(0), "{text}");
        std::fs::write(
            p.join("maps/needy.mjolnir"),
            signed_map("needy", &[("foundry", "^0.2.0")]),
        )
        .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_mjolnir"))
            .args([
                "launcher",
                "sync",
                "--update",
                "--hub",
                hub.url(),
                "--profile",
                p.to_str().unwrap(),
            ])
            .env("MJOLNIR_TEST_CRASH_AT", stage)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            None,
            "{stage}: the sync was killed: {}",
            stderr(&out)
        );
        let packs = installed(&p);
        assert!(
            packs.iter().filter(|n| n.ends_with(".mjolnir")).count() <= 2,
            "{stage}: {packs:?}"
        );
        let (code, text) = sync(&ws, hub.url(), &p);
        assert_eq!(code, Some(0), "{stage}: {text}");
        let expect = if stage == "staged" { "0.2.0" } else { "0.2.3" };
        assert_eq!(
            installed(&p),
            [format!("foundry-{expect}.mjolnir")],
            "{stage}: {text}"
        );
        assert_eq!(
            catalog_releases(&p),
            [format!("foundry-{expect}")],
            "{stage}"
        );
    }
    // A journal that names files outside packs/ is refused whole: nothing is moved or
    // removed, and the sync goes on.
    let p = profile_needing(&ws, "hostile-journal", &[("foundry", "=0.2.0")]);
    std::fs::create_dir_all(p.join("packs")).unwrap();
    std::fs::write(
        p.join("packs/.install-journal.json"),
        r#"{"moves": [{"staged": "../../trusted-keys.txt", "target": "../x.mjolnir", "sha256": "00", "replaces": "../trusted-keys.txt"}]}"#,
    )
    .unwrap();
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("error[bad_journal]"), "{text}");
    assert!(p.join("trusted-keys.txt").is_file() && !p.join("x.mjolnir").exists());
    assert_eq!(installed(&p), ["foundry-0.2.0.mjolnir"], "{text}");
}

#[test]
fn layout_checks_refuse_what_native_forge_refuses() {
    let ws = Workspace::with_packs(&["foundry"]);
    let p = profile(&ws, "profile", &[KEY], &["forge-canvas"]);
    std::fs::create_dir_all(p.join("packs")).unwrap();
    let check = |mvar: &Path| {
        let out = ws.mjolnir(&[
            "layout",
            "check",
            mvar.to_str().unwrap(),
            "--profile",
            p.to_str().unwrap(),
        ]);
        (out.status.code(), stderr(&out))
    };
    let mvar = save_layout(&p, "Forge Canvas", "0.2.0");
    let (code, text) = check(&mvar);
    assert_eq!(code, Some(1));
    assert!(text.contains("missing_inventory"), "{text}");

    // Install foundry 0.2.0 by hand, signed by the trusted key.
    ws.cook(&[]);
    let out = ws.mjolnir(&[
        "forge",
        "pack",
        "build/game/foundry/all/mjolnir.json",
        "--content",
        "build/game/foundry/all/content",
        "--out",
        p.join("packs/foundry-0.2.0.mjolnir").to_str().unwrap(),
        "--sign-seed",
        "seed.hex",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(check(&mvar), (Some(0), String::new()));

    let sidecar = PathBuf::from(format!("{}.packs", mvar.display()));
    let row = std::fs::read_to_string(&sidecar).unwrap();
    std::fs::write(&sidecar, row.replace("\n4\t", "\n5\t")).unwrap();
    assert!(check(&mvar).1.contains("palette_binding"));
    std::fs::write(&sidecar, row.replace("\t0.2.0\t", "\t0.1.0\t")).unwrap();
    assert!(check(&mvar).1.contains("release_outside_line"));
    std::fs::write(&sidecar, row.replace("\t0.2.0\t", "\t0.2.4\t")).unwrap();
    assert!(check(&mvar).1.contains("release_older"));
    std::fs::write(&sidecar, "forge-packs 2\n").unwrap();
    assert!(check(&mvar).1.contains("sidecar_too_new"));
    std::fs::remove_file(&sidecar).unwrap();
    assert!(check(&mvar).1.contains("missing_sidecar"));
    // A legacy layout (no marker) without custom tags loads.
    std::fs::write(&mvar, b"MVAR legacy").unwrap();
    assert_eq!(check(&mvar).0, Some(0));
}

#[test]
fn a_download_cut_short_or_stalled_leaves_the_profile_as_it_was() {
    let ws = Workspace::without_donors(&[]);
    let hub = ws.path("hub");
    std::fs::create_dir_all(hub.join("api/v1/packs/huge")).unwrap();
    std::fs::create_dir_all(hub.join("api/v1/releases/huge-0.1.0")).unwrap();
    std::fs::write(
        hub.join("api/v1/packs/huge/releases"),
        r#"[{"id": "huge-0.1.0", "version": "0.1.0"}]"#,
    )
    .unwrap();
    let payload = json!({"id": "huge-0.1.0", "slug": "huge", "catalog": {"id": "huge", "blocks": []}, "release_version": "0.1.0",
        "archive_sha256": "00", "dependencies": [], "archive": "/files/huge-0.1.0.mjolnir"});
    std::fs::write(
        hub.join("api/v1/releases/huge-0.1.0/forge-pack"),
        payload.to_string(),
    )
    .unwrap();
    let p = profile_needing(&ws, "profile", &[("huge", "^0.1.0")]);
    // A server that promises the whole archive and closes halfway.
    let cut_short = r#"
import http.server, sys
class H(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith('/files/'):
            self.send_response(200)
            self.send_header('Content-Length', '1000000')
            self.end_headers()
            self.wfile.write(b'PK' + b'x' * 1000)
            self.wfile.flush()
            self.connection.close()
            return
        return super().do_GET()
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
"#;
    let Some(server) = serve(&hub, Some(cut_short)) else {
        return;
    };
    let before = support::tree(&p.join("packs"));
    let (code, text) = sync(&ws, server.url(), &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("hub_download"), "{text}");
    assert!(text.contains("[huge]  0.1.0  refused"), "{text}");
    assert_eq!(
        support::tree(&p.join("packs")),
        before,
        "the profile's packs are as they were"
    );
    drop(server);

    // A server that sends its headers and then stalls: the sync's deadline ends it.
    let stall = r#"
import http.server, sys, time
class H(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith('/files/'):
            self.send_response(200)
            self.send_header('Content-Length', '1000000')
            self.end_headers()
            self.wfile.write(b'PK')
            self.wfile.flush()
            time.sleep(60)
            return
        return super().do_GET()
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
"#;
    let Some(server) = serve(&hub, Some(stall)) else {
        return;
    };
    let (code, text) = sync_with(&ws, server.url(), &p, &["--deadline", "2"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("hub_deadline"), "{text}");
    assert_eq!(support::tree(&p.join("packs")), before);
}

#[test]
fn the_block_bound_counts_the_verified_archives_and_paks_follow_what_is_enabled() {
    let ws = Workspace::with_packs(&["foundry", "roadworks"]);
    releases(&ws, &["foundry", "roadworks"]);
    let Some(hub) = serve_static(&ws.path("hub")) else {
        return;
    };
    let payload: Value = serde_json::from_slice(
        &std::fs::read(ws.path("hub/api/v1/releases/foundry-0.2.3/forge-pack")).unwrap(),
    )
    .unwrap();
    let foundry_blocks = payload["catalog"]["blocks"].as_array().unwrap().len();
    let bound = (foundry_blocks + 1).to_string();
    let p = profile_needing(&ws, "profile", &[("foundry", "^0.2.0")]);
    let (code, text) = sync_with(&ws, hub.url(), &p, &["--max-blocks", &bound]);
    assert_eq!(code, Some(0), "{text}");
    // Roadworks' archive takes the profile past the bound: nothing more is installed, and
    // what was enabled stays enabled.
    std::fs::write(
        p.join("maps/other.mjolnir"),
        signed_map("other", &[("roadworks", "^0.2.0")]),
    )
    .unwrap();
    let (code, text) = sync_with(&ws, hub.url(), &p, &["--max-blocks", &bound]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("error[too_many_blocks]") && text.contains("[roadworks]  0.2.0  refused"),
        "{text}"
    );
    assert_eq!(installed(&p), ["foundry-0.2.3.mjolnir"], "{text}");
    assert_eq!(catalog_releases(&p), ["foundry-0.2.3"]);
    // At the game's bound both fit; then, with no map enabled, nothing is, and the Paks
    // folders of what is no longer enabled are removed.
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(files_in(&p.join("Paks/MJOLNIR")), ["foundry", "roadworks"]);
    std::fs::remove_file(p.join("maps/other.mjolnir")).unwrap();
    std::fs::remove_file(p.join("maps/needy.mjolnir")).unwrap();
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("removed foundry's containers"), "{text}");
    assert!(files_in(&p.join("Paks/MJOLNIR")).is_empty());
    assert!(catalog_releases(&p).is_empty());
    assert!(text.contains("NOT ENABLED"), "{text}");
}

#[test]
fn add_map_puts_a_verified_map_into_a_profile_and_an_empty_profile_says_what_to_add() {
    let ws = Workspace::without_donors(&["foundry"]);
    std::fs::create_dir_all(ws.path("hub-empty")).unwrap();
    let Some(hub) = serve_static(&ws.path("hub-empty")) else {
        return;
    };
    let p = profile(&ws, "player", &[KEY], &[]);
    let (code, text) = sync(&ws, hub.url(), &p);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("NOTE: nothing to sync") && text.contains("mjolnir launcher add-map"),
        "{text}"
    );

    std::fs::write(ws.path("needy.mjolnir"), signed_map("needy", &[])).unwrap();
    let add =
        |map: &str| ws.mjolnir(&["launcher", "add-map", map, "--profile", p.to_str().unwrap()]);
    let out = add("needy.mjolnir");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(p.join("maps/needy-1.0.0.mjolnir").is_file());
    let (_, text) = sync(&ws, hub.url(), &p);
    assert!(!text.contains("nothing to sync"), "{text}");

    // A map signed by a key the profile does not trust is refused, and nothing is added.
    std::fs::write(p.join("trusted-keys.txt"), "").unwrap();
    std::fs::remove_file(p.join("maps/needy-1.0.0.mjolnir")).unwrap();
    let out = add("needy.mjolnir");
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("untrusted_signer"),
        "{}",
        stderr(&out)
    );
    assert!(!p.join("maps/needy-1.0.0.mjolnir").exists());
}
