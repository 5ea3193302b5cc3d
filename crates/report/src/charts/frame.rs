//! Drawing a chart's frame: the SVG backend, colours, the plot area with its mesh, tick labels
//! and axis descriptions, legends beside or under the plot (never over the data), and lines
//! with markers and dashed reference lines. See [`super`] for the rules they follow.

use std::error::Error;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes::{Axis, Kind, Ticked};
use super::{Size, XScale, DESC_FONT, LEGEND_FONT, TICK_FONT, TITLE_FONT};

pub(super) type Res<T = ()> = Result<T, Box<dyn Error>>;
pub(super) type Coord2 = Cartesian2d<Ticked, Ticked>;
pub(super) type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Coord2>;

/// Ten distinct colours (Tableau 10), then plotters' 99-colour palette.
pub(super) fn color(i: usize) -> RGBColor {
    const T10: [(u8, u8, u8); 10] = [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
    ];
    match T10.get(i) {
        Some(&(r, g, b)) => RGBColor(r, g, b),
        None => {
            let c = Palette99::pick(i - T10.len()).to_rgba();
            RGBColor(c.0, c.1, c.2)
        }
    }
}

pub(super) fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Runs `draw` on an SVG drawing area of `size` and returns the SVG. Should plotters fail, the
/// chart is a frame with its title and the error, so a report still renders.
pub(super) fn render(title: &str, size: Size, draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Res) -> String {
    let (w, h) = (size.w.max(40), size.h.max(20));
    let mut out = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
        let r = draw(&root);
        r.and_then(|()| root.present().map_err(Into::into))
    };
    match result {
        Ok(()) => out,
        Err(e) => format!(
            concat!(
                r#"<svg width="{w}" height="{h}" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg">"#,
                r#"<text x="10" y="24" font-family="sans-serif" font-size="16">{t}</text>"#,
                r#"<text x="10" y="48" font-family="sans-serif" font-size="12">chart error: {e}</text></svg>"#
            ),
            w = w,
            h = h,
            t = xml_escape(title),
            e = xml_escape(&e.to_string())
        ),
    }
}

pub(super) struct Frame<'s> {
    pub(super) x_label: &'s str,
    pub(super) y_label: &'s str,
    pub(super) x: &'s Axis,
    pub(super) y: &'s Axis,
    pub(super) x_mesh: bool,
    pub(super) y_mesh: bool,
}

/// The plot's margin, and the heights of the x tick label area and widths of the y one.
const MARGIN: u32 = 12;
const X_AREA: u32 = 56;
const Y_AREA: u32 = 84;

/// The plot's width and height in px inside `area` (what [`cartesian`] leaves of it).
pub(super) fn plot_dims(area: &DrawingArea<SVGBackend, Shift>) -> (f64, f64) {
    let (w, h) = area.dim_in_pixel();
    ((w as f64 - (2 * MARGIN + Y_AREA) as f64).max(1.0), (h as f64 - (2 * MARGIN + X_AREA) as f64).max(1.0))
}

/// The leading number of each name when every name is a number and the same words after it
/// ("1 DQL/Disk", "2 DQL/Disk" -> "1", "2"): the axis description says the words once.
fn numbers_only(names: &[String]) -> Option<Vec<String>> {
    let split = |n: &str| {
        let end = n.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(n.len());
        (n[..end].to_string(), n[end..].trim().to_string())
    };
    let parts: Vec<(String, String)> = names.iter().map(|n| split(n)).collect();
    let tail = &parts.first()?.1;
    let same = parts.iter().all(|(num, t)| !num.is_empty() && t == tail);
    (same && !tail.is_empty()).then(|| parts.into_iter().map(|p| p.0).collect())
}

/// How a category axis `plot_w` px wide writes its names so that no two overlap: the names,
/// or their numbers alone when the names are too wide and share their words, and every n-th
/// of them when those are still too wide (n = 1: all).
pub(crate) fn category_names(x: &Axis, plot_w: f64) -> Option<(Vec<String>, usize)> {
    let Kind::Category(names) = &x.kind else { return None };
    let spacing = plot_w / names.len().max(1) as f64;
    let widest = |names: &[String]| names.iter().map(|n| super::bars::text_w(n, TICK_FONT)).fold(0.0, f64::max) + 8.0;
    let shown = match numbers_only(names) {
        Some(nums) if widest(names) > spacing => nums,
        _ => names.clone(),
    };
    let every = (widest(&shown) / spacing.max(0.1)).ceil().max(1.0) as usize;
    Some((shown, every))
}

