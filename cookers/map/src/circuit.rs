//! A road circuit: a closed chain of road pieces docked by their connector frames. The
//! chain is walked with the checks crate's `chain` (the same code that checks a pack's
//! connectors), so a layout's circuit and a pack's pieces agree on what docking means.

use forge_contract::geometry::Frame;

/// What the walk found.
#[derive(Debug, Clone, PartialEq)]
pub struct Circuit {
    /// How far the last exit ends from the first entry, metres.
    pub closure_m: f64,
    /// How far its heading ends from a whole turn, degrees.
    pub closure_deg: f64,
    /// The centre line's length: straights end to end, curves as arcs.
    pub length_m: f64,
    /// The first placed piece whose position or heading is not where the previous exit
    /// puts it (1 cm, 0.01°), if any.
    pub undocked: Option<usize>,
}

/// One placed road piece: its connectors, and where the layout puts its origin.
pub struct PlacedPiece {
    pub entry: Frame,
    pub exit: Frame,
    pub position_m: [f64; 3],
    pub yaw_deg: f64,
}

pub fn walk(pieces: &[PlacedPiece]) -> Circuit {
    let frames: Vec<(Frame, Frame)> = pieces
        .iter()
        .map(|p| (p.entry.clone(), p.exit.clone()))
        .collect();
    let Some(first) = pieces.first() else {
        return Circuit {
            closure_m: 0.0,
            closure_deg: 0.0,
            length_m: 0.0,
            undocked: None,
        };
    };
    let start = [
        first.position_m[0],
        first.position_m[1],
        first.position_m[2],
    ];
    let undocked = (1..pieces.len()).find(|&i| {
        let (local, heading) = forge_checks::chain(&frames[..i]);
        let at = place(start, first.yaw_deg, local);
        let off = (0..3)
            .map(|k| (at[k] - pieces[i].position_m[k]).powi(2))
            .sum::<f64>()
            .sqrt();
        off > 0.01 || angle_between(first.yaw_deg + heading, pieces[i].yaw_deg) > 0.01
    });
    let (end, heading) = forge_checks::chain(&frames);
    Circuit {
        closure_m: end.iter().map(|c| c * c).sum::<f64>().sqrt(),
        closure_deg: angle_between(heading, 0.0),
        length_m: pieces.iter().map(|p| centre_line(&p.entry, &p.exit)).sum(),
        undocked,
    }
}

/// `local` (relative to a start heading along +X) turned by `yaw` and moved to `start`.
fn place(start: [f64; 3], yaw_deg: f64, local: [f64; 3]) -> [f64; 3] {
    let (s, c) = yaw_deg.to_radians().sin_cos();
    [
        start[0] + local[0] * c - local[1] * s,
        start[1] + local[0] * s + local[1] * c,
        start[2] + local[2],
    ]
}

/// The smallest turn between two headings, degrees.
fn angle_between(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(360.0);
    d.min(360.0 - d)
}

/// A straight's length, or a curve's arc: the chord over the turn.
fn centre_line(entry: &Frame, exit: &Frame) -> f64 {
    let chord = (0..3)
        .map(|k| (exit.position_m[k] - entry.position_m[k]).powi(2))
        .sum::<f64>()
        .sqrt();
    let turn = angle_between(exit.heading_deg, entry.heading_deg).to_radians();
    if turn < 1e-9 {
        chord
    } else {
        chord * (turn / 2.0) / (turn / 2.0).sin()
    }
}
