//! (tests only) Reading charts back from their SVG: tick labels give each axis's mapping, which
//! inverted turns bar tops, markers and line vertices back into values that tests compare with
//! the saved results the chart was drawn from.

/// The outermost `<svg>...</svg>` elements of a page, in order (the report never nests them).
pub(crate) fn svgs(page: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(start) = rest.find("<svg ") {
        let end = start + rest[start..].find("</svg>").expect("closed svg") + "</svg>".len();
        out.push(&rest[start..end]);
        rest = &rest[end..];
    }
    out
}

pub(crate) fn num(n: roxmltree::Node, attr: &str) -> f64 {
    n.attribute(attr).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no numeric {attr} on {n:?}"))
}

/// A tick label as a number: "250", "1.5", "10k", "2M"; a latency's in µs ("100 µs", "2 ms",
/// "1 s", "500 ns").
pub(crate) fn tick_value(s: &str) -> Option<f64> {
    let s = s.trim();
    for (unit, us) in [(" ns", 1e-3), (" µs", 1.0), (" ms", 1e3), (" s", 1e6)] {
        if let Some(v) = s.strip_suffix(unit) {
            return tick_value(v).map(|v| v * us);
        }
    }
    let (digits, mul) = match s.strip_suffix('k') {
        Some(d) => (d, 1e3),
        None => s.strip_suffix('M').map_or((s, 1.0), |d| (d, 1e6)),
    };
    digits.parse::<f64>().ok().map(|v| v * mul)
}

/// A text's content without the whitespace plotters puts around it.
pub(crate) fn text_of(n: roxmltree::Node) -> String {
    n.text().unwrap_or("").trim().to_string()
}

/// value -> pixel of a linear axis, fitted through its tick labels by least squares (every tick
/// must lie on the line within a pixel's rounding, so a label that lies about its position
/// fails here).
#[derive(Debug)]
pub(crate) struct AxisMap {
    pub(crate) px0: f64,
    pub(crate) px_per_unit: f64,
}

impl AxisMap {
    pub(crate) fn fit(ticks: &[(f64, f64)]) -> AxisMap {
        assert!(ticks.len() >= 2, "an axis needs two tick labels: {ticks:?}");
        let n = ticks.len() as f64;
        let (mv, mp) = (ticks.iter().map(|t| t.0).sum::<f64>() / n, ticks.iter().map(|t| t.1).sum::<f64>() / n);
        let cov: f64 = ticks.iter().map(|t| (t.0 - mv) * (t.1 - mp)).sum();
        let var: f64 = ticks.iter().map(|t| (t.0 - mv).powi(2)).sum();
        let px_per_unit = cov / var;
        let m = AxisMap { px0: mp - mv * px_per_unit, px_per_unit };
        for &(v, px) in ticks {
            assert!((m.px(v) - px).abs() <= 1.0, "tick {v} at {px}, expected {}: {ticks:?}", m.px(v));
        }
        m
    }

    pub(crate) fn px(&self, v: f64) -> f64 {
        self.px0 + v * self.px_per_unit
    }

    pub(crate) fn value(&self, px: f64) -> f64 {
        (px - self.px0) / self.px_per_unit
    }

    /// How far apart two values may be and still be one pixel apart (plotters rounds to pixels).
    pub(crate) fn tolerance(&self, pixels: f64) -> f64 {
        pixels / self.px_per_unit.abs()
    }
}

/// A chart parsed: its title, axes and the marks of each legend entry.
pub(crate) struct Chart<'a> {
    pub(crate) doc: roxmltree::Document<'a>,
}

