//! fio's `wait_for=NAME`: a job starts only once every clone of the job named has ended.
//!
//! drivelab runs a job file as groups, one after another, each group's jobs together; a job can
//! only start with its group. So `wait_for` is honoured exactly where it is a group boundary:
//! - the waitee ran in an earlier group: it has ended before this group starts (nothing to do);
//! - the waitee is the only job before this one in its group: this job starts a new group (as
//!   `stonewall` would; the waitee's clones all end first, as fio waits for all of them);
//! - anything else would start this job later, or earlier, than fio does, and is refused: another
//!   job runs beside the waitee (fio would start this one while that one still runs), or no job of
//!   that name comes before (fio refuses forward references and unknown names too).

use super::ini::LineError;
use super::options::Job;

/// Give each job with `wait_for` the group boundary it means, or refuse it (the job's line).
/// `jobs` are in file order, each with its part (stonewalls as read).
pub fn apply(jobs: &mut [(Job, usize)]) -> Result<(), (usize, LineError)> {
    let mut group_start = 0;
    for k in 0..jobs.len() {
        if jobs[k].0.stonewall {
            group_start = k;
        }
        let Some(waitee) = jobs[k].0.wait_for.clone() else { continue };
        let refuse = |message: String| Err((jobs[k].1, LineError { line: jobs[k].0.line, message }));
        let Some(w) = jobs[..k].iter().rposition(|(j, _)| j.name == waitee) else {
            return refuse(format!(
                "[{}]: wait_for={waitee}: no job named {waitee} comes before this one; fio waits only for an \
                 earlier job: name one above it",
                jobs[k].0.name
            ));
        };
        if jobs[..k].iter().filter(|(j, _)| j.name == waitee).count() > 1 {
            return refuse(format!(
                "[{}]: wait_for={waitee}: more than one job is named {waitee}; fio needs the job waited for to \
                 have a name of its own",
                jobs[k].0.name
            ));
        }
        if w < group_start {
            continue;
        }
        if let Some((other, _)) = jobs[group_start..k].iter().find(|(j, _)| j.name != waitee) {
            return refuse(format!(
                "[{}]: wait_for={waitee}: {} runs beside {waitee}, and drivelab starts a job only with its \
                 group, so this job would wait for both; put stonewall on {} (or on this job) to say which \
                 to wait for",
                jobs[k].0.name, other.name, waitee
            ));
        }
        jobs[k].0.stonewall = true;
        group_start = k;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, line: usize, stonewall: bool, wait_for: Option<&str>) -> (Job, usize) {
        let mut j = super::super::options::translate(name, line, &[]).unwrap();
        j.stonewall = stonewall;
        j.wait_for = wait_for.map(str::to_string);
        (j, 0)
    }

    fn walls(jobs: &[(Job, usize)]) -> Vec<bool> {
        jobs.iter().map(|(j, _)| j.stonewall).collect()
    }

    #[test]
    fn a_chain_of_waits_becomes_a_group_each() {
        // fio's examples/waitfor.fio: each job waits for the one before it.
        let mut jobs = vec![
            job("writers", 1, false, None),
            job("readers", 2, false, Some("writers")),
            job("writers2", 3, false, Some("readers")),
            job("readers2", 4, false, Some("writers2")),
        ];
        apply(&mut jobs).unwrap();
        assert_eq!(walls(&jobs), [false, true, true, true]);
    }

    #[test]
    fn a_waitee_of_an_earlier_group_has_already_ended() {
        let mut jobs = vec![job("a", 1, false, None), job("b", 2, true, None), job("c", 3, false, Some("a"))];
        apply(&mut jobs).unwrap();
        assert_eq!(walls(&jobs), [false, true, false], "c runs beside b, after a");
    }

    #[test]
    fn what_fio_would_start_at_another_time_is_refused_at_the_waiters_line() {
        let mut jobs = vec![job("a", 1, false, None), job("b", 2, false, None), job("c", 3, false, Some("a"))];
        let (_, e) = apply(&mut jobs).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("b runs beside a"), "{}", e.message);
        let mut jobs = vec![job("a", 1, false, Some("z")), job("z", 2, false, None)];
        let (_, e) = apply(&mut jobs).unwrap_err();
        assert!(e.message.contains("no job named z comes before"), "{}", e.message);
        let mut jobs = vec![job("a", 1, false, None), job("a", 2, true, None), job("c", 3, false, Some("a"))];
        let (_, e) = apply(&mut jobs).unwrap_err();
        assert!(e.message.contains("more than one job is named a"), "{}", e.message);
    }
}
