//! Shared helpers for the end-to-end tests: a scratch workspace holding copies of the
//! stock packs and a `pipeline.toml`, and a runner for the real `mjolnir` binary.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// Says a test (or a part of one) could not run here and why: printed, and added to
/// `target/tmp/skipped.txt`, which `.ci/run` prints at the end so a skip is never silent.
pub fn skip(why: &str) {
    println!("skipped: {why}");
    let list = Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped.txt");
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(list)
    {
        let test = std::thread::current().name().unwrap_or("?").to_string();
        let _ = std::io::Write::write_all(&mut file, format!("{test}: {why}\n").as_bytes());
    }
}

pub struct Workspace {
    pub dir: tempfile::TempDir,
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The donors the tests cook with: UE 5.8 fixture packages in a small Paks folder
/// (`tests/data/donor-paks`, made by `forge-packgen donor-paks` from `tests/data/donors`).
pub const DONOR_MESH: &str = "/Game/Fixtures/Meshes/SM_Fixture";
pub const DONOR_ACTOR: &str = "/Game/Fixtures/Blueprints/BP_Components";

/// The fixture material instance serves both profiles; its parent exposes `PrimaryColor`
/// and `FixtureRoughness`, and the emissive parameter is added to it.
pub const DONOR_MATERIALS: &str = "glass_material = \"/Game/Fixtures/Materials/MI_Fixture\"\nportal_material = \"/Game/Fixtures/Materials/MI_Fixture\"\ntint_parameter = \"PrimaryColor\"\nopacity_parameter = \"FixtureRoughness\"\n";

/// `forge-packgen`, built beside mjolnir; `None`, with the reason printed for a test that
/// then skips, when it is not.
pub fn packgen() -> Option<PathBuf> {
    let packgen = Path::new(env!("CARGO_BIN_EXE_mjolnir")).with_file_name("forge-packgen");
    if !packgen.is_file() {
        skip("forge-packgen is not built beside mjolnir (cargo test --workspace builds it)");
        return None;
    }
    Some(packgen)
}

pub fn donor_paks() -> PathBuf {
    repo().join("tests/data/donor-paks")
}

impl Workspace {
    /// A workspace with the given stock packs and a configuration that builds them with
    /// the test donors, as a pack author with the game installed would.
    pub fn with_packs(packs: &[&str]) -> Workspace {
        let ws = Workspace::without_donors(packs);
        let donors = format!(
            "[donors]\npaks = {:?}\nstatic_mesh = \"{DONOR_MESH}\"\nactor = \"{DONOR_ACTOR}\"\n{DONOR_MATERIALS}",
            donor_paks().display().to_string()
        );
        let toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
        std::fs::write(ws.path("pipeline.toml"), toml + &donors).unwrap();
        ws
    }

    /// A workspace with the given stock packs and no donors: its sets are not installable.
    pub fn without_donors(packs: &[&str]) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let mut toml = String::from("[build]\nout = \"build\"\n\n");
        for pack in packs {
            copy_dir(
                &repo().join("forge-packs").join(pack),
                &dir.path().join("packs").join(pack),
            );
            toml.push_str(&format!(
                "[[pack]]\nid = \"{pack}\"\npath = \"packs/{pack}\"\n\n"
            ));
        }
        std::fs::write(dir.path().join("pipeline.toml"), toml).unwrap();
        Workspace { dir }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn mjolnir(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_mjolnir"))
            .current_dir(self.dir.path())
            .args(args)
            .output()
            .unwrap()
    }