impl<'a> Chart<'a> {
    pub(crate) fn parse(svg: &'a str) -> Chart<'a> {
        Chart { doc: roxmltree::Document::parse(svg).expect("well-formed SVG") }
    }

    pub(crate) fn texts(&self) -> impl Iterator<Item = roxmltree::Node<'_, 'a>> {
        self.doc.descendants().filter(|n| n.has_tag_name("text"))
    }

    pub(crate) fn title(&self) -> String {
        self.texts().next().map(text_of).unwrap_or_default()
    }

    /// The value axis: right-aligned numeric labels left of the plot (plotters centres them on
    /// their tick: `y` is the tick's pixel).
    pub(crate) fn y_axis(&self) -> AxisMap {
        let mut ticks: Vec<(f64, f64)> = self
            .texts()
            .filter(|n| n.attribute("text-anchor") == Some("end") && n.attribute("transform").is_none())
            .filter_map(|n| Some((tick_value(&text_of(n))?, num(n, "y"))))
            .collect();
        ticks.sort_by(|a, b| a.0.total_cmp(&b.0));
        AxisMap::fit(&ticks)
    }

    /// The x axis labels (centred under their tick, below the plot): (text, pixel).
    pub(crate) fn x_labels(&self) -> Vec<(String, f64)> {
        let bottom = self.y_axis().px(0.0);
        self.texts()
            .filter(|n| n.attribute("text-anchor") == Some("middle") && n.attribute("transform").is_none())
            .filter(|n| num(*n, "y") > bottom)
            .map(|n| (text_of(n), num(n, "x")))
            .collect()
    }

    /// A numeric x axis fitted through its labels.
    pub(crate) fn x_axis(&self) -> AxisMap {
        let mut ticks: Vec<(f64, f64)> =
            self.x_labels().iter().filter_map(|(t, x)| Some((tick_value(t)?, *x))).collect();
        ticks.sort_by(|a, b| a.0.total_cmp(&b.0));
        AxisMap::fit(&ticks)
    }

    /// The colour of legend entry `name`: its swatch (rect, line or dot) just left of the label.
    pub(crate) fn legend_color(&self, name: &str) -> String {
        let label = self
            .texts()
            .find(|n| text_of(*n) == name && n.attribute("text-anchor") == Some("start"))
            .unwrap_or_else(|| panic!("no legend entry {name:?}"));
        let (lx, ly) = (num(label, "x"), num(label, "y"));
        self.doc
            .descendants()
            .filter_map(|n| {
                let (x, y, color) = match n.tag_name().name() {
                    "rect" => (num(n, "x"), num(n, "y") + num(n, "height") / 2.0, n.attribute("fill")?),
                    "polyline" => {
                        let pts = vertices(n);
                        (pts.last()?.0, pts.last()?.1, n.attribute("stroke")?)
                    }
                    "circle" => (num(n, "cx"), num(n, "cy"), n.attribute("fill")?),
                    _ => return None,
                };
                (x < lx && lx - x < 40.0 && (y - ly).abs() <= 6.0).then(|| (lx - x, color.to_string()))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap_or_else(|| panic!("no swatch next to legend entry {name:?}"))
            .1
    }

    /// Filled rectangles of `color` in the plot (not the legend swatch): (x0, x1, top, bottom).
    pub(crate) fn bars(&self, color: &str) -> Vec<(f64, f64, f64, f64)> {
        self.doc
            .descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(color))
            .map(|n| {
                let (x, y) = (num(n, "x"), num(n, "y"));
                (x, x + num(n, "width"), y, y + num(n, "height"))
            })
            .collect()
    }

    /// Marker centres of `color`.
    pub(crate) fn markers(&self, color: &str) -> Vec<(f64, f64)> {
        self.doc
            .descendants()
            .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some(color))
            .map(|n| (num(n, "cx"), num(n, "cy")))
            .collect()
    }
}

/// A polyline's points.
pub(crate) fn vertices(n: roxmltree::Node) -> Vec<(f64, f64)> {
    n.attribute("points")
        .unwrap_or("")
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').expect("x,y");
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

/// The chart of the report whose title is `title`.
pub(crate) fn chart_titled<'a>(page: &'a str, title: &str) -> &'a str {
    svgs(page)
        .into_iter()
        .find(|s| Chart::parse(s).title() == title)
        .unwrap_or_else(|| panic!("no chart titled {title:?}"))
}

/// value -> pixel of a log10 axis: an [`AxisMap`] over log10 of the values.
pub(crate) struct LogAxis(pub(crate) AxisMap);

impl LogAxis {
    pub(crate) fn fit(ticks: &[(f64, f64)]) -> LogAxis {
        let logs: Vec<(f64, f64)> = ticks.iter().filter(|t| t.0 > 0.0).map(|&(v, px)| (v.log10(), px)).collect();
        LogAxis(AxisMap::fit(&logs))
    }

    pub(crate) fn value(&self, px: f64) -> f64 {
        10f64.powf(self.0.value(px))
    }

    pub(crate) fn px(&self, v: f64) -> f64 {
        self.0.px(v.log10())
    }
}

impl Chart<'_> {
    /// The value axis's tick labels: (value, pixel).
    pub(crate) fn y_ticks(&self) -> Vec<(f64, f64)> {
        self.texts()
            .filter(|n| n.attribute("text-anchor") == Some("end") && n.attribute("transform").is_none())
            .filter_map(|n| Some((tick_value(&text_of(n))?, num(n, "y"))))
            .collect()
    }

    /// The x axis's numeric tick labels (below the lowest y tick): (value, pixel).
    pub(crate) fn x_ticks(&self) -> Vec<(f64, f64)> {
        let bottom = self.y_ticks().iter().map(|t| t.1).fold(0.0, f64::max);
        self.texts()
            .filter(|n| n.attribute("text-anchor") == Some("middle") && n.attribute("transform").is_none())
            .filter(|n| num(*n, "y") > bottom)
            .filter_map(|n| Some((tick_value(&text_of(n))?, num(n, "x"))))
            .collect()
    }

    /// Circles stroked in `color` with no fill, of radius `r`: hollow markers and rings.
    pub(crate) fn hollow(&self, color: &str, r: f64) -> Vec<(f64, f64)> {
        self.doc
            .descendants()
            .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some("none"))
            .filter(|n| n.attribute("stroke") == Some(color) && num(*n, "r") == r)
            .map(|n| (num(n, "cx"), num(n, "cy")))
            .collect()
    }

    /// The pixel heights of the dashed horizontal lines of `color` across the plot (a line is
    /// drawn as many short segments; a legend swatch has 3, so a height needs more than 3).
    pub(crate) fn dashed_levels(&self, color: &str) -> Vec<f64> {
        let mut count: Vec<(f64, usize)> = Vec::new();
        for n in self.doc.descendants().filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(color)) {
            let v = vertices(n);
            if v.len() == 2 && v[0].1 == v[1].1 && (v[1].0 - v[0].0).abs() <= 6.0 {
                match count.iter_mut().find(|c| c.0 == v[0].1) {
                    Some(c) => c.1 += 1,
                    None => count.push((v[0].1, 1)),
                }
            }
        }
        count.into_iter().filter(|c| c.1 > 3).map(|c| c.0).collect()
    }
}
