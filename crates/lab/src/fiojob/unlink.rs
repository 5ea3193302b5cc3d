//! fio's `unlink=1`: a job's files are deleted when its group (drivelab's point) ends, so a
//! script's scratch files do not pile up. drivelab deletes what it made — a file carrying its
//! mark — and a file someone else made only with `--overwrite`; any other is kept, and a notice
//! says so. A device is never unlinked, and a name is removed as itself (`unlink` never
//! follows a symbolic link). A file already gone is not an error. The directories of fio's
//! directory engines are removed as directories (`rmdir`: only an empty one).

use drivelab_engine::result::RunResult;
use drivelab_engine::target::TargetKind;

use crate::plan::Point;

/// Delete the files of point `p`'s streams that asked for it, after its result `r`; the
/// notices of what was kept.
pub fn after_point(p: &Point, r: &RunResult, overwrite: bool) -> Vec<String> {
    let Some(fio) = &p.fio else { return Vec::new() };
    let mut notices = Vec::new();
    for &stream in &fio.unlink {
        let paths = match stream {
            0 => &p.targets,
            k => match p.concurrent.get(k - 1) {
                Some(c) => &c.targets,
                None => continue,
            },
        };
        for path in paths {
            let Some(info) = r.targets.iter().find(|t| &t.path == path) else { continue };
            if info.kind != TargetKind::File {
                continue;
            }
            if !info.created_by_drivelab && !overwrite {
                notices.push(format!(
                    "unlink: {path} was kept: drivelab deletes the files it made, and others only with --overwrite"
                ));
                continue;
            }
            let spec = if stream == 0 { &p.spec } else { &p.concurrent[stream - 1].spec };
            let removed = if spec.engine.is_dir() { std::fs::remove_dir(path) } else { std::fs::remove_file(path) };
            match removed {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => notices.push(format!("unlink: {path} could not be deleted: {e}")),
            }
        }
    }
    notices
}
