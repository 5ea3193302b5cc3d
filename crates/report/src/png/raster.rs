//! The one part of `--png` that needs resvg (and its ~40 crates): an SVG rasterized to PNG bytes.
//! Built with the `png` feature only (see [`super`]).

use std::sync::{Arc, OnceLock};

use resvg::tiny_skia;
use resvg::usvg;
use resvg::usvg::fontdb;

use super::PngError;

/// The largest side, in pixels, a rendered PNG may have (a typo'd scale should fail, not
/// allocate gigabytes).
const MAX_SIDE: u32 = 16_384;

/// Installed fonts to use for each generic family, best first.
const SANS: &[&str] = &["DejaVu Sans", "Liberation Sans", "Noto Sans", "Arial", "Helvetica", "FreeSans", "Ubuntu"];
const SERIF: &[&str] = &["DejaVu Serif", "Liberation Serif", "Noto Serif", "Times New Roman", "FreeSerif"];
const MONO: &[&str] = &["DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono", "Courier New", "FreeMono"];

/// The system font database, loaded once.
fn fonts() -> Arc<fontdb::Database> {
    static DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = fontdb::Database::new();
        db.load_system_fonts();
        fix_generic_families(&mut db);
        Arc::new(db)
    })
    .clone()
}

/// Points `sans-serif`, `serif` and `monospace` at installed fonts when fontconfig's aliases
/// (or fontdb's defaults, "Arial" and friends) name fonts that are not there.
fn fix_generic_families(db: &mut fontdb::Database) {
    if db.is_empty() {
        return;
    }
    let installed = |db: &fontdb::Database, name: &str| {
        db.faces().any(|f| f.families.iter().any(|(fam, _)| fam.eq_ignore_ascii_case(name)))
    };
    // Any face at all, for a machine that has none of the preferred ones.
    let any = db.faces().find_map(|f| f.families.first().map(|(fam, _)| fam.clone())).unwrap_or_default();
    let pick = |db: &fontdb::Database, prefs: &[&str], fallback: &str| {
        prefs.iter().find(|n| installed(db, n)).map(|n| n.to_string()).unwrap_or_else(|| fallback.to_string())
    };
    let sans = pick(db, SANS, &any);
    let has = |db: &fontdb::Database, fam: fontdb::Family| {
        db.query(&fontdb::Query { families: &[fam], ..Default::default() }).is_some()
    };
    if !has(db, fontdb::Family::SansSerif) {
        db.set_sans_serif_family(sans.clone());
    }
    if !has(db, fontdb::Family::Serif) {
        let serif = pick(db, SERIF, &sans);
        db.set_serif_family(serif);
    }
    if !has(db, fontdb::Family::Monospace) {
        let mono = pick(db, MONO, &sans);
        db.set_monospace_family(mono);
    }
    if !has(db, fontdb::Family::Cursive) {
        db.set_cursive_family(sans.clone());
    }
    if !has(db, fontdb::Family::Fantasy) {
        db.set_fantasy_family(sans);
    }
}

/// Rasterize one SVG document to PNG bytes at `scale` (1.0 = the SVG's size; use 2.0 for
/// articles). The PNG is the SVG's size times `scale`, rounded up, on a white background.
pub(super) fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, PngError> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(PngError::Scale(scale));
    }
    let db = fonts();
    let mut opt = usvg::Options::default();
    // Used for text without a font-family; the chart's own families come first.
    opt.font_family = db
        .query(&fontdb::Query { families: &[fontdb::Family::SansSerif], ..Default::default() })
        .and_then(|id| db.face(id))
        .and_then(|f| f.families.first().map(|(fam, _)| fam.clone()))
        .unwrap_or_else(|| opt.font_family.clone());
    opt.fontdb = db;
    let svg = with_namespace(svg);
    let tree = usvg::Tree::from_str(&svg, &opt).map_err(|e| PngError::Svg(e.to_string()))?;
    let size = tree.size();
    let side = |v: f32| (v * scale).ceil();
    let (w, h) = (side(size.width()), side(size.height()));
    if !(w >= 1.0 && h >= 1.0 && w <= MAX_SIDE as f32 && h <= MAX_SIDE as f32) {
        return Err(PngError::Size { svg_w: size.width(), svg_h: size.height(), scale, w, h, max: MAX_SIDE });
    }
    let (w, h) = (w as u32, h as u32);
    let mut pixmap = tiny_skia::Pixmap::new(w, h).ok_or(PngError::Alloc(w, h))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    let transform = tiny_skia::Transform::from_scale(w as f32 / size.width(), h as f32 / size.height());
    resvg::render(&tree, transform, &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| PngError::Encode(e.to_string()))
}

