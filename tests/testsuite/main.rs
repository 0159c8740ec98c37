//! The end-to-end tests: the real `mjolnir` binary on scratch workspaces. One test binary,
//! as cargo's own `tests/testsuite` is, rather than one per file: each linked the whole
//! dependency tree, and linking was most of CI's build time.
//!
//! A test that cannot run here (no nginx, Chromium, Blender) says so through
//! [`support::skip`], and `.ci/run` prints every such line at the end.

mod support;

mod asset_manifest;
mod authoring;
mod bad_inputs;
mod checks;
mod collision;
mod commands;
mod cook;
mod diagnostics;
mod error_codes;
mod geometry;
mod grouped;
mod haf;
mod housekeeping;
mod launcher;
mod maps;
mod modelled;
mod outside_writes;
mod release;
mod remote_cache;
mod render;
mod unreal;
mod viewer;