    pub fn cook(&self, extra: &[&str]) -> Output {
        let mut args = vec!["forge", "cook"];
        args.extend_from_slice(extra);
        let out = self.mjolnir(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "cook failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    pub fn report(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.path("build/report.json")).unwrap()).unwrap()
    }

    /// Ids of the steps that ran in the last cook, sorted.
    pub fn ran(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.report()["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["status"] == "run")
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    }

    pub fn edit(&self, rel: &str, change: impl FnOnce(String) -> String) {
        let path = self.path(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        let changed = change(text.clone());
        assert_ne!(text, changed, "the edit must change {rel}");
        std::fs::write(&path, changed).unwrap();
    }

    pub fn edit_json(&self, rel: &str, change: impl FnOnce(&mut Value)) {
        let path = self.path(rel);
        let mut value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        change(&mut value);
        std::fs::write(&path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    }
}

/// Every file under `dir`, relative path to bytes.
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                out.insert(
                    path.strip_prefix(base)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `bytes` with every `from` replaced by `to`, of the same length: renames a zip member in
/// place (in its local header and the central directory), which the zip writer would not
/// let a test do when the new name repeats another.
pub fn replace_all(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut out = bytes.to_vec();
    let mut at = 0;
    while let Some(i) = out[at..].windows(from.len()).position(|w| w == from) {
        out[at + i..at + i + to.len()].copy_from_slice(to);
        at += i + to.len();
    }
    out
}

/// Headless Chromium, when installed (Debian's `chromium`); a test without it skips and
/// says why.
pub fn chromium() -> Option<&'static str> {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    if found.is_none() {
        skip("Chromium is not installed (Debian package `chromium`), so the page is not opened in a browser");
    }
    found
}

impl Workspace {
    /// Opens `page` (relative to the workspace) in headless Chromium with `mode`
    /// (`--dump-dom`, or `--screenshot=<file>` with a window size) and returns stdout.
    pub fn browse(&self, chromium: &str, page: &str, mode: &[String]) -> Output {
        std::process::Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ])
            .args(mode)
            .arg(format!(
                "--user-data-dir={}",
                self.path("chromium-profile").display()
            ))
            .arg(format!("file://{}", self.path(page).display()))
            .output()
            .unwrap()
    }

    /// The page as the browser built it.
    pub fn dom(&self, chromium: &str, page: &str) -> String {
        let out = self.browse(chromium, page, &["--dump-dom".to_string()]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A screenshot of the page, 1024 pixels wide.
    pub fn screenshot(&self, chromium: &str, page: &str) -> image::RgbaImage {
        let shot = self.path("screenshot.png");
        let _ = std::fs::remove_file(&shot);
        let out = self.browse(
            chromium,
            page,
            &[
                "--window-size=1024,1400".to_string(),
                format!("--screenshot={}", shot.display()),
            ],
        );
        assert!(
            shot.is_file(),
            "no screenshot: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        image::open(&shot).unwrap().to_rgba8()
    }
}

impl Workspace {
    /// A screenshot of `page#fragment` with WebGL on (SwiftShader, Chromium's software
    /// GL), the window `size` pixels, after the page's scripts have had five seconds of
    /// virtual time: what the 3D viewer drew.
    pub fn webgl_screenshot(
        &self,
        chromium: &str,
        page: &str,
        fragment: &str,
        size: [u32; 2],
    ) -> image::RgbaImage {
        let shot = self.path("webgl.png");
        let _ = std::fs::remove_file(&shot);
        let out = self.webgl(
            chromium,
            page,
            fragment,
            size,
            &format!("--screenshot={}", shot.display()),
        );
        assert!(
            shot.is_file(),
            "no screenshot: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        image::open(&shot).unwrap().to_rgba8()
    }

    /// The page as its scripts left it after five seconds of virtual time, WebGL on.
    pub fn webgl_dom(&self, chromium: &str, page: &str, fragment: &str) -> String {
        let out = self.webgl(chromium, page, fragment, [640, 480], "--dump-dom");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn webgl(
        &self,
        chromium: &str,
        page: &str,
        fragment: &str,
        size: [u32; 2],
        mode: &str,
    ) -> Output {
        std::process::Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--virtual-time-budget=5000",
            ])
            .arg(format!("--window-size={},{}", size[0], size[1]))
            .arg(mode)
            .arg(format!(
                "--user-data-dir={}",
                self.path("chromium-profile").display()
            ))
            .arg(format!("file://{}#{fragment}", self.path(page).display()))
            .output()
            .unwrap()
    }
}

/// nginx serving a WebDAV folder on a loopback port, set up as Bazel's documentation sets
/// up an HTTP cache (`dav_methods PUT`, `create_full_put_path`). Stopped when dropped.
pub struct Nginx {
    pub dir: tempfile::TempDir,
    /// The cache's URL, `http://127.0.0.1:<port>/cache`.
    pub url: String,
    child: std::process::Child,
}

impl Nginx {
    /// Started from Debian's `nginx` (package `nginx-core`), or `None` with the reason
    /// printed when it is not installed.
    pub fn start() -> Option<Nginx> {
        Nginx::cache(None)
    }

    /// Like [`Nginx::start`], with Basic authentication for one login.
    pub fn start_with_login(login: &str, password: &str) -> Option<Nginx> {
        Nginx::cache(Some((login, password)))
    }

    fn cache(login: Option<(&str, &str)>) -> Option<Nginx> {
        let Some(binary) = Nginx::binary() else {
            skip("nginx is not installed (Debian package `nginx-core`), so there is no cache server to test against");
            return None;
        };
        Some(Nginx::serve(binary, login, None))
    }

    /// nginx serving `site` as static files at `/` (read-only), as a Hub is served, or
    /// `None` when nginx is not installed.
    pub fn static_site(site: &Path) -> Option<Nginx> {
        Some(Nginx::serve(Nginx::binary()?, None, Some(site)))
    }

    fn binary() -> Option<&'static str> {
        ["/usr/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .find(|p| Path::new(p).exists())
    }

    fn serve(binary: &str, login: Option<(&str, &str)>, site: Option<&Path>) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let root = dir.path().display().to_string();
        let auth = match login {
            Some((login, password)) => {
                let htpasswd = format!("{login}:{{PLAIN}}{password}\n");
                std::fs::write(dir.path().join("htpasswd"), htpasswd).unwrap();
                format!("auth_basic \"cache\";\n      auth_basic_user_file {root}/htpasswd;\n    ")
            }
            None => String::new(),
        };
        // Workers run as this user, so they can write the temporary folder.
        let user = if running_as_root() {
            "user root;\n"
        } else {
            ""
        };
        let location = match site {
            Some(site) => format!("location / {{\n      root {};\n    }}", site.display()),
            None => format!(
                "location /cache/ {{\n\
                 root {root}/data;\n      dav_methods PUT;\n      create_full_put_path on;\n\
                 dav_access user:rw group:r all:r;\n      client_max_body_size 0;\n    {auth}}}"
            ),
        };
        let conf = format!(
            "{user}worker_processes 2;\nerror_log {root}/error.log;\npid {root}/nginx.pid;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n  access_log off;\n  sendfile on;\n  client_body_temp_path {root}/body;\n\
               proxy_temp_path {root}/proxy;\n  fastcgi_temp_path {root}/fastcgi;\n\
               uwsgi_temp_path {root}/uwsgi;\n  scgi_temp_path {root}/scgi;\n\
               server {{\n    listen 127.0.0.1:{port};\n    {location}\n  }}\n}}\n"
        );
        std::fs::create_dir_all(dir.path().join("data/cache")).unwrap();
        std::fs::write(dir.path().join("nginx.conf"), conf).unwrap();
        let child = Command::new(binary)
            .args(["-p", &root, "-c", &format!("{root}/nginx.conf")])
            .args(["-g", "daemon off;"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let nginx = Nginx {
            dir,
            url: match site {
                Some(_) => format!("http://127.0.0.1:{port}"),
                None => format!("http://127.0.0.1:{port}/cache"),
            },
            child,
        };
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return nginx;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!(
            "nginx did not start: {}",
            std::fs::read_to_string(nginx.dir.path().join("error.log")).unwrap_or_default()
        );
    }

    /// The files the server holds under `cas/` or `ac/`, by name.
    pub fn files(&self, folder: &str) -> Vec<PathBuf> {
        let dir = self.dir.path().join("data/cache").join(folder);
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        files.sort();
        files
    }

    /// Stops the server (its workers too: they exit on the master's fast shutdown, while
    /// killing the master outright would leave them serving).
    pub fn stop(self) {}
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}
