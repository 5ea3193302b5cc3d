//! fio's `ignore_error`: the errors a job continues after, per direction — `READ,WRITE,VERIFY`,
//! each a `:`-separated list of errno names (`ENOSPC`) or numbers (`28`, `-28`), as fio 3.33's
//! `str_ignore_error_cb` reads it. An I/O error whose errno is listed for its direction (reads:
//! the read list; writes, trims and fsyncs: the write list) is counted and the job goes on; any
//! other error stops it as without `continue_on_error`. A verify mismatch (fio's EILSEQ) goes on
//! when the verify list holds EILSEQ. Continued errors stay in the result's `errors`, so the run
//! is still an errored one (fio clears them: its job ends with err=0 and `total_err_count`).
//! Checked only when an I/O fails: nothing per I/O.

use serde::{Deserialize, Serialize};

/// The errnos each direction continues after (positive numbers; empty: none).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgnoreErrors {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_errnos: Vec<i32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_errnos: Vec<i32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verify_errnos: Vec<i32>,
}

/// The errno names fio's `str2error` knows that Linux block and file I/O can return.
const NAMES: &[(&str, i32)] = &[
    ("EPERM", libc::EPERM),
    ("ENOENT", libc::ENOENT),
    ("EINTR", libc::EINTR),
    ("EIO", libc::EIO),
    ("ENXIO", libc::ENXIO),
    ("E2BIG", libc::E2BIG),
    ("EBADF", libc::EBADF),
    ("EAGAIN", libc::EAGAIN),
    ("ENOMEM", libc::ENOMEM),
    ("EACCES", libc::EACCES),
    ("EFAULT", libc::EFAULT),
    ("ENOTBLK", libc::ENOTBLK),
    ("EBUSY", libc::EBUSY),
    ("EEXIST", libc::EEXIST),
    ("ENODEV", libc::ENODEV),
    ("EISDIR", libc::EISDIR),
    ("EINVAL", libc::EINVAL),
    ("EMFILE", libc::EMFILE),
    ("ETXTBSY", libc::ETXTBSY),
    ("EFBIG", libc::EFBIG),
    ("ENOSPC", libc::ENOSPC),
    ("ESPIPE", libc::ESPIPE),
    ("EROFS", libc::EROFS),
    ("EPIPE", libc::EPIPE),
    ("ERANGE", libc::ERANGE),
    ("ENOSYS", libc::ENOSYS),
    ("ENODATA", libc::ENODATA),
    ("ETIME", libc::ETIME),
    ("EOVERFLOW", libc::EOVERFLOW),
    ("EBADMSG", libc::EBADMSG),
    ("EILSEQ", libc::EILSEQ),
    ("EOPNOTSUPP", libc::EOPNOTSUPP),
    ("ETIMEDOUT", libc::ETIMEDOUT),
    ("ESTALE", libc::ESTALE),
    ("EDQUOT", libc::EDQUOT),
    ("ENOMEDIUM", libc::ENOMEDIUM),
    ("EMEDIUMTYPE", libc::EMEDIUMTYPE),
    ("ECANCELED", libc::ECANCELED),
    ("EREMOTEIO", libc::EREMOTEIO),
];

impl IgnoreErrors {
    /// fio's `READ,WRITE,VERIFY` text, or why not.
    pub fn parse(text: &str) -> Result<IgnoreErrors, String> {
        let mut lists: [Vec<i32>; 3] = Default::default();
        let parts: Vec<&str> = text.trim().split(',').collect();
        if parts.len() > 3 {
            return Err("at most three lists: READ,WRITE,VERIFY".into());
        }
        for (list, part) in lists.iter_mut().zip(parts) {
            // fio stops a list at its first empty name.
            for name in part.split(':').map(str::trim).take_while(|n| !n.is_empty()) {
                list.push(errno(name)?);
            }
        }
        let [read_errnos, write_errnos, verify_errnos] = lists;
        Ok(IgnoreErrors { read_errnos, write_errnos, verify_errnos })
    }

    /// fio's spelling, numbers only: `5:28,28,84`.
    pub fn to_text(&self) -> String {
        let list = |l: &[i32]| l.iter().map(i32::to_string).collect::<Vec<_>>().join(":");
        format!("{},{},{}", list(&self.read_errnos), list(&self.write_errnos), list(&self.verify_errnos))
    }

    /// Whether an I/O of `is_read` that failed with `res` (a negative errno; a short transfer
    /// is 0 or more and never continues) goes on.
    pub fn continues(&self, is_read: bool, res: i32) -> bool {
        let list = if is_read { &self.read_errnos } else { &self.write_errnos };
        res < 0 && list.contains(&-res)
    }

    /// Whether a verify mismatch goes on (the verify list holds EILSEQ).
    pub fn continues_verify(&self) -> bool {
        self.verify_errnos.contains(&libc::EILSEQ)
    }
}

/// An errno by fio's rules: a name starting with `E`, else a number (its sign dropped), never 0.
fn errno(name: &str) -> Result<i32, String> {
    let n = if name.starts_with('E') {
        NAMES.iter().find(|(k, _)| *k == name).map(|(_, v)| *v).ok_or_else(|| {
            format!("'{name}' is not an errno name drivelab knows: give its number (e.g. 28 for ENOSPC)")
        })?
    } else {
        name.parse::<i32>().map_err(|_| format!("'{name}' is neither an errno name (ENOSPC) nor a number"))?.abs()
    };
    if n == 0 {
        return Err(format!("'{name}': an errno is not 0"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_syntax_per_direction() {
        let i = IgnoreErrors::parse(",ENOSPC").unwrap();
        assert_eq!((i.read_errnos.len(), i.write_errnos.clone()), (0, vec![libc::ENOSPC]));
        let i = IgnoreErrors::parse("EIO:-28,5,EILSEQ").unwrap();
        assert_eq!(i.read_errnos, vec![libc::EIO, 28]);
        assert!(i.continues(true, -libc::EIO) && i.continues(true, -28) && !i.continues(true, -libc::EINVAL));
        assert!(i.continues(false, -5) && !i.continues(false, -28) && !i.continues(false, 512), "short: stops");
        assert!(i.continues_verify());
        assert_eq!(IgnoreErrors::parse(&i.to_text()).unwrap(), i);
        assert_eq!(IgnoreErrors::parse("EIO::ENOSPC").unwrap().read_errnos, vec![libc::EIO], "fio stops at ::");
        assert!(IgnoreErrors::parse("EWHAT").unwrap_err().contains("number"));
        assert!(IgnoreErrors::parse("0").is_err() && IgnoreErrors::parse("x").is_err());
        assert!(IgnoreErrors::parse("1,2,3,4").is_err());
    }
}
