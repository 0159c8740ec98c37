//! The mod detail page of a Forge pack: a static HTML page with each piece's name,
//! dimensions and snap, as the Hub's mod detail page shows them (`docs/launcher.md`).

use crate::api::ForgeCatalogPack;

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '"' => out += "&quot;",
            '\'' => out += "&#39;",
            c => out.push(c),
        }
    }
    out
}

fn metres(v: f64) -> String {
    format!("{v} m")
}

pub fn html(pack: &ForgeCatalogPack) -> String {
    let mut rows = String::new();
    for p in &pack.pieces {
        let [x, y, z] = p.dimensions_m;
        rows += &format!(
            "<tr data-piece=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"dims\">{} × {} × {}</td><td class=\"snap\">{}</td></tr>\n",
            escape(&p.id),
            escape(&p.name),
            escape(&p.kind),
            escape(&p.category),
            metres(x),
            metres(y),
            metres(z),
            p.snap_m.map_or("none".to_string(), metres),
        );
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{name} {version} — Forge pack</title>\n<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #999;padding:4px 8px;text-align:left}}</style></head>\n<body><h1>{name}</h1><p>Forge pack <code>{slug}</code>, release {version}: {count} pieces.</p>\n<table id=\"pieces\"><thead><tr><th>Piece</th><th>Kind</th><th>Category</th><th>Dimensions</th><th>Snap</th></tr></thead>\n<tbody>\n{rows}</tbody></table></body></html>\n",
        name = escape(&pack.name),
        slug = escape(&pack.slug),
        version = escape(&pack.version),
        count = pack.pieces.len(),
    )
}
