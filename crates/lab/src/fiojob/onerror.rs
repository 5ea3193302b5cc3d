//! fio's `ignore_error` with `continue_on_error`, resolved as fio 3.33 resolves them
//! (`options.c`, `td_error.c`) into drivelab's `ignore_error` field: per direction (read, write,
//! verify) the errnos a job continues after. A direction continues when `continue_on_error`
//! names it or `ignore_error` lists errnos for it; its errnos are that list, or fio's default
//! EIO and EILSEQ. A job with `ignore_error` therefore continues only after those errnos (where
//! drivelab's `continue_on_error` alone continues after every error).

use drivelab_engine::spec::ignore_error::IgnoreErrors;

/// The `ignore_error` field for fio's `ignore_error` text and `continue_on_error` value.
pub fn resolve(ignore: &str, continue_on_error: Option<&str>) -> Result<IgnoreErrors, String> {
    let given = IgnoreErrors::parse(ignore)?;
    // Read, write, verify: the directions continue_on_error names.
    let named = match continue_on_error.unwrap_or("none") {
        "none" | "0" => [false; 3],
        "read" => [true, false, false],
        "write" => [false, true, false],
        "io" => [true, true, false],
        "verify" => [false, false, true],
        "all" | "1" => [true; 3],
        v => return Err(format!("continue_on_error={v}: fio takes none, read, write, io, verify, all, 0 or 1")),
    };
    let default = vec![libc::EIO, libc::EILSEQ];
    let pick = |on: bool, list: Vec<i32>| match (on || !list.is_empty(), list.is_empty()) {
        (false, _) => Vec::new(),
        (true, true) => default.clone(),
        (true, false) => list,
    };
    let out = IgnoreErrors {
        read_errnos: pick(named[0], given.read_errnos),
        write_errnos: pick(named[1], given.write_errnos),
        verify_errnos: pick(named[2], given.verify_errnos),
    };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_as_fio_resolves_them() {
        // enospc-pressure.fio: writes continue after ENOSPC alone; reads stop at any error.
        assert_eq!(resolve(",ENOSPC", Some("write")).unwrap().to_text(), ",28,");
        assert_eq!(resolve(",ENOSPC", None).unwrap().to_text(), ",28,", "a list turns its direction on");
        assert_eq!(resolve("EIO", Some("all")).unwrap().to_text(), "5,5:84,5:84", "fio's default: EIO and EILSEQ");
        assert!(resolve(",ENOSPC", Some("sometimes")).unwrap_err().contains("continue_on_error=sometimes"));
        assert!(resolve("EWHAT", None).is_err());
    }
}
