//! fio's options that end a job early, judged from the run's live progress (a few times a
//! second, never per I/O): the lab feeds [`Watch::tick`] each progress tick and, when it says
//! so, ends the run cleanly (`drivelab_engine::run::EndEarly`): the result then says why
//! (`RunResult::ended`), not "interrupted".
//!
//! - `steadystate`/`ss`, `ss_dur`, `ss_ramp`: one sample a second (IOPS and bytes/s, from the
//!   run's counters over the second), after the ramp and `ss_ramp`, fed to the
//!   [`super::steadystate::Tracker`]; the run ends when the criterion is met. The group's
//!   total is judged (fio's `group_reporting` behaviour: drivelab's point is the group).
//! - `rate_min`/`ratemin`, `rate_iops_min`, `rate_cycle`/`ratecycle`: as fio, after 2 s of
//!   settling, the rate over each `rate_cycle` (default 1000 ms) must reach the minimum, else
//!   the run ends as failed (`EndReason::RateMin` makes the result an error). drivelab judges
//!   the total of reads and writes; fio each direction.
//! - `exitall` with `exit_what`: when a job with `exitall` ends (a numjobs clone's end counts),
//!   the jobs of its fio group end (`group`, fio's default: the point's jobs from one
//!   `new_group` to the next), or every job of the point (`stonewall`, `all`: a point is one
//!   stonewall group, and the groups after an `all` are left out of the plan by `fiojob`). The
//!   streams to end go to `EndEarly::end_streams` as a mask ([`Watch::mask`]).

use drivelab_engine::result::{EndReason, SteadyStateStats};
use drivelab_engine::run::{stream_bit, Progress};

use super::steadystate::{Criterion, Tracker};
use super::value::{size, time_ns, whole, BareTime, KbBase};
use crate::plan::FioOptions;

const SECOND: u64 = 1_000_000_000;
/// fio lets a job settle this long before checking its minimum rate.
const RATE_SETTLE_NS: u64 = 2 * SECOND;

/// The options of this module (fio's names and aliases).
pub const KEYS: &[&str] = &[
    "steadystate",
    "ss",
    "steadystate_duration",
    "ss_dur",
    "steadystate_ramp_time",
    "ss_ramp",
    "rate_min",
    "ratemin",
    "rate_iops_min",
    "rate_cycle",
    "ratecycle",
];

/// Check one option's value (at parse time, for FILE:LINE); None for another module's key.
pub fn check(key: &str, value: Option<&str>) -> Option<Result<(), String>> {
    KEYS.contains(&key).then(|| {
        let v = value.map(str::trim).filter(|v| !v.is_empty()).ok_or("needs a value (key=value)")?;
        set(&mut Given::default(), key, v)
    })
}

/// The options as read (the last given wins, `[global]` first, then each job's own).
#[derive(Default)]
struct Given {
    ss: Option<Criterion>,
    ss_dur_s: u64,
    ss_ramp_ns: u64,
    rate_min: u64,
    rate_iops_min: u64,
    rate_cycle_ms: Option<u64>,
    rate_iops: Option<u64>,
    /// The point's one direction (`one_direction`); None while the job file is read.
    dir: Option<Option<usize>>,
}

/// fio's `exit_what`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    Group,
    Stonewall,
    All,
}

/// One job's (stream's) `exitall` as given, and its fio group within the point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Exit {
    on: bool,
    what: What,
    group: usize,
}

/// Each job's [`Exit`]: fio's groupid moves on at a job with `new_group` (clones share theirs).
fn exits(fio: &FioOptions) -> Vec<Exit> {
    let flag = |v: &str| super::value::boolean(Some(v).filter(|v| !v.is_empty())).unwrap_or(false);
    let mut group = 0;
    let mut out = Vec::new();
    for (i, own) in fio.jobs.iter().enumerate() {
        let mut e = Exit { on: false, what: What::Group, group: 0 };
        let mut new_group = false;
        for (k, v) in fio.global.iter().chain(own) {
            match k.as_str() {
                "exitall" => e.on = flag(v),
                "exit_what" => {
                    e.what = match v.trim() {
                        "stonewall" => What::Stonewall,
                        "all" => What::All,
                        _ => What::Group,
                    }
                }
                "new_group" => new_group = flag(v),
                _ => {}
            }
        }
        group += (i > 0 && new_group) as usize;
        e.group = group;
        out.push(e);
    }
    out
}

