//! The shared remote cache against a real server: nginx with WebDAV PUT on a loopback
//! port, as Bazel's documentation sets up an HTTP cache. Each "machine" is a separate
//! clone of the packs in its own folder, with its own local cache.

use crate::support;

use serde_json::Value;
use support::{stderr, tree, Nginx, Workspace};

const PACKS: &[&str] = &["foundry"];

/// RFC 8032 test 1's seed and public key: the writer every machine here trusts.
const WRITER_SEED: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const WRITER_KEY: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

/// A machine that signs what it writes with the shared writer key and trusts it.
fn machine() -> Workspace {
    let ws = Workspace::with_packs(PACKS);
    std::fs::write(ws.path("writer.key"), WRITER_SEED).unwrap();
    let toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
    std::fs::write(
        ws.path("pipeline.toml"),
        format!(
            "{toml}\n[cache]\nwriter_key = \"writer.key\"\ntrusted_writers = [\"{WRITER_KEY}\"]\n"
        ),
    )
    .unwrap();
    ws
}

/// A machine that only reads, trusting the shared writer key.
fn reader() -> Workspace {
    let ws = Workspace::with_packs(PACKS);
    let toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
    std::fs::write(
        ws.path("pipeline.toml"),
        format!("{toml}\n[cache]\ntrusted_writers = [\"{WRITER_KEY}\"]\n"),
    )
    .unwrap();
    ws
}

/// Machines like [`machine`] and [`reader`] with a generated two-block pack dense enough
/// that each block's share of the container (`chunks.data`) is a blob of its own on the
/// server, over the inline limit, and one the reader fetches to write the `.ucas`. `None`
/// (the test skips) when forge-packgen is not built beside mjolnir.
fn dense_machines() -> Option<(Workspace, Workspace)> {
    let packgen = support::packgen()?;
    let make = |signs: bool| {
        let ws = Workspace::with_packs(&[]);
        let out = std::process::Command::new(&packgen)
            .args([
                "synth",
                "packs/dense",
                "--blocks",
                "2",
                "--triangles",
                "8000",
                "--id",
                "dense",
            ])
            .current_dir(ws.path(""))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
        let writer = if signs {
            "writer_key = \"writer.key\"\n"
        } else {
            ""
        };
        std::fs::write(ws.path("writer.key"), WRITER_SEED).unwrap();
        std::fs::write(
            ws.path("pipeline.toml"),
            format!("[[pack]]\nid = \"dense\"\npath = \"packs/dense\"\n\n{toml}\n[cache]\n{writer}trusted_writers = [\"{WRITER_KEY}\"]\n"),
        )
        .unwrap();
        ws
    };
    Some((make(true), make(false)))
}

/// The server's blob of the largest `chunks.data` the first machine made.
fn block_data_blob(first: &Workspace, server: &Nginx) -> std::path::PathBuf {
    let report = first.report();
    let (size, hash) = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["outputs"].as_array().unwrap())
        .filter(|o| o["name"] == "chunks.data")
        .map(|o| {
            (
                o["size"].as_u64().unwrap(),
                o["hash"].as_str().unwrap().to_string(),
            )
        })
        .max()
        .unwrap();
    assert!(
        size > engine::remote::action_result::INLINE_MAX,
        "{size} B is inlined"
    );
    let bytes =
        std::fs::read(first.path(&format!("build/cache/blobs/{}/{hash}", &hash[..2]))).unwrap();
    let sha = engine::remote::sha256_hex(&bytes);
    server.dir.path().join(format!("data/cache/cas/{sha}"))
}

fn remote(ws: &Workspace) -> Value {
    ws.report()["summary"]["remote"].clone()
}

fn game(ws: &Workspace) -> std::collections::BTreeMap<String, Vec<u8>> {
    tree(&ws.path("build/game"))
}

/// The entries on the server that file a stage's bundle, and the bundles' blobs.
fn bundles(server: &Nginx) -> (Vec<std::path::PathBuf>, Vec<std::path::PathBuf>) {
    use prost::Message;
    let mut entries = Vec::new();
    let mut blobs = Vec::new();
    for entry in server.files("ac") {
        let bytes = std::fs::read(&entry).unwrap();
        let result = engine::remote::action_result::ActionResult::decode(bytes.as_slice()).unwrap();
        if let [file] = &result.output_files[..] {
            if file.path == engine::remote::bundle::OUTPUT {
                let sha = &file.digest.as_ref().unwrap().hash;
                blobs.push(server.dir.path().join(format!("data/cache/cas/{sha}")));
                entries.push(entry);
            }
        }
    }
    (entries, blobs)
}