/// Background, plot area, mesh, tick labels and axis descriptions.
pub(super) fn cartesian<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: Option<&str>,
    f: &Frame,
) -> Res<Chart<'a, 'b>> {
    let mut b = ChartBuilder::on(area);
    if let Some(t) = title {
        b.caption(t, ("sans-serif", TITLE_FONT));
    }
    let names = category_names(f.x, plot_dims(area).0);
    // The last x tick label is centred on the plot's right edge: room for its right half.
    let last = match f.x.kind {
        Kind::Category(_) => 0.0,
        _ => f.x.ticks.iter().map(|t| super::bars::text_w(&f.x.label(*t), TICK_FONT)).fold(0.0, f64::max) / 2.0,
    };
    let mut chart = b
        .margin(MARGIN)
        .margin_right(MARGIN.max(last.ceil() as u32 + 2))
        .x_label_area_size(X_AREA)
        .y_label_area_size(Y_AREA)
        .build_cartesian_2d(f.x.coord(), f.y.coord())?;
    let (x, y) = (f.x, f.y);
    // Category names wider than their spacing are shortened or thinned (see category_names).
    let xf = |v: &f64| match &names {
        Some((shown, every)) => {
            let i = v.round().max(0.0) as usize;
            if i % every == 0 {
                shown.get(i).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        }
        None => x.label(*v),
    };
    let yf = |v: &f64| y.label(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(f.x_label)
        .y_desc(f.y_label)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(("sans-serif", TICK_FONT))
        .axis_desc_style(("sans-serif", DESC_FONT))
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT);
    if !f.x_mesh {
        mesh.disable_x_mesh();
    }
    if !f.y_mesh {
        mesh.disable_y_mesh();
    }
    mesh.draw()?;
    Ok(chart)
}

pub(super) fn no_data<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, x: &Axis, y: &Axis) -> Res {
    let style = ("sans-serif", 16).into_font().color(&BLACK.mix(0.6)).pos(Pos::new(HPos::Center, VPos::Center));
    chart.plotting_area().draw(&Text::new("no data", (x.mid(), y.mid()), style))?;
    Ok(())
}

/// How a legend entry shows its series.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Swatch {
    Line,
    Dashed,
    Box,
    /// A filled marker (a passing probe).
    Dot,
    /// A hollow marker (a failing probe).
    Hollow,
    /// A ring around a marker (the confirming run).
    Ring,
}

/// One entry of a legend.
pub(super) struct Entry {
    pub(super) name: String,
    pub(super) color: RGBColor,
    pub(super) swatch: Swatch,
}

/// Characters a legend entry may have before it is shortened in the middle.
pub(super) const LEGEND_CHARS: usize = 44;

/// The legend column's width for `entries`: the longest name at about 7 px a character (the
/// browser's font decides; this is plotters' kind of estimate), plus the swatch; 0 without
/// entries.
pub(super) fn legend_width(entries: &[Entry]) -> u32 {
    match entries.iter().map(|e| e.name.chars().count().min(LEGEND_CHARS)).max() {
        None => 0,
        Some(chars) => (chars as u32 * 7 + 44).clamp(110, 352),
    }
}

/// `name`, shortened to `LEGEND_CHARS` characters. A name ending in a path ("qd=32 /dev/…/a.dat")
/// keeps its words whole — they tell the lines apart ("qd=1" from "qd=32") — and loses the start
/// of its path, whose end names the file; otherwise, or where the words alone leave too little
/// of the path, it is shortened in the middle so both the start (what was run) and the end
/// (where) stay readable.
pub(super) fn shorten(name: &str) -> String {
    let n = name.chars().count();
    if n <= LEGEND_CHARS {
        return name.to_string();
    }
    /// The least of a path kept after the words: "…" and a file name.
    const PATH_MIN: usize = 14;
    if let Some((words, path)) = name.rsplit_once(' ').filter(|(_, p)| p.contains('/')) {
        let budget = LEGEND_CHARS.saturating_sub(words.chars().count() + 2);
        if budget >= PATH_MIN {
            let len = path.chars().count();
            let tail: String = path.chars().skip(len - budget).collect();
            return format!("{words} …{tail}");
        }
    }
    let keep = (LEGEND_CHARS - 1) / 2;
    let head: String = name.chars().take(keep).collect();
    let tail: String = name.chars().skip(n - keep).collect();
    format!("{head}…{tail}")
}

/// Height of a legend row.
pub(super) const LEGEND_ROW: i32 = 22;

/// Where a chart's legend goes: a column right of the plot, or (for charts whose x axis needs
/// the whole width, like the latency percentiles) two columns under it.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum LegendAt {
    Right,
    Below,
}