/// The direction (0 read, 1 write, 2 trim) every job of the point moves, when they all move
/// the same one; None when a job mixes directions or the jobs differ (fio's default is read).
fn one_direction(fio: &FioOptions) -> Option<usize> {
    let mut dir = None;
    for own in &fio.jobs {
        let mut rw = "read";
        for (_, v) in fio.global.iter().chain(own).filter(|(k, _)| k == "rw" || k == "readwrite") {
            rw = v.split(':').next().unwrap_or("").trim();
        }
        let d = match rw {
            "read" | "randread" => 0,
            "write" | "randwrite" => 1,
            "trim" | "randtrim" => 2,
            _ => return None,
        };
        if dir.is_some_and(|x| x != d) {
            return None;
        }
        dir = Some(d);
    }
    dir
}

/// fio's `READ,WRITE,TRIM` minimum as the one value drivelab judges: the direction the point's
/// jobs move (`g.dir`), or one value given for all. Every value is checked with `parse`.
fn minimum(g: &Given, v: &str, parse: impl Fn(&str) -> Result<u64, String>) -> Result<u64, String> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("'{v}': expected at most three values: READ,WRITE,TRIM"));
    }
    let values = parts.iter().map(|p| if p.is_empty() { Ok(0) } else { parse(p) }).collect::<Result<Vec<u64>, _>>()?;
    match (values.len(), g.dir) {
        (1, _) => Ok(values[0]),
        (_, Some(Some(d))) => Ok(values.get(d).copied().unwrap_or(0)),
        // Read when the job file is read: the jobs' directions are known later.
        (_, None) => Ok(values[0]),
        // Reads and writes given one minimum: that one, on their total.
        _ if values[0] == values[1] => Ok(values[0]),
        _ => Err(format!(
            "'{v}': per-direction minimums are supported when every job of the group moves one direction; \
             drivelab judges reads and writes together: give one value"
        )),
    }
}

fn set(g: &mut Given, key: &str, v: &str) -> Result<(), String> {
    match key {
        "steadystate" | "ss" => g.ss = Some(Criterion::parse(v)?),
        "steadystate_duration" | "ss_dur" => g.ss_dur_s = time_ns(v, BareTime::Seconds)? / SECOND,
        "steadystate_ramp_time" | "ss_ramp" => g.ss_ramp_ns = time_ns(v, BareTime::Seconds)?,
        "rate_min" | "ratemin" => g.rate_min = minimum(g, v, |x| Ok(size(x, KbBase::Binary)?))?,
        "rate_iops_min" => g.rate_iops_min = minimum(g, v, |x| Ok(whole(x)?))?,
        "rate_cycle" | "ratecycle" => g.rate_cycle_ms = Some(whole(v)?.max(1)),
        "rate_iops" => g.rate_iops = whole(v.split(',').next().unwrap_or(v)).ok(),
        "exitall" => {
            super::value::boolean(Some(v).filter(|v| !v.is_empty()))?;
        }
        _ => {}
    }
    Ok(())
}

/// fio's steady-state check as the run goes.
struct Steady {
    tracker: Tracker,
    ss_ramp_ns: u64,
    /// When the samples start (the first tick after the ramp, plus `ss_ramp`).
    from_ns: Option<u64>,
    /// The last sample's (time, ops, bytes, completion latencies summed).
    base: Option<(u64, u64, u64, u64)>,
}

/// fio's minimum rate as the run goes.
struct RateMin {
    bytes_per_s: u64,
    iops: u64,
    cycle_ns: u64,
    base: Option<(u64, u64, u64)>,
}

/// What ends a point early, and what it found.
pub struct Watch {
    steady: Option<Steady>,
    rate: Option<RateMin>,
    /// Each stream's `exitall`, and whether its end was acted on.
    exits: Vec<(Exit, bool)>,
    /// The streams the last reason ends ([`stream_bit`]s).
    mask: u64,
    /// What the failed check found (fio's message), once ended by it.
    note: Option<String>,
}

