//! `sheet`: a set's contact sheet, tiling every block's main render with its name and
//! declared size.

use super::common::{bad_intermediate, input, params, source_file, text};
use super::kind::{Lands, Scope};
use super::{catalog, render};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "sheet",
        version: forge_render::VERSION,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Set,
    lands: Lands::Renders,
    wire,
};

pub const OUTPUT: &str = "contact_sheet.png";

/// The blocks in sheet order, and the thumbnail size.
#[derive(serde::Serialize, serde::Deserialize)]
struct SheetParams {
    blocks: Vec<String>,
    tile: u32,
}

fn entry_input(block: &str) -> String {
    format!("{block}.entry.json")
}

fn wire(w: &Wiring) -> Option<Wired> {
    let render = w.options.render.as_ref()?;
    let blocks = &w.set().blocks;
    let mut inputs = Vec::new();
    for block in blocks {
        let png = render::main_output(block);
        inputs.push(w.upstream_of(Some(block), png.clone(), &render::KIND, png));
        inputs.push(catalog::entry_as(w, block, entry_input(block)));
    }
    let params = SheetParams {
        blocks: blocks.clone(),
        tile: render.sheet_tile,
    };
    Some(Wired {
        params: serde_json::to_string(&params).expect("ids serialize"),
        inputs,
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(catalog::MANIFEST);
    let SheetParams { blocks, tile } = params(step, &file)?;
    let mut tiles = Vec::new();
    for block in &blocks {
        let png = input(inputs, &render::main_output(block), &file)?;
        let image =
            forge_render::decode_png(png).map_err(|e| bad_intermediate(&file, "render", e))?;
        let entry = forge_contract::parse_entry(
            &file,
            step.pack,
            text(inputs, &entry_input(block), &file)?,
        )?;
        let d = entry.dimensions_m;
        let caption = vec![
            entry.name.clone(),
            format!("{} x {} x {} m", d[0], d[1], d[2]),
        ];
        tiles.push((caption, image));
    }
    let sheet = forge_render::contact_sheet(&tiles, tile);
    Ok(vec![(OUTPUT.to_string(), forge_render::png(&sheet))])
}
