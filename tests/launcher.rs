//! The launcher against a Hub served over real HTTP (Python's `http.server` on a loopback
//! port): which releases a profile gets, what it refuses, and saved layouts' checks.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use support::{repo, stderr, Workspace};

/// RFC 8032 test 1: a seed and its public key.
const SEED: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const KEY: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const OTHER_KEY: &str = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c";

/// A static web server over `dir`, stopped when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

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
            println!("skipped: python3 cannot start a web server ({e})");
            return None;
        }
    };
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(Server {
                child,
                url: format!("http://127.0.0.1:{port}"),
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    println!("skipped: the web server did not start");
    None
}

/// Signed releases of the stock packs, foundry also at 0.2.3 and 0.3.0, in `releases/`.
fn releases(ws: &Workspace) {
    ws.cook(&[]);
    std::fs::write(ws.path("seed.hex"), SEED).unwrap();
    std::fs::create_dir_all(ws.path("releases")).unwrap();
    for (pack, versions) in [
        ("foundry", &["0.2.0", "0.2.3", "0.3.0"][..]),
        ("foundry-wide", &["0.2.0"]),
        ("roadworks", &["0.2.0"]),
    ] {
        for version in versions {
            let manifest = ws.path(&format!("build/game/{pack}/all/mjolnir-{version}.json"));
            let text =
                std::fs::read_to_string(ws.path(&format!("build/game/{pack}/all/mjolnir.json")))
                    .unwrap();
            std::fs::write(
                &manifest,
                text.replace(
                    "\"version\": \"0.2.0\"",
                    &format!("\"version\": \"{version}\""),
                ),
            )
            .unwrap();
            let out = ws.mjolnir(&[
                "forge",
                "pack",
                manifest.to_str().unwrap(),
                "--content",
                &format!("build/game/{pack}/all/content"),
                "--out",
                &format!("releases/{pack}-{version}.mjolnir"),
                "--sign-seed",
                "seed.hex",
            ]);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        }
    }
    let out = ws.mjolnir(&["hub", "index", "releases", "--out", "hub"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A profile trusting `keys`, with these stock maps enabled.
fn profile(ws: &Workspace, name: &str, keys: &[&str], maps: &[&str]) -> PathBuf {
    let dir = ws.path(name);
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    std::fs::write(dir.join("trusted-keys.txt"), keys.join("\n")).unwrap();
    for map in maps {
        let level = repo().join(format!("forge-maps/{map}/level.json"));
        let chunk = forge_iostore::NewChunk {
            id: forge_iostore::ids::ChunkId::new(
                forge_iostore::ids::name_hash(&format!("/Game/Maps/{map}")),
                0,
                2,
            ),
            data: map.as_bytes().to_vec(),
            path: Some(format!("Maps/{map}.ubulk")),
        };
        let (utoc, ucas) = forge_iostore::write(
            &format!("{map}_P"),
            &[chunk],
            forge_iostore::Compression::None,
        )
        .unwrap();
        let baked = ws.path(&format!("baked-{map}"));
        std::fs::create_dir_all(&baked).unwrap();
        std::fs::write(baked.join(format!("{map}_P.utoc")), utoc).unwrap();
        std::fs::write(baked.join(format!("{map}_P.ucas")), ucas).unwrap();
        let out = ws.mjolnir(&[
            "map",
            "pack",
            level.to_str().unwrap(),
            "--content",
            baked.to_str().unwrap(),
            "--out",
            dir.join(format!("maps/{map}.mjolnir")).to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    dir
}

fn sync(ws: &Workspace, hub: &str, profile: &Path) -> (Option<i32>, String) {
    let out = ws.mjolnir(&[
        "launcher",
        "sync",
        "--hub",
        hub,
        "--profile",
        profile.to_str().unwrap(),
    ]);
    (
        out.status.code(),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out)),
    )
}

fn installed(profile: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(profile.join("packs"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
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

#[test]
fn a_profile_resolves_installs_and_refuses_over_http() {
    let ws = Workspace::with_packs(&["foundry", "foundry-wide", "roadworks"]);
    releases(&ws);
    let Some(hub) = serve(&ws.path("hub"), None) else {
        return;
    };

    // The stock maps resolve against the stock packs; foundry is the newest of ^0.2.0.
    let p = profile(
        &ws,
        "profile",
        &[KEY],
        &["forge-canvas", "crossline", "roadworks-circuit"],
    );
    let (code, text) = sync(&ws, &hub.url, &p);
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
        text.contains("[foundry]  0.2.3  downloaded  newest release of ^0.2.0 on the Hub"),
        "{text}"
    );
    let txt = std::fs::read_to_string(p.join("ue4ss/MJOLNIRForgePacks/installed.txt")).unwrap();
    assert!(
        txt.starts_with("forge-packs-installed 1\n")
            && txt.contains("objects\\mjolnir\\forge\\foundry\\floor_1x1\tfoundry\t0.2.3\t"),
        "{txt}"
    );
    let json: serde_json::Value = serde_json::from_slice(
        &std::fs::read(p.join("ue4ss/MJOLNIRForgePacks/installed.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["packs"].as_array().unwrap().len(), 3);
    assert!(std::fs::read_to_string(p.join("launcher_report.txt"))
        .unwrap()
        .contains("REQUIRED:"));

    // Installed and serving: nothing is downloaded again.
    let (code, text) = sync(&ws, &hub.url, &p);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("[foundry]  0.2.3  installed"), "{text}");

    // A layout saved with 0.3.0 needs another line: it is left out, the rest restored.
    save_layout(&p, "Forge Canvas", "0.3.0");
    let (code, text) = sync(&ws, &hub.url, &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("CONFLICTS:") && text.contains("layout Forge Canvas.mvar"),
        "{text}"
    );
    assert_eq!(installed(&p).len(), 3, "{text}");
    // An orphan sidecar needs nothing.
    std::fs::remove_file(p.join("ue4ss/Mods/MJOLNIRForge/layouts/Forge Canvas.mvar")).unwrap();
    let (code, text) = sync(&ws, &hub.url, &p);
    assert_eq!(code, Some(0), "{text}");

    // A signer the profile does not trust: refused, nothing installed.
    let untrusting = profile(&ws, "untrusting", &[OTHER_KEY], &["forge-canvas"]);
    let (code, text) = sync(&ws, &hub.url, &untrusting);
    assert_eq!(code, Some(1));
    assert!(text.contains("untrusted_signer"), "{text}");
    assert!(installed(&untrusting).is_empty());

    // An archive whose bytes are not the Hub's SHA-256: refused, nothing installed.
    let archive = ws.path("hub/files/foundry-0.2.3.mjolnir");
    let mut bytes = std::fs::read(&archive).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&archive, bytes).unwrap();
    let fresh = profile(&ws, "fresh", &[KEY], &["forge-canvas"]);
    let (code, text) = sync(&ws, &hub.url, &fresh);
    assert_eq!(code, Some(1));
    assert!(text.contains("archive_sha256"), "{text}");
    assert!(installed(&fresh).is_empty());
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

    // Install foundry 0.2.0 by hand (a signed archive is not needed to check a layout).
    ws.cook(&[]);
    std::fs::write(ws.path("seed.hex"), SEED).unwrap();
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
    std::fs::remove_file(&sidecar).unwrap();
    assert!(check(&mvar).1.contains("missing_sidecar"));
    // A legacy layout (no marker) without custom tags loads.
    std::fs::write(&mvar, b"MVAR legacy").unwrap();
    assert_eq!(check(&mvar).0, Some(0));
}

#[test]
fn the_block_bound_and_a_download_cut_short_leave_the_profile_as_it_was() {
    let ws = Workspace::without_donors(&[]);
    let p = profile(&ws, "profile", &[KEY], &[]);
    // A map needing "huge", whose catalog has 4,097 blocks.
    let hub = ws.path("hub");
    std::fs::create_dir_all(hub.join("api/v1/packs/huge")).unwrap();
    std::fs::create_dir_all(hub.join("api/v1/releases/huge-0.1.0")).unwrap();
    std::fs::write(
        hub.join("api/v1/packs/huge/releases"),
        r#"[{"id": "huge-0.1.0", "version": "0.1.0"}]"#,
    )
    .unwrap();
    huge_payload(&hub, 4097);
    write_map_needing(&p, "huge", "0.1.0");
    let Some(server) = serve(&hub, None) else {
        return;
    };
    let (code, text) = sync(&ws, &server.url, &p);
    assert_eq!(code, Some(1));
    assert!(text.contains("too_many_blocks"), "{text}");
    assert!(installed(&p).is_empty());
    drop(server);

    // A server that promises the whole archive and closes halfway.
    huge_payload(&hub, 3);
    let cut_short = r#"
import http.server, os, sys
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
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
"#;
    let Some(server) = serve(&hub, Some(cut_short)) else {
        return;
    };
    let before = support::tree(&p);
    let (code, text) = sync(&ws, &server.url, &p);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("hub_download"), "{text}");
    assert!(installed(&p).is_empty());
    let after = support::tree(&p);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "the profile is as it was"
    );
}

/// The Hub's payload for `huge` 0.1.0, a pack of `blocks` catalog blocks.
fn huge_payload(hub: &Path, blocks: usize) {
    let list: Vec<serde_json::Value> = (0..blocks)
        .map(|i| serde_json::json!({"id": format!("b{i}"), "tag": format!("t{i}")}))
        .collect();
    let payload = serde_json::json!({"catalog": {"id": "huge", "blocks": list}, "release_version": "0.1.0",
        "archive_sha256": "00", "dependencies": [], "archive": "/files/huge-0.1.0.mjolnir"});
    std::fs::write(
        hub.join("api/v1/releases/huge-0.1.0/forge-pack"),
        payload.to_string(),
    )
    .unwrap();
}

/// An enabled map whose manifest needs `slug` at `^version`.
fn write_map_needing(profile: &Path, slug: &str, version: &str) {
    let manifest = serde_json::json!({"schema_version": 1, "name": "Needy", "slug": "needy", "version": "1.0.0", "type": "content",
        "deps": [{"slug": slug, "range": format!("^{version}")}]});
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("mjolnir.json", zip::write::SimpleFileOptions::default())
        .unwrap();
    std::io::Write::write_all(&mut zip, manifest.to_string().as_bytes()).unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    std::fs::write(profile.join("maps/needy.mjolnir"), bytes).unwrap();
}