impl Watch {
    /// The watch of a point with fio's options (None when none of them is given). Errors name
    /// the value and the fix (fio refuses a minimum above the rate cap too).
    pub fn of(fio: &FioOptions) -> Result<Option<Watch>, String> {
        let mut g = Given { dir: Some(one_direction(fio)), ..Given::default() };
        for (k, v) in fio.global.iter().chain(fio.jobs.iter().flatten()) {
            set(&mut g, k, v).map_err(|e| format!("{k}={v}: {e}"))?;
        }
        if let Some(cap) = g.rate_iops.filter(|&cap| g.rate_iops_min > cap) {
            return Err(format!(
                "rate_iops_min={} is above rate_iops={cap}: the minimum can never be met (fio refuses it too); \
                 lower rate_iops_min or raise rate_iops",
                g.rate_iops_min
            ));
        }
        let steady = g.ss.filter(|_| g.ss_dur_s > 0).map(|c| Steady {
            tracker: Tracker::new(c, g.ss_dur_s),
            ss_ramp_ns: g.ss_ramp_ns,
            from_ns: None,
            base: None,
        });
        let rate = (g.rate_min > 0 || g.rate_iops_min > 0).then(|| RateMin {
            bytes_per_s: g.rate_min,
            iops: g.rate_iops_min,
            cycle_ns: g.rate_cycle_ms.unwrap_or(1000) * 1_000_000,
            base: None,
        });
        let exits: Vec<(Exit, bool)> = exits(fio).into_iter().map(|e| (e, false)).collect();
        if steady.is_none() && rate.is_none() && !exits.iter().any(|(e, _)| e.on) {
            return Ok(None);
        }
        Ok(Some(Watch { steady, rate, exits, mask: u64::MAX, note: None }))
    }

    /// One progress tick: the reason to end the run now, if any.
    pub fn tick(&mut self, p: &Progress) -> Option<EndReason> {
        if let Some(mask) = self.exit_mask(p) {
            self.mask = mask;
            return Some(EndReason::Exitall);
        }
        self.mask = u64::MAX;
        if p.ramping {
            return None;
        }
        if let Some(r) = self.rate.as_mut() {
            if let Some(note) = r.tick(p) {
                self.note = Some(note);
                return Some(EndReason::RateMin);
            }
        }
        if self.steady.as_mut().is_some_and(|s| s.tick(p)) {
            return Some(EndReason::Steady);
        }
        None
    }

    /// The streams the reason [`Watch::tick`] gave last ends (every stream but for `exitall`).
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// `exitall`: the streams still running that the jobs ended since the last tick end.
    fn exit_mask(&mut self, p: &Progress) -> Option<u64> {
        let running = |t: usize| p.stream_jobs.get(t).is_some_and(|&(done, all)| done < all);
        let mut mask = 0;
        for s in 0..self.exits.len() {
            let (e, acted) = self.exits[s];
            let ended = p.stream_jobs.get(s).is_some_and(|&(done, _)| done > 0);
            if !e.on || acted || !ended {
                continue;
            }
            self.exits[s].1 = true;
            for (t, (other, _)) in self.exits.iter().enumerate() {
                if (e.what != What::Group || other.group == e.group) && running(t) {
                    mask |= stream_bit(t);
                }
            }
        }
        (mask != 0).then_some(mask)
    }

    /// fio's steady-state block, with `ss` (judged or not).
    pub fn steadystate(&self) -> Option<SteadyStateStats> {
        self.steady.as_ref().map(|s| s.tracker.result().stats())
    }

    /// What the minimum-rate check found when it ended the run.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }
}

impl Steady {
    fn tick(&mut self, p: &Progress) -> bool {
        let from = *self.from_ns.get_or_insert(p.elapsed_ns + self.ss_ramp_ns);
        if p.elapsed_ns < from {
            return false;
        }
        let Some((t, ops, bytes, clat)) = self.base else {
            self.base = Some((p.elapsed_ns, p.ops, p.bytes, p.clat_sum_ns));
            return false;
        };
        let dt = p.elapsed_ns.saturating_sub(t);
        if dt < SECOND {
            return false;
        }
        self.base = Some((p.elapsed_ns, p.ops, p.bytes, p.clat_sum_ns));
        let per_s = |n: u64| (n as u128 * SECOND as u128 / dt as u128) as u64;
        let n = p.ops.saturating_sub(ops);
        // fio's sample: the interval's completion latencies over its I/Os (0 with none).
        let lat = p.clat_sum_ns.saturating_sub(clat).checked_div(n).unwrap_or(0);
        self.tracker.push(per_s(n), per_s(p.bytes.saturating_sub(bytes)), lat)
    }
}

