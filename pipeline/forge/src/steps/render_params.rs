//! The render settings a cook runs with, which the planner carries to the render steps.

use serde::{Deserialize, Serialize};

/// The render settings a cook runs with.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct RenderParams {
    pub size: u32,
    pub overlays: Vec<String>,
    pub turntable: u32,
    pub transparent: bool,
    pub outline: bool,
    /// The contact sheet's thumbnail size, in pixels.
    pub sheet_tile: u32,
}
