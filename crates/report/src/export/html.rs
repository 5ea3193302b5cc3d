//! The HTML exporter: the same self-contained page as the plan and suite reports (inline CSS
//! and SVG, no script, no network), laid out from a [`Report`]: the answer first, then facts,
//! warnings, and each section's charts above its tables.

use std::fmt::Write;

use super::{Artifact, Exporter};
use crate::charts;
use crate::html::{esc, facts_table, STYLE};
use crate::model::{Cell, Grid, Report, Section, TableBlock};

pub struct Html;

/// A grid as an HTML table under its title (words left-aligned, numbers right).
pub(crate) fn grid_html(t: &Grid) -> String {
    let d = t.display();
    let mut h = format!("<h3>{}</h3><table><thead><tr>", esc(&t.title));
    for c in &d[0] {
        let _ = write!(h, "<th>{}</th>", esc(c));
    }
    h += "</tr></thead><tbody>";
    for (cells, shown) in t.rows.iter().zip(&d[1..]) {
        h += "<tr>";
        for (c, text) in cells.iter().zip(shown) {
            let _ = match (c, text.as_str()) {
                (_, "FAIL") => write!(h, "<td><b class=\"fail\">FAIL</b></td>"),
                // Words (roles, reasons) read left to right; numbers line up on the right.
                (Cell::Text(_), _) => write!(h, "<td class=\"t\">{}</td>", esc(text)),
                _ => write!(h, "<td>{}</td>", esc(text)),
            };
        }
        h += "</tr>";
    }
    h + "</tbody></table>"
}

/// The page as a string.
pub fn page(r: &Report) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title><style>{STYLE}\
         .answer {{ font-size: 1.1em; }} .answer th {{ background: #eef5ee; }} .fail {{ color: #b00; }} td.t {{ text-align: left; }}</style></head>\
         <body><h1>{t}</h1>",
        t = esc(&r.title)
    );
    if !r.answer.is_empty() {
        h += &facts_table(&r.answer).replacen("class=\"facts\"", "class=\"facts answer\"", 1);
    }
    for w in &r.warnings {
        let _ = write!(h, "<div class=\"warn\">{}</div>", esc(w));
    }
    h += "<h2>Run</h2>";
    h += &facts_table(&r.facts);
    h += &crate::html::notes_html(&r.notes);
    for s in &r.sections {
        h += &section_html(s);
    }
    h + "</body></html>\n"
}

/// A section: its title, note, charts above its tables.
pub(crate) fn section_html(s: &Section) -> String {
    let mut h = format!("<h2>{}</h2>", esc(&s.title));
    if let Some(n) = &s.note {
        let _ = write!(h, "<p>{}</p>", esc(n));
    }
    for c in &s.charts {
        let _ = write!(h, "<div class=\"chart\">{}</div>", charts::draw(c));
    }
    for t in &s.tables {
        h += &match t {
            // A grid titled as its section is not titled twice.
            TableBlock::Grid(g) if g.title == s.title => {
                grid_html(g).replacen(&format!("<h3>{}</h3>", esc(&g.title)), "", 1)
            }
            TableBlock::Grid(g) => grid_html(g),
            TableBlock::Table(t) => crate::html::table_html(t),
            TableBlock::Compared(t) => t.html(),
            TableBlock::Summary(s) => {
                let lines: String = s.prose().iter().map(|l| format!("<li>{}</li>", esc(l))).collect();
                format!("<ul class=\"summary\">{lines}</ul>{}", grid_html(&s.full))
            }
        };
    }
    h
}

impl Exporter for Html {
    fn export(&self, r: &Report) -> Result<Vec<Artifact>, super::ExportError> {
        Ok(vec![Artifact { name: "report.html".into(), bytes: page(r).into_bytes() }])
    }
}
