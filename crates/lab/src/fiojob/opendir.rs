//! fio's `opendir`: every regular file below a directory, one job over them all. Read as fio
//! reads it (symbolic links are neither followed nor taken, as fio's `lstat` walk), bounded:
//! at most `MAX_FILES_PER_JOB` files and 16 levels, refused clearly beyond.

use std::path::Path;

use super::options::MAX_FILES_PER_JOB;

/// The deepest directory level walked.
const MAX_DEPTH: usize = 16;

/// Every regular file below `dir`, sorted by path (fio takes the directory's order; sorted,
/// the same job gives the same files on every run).
pub fn files_below(dir: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    walk(Path::new(dir), 0, &mut out).map_err(|e| format!("opendir={dir}: {e}"))?;
    if out.is_empty() {
        return Err(format!("opendir={dir}: no regular file below it; fio would find none either"));
    }
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<String>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("{} is more than {MAX_DEPTH} levels deep", dir.display()));
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries {
        let e = e.map_err(|e| format!("{}: {e}", dir.display()))?;
        // The entry's own type, never its link's target.
        let kind = e.file_type().map_err(|err| format!("{}: {err}", e.path().display()))?;
        if kind.is_dir() {
            walk(&e.path(), depth + 1, out)?;
        } else if kind.is_file() {
            if out.len() as u64 >= MAX_FILES_PER_JOB {
                return Err(format!("more than {MAX_FILES_PER_JOB} files (drivelab's most per job): split the job"));
            }
            let path = e.path().into_os_string().into_string().map_err(|p| {
                format!(
                    "{}: a file name that is not UTF-8; rename it or name the files with filename",
                    p.to_string_lossy()
                )
            })?;
            out.push(path);
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
        assert!(files_below(d.to_str().unwrap()).unwrap_err().contains("opendir="));
    }
}