/// Extra height a legend below the plot needs.
pub(super) fn legend_below_height(entries: &[Entry]) -> u32 {
    if entries.is_empty() {
        0
    } else {
        (entries.len().div_ceil(2) as i32 * LEGEND_ROW + 8) as u32
    }
}

/// A legend never drawn over the data: entries in `columns` columns (filled top to bottom)
/// from (`left`, `top`) of `area`, each a swatch and the name.
pub(super) fn draw_legend(
    area: &DrawingArea<SVGBackend, Shift>,
    entries: &[Entry],
    left: i32,
    top: i32,
    columns: usize,
) -> Res {
    let (w, h) = area.dim_in_pixel();
    let rows = entries.len().div_ceil(columns.max(1)).max(1) as i32;
    let step = ((h as i32 - top - 8) / rows).clamp(11, LEGEND_ROW);
    let col_w = (w as i32 - left) / columns.max(1) as i32;
    let font = ("sans-serif", if step < 16 { TICK_FONT - 3 } else { LEGEND_FONT }).into_font();
    for (i, e) in entries.iter().enumerate() {
        let (col, row) = (i as i32 / rows, i as i32 % rows);
        let (x, y) = (left + col * col_w, top + step * row + step / 2);
        match e.swatch {
            Swatch::Box => area.draw(&Rectangle::new([(x + 10, y - 6), (x + 22, y + 6)], e.color.filled()))?,
            Swatch::Line => area.draw(&PathElement::new(vec![(x + 4, y), (x + 26, y)], e.color.stroke_width(2)))?,
            Swatch::Dashed => {
                for d in [4, 13, 22] {
                    area.draw(&PathElement::new(vec![(x + d, y), (x + d + 5, y)], e.color.stroke_width(2)))?;
                }
            }
            Swatch::Dot => area.draw(&Circle::new((x + 16, y), 4, e.color.filled()))?,
            Swatch::Hollow => area.draw(&Circle::new((x + 16, y), 4, e.color.stroke_width(2)))?,
            Swatch::Ring => area.draw(&Circle::new((x + 16, y), 8, e.color.stroke_width(2)))?,
        }
        let style = font.clone().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(shorten(&e.name), (x + 32, y), style))?;
    }
    Ok(())
}

/// The chart's title across the top, then the plot area, and the legend (if any entries) right
/// of it, level with the plot's top, or under it. Returns the plot's area.
pub(super) fn layout<'a>(
    root: &DrawingArea<SVGBackend<'a>, Shift>,
    title: &str,
    entries: &[Entry],
    at: LegendAt,
) -> Res<DrawingArea<SVGBackend<'a>, Shift>> {
    root.fill(&WHITE)?;
    let body = root.titled(title, ("sans-serif", TITLE_FONT))?;
    let (w, h) = body.dim_in_pixel();
    match at {
        LegendAt::Right => {
            let (main, side) = body.split_horizontally(w.saturating_sub(legend_width(entries)));
            draw_legend(&side, entries, 0, 12, 1)?;
            Ok(main)
        }
        LegendAt::Below => {
            let (main, bottom) = body.split_vertically(h.saturating_sub(legend_below_height(entries)));
            draw_legend(&bottom, entries, 84, 0, 2)?;
            Ok(main)
        }
    }
}

/// A series ready to draw: name, points in plot coordinates, and the index of the series it
/// is a reference line for.
pub(super) type Drawn = (String, Vec<(f64, f64)>, Option<usize>);

/// Lines (with markers when `markers`) for already transformed series; reference lines dashed
/// in their series' colour. A legend below makes the chart taller by its height.
/// How a series' points are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Marks {
    /// A line through them, a marker on each.
    LineAndMarkers,
    /// A line through them only (curves of many points: CDFs).
    Line,
    /// A dot each and no line: a scatter of many samples (IOPS of each second of a long run).
    Dots,
}

pub(super) fn draw_lines(title: &str, size: Size, f: &Frame, series: &[Drawn], marks: Marks, at: LegendAt) -> String {
    draw_lines_with(title, size, f, series, marks, at, &[])
}

/// [`draw_lines`] with markers and a small label beside each marker (`labels[series][point]`,
/// in the series' colour, just above and right of it).
pub(super) fn draw_lines_labelled(
    title: &str,
    size: Size,
    f: &Frame,
    series: &[Drawn],
    at: LegendAt,
    labels: &[Vec<String>],
) -> String {
    draw_lines_with(title, size, f, series, Marks::LineAndMarkers, at, labels)
}

