//! fio's options about errors and full file systems, as fio 3.33 means them:
//! - `fill_device`/`fill_fs`: write until the file system is full; the write that fails with
//!   ENOSPC or EDQUOT (or comes back short) ends the job cleanly, not as an error (the engine's
//!   `fill_device` field; the result lists it in `continued_errors`). Its region is the whole
//!   target (a file's size, a device's), as `--cap-size` allows. A file that does not exist yet is
//!   refused: drivelab lays a file out before it measures, so it cannot grow one until full.
//!   A job that only reads is not filled first (fio fills, then reads): a notice says so.
//! - `error_dump`: whether fio prints each error as it happens; drivelab lists every kind of
//!   error once in the result, whatever it says.
//! - trims (`rw=randtrim`, ...): a notice says what they are on a file, where fio differs.
//! - `fallocate`, `create_serialize`, `verify_dump`: how fio lays files out and what it dumps on
//!   a mismatch; drivelab writes a new file whole before it measures and records the first wrong
//!   units (with their bytes in hex) in the result: read, no effect.

use super::value::boolean;

/// What `key=value` does here: None when the key is not one of these; the option is read
/// (`fill` set, or the key added to `no_effect`), or why the value is refused.
pub fn apply(
    fill: &mut bool,
    no_effect: &mut Vec<String>,
    key: &str,
    value: Option<&str>,
) -> Option<Result<(), String>> {
    let mut quiet = || {
        if !no_effect.iter().any(|k| k == key) {
            no_effect.push(key.to_string());
        }
    };
    let r = match key {
        "fill_device" | "fill_fs" => boolean(value).map(|b| *fill = b).map_err(String::from),
        "error_dump" | "create_serialize" | "verify_dump" => boolean(value).map(|_| quiet()).map_err(String::from),
        "fallocate" => match value.map(str::trim) {
            Some("none" | "native" | "posix" | "keep" | "truncate" | "0" | "1") => {
                quiet();
                Ok(())
            }
            _ => Err("expected none, native, posix, keep, truncate, 0 or 1".to_string()),
        },
        _ => return None,
    };
    Some(r)
}

/// Why a `fill_device` job without a size cannot run on `target`, a file that does not exist.
pub fn new_file_refused(job: &str, target: &str) -> String {
    format!(
        "[{job}]: fill_device on {target}, a file that does not exist yet: drivelab lays a file out \
         before it measures, so it cannot grow one until the file system is full; create the file \
         first (a sparse file as large as the file system: truncate -s SIZE {target}), or give size="
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiojob::notice::Notice;

    #[test]
    fn fill_sets_the_flag_and_the_others_are_read_with_no_effect() {
        let (mut fill, mut quiet) = (false, Vec::new());
        assert_eq!(apply(&mut fill, &mut quiet, "fill_device", Some("1")), Some(Ok(())));
        assert!(fill);
        assert_eq!(apply(&mut fill, &mut quiet, "fill_fs", Some("0")), Some(Ok(())));
        assert!(!fill);
        for (k, v) in [("error_dump", "0"), ("fallocate", "none"), ("create_serialize", "0"), ("verify_dump", "1")] {
            assert_eq!(apply(&mut fill, &mut quiet, k, Some(v)), Some(Ok(())), "{k}");
        }
        assert_eq!(quiet, ["error_dump", "fallocate", "create_serialize", "verify_dump"]);
        assert!(apply(&mut fill, &mut quiet, "fallocate", Some("sometimes")).unwrap().unwrap_err().contains("posix"));
        assert!(apply(&mut fill, &mut quiet, "error_dump", Some("maybe")).unwrap().is_err());
        assert_eq!(apply(&mut fill, &mut quiet, "bs", Some("4k")), None);
    }

    #[test]
    fn trim_jobs_say_what_a_trim_of_a_file_is_and_reads_are_not_filled() {
        let o = |k: &str, v: &str| super::super::ini::Opt { key: k.into(), value: Some(v.into()), line: 1 };
        let job = |rw: &str| super::super::options::translate("j", 1, &[o("rw", rw), o("size", "1m")]);
        assert!(job("randtrim").unwrap().notices.contains(&Notice::TrimFiles));
        assert!(!job("write").unwrap().notices.contains(&Notice::TrimFiles));
        let fill = |rw: &str| super::super::options::translate("j", 1, &[o("rw", rw), o("fill_device", "1")]);
        assert!(fill("write").unwrap().spec.fill_device);
        let reads = fill("read").unwrap();
        assert!(reads.notices.contains(&Notice::FillReads) && !reads.spec.fill_device);
    }
}