#[test]
fn a_fresh_clone_cooks_from_a_warm_remote_byte_for_byte() {
    let Some(server) = Nginx::start() else { return };
    let first = machine();
    first.cook(&["--remote-cache", &server.url]);
    let uploaded = remote(&first);
    let steps = first.report()["summary"]["steps"].as_u64().unwrap();
    assert_eq!(
        uploaded["uploaded_entries"].as_u64(),
        Some(steps),
        "{uploaded}"
    );
    assert!(!server.files("cas").is_empty());

    assert_eq!(uploaded["bundles_uploaded"].as_u64(), Some(1), "{uploaded}");
    assert_eq!(bundles(&server).0.len(), 1);

    let fresh = machine();
    let out = fresh.cook(&["--remote-cache", &server.url, "--explain"]);
    assert!(fresh.ran().is_empty(), "ran: {:?}", fresh.ran());
    assert_eq!(remote(&fresh)["hits"].as_u64(), Some(steps));
    // The whole cook came in one bundle.
    assert_eq!(remote(&fresh)["bundles_taken"].as_u64(), Some(1));
    assert_eq!(remote(&fresh)["bundled_entries"].as_u64(), Some(steps));
    let requests = remote(&fresh)["requests"].as_u64().unwrap();
    assert!(
        requests < steps / 4,
        "{requests} requests for {steps} steps"
    );
    // Large outputs no step had to read and no set holds were never fetched.
    let listed = remote(&fresh)["listed_blobs"].as_u64().unwrap();
    let fetched = remote(&fresh)["downloaded_blobs"].as_u64().unwrap();
    assert!(fetched < listed, "{}", remote(&fresh));
    assert!(
        stderr(&out).contains("stayed on the remote cache"),
        "--explain says so: {}",
        stderr(&out)
    );
    assert_eq!(remote(&fresh)["uploaded_entries"].as_u64(), Some(0));
    assert!(stderr(&out).contains("remote cache: "), "{}", stderr(&out));
    assert_eq!(
        game(&fresh),
        game(&first),
        "the same bytes as the machine that cooked"
    );

    // And the same as a cook that never saw the remote.
    let local = machine();
    local.cook(&[]);
    assert_eq!(game(&local), game(&first));
}

#[test]
fn a_read_only_machine_never_writes() {
    let Some(server) = Nginx::start() else { return };
    let ws = machine();
    ws.cook(&["--remote-cache", &server.url, "--remote-cache-readonly"]);
    assert!(!ws.ran().is_empty());
    assert_eq!(remote(&ws)["misses"].as_u64(), Some(ws.ran().len() as u64));
    assert!(server.files("ac").is_empty() && server.files("cas").is_empty());
}

#[test]
fn damaged_or_misplaced_remote_entries_are_refused_and_cooked_locally() {
    let Some(server) = Nginx::start() else { return };
    let Some((first, second)) = dense_machines() else {
        return;
    };
    first.cook(&["--remote-cache", &server.url]);
    // Without the stage's bundle every step is asked for alone.
    let (bundle_entries, bundle_blobs) = bundles(&server);
    for file in bundle_entries.iter().chain(&bundle_blobs) {
        std::fs::remove_file(file).unwrap();
    }
    // A block's container data, which the reader needs for the .ucas, gets one byte
    // flipped...
    let largest = &block_data_blob(&first, &server);
    let mut bytes = std::fs::read(largest).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(largest, &bytes).unwrap();
    // ...and one step's entry is replaced by another step's.
    let entries = server.files("ac");
    std::fs::copy(&entries[0], &entries[1]).unwrap();

    let out = second.cook(&["--remote-cache", &server.url]);
    let counts = remote(&second);
    assert!(counts["refused"].as_u64().unwrap() >= 2, "{counts}");
    let warnings = stderr(&out);
    assert!(
        warnings.contains("warning[remote_cache_refused]"),
        "{warnings}"
    );
    assert!(
        warnings.contains("is not the blob its entry names"),
        "{warnings}"
    );
    assert!(
        warnings.contains("its signature does not verify"),
        "{warnings}"
    );
    assert!(!second.ran().is_empty());
    assert_eq!(
        game(&second),
        game(&first),
        "nothing damaged reached build/game"
    );
}

