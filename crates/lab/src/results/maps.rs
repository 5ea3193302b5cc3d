//! A verifying point's generation maps beside its record: where they are saved and how they
//! are read back (as input: a regular file, each map's size checked before it is allocated).

use std::path::{Path, PathBuf};

use drivelab_engine::Error;

use super::PointResult;
use crate::plan::Point;

/// Why a point's saved generation maps cannot be read: the words defined once, each kind with
/// the map file and its target, so a caller can match (or downcast from [`Error::Refused`]) the
/// kind. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum MapsError {
    /// A map that is cut short or not a map; `why` is the map reader's words.
    #[error("{} (the map of {target}): {why}; give the results directory as drivelab left it", .path.display())]
    Damaged { path: PathBuf, target: String, why: String },
    #[error("{} (the map of {target}): units of {unit} bytes, and the point verified {verified}-byte units: give the \
             results directory as drivelab left it", .path.display())]
    OtherUnit { path: PathBuf, target: String, unit: u64, verified: u64 },
    #[error("{}: {left} bytes after the maps of the point's {targets} target(s): give the results directory as \
             drivelab left it", .path.display())]
    Trailing { path: PathBuf, left: u64, targets: usize },
}

impl From<MapsError> for Error {
    fn from(e: MapsError) -> Error {
        Error::refused(e)
    }
}

/// Where a verifying point's generation maps are saved: `points/0001-<slug>.genmap` (or
/// `.interrupted.genmap`), one map per target in the result's target order (see
/// `drivelab_engine::verify::GenerationMap::save`).
pub fn map_file(dir: &Path, point: &Point, interrupted: bool) -> PathBuf {
    let suffix = if interrupted { ".interrupted.genmap" } else { ".genmap" };
    dir.join("points").join(format!("{:04}-{}{suffix}", point.index, point.slug))
}

/// The generation maps saved with `point`, one per target of its result, whose sizes now are
/// `sizes` (a map reaching past its target's end is refused). The file is input: read only if
/// it is a regular file, each map's size checked before it is allocated.
pub fn load_maps(
    dir: &Path,
    point: &PointResult,
    sizes: &[u64],
) -> Result<Vec<drivelab_engine::verify::GenerationMap>, Error> {
    use std::io::Read;
    let path = map_file(dir, &point.point, point.result.interrupted);
    let (file, len) = drivelab_engine::input::Input::MAP.open(&path)?;
    let mut r = std::io::BufReader::with_capacity(1 << 20, file.take(len));
    let mut left = len;
    let mut maps = Vec::new();
    for (t, &size) in point.result.targets.iter().zip(sizes) {
        let m = drivelab_engine::verify::GenerationMap::load(&mut r, left, size).map_err(|e| {
            let why =
                if e.kind() == std::io::ErrorKind::UnexpectedEof { "cut short".to_string() } else { e.to_string() };
            if e.kind() == std::io::ErrorKind::InvalidData || e.kind() == std::io::ErrorKind::UnexpectedEof {
                MapsError::Damaged { path: path.clone(), target: t.path.clone(), why }.into()
            } else {
                Error::io(format!("reading {}", path.display()), e)
            }
        })?;
        left -= 32 + m.len() as u64;
        let unit = point.result.kinds.verify.as_ref().map_or(m.unit(), |v| v.unit_bytes);
        if m.unit() != unit {
            let (target, unit, verified) = (t.path.clone(), m.unit(), unit);
            return Err(MapsError::OtherUnit { path, target, unit, verified }.into());
        }
        maps.push(m);
    }
    if left != 0 {
        return Err(MapsError::Trailing { path, left, targets: point.result.targets.len() }.into());
    }
    Ok(maps)
}
