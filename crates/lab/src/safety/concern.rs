//! A reason not to write a target, and whether `--force` may override it.
//!
//! Two kinds, kept apart by type rather than by wording: a **live** user — mounted, active swap,
//! a holder (LVM, md, dm), a loop device over it, another process's lock, another process with
//! it open, busy for an exclusive open, or any of these on the storage it sits on — is using the
//! data right now, and writing under it corrupts what it is doing; nothing overrides that (fio
//! keeps `allow_mounted_write` apart from everything else for the same reason). A **stale**
//! concern is what the target holds or is — a filesystem signature, a partition table, being a
//! partition — which may be an old leftover the user knows about: `--force` writes it anyway.

/// Whether `--force` may override a concern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Someone uses it right now: never overridden.
    Live,
    /// It holds data or has a layout that may be stale: `--force` overrides.
    Stale,
}

/// One reason, as a sentence, and its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Concern {
    pub kind: Kind,
    pub text: String,
}

impl Concern {
    pub fn live(text: impl Into<String>) -> Concern {
        Concern { kind: Kind::Live, text: text.into() }
    }

    pub fn stale(text: impl Into<String>) -> Concern {
        Concern { kind: Kind::Stale, text: text.into() }
    }
}

/// Every concern of `kind` as sentences.
pub(super) fn texts(concerns: &[Concern], kind: Kind) -> Vec<String> {
    concerns.iter().filter(|c| c.kind == kind).map(|c| c.text.clone()).collect()
}

/// The refusal for `concerns`, if any refuses with `force` as given: live ones always, stale
/// ones unless `force`.
pub(super) fn refusal(subject: &str, concerns: &[Concern], force: bool) -> Option<String> {
    let live = texts(concerns, Kind::Live);
    let stale = texts(concerns, Kind::Stale);
    if !live.is_empty() {
        let mut msg = live_message(subject, &live);
        if !stale.is_empty() {
            msg += &format!("; besides, {} (stale data --force would override once nothing uses it)", listed(&stale));
        }
        return Some(msg);
    }
    (!force && !stale.is_empty()).then(|| stale_message(&stale))
}

const SHOWN: usize = 3;

/// The first few sentences, and how many more there are.
fn listed(concerns: &[String]) -> String {
    let mut msg = concerns.iter().take(SHOWN).cloned().collect::<Vec<_>>().join("; ");
    if concerns.len() > SHOWN {
        msg += &format!(" (and {} more)", concerns.len() - SHOWN);
    }
    msg
}

/// A live user: what it is, and that only stopping it helps.
pub(super) fn live_message(subject: &str, concerns: &[String]) -> String {
    format!(
        "{subject} is in use right now: {}; refusing to write (live user; --force does not override a live user: \
         unmount/stop it first)",
        listed(concerns)
    )
}

/// Stale data or layout: what it is, and the way out.
pub(super) fn stale_message(concerns: &[String]) -> String {
    listed(concerns) + "; refusing to write (add --force as well to write anyway)"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_user_refuses_whatever_force_says_and_stale_data_only_without_it() {
        let live = Concern::live("/x is mounted on /m");
        let stale = Concern::stale("/x holds an ext4 filesystem");
        for force in [false, true] {
            let msg = refusal("/x", &[stale.clone(), live.clone()], force).expect("refused");
            assert_eq!(
                msg,
                "/x is in use right now: /x is mounted on /m; refusing to write (live user; --force does not \
                 override a live user: unmount/stop it first); besides, /x holds an ext4 filesystem (stale data \
                 --force would override once nothing uses it)"
            );
        }
        assert_eq!(
            refusal("/x", std::slice::from_ref(&stale), false).as_deref(),
            Some("/x holds an ext4 filesystem; refusing to write (add --force as well to write anyway)")
        );
        assert_eq!(refusal("/x", &[stale], true), None);
        assert_eq!(refusal("/x", &[], false), None);
    }
}