#[test]
fn a_stage_bundle_is_taken_only_whole_and_signed() {
    use engine::remote::bundle;
    let Some(server) = Nginx::start() else { return };
    let first = machine();
    first.cook(&["--remote-cache", &server.url]);
    let (entries, blobs) = bundles(&server);
    assert_eq!(entries.len(), 1);
    let (entry, blob) = (&entries[0], &blobs[0]);
    // One step's entry inside the bundle is filed under another step's key, and the
    // bundle's entry re-signed by a key no one trusts: it is refused whole, and every step
    // is asked for alone (and all hit).
    let (mut held, landing) = bundle::decode(&std::fs::read(blob).unwrap()).unwrap();
    held[0].1 = held[1].1.clone();
    let forged = bundle::encode(held, landing);
    let sha = engine::remote::sha256_hex(&forged);
    let forged_blob = server.dir.path().join(format!("data/cache/cas/{sha}"));
    std::fs::write(&forged_blob, &forged).unwrap();
    let stranger = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";
    let stranger = forge_release::signature::key_from_seed(stranger.as_bytes()).unwrap();
    let key = entry.file_name().unwrap().to_string_lossy().into_owned();
    let listed = vec![engine::remote::RemoteOutput {
        name: bundle::OUTPUT.into(),
        sha256: sha,
        blake3: blake3::hash(&forged).to_hex().to_string(),
        size: forged.len() as u64,
        inline: None,
        spliced: None,
    }];
    let original = std::fs::read(entry).unwrap();
    let signed = engine::remote::action_result::encode(&key, &listed, &stranger);
    std::fs::write(entry, signed).unwrap();
    let second = reader();
    let out = second.cook(&["--remote-cache", &server.url]);
    let counts = remote(&second);
    assert_eq!(counts["bundles_refused"].as_u64(), Some(1), "{counts}");
    assert_eq!(counts["bundles_taken"].as_u64(), Some(0), "{counts}");
    assert!(
        stderr(&out).contains("remote bundle") && stderr(&out).contains("trusted_writers"),
        "{}",
        stderr(&out)
    );
    assert!(second.ran().is_empty(), "ran: {:?}", second.ran());
    assert_eq!(game(&second), game(&first));

    // The trusted writer's entry back, with a byte of the bundle it carries changed: its
    // digest fails, so it is refused whole too.
    use prost::Message;
    let mut result =
        engine::remote::action_result::ActionResult::decode(original.as_slice()).unwrap();
    assert_eq!(
        result.output_files[0].contents,
        std::fs::read(blob).unwrap(),
        "the entry carries its bundle"
    );
    result.output_files[0].contents[10] ^= 1;
    std::fs::write(entry, result.encode_to_vec()).unwrap();
    let third = reader();
    let out = third.cook(&["--remote-cache", &server.url]);
    let counts = remote(&third);
    assert_eq!(counts["bundles_refused"].as_u64(), Some(1), "{counts}");
    assert!(
        stderr(&out).contains("fail their digests"),
        "{}",
        stderr(&out)
    );
    assert!(third.ran().is_empty(), "ran: {:?}", third.ran());
    assert_eq!(game(&third), game(&first));
}

