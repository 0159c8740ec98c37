//! A stock piece: its catalog entry, its solids and what its checks must prove.

use serde_json::{json, Map, Value};

use crate::solid::{Role, Shape, Solid};

pub struct Piece {
    pub id: String,
    pub name: String,
    pub category: &'static str,
    pub solids: Vec<Solid>,
    /// Catalog fields beyond the common ones (light, lift, door, surfaces).
    pub extra: Map<String, Value>,
    pub apertures: Vec<Value>,
    pub supports: Vec<Value>,
    pub joins: Vec<Value>,
    pub connectors: Option<Value>,
}

/// Coordinates are written rounded to a micrometre so the JSON stays readable and stable.
pub fn round(x: f64) -> f64 {
    let r = (x * 1e6).round() / 1e6;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

impl Piece {
    pub fn new(id: &str, name: &str, category: &'static str) -> Piece {
        Piece {
            id: id.into(),
            name: name.into(),
            category,
            solids: Vec::new(),
            extra: Map::new(),
            apertures: Vec::new(),
            supports: Vec::new(),
            joins: Vec::new(),
            connectors: None,
        }
    }

    fn add(&mut self, name: &str, material: &'static str, role: Role, shape: Shape) -> &mut Self {
        self.solids.push(Solid {
            name: name.into(),
            material,
            role,
            shape,
        });
        self
    }

    pub fn hull_box(
        &mut self,
        name: &str,
        material: &'static str,
        min: [f64; 3],
        max: [f64; 3],
    ) -> &mut Self {
        self.add(name, material, Role::Both, Shape::Box { min, max })
    }

    pub fn visual_box(
        &mut self,
        name: &str,
        material: &'static str,
        min: [f64; 3],
        max: [f64; 3],
    ) -> &mut Self {
        self.add(name, material, Role::Visual, Shape::Box { min, max })
    }

    /// A convex prism: `polygon` swept along `axis` over `span` (see [`Shape::Prism`]).
    pub fn prism(
        &mut self,
        name: &str,
        material: &'static str,
        role: Role,
        axis: usize,
        polygon: Vec<[f64; 2]>,
        span: (f64, f64),
    ) -> &mut Self {
        self.add(
            name,
            material,
            role,
            Shape::Prism {
                axis,
                polygon,
                lo: span.0,
                hi: span.1,
            },
        )
    }

    pub fn support(
        &mut self,
        name: &str,
        min: [f64; 2],
        max: [f64; 2],
        height: f64,
        grade: [f64; 2],
    ) -> &mut Self {
        let mut s = json!({"name": name, "min_m": min.map(round), "max_m": max.map(round), "height_m": round(height)});
        if grade != [0.0, 0.0] {
            s["grade"] = json!(grade.map(round));
        }
        self.supports.push(s);
        self
    }

    pub fn join(&mut self, name: &str, edge: &str, height: f64) -> &mut Self {
        self.joins
            .push(json!({"name": name, "edge": edge, "height_m": round(height)}));
        self
    }

    /// Joins on all four edges at one height (floors, decks, platforms).
    pub fn joins_all_round(&mut self, height: f64) -> &mut Self {
        for (name, edge) in [
            ("east", "+x"),
            ("west", "-x"),
            ("north", "+y"),
            ("south", "-y"),
        ] {
            self.join(name, edge, height);
        }
        self
    }

    pub fn aperture(
        &mut self,
        name: &str,
        kind: &str,
        centre: [f64; 3],
        axis: &str,
        width: f64,
        height: f64,
    ) -> &mut Self {
        self.apertures.push(json!({"name": name, "kind": kind, "centre_m": centre.map(round), "axis": axis, "width_m": round(width), "height_m": round(height)}));
        self
    }

    pub fn field(&mut self, key: &str, value: Value) -> &mut Self {
        self.extra.insert(key.into(), value);
        self
    }

    /// The bounds of every solid, visual and collision alike.
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        let mut lo = [f64::MAX; 3];
        let mut hi = [f64::MIN; 3];
        for p in self.solids.iter().flat_map(|s| s.shape.hull_points()) {
            for i in 0..3 {
                lo[i] = lo[i].min(round(p[i]));
                hi[i] = hi[i].max(round(p[i]));
            }
        }
        (lo, hi)
    }

    pub fn dimensions(&self) -> [f64; 3] {
        let (lo, hi) = self.bounds();
        [
            round(hi[0] - lo[0]),
            round(hi[1] - lo[1]),
            round(hi[2] - lo[2]),
        ]
    }
}
