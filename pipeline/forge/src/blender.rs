//! Blender, headless, for `.blend` sources: found by `BLENDER` (a Blender binary), then
//! `blender` on `PATH`, then a Python with the `bpy` module (`BLENDER_PYTHON`, else
//! `python3`). Its version is part of the `blend` step's key, so a Blender update
//! re-exports every model. The export settings are fixed (`docs/authoring.md`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// How Blender is run.
#[derive(Debug, Clone)]
pub enum Blender {
    Binary(PathBuf),
    Python(PathBuf),
}

/// The export, run inside Blender: open the file, export one GLB with the fixed settings.
const EXPORT: &str = r#"
import sys, bpy
source, out = sys.argv[-2], sys.argv[-1]
bpy.ops.wm.open_mainfile(filepath=source)
bpy.ops.export_scene.gltf(filepath=out, export_format="GLB", export_yup=True, export_apply=True,
    export_animations=False, export_cameras=False, export_lights=False)
# bpy as a module can crash while tearing down after opening a file; the export is done.
import os
sys.stdout.flush()
os._exit(0)
"#;

/// Blender and its version, looked up once per run; `None` when there is none.
pub fn found() -> Option<&'static (Blender, String)> {
    static FOUND: OnceLock<Option<(Blender, String)>> = OnceLock::new();
    FOUND.get_or_init(locate).as_ref()
}

fn locate() -> Option<(Blender, String)> {
    let binaries = std::env::var_os("BLENDER")
        .map(PathBuf::from)
        .into_iter()
        .chain([PathBuf::from("blender")]);
    for binary in binaries {
        let out = Command::new(&binary)
            .args(["--background", "--factory-startup", "--version"])
            .output();
        if let Some(version) = out
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| first_line(&o.stdout))
        {
            return Some((Blender::Binary(binary), version));
        }
    }
    let python =
        std::env::var_os("BLENDER_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from);
    let out = Command::new(&python)
        .args(["-c", "import bpy; print('bpy', bpy.app.version_string)"])
        .output()
        .ok()?;
    let version = first_line(&out.stdout).filter(|_| out.status.success())?;
    Some((Blender::Python(python), version))
}

fn first_line(bytes: &[u8]) -> Option<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// Why Blender could not export a `.blend` source.
#[derive(Debug)]
pub enum ExportError {
    NoBlender,
    Io {
        what: String,
        error: String,
    },
    /// Blender ran and failed: the last lines it printed.
    Failed(String),
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::NoBlender => write!(f, "no Blender: set BLENDER to a Blender binary, put `blender` on PATH, install the bpy module for python3 (pip install bpy), or set BLENDER_PYTHON to a Python that has it"),
            ExportError::Io { what, error } => write!(f, "cannot {what}: {error}"),
            ExportError::Failed(tail) => write!(f, "Blender could not export it: {tail}"),
        }
    }
}

/// The largest GLB an export may give (a Forge piece's is far smaller).
const MAX_EXPORT: u64 = 512 << 20;

/// Exports `blend` (a `.blend` file's bytes) to GLB bytes in a private temporary folder.
pub fn export(blend: &[u8]) -> Result<Vec<u8>, ExportError> {
    let io = |what: String| {
        move |e: std::io::Error| ExportError::Io {
            what,
            error: e.to_string(),
        }
    };
    let (blender, _) = found().ok_or(ExportError::NoBlender)?;
    let dir = tempfile::tempdir().map_err(io("make a temporary folder".into()))?;
    let (source, out) = (dir.path().join("model.blend"), dir.path().join("model.glb"));
    std::fs::write(&source, blend).map_err(io(format!("write {}", source.display())))?;
    let status = match blender {
        Blender::Binary(b) => Command::new(b)
            .args([
                "--background",
                "--factory-startup",
                "--python-expr",
                EXPORT,
                "--",
            ])
            .args([&source, &out])
            .output(),
        Blender::Python(p) => Command::new(p)
            .args(["-c", EXPORT])
            .args([&source, &out])
            .output(),
    }
    .map_err(io("run Blender".into()))?;
    if !status.status.success() || !Path::new(&out).is_file() {
        let tail: String = String::from_utf8_lossy(&status.stderr)
            .lines()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
            .join(" | ");
        return Err(ExportError::Failed(tail));
    }
    mjolnir_files::bounded::read(&out, MAX_EXPORT).map_err(|e| ExportError::Io {
        what: "read the export".into(),
        error: e.to_string(),
    })
}