#[test]
fn a_blob_longer_than_its_entry_says_is_refused_as_it_arrives() {
    let Some(server) = Nginx::start() else { return };
    let Some((first, second)) = dense_machines() else {
        return;
    };
    first.cook(&["--remote-cache", &server.url]);
    // A block's container data, which the reader needs for the .ucas, gets a megabyte
    // more on the server.
    let largest = block_data_blob(&first, &server);
    let mut bytes = std::fs::read(&largest).unwrap();
    let declared = bytes.len();
    bytes.extend(std::iter::repeat_n(0u8, 1 << 20));
    std::fs::write(&largest, &bytes).unwrap();

    let out = second.cook(&["--remote-cache", &server.url]);
    let warnings = stderr(&out);
    assert!(
        warnings.contains("larger than its entry says"),
        "{warnings}"
    );
    assert!(remote(&second)["refused"].as_u64().unwrap() >= 1);
    assert_eq!(game(&second), game(&first), "the local cook's bytes");
    // Nothing of it reached the store: no blob there has the inflated size, or the name
    // of the bytes the server sent.
    let stored = tree(&second.path("build/cache/blobs"));
    assert!(stored.values().all(|b| b.len() != bytes.len()));
    let sent = blake3::hash(&bytes).to_hex().to_string();
    assert!(stored.keys().all(|name| !name.ends_with(&sent)));
    assert!(
        stored.values().any(|b| b.len() == declared),
        "cooked locally"
    );
    second.cook(&[]);
    assert!(second.ran().is_empty(), "ran: {:?}", second.ran());
    assert_eq!(game(&second), game(&first));
}

#[test]
fn a_stopped_server_means_a_local_cook_and_one_warning() {
    let Some(server) = Nginx::start() else { return };
    let url = server.url.clone();
    server.stop();
    let ws = machine();
    let out = ws.cook(&["--remote-cache", &url]);
    let warnings = stderr(&out);
    assert_eq!(
        warnings.matches("warning[remote_cache_down]").count(),
        1,
        "{warnings}"
    );
    let local = machine();
    local.cook(&[]);
    assert_eq!(game(&ws), game(&local));
}

