//! Charts as PNG files (`--png DIR`), for articles and anything else that wants a bitmap.
//!
//! The charts are drawn from the report's chart specs to SVG (see [`crate::charts::draw`]),
//! never scraped from the HTML page, and rasterized in pure Rust with `resvg`, offline
//! ([`raster`]). Text is drawn with the system's fonts (found through fontconfig's
//! configuration, loaded once per process); the SVG's generic families (`sans-serif`, `serif`,
//! `monospace`) are pointed at fonts that are actually installed, so titles and labels come out
//! whatever the machine's fontconfig aliases say. With no font at all, the shapes are still drawn
//! and only the text is missing.
//!
//! The background is painted white: the charts' own background may be transparent, and a PNG
//! pasted into a dark-themed page should still look like the HTML report.
//!
//! Why a cargo feature (`png`, on by default): resvg and its ~40 crates serve `--png` alone, so
//! a build without them (`--no-default-features`) is much smaller; there `--png` is refused
//! before anything is read, saying how to get it ([`unavailable`]), as criterion gates its
//! plotting.

use std::path::{Path, PathBuf};

use drivelab_engine::Error;
use drivelab_lab::store::Dir;

#[cfg(feature = "png")]
mod raster;

/// Why this build draws no PNG (None: it does).
pub fn unavailable() -> Option<&'static str> {
    (!cfg!(feature = "png")).then_some(
        "this drivelab was built without PNG charts (with `--no-default-features`): rebuild it with \
         its default features, e.g. `cargo install --locked --path crates/cli`",
    )
}

/// Why a chart made no PNG, by kind: the build and the scale are the user's to change (exit 2);
/// the rest are failures of the drawing itself.
#[derive(Debug, thiserror::Error)]
pub enum PngError {
    #[error("{0}")]
    NotBuilt(&'static str),
    #[error("PNG scale must be a positive number, not {0}")]
    Scale(f32),
    #[error("a {svg_w}x{svg_h} SVG at scale {scale} gives a {w}x{h} PNG (each side must be 1..={max} pixels)")]
    Size { svg_w: f32, svg_h: f32, scale: f32, w: f32, h: f32, max: u32 },
    #[error("cannot parse the chart's SVG: {0}")]
    Svg(String),
    #[error("cannot allocate a {0}x{1} image")]
    Alloc(u32, u32),
    #[error("cannot encode the PNG: {0}")]
    Encode(String),
}

impl PngError {
    /// Whether the user's choice (the build, the scale) caused it.
    pub fn is_input(&self) -> bool {
        matches!(self, PngError::NotBuilt(_) | PngError::Scale(_) | PngError::Size { .. })
    }
}

/// Rasterize one SVG document to PNG bytes at `scale` (1.0 = the SVG's size; use 2.0 for
/// articles). The PNG is the SVG's size times `scale`, rounded up, on a white background.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, PngError> {
    #[cfg(feature = "png")]
    return raster::svg_to_png(svg, scale);
    #[cfg(not(feature = "png"))]
    {
        let _ = (svg, scale);
        Err(PngError::NotBuilt(unavailable().unwrap_or_default()))
    }
}

/// Write `files` (name, bytes) into `dir` (created if missing), never over an existing name of
/// any kind (a symlink included): every name is checked before the first is written, the error
/// names the file, and each file is made whole inside the opened directory
/// (`drivelab_lab::store::Dir`).
pub fn write_all_new(dir: &Path, files: Vec<(String, Vec<u8>)>) -> Result<Vec<PathBuf>, Error> {
    for (name, _) in &files {
        let path = dir.join(name);
        if path.symlink_metadata().is_ok() {
            return Err(Error::invalid(format!("{} already exists (not overwriting it)", path.display())));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::invalid(format!("cannot create {}: {e}", dir.display())))?;
    let opened = Dir::open(dir)?;
    if let Some((name, _)) = files.iter().find(|(name, _)| opened.has(name)) {
        return Err(Error::invalid(format!("{} already exists (not overwriting it)", dir.join(name).display())));
    }
    let mut written = Vec::with_capacity(files.len());
    for (name, png) in files {
        opened.write_new(&name, &png)?;
        written.push(dir.join(name));
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    #[test]
    fn png_is_refused_exactly_when_built_without_the_png_feature() {
        // The rasterizing itself is tested in `raster` (with the feature).
        let why = super::unavailable();
        assert_eq!(why.is_some(), !cfg!(feature = "png"), "{why:?}");
        if let Some(why) = why {
            assert!(why.contains("default features"), "{why}");
            assert_eq!(super::svg_to_png("<svg/>", 1.0).unwrap_err().to_string(), why);
        }
    }
}