fn draw_lines_with(
    title: &str,
    size: Size,
    f: &Frame,
    series: &[Drawn],
    marks: Marks,
    at: LegendAt,
    labels: &[Vec<String>],
) -> String {
    // Colours go to the series that are not reference lines, in order.
    let own: Vec<usize> = series.iter().enumerate().filter(|(_, s)| s.2.is_none()).map(|(i, _)| i).collect();
    // A series' reference lines each look their own (a steady-state chart's window average,
    // its band and its best fit were four dashed lines of one blue): the first in the series'
    // colour, the next two (a band's edges) grey and finely dotted, any later one near black.
    let rank = |i: usize| series[..i].iter().filter(|s| s.2.is_some() && s.2 == series[i].2).count();
    let color_of = |i: usize| -> RGBColor {
        let of = series[i].2.unwrap_or(i);
        match (series[i].2.is_some(), rank(i)) {
            (true, 1 | 2) => RGBColor(128, 128, 128),
            (true, r) if r >= 3 => RGBColor(40, 40, 40),
            _ => own.iter().position(|&o| o == of).map_or(RGBColor(127, 127, 127), color),
        }
    };
    let dashes = |i: usize| -> (u32, u32) {
        match rank(i) {
            0 => (6, 5),
            1 | 2 => (2, 3),
            _ => (12, 3),
        }
    };
    let entries: Vec<Entry> = series
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.0.is_empty())
        .map(|(i, s)| Entry {
            name: if s.1.is_empty() { format!("{} (no data)", s.0) } else { s.0.clone() },
            color: color_of(i),
            swatch: match (s.2.is_some(), marks) {
                (true, _) => Swatch::Dashed,
                (false, Marks::Dots) => Swatch::Dot,
                (false, _) => Swatch::Line,
            },
        })
        .collect();
    let size = match at {
        LegendAt::Below => Size { h: size.h + legend_below_height(&entries), ..size },
        LegendAt::Right => size,
    };
    render(title, size, |root| {
        let main = layout(root, title, &entries, at)?;
        let mut chart = cartesian(&main, None, f)?;
        let mut placed: Vec<(f64, f64, f64, f64)> = Vec::new();
        for (i, (_, pts, reference)) in series.iter().enumerate() {
            let c = color_of(i);
            if reference.is_some() {
                let (dash, gap) = dashes(i);
                chart.draw_series(DashedLineSeries::new(pts.iter().copied(), dash, gap, c.stroke_width(2)))?;
                continue;
            }
            match marks {
                Marks::LineAndMarkers => {
                    chart.draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))?;
                    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
                }
                Marks::Line => {
                    chart.draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))?;
                }
                Marks::Dots => {
                    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 2, c.filled())))?;
                }
            }
            if let Some(words) = labels.get(i) {
                // A label is written where it overlaps no label already written and stays in
                // the plot (points bunched together keep the first of theirs).
                let font = ("sans-serif", 11).into_font().color(&c);
                let (xr, yr) = chart.plotting_area().get_pixel_range();
                for (&p, w) in pts.iter().zip(words) {
                    let (px, py) = chart.backend_coord(&p);
                    let width = super::bars::text_w(w, 11) + 2.0;
                    let fits = |b: &(f64, f64, f64, f64)| {
                        b.0 >= xr.start as f64 && b.2 <= xr.end as f64 && b.1 >= yr.start as f64 && b.3 <= yr.end as f64
                    };
                    let free = |b: &(f64, f64, f64, f64)| {
                        !placed.iter().any(|o: &(f64, f64, f64, f64)| b.0 < o.2 && o.0 < b.2 && b.1 < o.3 && o.1 < b.3)
                    };
                    // Right of the point, else left of it (the last point at the plot's edge).
                    let at = [5i32, -5 - width as i32].into_iter().find_map(|dx| {
                        let x0 = px as f64 + dx as f64;
                        let b = (x0, py as f64 - 14.0, x0 + width, py as f64 - 1.0);
                        (fits(&b) && free(&b)).then_some((dx, b))
                    });
                    let Some((dx, b)) = at else { continue };
                    placed.push(b);
                    chart.draw_series([EmptyElement::at(p) + Text::new(w.clone(), (dx, -14), font.clone())])?;
                }
            }
        }
        if series.iter().all(|s| s.1.is_empty()) {
            no_data(&mut chart, f.x, f.y)?;
        }
        Ok(())
    })
}

pub(super) fn transform(points: &[(f64, f64)], xk: &Kind, yk: &Kind, sort: bool) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = points.iter().filter_map(|&(x, y)| Some((xk.fwd(x)?, yk.fwd(y)?))).collect();
    if sort {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    v
}

pub(super) fn x_kind(s: &XScale) -> Kind {
    match s {
        XScale::Linear => Kind::Linear,
        XScale::Log2 => Kind::Log2,
        XScale::Category(c) => Kind::Category(c.clone()),
    }
}