#[test]
fn a_server_that_never_answers_times_out_once() {
    // Accepts connections (the kernel does) and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/cache", silent.local_addr().unwrap());
    let ws = Workspace::with_packs(PACKS);
    let toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
    std::fs::write(
        ws.path("pipeline.toml"),
        format!("{toml}\n[cache]\nremote = \"{url}\"\nremote_timeout_s = 1\n"),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let out = ws.cook(&[]);
    let warnings = stderr(&out);
    assert_eq!(
        warnings.matches("warning[remote_cache_down]").count(),
        1,
        "{warnings}"
    );
    // One timeout, not one per step (generous, for a loaded machine).
    assert!(started.elapsed().as_secs() < 60);
}

#[test]
fn two_machines_writing_at_once_leave_a_cache_a_third_can_use() {
    let Some(server) = Nginx::start() else { return };
    let machines = [machine(), machine()];
    let cooks: Vec<std::process::Child> = machines
        .iter()
        .map(|ws| {
            std::process::Command::new(env!("CARGO_BIN_EXE_mjolnir"))
                .current_dir(ws.dir.path())
                .args(["forge", "cook", "--remote-cache", &server.url])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for cook in cooks {
        let out = cook.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let third = machine();
    third.cook(&["--remote-cache", &server.url]);
    assert!(third.ran().is_empty(), "ran: {:?}", third.ran());
    assert_eq!(remote(&third)["refused"].as_u64(), Some(0));
    assert_eq!(game(&third), game(&machines[0]));
    assert_eq!(game(&third), game(&machines[1]));
}

#[test]
fn credentials_in_the_url_are_refused() {
    let ws = machine();
    let out = ws.mjolnir(&[
        "forge",
        "cook",
        "--remote-cache",
        "http://ci:secret@127.0.0.1:9/cache",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("error[remote_cache_credentials]"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn credentials_come_from_netrc_or_the_token_variable() {
    let Some(server) = Nginx::start_with_login("ci", "s3cret") else {
        return;
    };
    let cook = |ws: &Workspace, env: &[(&str, String)]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mjolnir"));
        command
            .current_dir(ws.dir.path())
            .args(["forge", "cook", "--remote-cache", &server.url])
            .env_remove("MJOLNIR_REMOTE_CACHE_TOKEN")
            .env("NETRC", ws.path("no-netrc"));
        for (k, v) in env {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        out
    };
    // Without credentials: refused once, cooked locally.
    let ws = machine();
    let out = cook(&ws, &[]);
    assert!(stderr(&out).contains("answered 401"), "{}", stderr(&out));
    assert!(server.files("ac").is_empty());
    // With the host's netrc entry: written.
    let ws = machine();
    let netrc = ws.path("netrc");
    std::fs::write(&netrc, "machine 127.0.0.1 login ci password s3cret\n").unwrap();
    cook(&ws, &[("NETRC", netrc.display().to_string())]);
    assert!(remote(&ws)["uploaded_entries"].as_u64().unwrap() > 0);
    // A wrong token wins over netrc, and is refused.
    let ws = machine();
    let out = cook(
        &ws,
        &[
            ("NETRC", netrc.display().to_string()),
            ("MJOLNIR_REMOTE_CACHE_TOKEN", "wrong".into()),
        ],
    );
    assert!(
        stderr(&out).contains("MJOLNIR_REMOTE_CACHE_TOKEN"),
        "{}",
        stderr(&out)
    );
    assert_eq!(remote(&ws)["hits"].as_u64(), Some(0));
}

#[test]
fn a_machine_without_a_writer_key_never_uploads() {
    let Some(server) = Nginx::start() else { return };
    let ws = reader();
    ws.cook(&["--remote-cache", &server.url]);
    assert!(!ws.ran().is_empty());
    assert!(server.files("ac").is_empty() && server.files("cas").is_empty());
}

/// Rewrites every entry on the server with `change`, as someone who can PUT would.
fn rewrite_entries(
    server: &Nginx,
    change: impl Fn(&mut engine::remote::action_result::ActionResult),
) {
    use prost::Message;
    for entry in server.files("ac") {
        let bytes = std::fs::read(&entry).unwrap();
        let mut result =
            engine::remote::action_result::ActionResult::decode(bytes.as_slice()).unwrap();
        change(&mut result);
        std::fs::write(&entry, result.encode_to_vec()).unwrap();
    }
}

#[test]
fn forged_unsigned_or_foreign_entries_never_reach_a_set_or_the_local_cache() {
    let Some(server) = Nginx::start() else { return };
    let first = machine();
    first.cook(&["--remote-cache", &server.url]);
    let local = Workspace::with_packs(PACKS);
    local.cook(&[]);
    // A forged manifest: every small output's bytes replaced, its digest made to match
    // and the entry left unsigned, as anyone who can PUT could do.
    rewrite_entries(&server, |result| {
        for file in &mut result.output_files {
            if !file.contents.is_empty() {
                file.contents = b"{\"forged\": true}".to_vec();
                let digest = file.digest.as_mut().unwrap();
                digest.hash = engine::remote::sha256_hex(&file.contents);
                digest.size_bytes = file.contents.len() as i64;
            }
        }
        result.stdout_raw = b"mjolnir-seal 00".to_vec();
    });
    let second = reader();
    let out = second.cook(&["--remote-cache", &server.url]);
    let counts = remote(&second);
    assert!(counts["refused_unsigned"].as_u64().unwrap() > 0, "{counts}");
    assert_eq!(counts["hits"].as_u64(), Some(0), "{counts}");
    assert!(stderr(&out).contains("unsigned)"), "{}", stderr(&out));
    assert_eq!(game(&second), game(&local), "the local cook's bytes");
    // Nothing forged entered the local cache: without the remote, all is cached and the
    // same bytes.
    second.cook(&[]);
    assert!(second.ran().is_empty(), "ran: {:?}", second.ran());
    assert_eq!(game(&second), game(&local));
    // Entries signed by a key no one trusts are refused the same way.
    let stranger = Workspace::with_packs(PACKS);
    let other_seed = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";
    std::fs::write(stranger.path("writer.key"), other_seed).unwrap();
    let toml = std::fs::read_to_string(stranger.path("pipeline.toml")).unwrap();
    std::fs::write(
        stranger.path("pipeline.toml"),
        format!("{toml}\n[cache]\nwriter_key = \"writer.key\"\n"),
    )
    .unwrap();
    let Some(fresh_server) = Nginx::start() else {
        return;
    };
    stranger.cook(&["--remote-cache", &fresh_server.url]);
    assert!(!fresh_server.files("ac").is_empty());
    let third = reader();
    third.cook(&["--remote-cache", &fresh_server.url]);
    let counts = remote(&third);
    assert!(
        counts["refused_untrusted"].as_u64().unwrap() > 0,
        "{counts}"
    );
    assert_eq!(counts["hits"].as_u64(), Some(0), "{counts}");
    assert_eq!(game(&third), game(&local));
}

#[test]
fn cache_key_new_makes_a_private_writer_key_and_prints_what_readers_trust() {
    let ws = Workspace::with_packs(PACKS);
    let out = ws.mjolnir(&["cache", "key", "new", "--out", "ci.key"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let seed = std::fs::read_to_string(ws.path("ci.key")).unwrap();
    assert_eq!(seed.trim().len(), 64);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(ws.path("ci.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let key = forge_release::signature::key_from_seed(seed.as_bytes()).unwrap();
    let public = forge_release::signature::hex(key.verifying_key().as_bytes());
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("\"{public}\"")));
    // It never overwrites a key.
    let again = ws.mjolnir(&["cache", "key", "new", "--out", "ci.key"]);
    assert_eq!(again.status.code(), Some(2));
}

#[test]
fn an_entry_listing_outputs_the_step_does_not_make_is_refused_before_its_blobs_are_fetched() {
    let Some(server) = Nginx::start() else { return };
    let first = machine();
    first.cook(&["--remote-cache", &server.url]);
    // A 16 MB blob the server really holds, and every entry re-signed by the trusted
    // writer to list it as an extra output: only the names give it away.
    let big = vec![7u8; 16 << 20];
    let sha = engine::remote::sha256_hex(&big);
    std::fs::write(
        server.dir.path().join(format!("data/cache/cas/{sha}")),
        &big,
    )
    .unwrap();
    let writer = forge_release::signature::key_from_seed(WRITER_SEED.as_bytes()).unwrap();
    let trusted = [writer.verifying_key()];
    for entry in server.files("ac") {
        let key = entry.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&entry).unwrap();
        let mut outputs = engine::remote::action_result::decode(&key, &bytes, &trusted).unwrap();
        outputs.push(engine::remote::RemoteOutput {
            name: "extra.bin".into(),
            sha256: sha.clone(),
            blake3: blake3::hash(&big).to_hex().to_string(),
            size: big.len() as u64,
            inline: None,
            spliced: None,
        });
        let signed = engine::remote::action_result::encode(&key, &outputs, &writer);
        std::fs::write(&entry, signed).unwrap();
    }
    let second = reader();
    let out = second.cook(&["--remote-cache", &server.url]);
    let counts = remote(&second);
    let steps = second.report()["summary"]["steps"].as_u64().unwrap();
    // Kinds whose outputs are named by what they read (a catalog's blocks) cannot tell an
    // extra name; every kind with fixed outputs refuses the entry, and only the entries it
    // took had their blobs fetched.
    let (refused, hits) = (
        counts["refused"].as_u64().unwrap(),
        counts["hits"].as_u64().unwrap(),
    );
    assert_eq!(refused + hits, steps, "{counts}");
    assert!(refused > steps * 9 / 10, "{counts}");
    assert!(stderr(&out).contains("extra.bin"), "{}", stderr(&out));
    assert!(
        counts["bytes_down"].as_u64().unwrap() < (hits + 1) * (16 << 20),
        "no refused entry's blob was fetched: {counts}"
    );
}

#[test]
fn a_server_that_stalls_mid_body_is_turned_off_after_one_wait() {
    // Answers every request's headers, then never finishes the body.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = r#"
import http.server, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header('Content-Length', '100000')
        self.end_headers()
        self.wfile.write(b'x' * 10)
        self.wfile.flush()
        time.sleep(30)
    do_HEAD = do_GET
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
"#;
    let Ok(mut server) = std::process::Command::new("python3")
        .args(["-c", script, &port.to_string()])
        .spawn()
    else {
        support::skip("python3 cannot start the stalling server");
        return;
    };
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let ws = reader();
    let toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
    let url = format!("http://127.0.0.1:{port}/cache");
    std::fs::write(
        ws.path("pipeline.toml"),
        toml.replace(
            "[cache]\n",
            &format!("[cache]\nremote = \"{url}\"\nremote_timeout_s = 1\n"),
        ),
    )
    .unwrap();
    let out = ws.cook(&[]);
    let _ = server.kill();
    let _ = server.wait();
    let warnings = stderr(&out);
    assert_eq!(
        warnings.matches("warning[remote_cache_down]").count(),
        1,
        "{warnings}"
    );
    let local = Workspace::with_packs(PACKS);
    local.cook(&[]);
    assert_eq!(game(&ws), game(&local));
}
