//! fio's `opendir`: every regular file below a directory, one job over them all. Read as fio
//! reads it (symbolic links are neither followed nor taken, as fio's `lstat` walk), bounded:
//! at most `MAX_FILES_PER_JOB` files and 16 levels, refused clearly beyond.

use std::path::{Path, PathBuf};

use super::options::MAX_FILES_PER_JOB;

/// The deepest directory level walked.
const MAX_DEPTH: usize = 16;

/// Why `opendir` cannot be read: the words defined once, each kind with its path.
#[derive(Debug, thiserror::Error)]
pub enum OpendirError {
    #[error("opendir={dir}: no regular file below it; fio would find none either")]
    Empty { dir: String },
    #[error("opendir={dir}: {} is more than {MAX_DEPTH} levels deep", .at.display())]
    TooDeep { dir: String, at: PathBuf },
    #[error("opendir={dir}: more than {MAX_FILES_PER_JOB} files (drivelab's most per job): split the job")]
    TooMany { dir: String },
    #[error("opendir={dir}: {}: a file name that is not UTF-8; rename it or name the files with filename", .at.display())]
    NotUtf8 { dir: String, at: PathBuf },
    #[error("opendir={dir}: {}: {error}", .at.display())]
    Unreadable { dir: String, at: PathBuf, error: std::io::Error },
}

/// Every regular file below `dir`, sorted by path (fio takes the directory's order; sorted,
/// the same job gives the same files on every run).
pub fn files_below(dir: &str) -> Result<Vec<String>, OpendirError> {
    let mut out = Vec::new();
    walk(dir, Path::new(dir), 0, &mut out)?;
    if out.is_empty() {
        return Err(OpendirError::Empty { dir: dir.into() });
    }
    out.sort();
    Ok(out)
}

fn walk(top: &str, dir: &Path, depth: usize, out: &mut Vec<String>) -> Result<(), OpendirError> {
    let unreadable = |at: &Path, error| OpendirError::Unreadable { dir: top.into(), at: at.to_path_buf(), error };
    if depth > MAX_DEPTH {
        return Err(OpendirError::TooDeep { dir: top.into(), at: dir.to_path_buf() });
    }
    for e in std::fs::read_dir(dir).map_err(|e| unreadable(dir, e))? {
        let e = e.map_err(|e| unreadable(dir, e))?;
        // The entry's own type, never its link's target.
        let kind = e.file_type().map_err(|err| unreadable(&e.path(), err))?;
        if kind.is_dir() {
            walk(top, &e.path(), depth + 1, out)?;
        } else if kind.is_file() {
            if out.len() as u64 >= MAX_FILES_PER_JOB {
                return Err(OpendirError::TooMany { dir: top.into() });
            }
            let path = e.path().into_os_string().into_string();
            out.push(path.map_err(|p| OpendirError::NotUtf8 { dir: top.into(), at: p.into() })?);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_below_sorted_links_left_out() {
        let d = std::env::temp_dir().join(format!("drivelab-opendir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("sub")).unwrap();
        for f in ["b", "a", "sub/c"] {
            std::fs::write(d.join(f), b"x").unwrap();
        }
        std::os::unix::fs::symlink(d.join("a"), d.join("link")).unwrap();
        let got = files_below(d.to_str().unwrap()).unwrap();
        let want: Vec<String> = ["a", "b", "sub/c"].iter().map(|f| d.join(f).to_string_lossy().into_owned()).collect();
        assert_eq!(got, want);
        std::fs::remove_dir_all(&d).unwrap();
        assert!(matches!(files_below(d.to_str().unwrap()), Err(OpendirError::Unreadable { .. })));
    }
}
