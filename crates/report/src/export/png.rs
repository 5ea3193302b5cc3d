//! The PNG exporter: each [`ChartSpec`](crate::model::ChartSpec) of a report drawn to SVG and
//! rasterized with resvg, one file per chart (`01-<title>.png`). It reads the specs, never
//! the HTML page.

use super::{Artifact, Exporter};
use crate::charts;
use crate::model::Report;

pub struct Png {
    /// 1.0 = the chart's own size.
    pub scale: f32,
}

impl Exporter for Png {
    fn export(&self, r: &Report) -> Result<Vec<Artifact>, super::ExportError> {
        let specs: Vec<_> = r.charts().collect();
        let width = specs.len().to_string().len().max(2);
        specs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let name = format!("{:0width$}-{}.png", i + 1, drivelab_lab::store::short_slug(&c.title(), 60));
                let bytes = crate::png::svg_to_png(&charts::draw(c), self.scale)
                    .map_err(|why| super::ExportError::Chart { chart: name.clone(), why })?;
                Ok(Artifact { name, bytes })
            })
            .collect()
    }
}