/// usvg only reads elements in the SVG namespace; an `<svg>` pasted into HTML may not declare it.
fn with_namespace(svg: &str) -> std::borrow::Cow<'_, str> {
    let open_end = svg.find('>').unwrap_or(svg.len());
    let start = svg.find("<svg").map(|i| i + 4);
    match start {
        Some(i) if i <= open_end && !svg[..open_end].contains("xmlns=") => {
            let mut s = String::with_capacity(svg.len() + 40);
            s.push_str(&svg[..i]);
            s.push_str(r#" xmlns="http://www.w3.org/2000/svg""#);
            s.push_str(&svg[i..]);
            s.into()
        }
        _ => svg.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::{line_chart, LineChart, Series, XScale, DEFAULT_SIZE};
    use crate::png::write_all_new;

    fn chart(title: &str) -> String {
        line_chart(&LineChart {
            title: title.to_string(),
            x_label: "queue depth (I/Os per job)".into(),
            y_label: "IOPS".into(),
            x_scale: XScale::Log2,
            y_log: false,
            series: vec![
                Series::new("read", vec![(1.0, 10_000.0), (2.0, 18_000.0), (4.0, 30_000.0)]),
                Series::new("write", vec![(1.0, 8_000.0), (2.0, 12_000.0), (4.0, 15_000.0)]),
            ],
        })
    }

    fn non_white(p: &tiny_skia::Pixmap, x0: u32, y0: u32, x1: u32, y1: u32) -> usize {
        let mut n = 0;
        for y in y0..y1.min(p.height()) {
            for x in x0..x1.min(p.width()) {
                let c = p.pixel(x, y).unwrap();
                if c.red() < 230 || c.green() < 230 || c.blue() < 230 {
                    n += 1;
                }
            }
        }
        n
    }

    #[test]
    fn line_chart_renders_at_scale_with_text() {
        let svg = chart("Random read: IOPS by queue depth");
        for scale in [1.0f32, 2.0] {
            let png = svg_to_png(&svg, scale).unwrap();
            assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
            let p = tiny_skia::Pixmap::decode_png(&png).unwrap();
            assert_eq!((p.width(), p.height()), (DEFAULT_SIZE.w * scale as u32, DEFAULT_SIZE.h * scale as u32));
            let total = (p.width() * p.height()) as usize;
            let ink = non_white(&p, 0, 0, p.width(), p.height());
            // Axes, grid, two lines with markers, legend and labels: a few percent of the image.
            assert!(ink * 100 > total, "only {ink} of {total} pixels are not white at scale {scale}");
            assert!(ink * 100 < total * 60, "{ink} of {total} pixels are not white at scale {scale}");
            // The title sits in the top band; with no font it would be blank.
            let band = (p.height() as f32 * 0.08) as u32;
            let title_ink = non_white(&p, 0, 0, p.width(), band);
            assert!(title_ink > 50 * (scale * scale) as usize, "title band has {title_ink} inked pixels");
        }
    }

    #[test]
    fn fonts_found_for_generic_families() {
        let db = fonts();
        if db.is_empty() {
            return; // a machine without fonts: shapes only (tested above by the ink share)
        }
        let q = |f| db.query(&fontdb::Query { families: &[f], ..Default::default() });
        assert!(q(fontdb::Family::SansSerif).is_some());
        assert!(q(fontdb::Family::Serif).is_some());
        assert!(q(fontdb::Family::Monospace).is_some());
    }

    #[test]
    fn text_is_drawn_from_system_fonts() {
        // The same picture with and without its text: the text must add ink.
        let with = r#"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50"><text x="10" y="35" font-family="sans-serif" font-size="30">Hello</text></svg>"#;
        let p = tiny_skia::Pixmap::decode_png(&svg_to_png(with, 1.0).unwrap()).unwrap();
        if fonts().is_empty() {
            return;
        }
        assert!(non_white(&p, 0, 0, 200, 50) > 100);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(svg_to_png("not svg", 1.0).is_err());
        let svg = chart("x");
        assert!(svg_to_png(&svg, 0.0).is_err());
        assert!(svg_to_png(&svg, f32::NAN).is_err());
        assert!(svg_to_png(&svg, 1000.0).is_err());
    }

    #[test]
    fn namespace_is_added_when_missing() {
        let svg = r#"<svg width="10" height="10"><rect width="10" height="10" fill="black"/></svg>"#;
        let p = tiny_skia::Pixmap::decode_png(&svg_to_png(svg, 1.0).unwrap()).unwrap();
        assert_eq!(non_white(&p, 0, 0, 10, 10), 100);
    }

    #[test]
    fn each_chart_spec_is_written_once_and_never_over_a_file() {
        use crate::export::{Exporter, Png};
        use crate::model::{ChartSpec, Report, Section};
        let dir = std::env::temp_dir().join(format!("drivelab-png-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let line = |title: &str| ChartSpec::Line {
            line: crate::charts::LineChart {
                title: title.into(),
                x_label: "x".into(),
                y_label: "y".into(),
                x_scale: crate::charts::XScale::Linear,
                y_log: false,
                series: vec![crate::charts::Series::new("s", vec![(1.0, 2.0), (2.0, 3.0)])],
            },
            size: DEFAULT_SIZE,
        };
        let mut section = Section::new("charts");
        section.charts = vec![line("Random read: IOPS"), line("Sequential write: MB/s")];
        let report = Report {
            title: String::new(),
            answer: vec![],
            facts: vec![],
            warnings: vec![],
            notes: vec![],
            sections: vec![section],
        };
        let files = |scale| Png { scale }.export(&report).unwrap().into_iter().map(|d| (d.name, d.bytes)).collect();
        let out = dir.join("charts"); // created on demand
        let paths = write_all_new(&out, files(1.0)).unwrap();
        let names: Vec<String> = paths.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["01-random-read-iops.png", "02-sequential-write-mb-s.png"]);
        for p in &paths {
            let img = tiny_skia::Pixmap::decode_png(&std::fs::read(p).unwrap()).unwrap();
            assert_eq!((img.width(), img.height()), (DEFAULT_SIZE.w, DEFAULT_SIZE.h));
        }
        let before = std::fs::read(&paths[0]).unwrap();
        let err = write_all_new(&out, files(2.0)).unwrap_err().to_string();
        assert!(err.contains("01-random-read-iops.png") && err.contains("already exists"), "{err}");
        assert_eq!(std::fs::read(&paths[0]).unwrap(), before);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