impl RateMin {
    /// fio's message when the rate over the last cycle is below the minimum.
    fn tick(&mut self, p: &Progress) -> Option<String> {
        if p.elapsed_ns < RATE_SETTLE_NS {
            return None;
        }
        let Some((t, ops, bytes)) = self.base else {
            self.base = Some((p.elapsed_ns, p.ops, p.bytes));
            return None;
        };
        let dt = p.elapsed_ns.saturating_sub(t);
        if dt < self.cycle_ns || dt == 0 {
            return None;
        }
        self.base = Some((p.elapsed_ns, p.ops, p.bytes));
        let per_s = |n: u64| (n as u128 * SECOND as u128 / dt as u128) as u64;
        if self.bytes_per_s > 0 {
            let got = per_s(p.bytes.saturating_sub(bytes));
            (got < self.bytes_per_s).then(|| format!("rate_min={}B/s not met, got {got}B/s", self.bytes_per_s))
        } else {
            let got = per_s(p.ops.saturating_sub(ops));
            (got < self.iops).then(|| format!("rate_iops_min={} not met, got {got} IOPS", self.iops))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fio(opts: &[(&str, &str)], jobs: usize) -> FioOptions {
        FioOptions {
            global: opts.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            jobs: vec![Vec::new(); jobs],
            verify_states: Vec::new(),
            unlink: Vec::new(),
        }
    }

    fn at(s: f64, ops: u64, done: usize) -> Progress {
        let stream_jobs = vec![(done.min(1), 1), (0, 1)];
        Progress {
            cpu_wait_pct: None,
            elapsed_ns: (s * 1e9) as u64,
            remaining_ns: None,
            iops: 0.0,
            bw_bytes_per_s: 0.0,
            p99_ns: 0,
            ramping: false,
            stopped_by_error: false,
            ops,
            bytes: ops * 4096,
            clat_sum_ns: 0,
            streams_done: done,
            stream_jobs,
            status: None,
        }
    }

    #[test]
    fn steady_state_ends_once_a_full_window_meets_the_criterion() {
        let mut w = Watch::of(&fio(&[("ss", "iops:10%"), ("ss_dur", "2")], 1)).unwrap().unwrap();
        // 100 IOPS every second: the first tick is the base, then one sample a second.
        assert_eq!(w.tick(&at(0.25, 0, 0)), None);
        assert_eq!(w.tick(&at(1.25, 100, 0)), None, "one sample: the window is not full");
        assert_eq!(w.tick(&at(1.5, 125, 0)), None, "less than a second since the last sample");
        assert_eq!(w.tick(&at(2.25, 200, 0)), Some(EndReason::Steady));
        let s = w.steadystate().unwrap();
        assert!(s.attained);
        assert_eq!((s.iops, s.duration_s, s.ss), (vec![100, 100], 2, "iops:10.000000%".to_string()));
    }

    #[test]
    fn no_watch_without_its_options_and_exitall_ends_the_other_streams() {
        assert!(Watch::of(&fio(&[("bs", "4k")], 1)).unwrap().is_none());
        assert!(Watch::of(&fio(&[("ss", "iops:10%")], 1)).unwrap().is_none(), "ss_dur 0 disables it, as fio");
        let mut w = Watch::of(&fio(&[("exitall", "")], 2)).unwrap().unwrap();
        assert_eq!(w.tick(&at(0.5, 10, 0)), None);
        assert_eq!(w.tick(&at(0.75, 10, 1)), Some(EndReason::Exitall));
        assert_eq!(w.mask(), 0b10, "the other stream, still running");
    }

    /// Jobs with these own options, `stream_jobs` (ended, all) each.
    fn jobs(global: &[(&str, &str)], own: &[&[(&str, &str)]]) -> Watch {
        let pairs = |o: &[(&str, &str)]| o.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>();
        let fio = FioOptions {
            global: pairs(global),
            jobs: own.iter().map(|o| pairs(o)).collect(),
            verify_states: Vec::new(),
            unlink: Vec::new(),
        };
        Watch::of(&fio).unwrap().unwrap()
    }

    fn tick(w: &mut Watch, stream_jobs: &[(usize, usize)]) -> Option<u64> {
        let p = Progress { stream_jobs: stream_jobs.to_vec(), ..at(0.5, 10, 0) };
        w.tick(&p).map(|why| {
            assert_eq!(why, EndReason::Exitall);
            w.mask()
        })
    }

    #[test]
    fn exit_what_sets_which_jobs_a_jobs_end_stops() {
        // fio's exitwhat.fio: slow1 (exit_what=stonewall, new_group) and fast1 (new_group,
        // numjobs=3), exitall in [global]. slow1's end stops fast1's clones too.
        let slow = [("new_group", "1"), ("exit_what", "stonewall")];
        let mut w = jobs(&[("exitall", "1")], &[&slow, &[("new_group", "1")]]);
        assert_eq!(tick(&mut w, &[(0, 1), (0, 3)]), None);
        assert_eq!(tick(&mut w, &[(1, 1), (0, 3)]), Some(0b10));
        // exit_what=group (the default): fast1's first clone to end stops its other clones, not
        // slow1, in a fio group of its own.
        let mut w = jobs(&[("exitall", "1")], &[&[("new_group", "1")], &[("new_group", "1")]]);
        assert_eq!(tick(&mut w, &[(1, 1), (0, 3)]), None, "slow1's group is itself alone");
        assert_eq!(tick(&mut w, &[(1, 1), (1, 3)]), Some(0b10));
        assert_eq!(tick(&mut w, &[(1, 1), (1, 3)]), None, "acted on once");
        // Without new_group the point's jobs are one fio group.
        let mut w = jobs(&[("exitall", "1")], &[&[], &[], &[]]);
        assert_eq!(tick(&mut w, &[(0, 1), (1, 1), (0, 2)]), Some(0b101));
        // exitall only on the job whose end counts.
        let mut w = jobs(&[], &[&[], &[("exitall", "1")]]);
        assert_eq!(tick(&mut w, &[(1, 1), (0, 1)]), None);
        assert_eq!(tick(&mut w, &[(1, 1), (1, 2)]), Some(0b10), "its own other clone");
    }

    #[test]
    fn the_minimum_rate_is_checked_per_cycle_after_two_seconds() {
        let mut w = Watch::of(&fio(&[("rate_iops_min", "1000"), ("rate_cycle", "500")], 1)).unwrap().unwrap();
        assert_eq!(w.tick(&at(1.0, 10, 0)), None, "settling");
        assert_eq!(w.tick(&at(2.0, 3000, 0)), None, "the base");
        assert_eq!(w.tick(&at(2.5, 3600, 0)), None, "1200 IOPS over the cycle");
        assert_eq!(w.tick(&at(3.0, 3700, 0)), Some(EndReason::RateMin), "200 IOPS");
        assert_eq!(w.note(), Some("rate_iops_min=1000 not met, got 200 IOPS"));
    }

    #[test]
    fn a_per_direction_minimum_is_the_direction_the_jobs_move() {
        // fio judges each direction; a point whose jobs all write judges the write minimum.
        let mut w = Watch::of(&fio(&[("rw", "randwrite"), ("rate_iops_min", "5000,1000")], 2)).unwrap().unwrap();
        assert_eq!(w.tick(&at(2.0, 3000, 0)), None, "the base");
        assert_eq!(w.tick(&at(3.0, 4200, 0)), None, "1200 IOPS: above the write minimum");
        assert_eq!(w.tick(&at(4.0, 4900, 0)), Some(EndReason::RateMin));
        assert_eq!(w.note(), Some("rate_iops_min=1000 not met, got 700 IOPS"));
        // Reads with only a write minimum: none to meet.
        assert!(Watch::of(&fio(&[("rate_iops_min", ",1000")], 1)).unwrap().is_none());
        // One value for reads and writes on a mixed job: that value, on the total.
        assert!(Watch::of(&fio(&[("rw", "rw"), ("rate_min", "1m,1m")], 1)).unwrap().is_some());
    }

    #[test]
    fn a_minimum_above_the_cap_or_per_direction_is_refused() {
        let e = Watch::of(&fio(&[("rate_iops", "100"), ("rate_iops_min", "200")], 1)).err().unwrap();
        assert!(e.contains("rate_iops_min=200 is above rate_iops=100"), "{e}");
        assert!(check("rate_min", Some("1m,x")).unwrap().is_err());
        assert!(check("rate_min", Some("1m,2m")).unwrap().is_ok(), "judged once the jobs' directions are known");
        let e = Watch::of(&fio(&[("rw", "randrw"), ("rate_min", "1m,2m")], 1)).err().unwrap();
        assert!(e.contains("rate_min=1m,2m: '1m,2m': per-direction minimums are supported when"), "{e}");
        assert!(check("ss", Some("lat:5%")).unwrap().is_ok(), "fio 3.39's latency criterion");
        assert!(check("ss", Some("clat:5%")).unwrap().is_err());
        assert!(check("ss_dur", Some("30s")).unwrap().is_ok());
        assert!(check("bs", Some("4k")).is_none());
    }
}
