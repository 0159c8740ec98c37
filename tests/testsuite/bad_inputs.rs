//! Runs every case in `tests/bad-inputs/`: each broken input gets its coded error and exit
//! status, never a panic, writes nothing into the materialized outputs, and leaves a cache
//! with which the next good cook is byte-identical to a clean one.

use crate::support;

use std::io::Write;

use serde_json::Value;
use support::{copy_dir, replace_all, repo, stderr, tree, Workspace};

fn apply_edit(ws: &Workspace, edit: &Value) {
    if let Some(all) = edit.as_array() {
        return all.iter().for_each(|e| apply_edit(ws, e));
    }
    let rel = format!("packs/foundry/{}", edit["file"].as_str().unwrap());
    let path = ws.path(&rel);
    if let Some(pointer) = edit["pointer"].as_str() {
        let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let value = edit["value"].clone();
        if let Some(parent) = pointer.strip_suffix("/-") {
            doc.pointer_mut(parent)
                .unwrap()
                .as_array_mut()
                .unwrap()
                .push(value);
        } else if let Some(slot) = doc.pointer_mut(pointer) {
            *slot = value;
        } else {
            // A member the document lacks is added to its object.
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            doc.pointer_mut(parent)
                .and_then(Value::as_object_mut)
                .unwrap_or_else(|| panic!("{pointer}"))
                .insert(key.to_string(), value);
        }
        std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    } else if let Some(pair) = edit["raw_replace"].as_array() {
        let text = std::fs::read_to_string(&path).unwrap();
        let (from, to) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
        assert!(text.contains(from), "{rel} lacks {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    } else if let Some(n) = edit["truncate"].as_u64() {
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..n as usize]).unwrap();
    } else if edit["delete"].as_bool() == Some(true) {
        std::fs::remove_file(&path).unwrap();
    } else if edit["symlink"].as_bool() == Some(true) {
        let outside = ws.path("outside.bin");
        std::fs::rename(&path, &outside).unwrap();
        std::os::unix::fs::symlink(&outside, &path).unwrap();
    } else if let Some(n) = edit["repeat_block"].as_u64() {
        let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let first = doc["forge_pack"]["blocks"][0].clone();
        let blocks: Vec<Value> = (0..n)
            .map(|i| {
                let mut b = first.clone();
                b["id"] = Value::from(format!("b{i}"));
                b["tag"] = Value::from(format!("objects\\mjolnir\\forge\\foundry\\b{i}"));
                b
            })
            .collect();
        doc["forge_pack"]["blocks"] = Value::from(blocks);
        std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    } else {
        panic!("unknown edit {edit}");
    }
}

