//! The authoring guide, run: every command in `docs/authoring.md`'s `sh` blocks, in order,
//! in an empty folder, with the test donors standing in for the game's Paks.

mod support;

use std::process::Command;

use support::{donor_paks, repo, DONOR_ACTOR, DONOR_MESH};

/// The commands of the guide's `sh` blocks, in order.
fn guide_commands() -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("docs/authoring.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in text.lines() {
        match line.trim() {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            command if in_sh && !command.is_empty() => commands.push(command.to_string()),
            _ => {}
        }
    }
    commands
}

#[test]
fn the_authoring_guide_runs_from_new_to_a_signed_verified_archive() {
    let commands = guide_commands();
    assert!(commands.len() >= 5, "{commands:?}");
    let dir = tempfile::tempdir().unwrap();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_mjolnir"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for command in &commands {
        let out = Command::new("sh")
            .args(["-c", command])
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("MJOLNIR_CONFIG_DIR", dir.path().join("config"))
            .env("PAKS", donor_paks())
            .env("DONOR_MESH", DONOR_MESH)
            .env("DONOR_ACTOR", DONOR_ACTOR)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{command}` failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(dir.path().join("my-pack-0.1.0.mjolnir").is_file());
}

#[test]
fn a_cook_without_a_configuration_says_how_to_make_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mjolnir"))
        .args(["forge", "cook"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("error[no_config]") && text.contains("mjolnir forge new"),
        "{text}"
    );
}