fn make_artifact(ws: &Workspace, artifact: &Value) -> String {
    let bytes = match artifact["from"].as_str().unwrap() {
        "archive" => {
            let out = ws.mjolnir(&[
                "forge",
                "pack",
                "build/game/foundry/all/mjolnir.json",
                "--content",
                "build/game/foundry/all/content",
                "--out",
                "good.mjolnir",
            ]);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            std::fs::read(ws.path("good.mjolnir")).unwrap()
        }
        "bomb" => {
            // One member of zeros that inflates past the 256 MiB bound from a few hundred KiB.
            let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            zip.start_file("mjolnir.json", zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(b"{}").unwrap();
            zip.start_file(
                "docs/bomb.txt",
                zip::write::SimpleFileOptions::default()
                    .compression_method(zip::CompressionMethod::Deflated),
            )
            .unwrap();
            let zeros = vec![0u8; 1 << 20];
            for _ in 0..260 {
                zip.write_all(&zeros).unwrap();
            }
            zip.finish().unwrap().into_inner()
        }
        "container_bomb_archive" => {
            // A good release whose container is the checked-in container bomb.
            let good = make_artifact(ws, &serde_json::json!({"from": "archive"}));
            let bytes = std::fs::read(ws.path(&good)).unwrap();
            let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
            let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            let bomb = repo().join("tests/bad-inputs/container-bomb");
            for i in 0..archive.len() {
                let mut member = archive.by_index(i).unwrap();
                let name = member.name().unwrap().to_string();
                let mut data = Vec::new();
                std::io::Read::read_to_end(&mut member, &mut data).unwrap();
                if let Some(ext) = name.strip_prefix("content/foundry_P.") {
                    data = std::fs::read(bomb.with_extension(ext)).unwrap();
                }
                zip.start_file(name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                zip.write_all(&data).unwrap();
            }
            zip.finish().unwrap().into_inner()
        }
        hostile @ ("duplicate_member_archive" | "symlink_member_archive") => {
            // A good release with one hostile member added: a second copy of its .ucas
            // (named apart, then renamed in place in the zip's bytes), or a symlink.
            let good = make_artifact(ws, &serde_json::json!({"from": "archive"}));
            let bytes = std::fs::read(ws.path(&good)).unwrap();
            let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
            let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            let options = zip::write::SimpleFileOptions::default();
            for i in 0..archive.len() {
                let mut member = archive.by_index(i).unwrap();
                let name = member.name().unwrap().to_string();
                let mut data = Vec::new();
                std::io::Read::read_to_end(&mut member, &mut data).unwrap();
                zip.start_file(name, options).unwrap();
                zip.write_all(&data).unwrap();
            }
            if hostile == "symlink_member_archive" {
                zip.add_symlink("docs/notes.md", "/etc/passwd", options)
                    .unwrap();
                zip.finish().unwrap().into_inner()
            } else {
                zip.start_file("content/foundry_P.ucaX", options).unwrap();
                zip.write_all(b"not the container").unwrap();
                let bytes = zip.finish().unwrap().into_inner();
                replace_all(&bytes, b"content/foundry_P.ucaX", b"content/foundry_P.ucas")
            }
        }
        rel if rel.starts_with("tests/") => std::fs::read(repo().join(rel)).unwrap(),
        rel => std::fs::read(ws.path(rel)).unwrap(),
    };
    let bytes = match artifact["truncate"].as_u64() {
        Some(n) => bytes[..n as usize].to_vec(),
        None => bytes,
    };
    let ext = if artifact["from"].as_str().unwrap().ends_with(".utoc") {
        "utoc"
    } else {
        "mjolnir"
    };
    let name = format!("broken.{ext}");
    std::fs::write(ws.path(&name), bytes).unwrap();
    name
}

#[test]
fn every_bad_input_gets_a_coded_error_and_leaves_the_build_sound() {
    let dir = repo().join("tests/bad-inputs");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 19, "the corpus has {} cases", cases.len());
    let clean = Workspace::with_packs(&["foundry"]);
    clean.cook(&[]);
    let expected = tree(&clean.path("build/game"));
    for case_path in cases {
        let name = case_path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let case: Value = serde_json::from_slice(&std::fs::read(&case_path).unwrap()).unwrap();
        let ws = Workspace::with_packs(&["foundry"]);
        ws.cook(&[]);
        let before = tree(&ws.path("build/game"));
        let out = match case["command"].as_str().unwrap() {
            "cook" => {
                if !case["edit"].is_null() {
                    apply_edit(&ws, &case["edit"]);
                }
                let config = ws.path("pipeline.toml");
                let good_config = std::fs::read_to_string(&config).unwrap();
                if let Some(extra) = case["config"].as_str() {
                    std::fs::write(&config, format!("{good_config}{extra}")).unwrap();
                }
                let mut args = vec!["forge", "cook"];
                args.extend(
                    case["args"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str),
                );
                let out = ws.mjolnir(&args);
                std::fs::write(&config, good_config).unwrap();
                out
            }
            "inspect" => {
                let file = make_artifact(&ws, &case["artifact"]);
                ws.mjolnir(&["forge", "inspect", &file])
            }
            "verify" => {
                let file = make_artifact(&ws, &case["artifact"]);
                ws.mjolnir(&["forge", "verify", &file])
            }
            other => panic!("{name}: unknown command {other}"),
        };
        let code = out.status.code();
        assert_ne!(code, Some(101), "{name}: panicked\n{}", stderr(&out));
        assert_eq!(
            code,
            Some(case["expect_exit"].as_i64().unwrap() as i32),
            "{name}\n{}",
            stderr(&out)
        );
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        let expect = case["expect_code"].as_str().unwrap();
        assert!(
            text.contains(&format!("[{expect}]")) || text.contains(&format!("\"{expect}\"")),
            "{name}: expected {expect}\n{text}"
        );
        assert!(
            tree(&ws.path("build/game")) == before,
            "{name}: the materialized outputs changed"
        );
        // Restore the good sources: the next cook is exactly a clean cook.
        let pack = ws.path("packs/foundry");
        std::fs::remove_dir_all(&pack).unwrap();
        copy_dir(&repo().join("forge-packs/foundry"), &pack);
        ws.cook(&[]);
        assert!(
            tree(&ws.path("build/game")) == expected,
            "{name}: the next good cook differs from a clean one"
        );
    }
}
