//! Built-in suites: the methods of well-known benchmarks and reviews (CrystalDiskMark, Iometer
//! access specs, JBOD scaling, AnandTech's 4K random and mixed tests, fio sweeps, hdparm), as
//! plans. Each says what it reproduces ([`Suite::reproduces`]).
//!
//! Each suite is a plan file embedded here (so it reads like one a user would write), with
//! `{time}` standing for the per-point duration; `jbod` is built in code because its points run
//! on growing subsets of the targets. `drivelab suite NAME TARGET...` runs one; the tables each
//! prints are defined in the report crate, keyed by the suite's name.

use drivelab_engine::units::{parse_duration, ValueError};
use drivelab_engine::Error;

use crate::plan::{self, Plan};

/// Every built-in suite, by identity: lab runs it, report keys its tables and charts on it, and
/// results directories record it (as its name) in their `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SuiteId {
    Quick,
    Iometer,
    Jbod,
    Span,
    Mixed,
    Bsqd,
    Hdparm,
    Sync,
}

impl SuiteId {
    pub const ALL: [SuiteId; 8] = [
        SuiteId::Quick,
        SuiteId::Iometer,
        SuiteId::Jbod,
        SuiteId::Span,
        SuiteId::Mixed,
        SuiteId::Bsqd,
        SuiteId::Hdparm,
        SuiteId::Sync,
    ];

    /// The name users type (`drivelab suite iometer`) and results record.
    pub fn name(self) -> &'static str {
        self.suite().name
    }

    /// The suite's description.
    pub fn suite(self) -> &'static Suite {
        SUITES.iter().find(|s| s.id == self).expect("every SuiteId has a Suite")
    }
}

impl std::fmt::Display for SuiteId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SuiteId {
    type Err = Error;
    fn from_str(name: &str) -> Result<SuiteId, Error> {
        find(name).map(|s| s.id)
    }
}

#[derive(Debug)]
pub struct Suite {
    pub id: SuiteId,
    pub name: &'static str,
    /// What it reproduces, in words a reader knows ("CrystalDiskMark", "Iometer access specs").
    pub reproduces: &'static str,
    /// One line: what it measures.
    pub about: &'static str,
    /// Default measured time per point.
    pub default_time: &'static str,
    /// Its targets run at once in every point by default: only jbod, whose subject is drives
    /// sharing a host. Every other suite compares drives, each measured alone (the seeds' way:
    /// Iometer's review ran each interface's array on its own), unless `--together` asks.
    pub together: bool,
}

pub const SUITES: &[Suite] = &[
    Suite {
        id: SuiteId::Quick,
        name: "quick",
        reproduces: "CrystalDiskMark's default test",
        about: "SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T1, RND4K Q1T1, reads and writes; MB/s and IOPS",
        default_time: "5s",
        together: false,
    },
    Suite {
        id: SuiteId::Iometer,
        name: "iometer",
        reproduces: "Iometer access specs (a SAS vs SATA vs SCSI review)",
        about: "64K at 100/95/80/0% sequential, reads and writes, 1..N outstanding I/Os per disk, each disk alone",
        default_time: "10s",
        together: false,
    },
    Suite {
        id: SuiteId::Jbod,
        name: "jbod",
        reproduces: "JBOD scaling (drives added one by one)",
        about: "1..N drives at once, one worker each; 128K sequential and 4K random QD32, reads and writes",
        default_time: "10s",
        together: true,
    },
    Suite {
        id: SuiteId::Span,
        name: "span",
        reproduces: "AnandTech's 4K random read and write tests",
        about: "4K random at QD3 over an 8 GiB span: reads; writes 4K- vs 512-byte aligned; random, \
                50%-compressible and zero data",
        default_time: "3m",
        together: false,
    },
    Suite {
        id: SuiteId::Mixed,
        name: "mixed",
        reproduces: "AnandTech's mixed random read/write curve",
        about: "4K random, 0..100% reads in 10% steps at QD32 as 32 jobs x QD1; 70/30 called out",
        default_time: "10s",
        together: false,
    },
    Suite {
        id: SuiteId::Bsqd,
        name: "bsqd",
        reproduces: "fio block size x iodepth sweeps",
        about: "random read and write, block size 512 B..1 MiB x queue depth 1..128",
        default_time: "5s",
        together: false,
    },
    Suite {
        id: SuiteId::Hdparm,
        name: "hdparm",
        reproduces: "hdparm -tT",
        about: "cached reads (page cache, 2 MiB), buffered disk reads from a cold cache (hdparm -t) and \
                O_DIRECT disk reads (hdparm --direct -t), 2 MiB sequential",
        default_time: "3s",
        together: false,
    },
    Suite {
        id: SuiteId::Sync,
        name: "sync",
        reproduces: "the fsync test of power-loss protection",
        about: "4K writes at QD1 plain, with O_DSYNC and with fsync after each write",
        default_time: "10s",
        together: false,
    },
];

const QUICK: &str = r#"
name = "quick"
[defaults]
time = "{time}"
[matrix]
read = [100, 0]
[[step]]
name = "SEQ1M Q8T1"
random = 0
bs = "1m"
qd = 8
[[step]]
name = "SEQ128K Q32T1"
random = 0
bs = "128k"
qd = 32
[[step]]
name = "RND4K Q32T1"
random = 100
bs = "4k"
qd = 32
[[step]]
name = "RND4K Q1T1"
random = 100
bs = "4k"
qd = 1
"#;

const IOMETER: &str = r#"
name = "iometer"
[defaults]
bs = "64k"
time = "{time}"
[matrix]
random = [0, 5, 20, 100]
read = [100, 0]
qd = [{dql}]
"#;

const SPAN: &str = r#"
name = "span"
[defaults]
bs = "4k"
qd = 3
random = 100
span = "{span}"
time = "{time}"
[[step]]
name = "read"
read = 100
data = "random"
[[step]]
name = "write 4K-aligned"
read = 0
align = "4k"
[step.matrix]
data = ["random", "compress:50", "zero"]
[[step]]
name = "write 512-aligned"
read = 0
align = "512"
[step.matrix]
data = ["random", "compress:50", "zero"]
"#;

const MIXED: &str = r#"
name = "mixed"
[defaults]
bs = "4k"
random = 100
qd = 1
jobs = 32
time = "{time}"
[matrix]
read = "0..100 +10"
"#;

const BSQD: &str = r#"
name = "bsqd"
[defaults]
time = "{time}"
[matrix]
rw = ["randread", "randwrite"]
bs = "512..1m x2"
qd = "1..128 x2"
"#;

const HDPARM: &str = r#"
name = "hdparm"
[defaults]
rw = "read"
bs = "2m"
qd = 1
time = "{time}"
[[step]]
name = "cached reads"
buffered = true
span = "2m"
engine = "psync"
ramp = "200ms"
[[step]]
name = "buffered disk reads"
buffered = true
engine = "psync"
invalidate = true
io_size = "{span}"
[[step]]
name = "O_DIRECT disk reads"
direct = true
"#;

const SYNC: &str = r#"
name = "sync"
[defaults]
rw = "randwrite"
bs = "4k"
qd = 1
time = "{time}"
[[step]]
name = "plain"
sync = "none"
[[step]]
name = "O_DSYNC"
sync = "dsync"
[[step]]
name = "fsync each write"
sync = "fsync:1"
"#;

const JBOD_STEPS: &str = r#"
[defaults]
qd = 32
time = "{time}"
[[step]]
name = "128K seq read"
rw = "read"
bs = "128k"
[[step]]
name = "128K seq write"
rw = "write"
bs = "128k"
[[step]]
name = "4K random read"
rw = "randread"
bs = "4k"
[[step]]
name = "4K random write"
rw = "randwrite"
bs = "4k"
"#;

/// How to run a suite.
pub struct SuiteOptions {
    /// Measured time per point; None: the suite's default, times `scale`.
    pub time: Option<String>,
    /// Multiplies the default time (0.1 runs a suite in a tenth of its time).
    pub scale: f64,
    /// Outstanding I/Os per disk for `iometer`, one point each ([`dql`] reads `--dql`).
    pub dql: Vec<u32>,
    /// Size of the targets (smallest), for `span` (8 GiB or the target, if smaller).
    pub target_bytes: u64,
    /// `--together` (Some(true)) or `--each` (Some(false)); None: the suite's own way
    /// ([`Suite::together`]).
    pub together: Option<bool>,
}

/// Why a suite or its options are refused: the words defined once, each kind with the value
/// given, so a caller can match (or downcast from [`Error::Refused`]) the kind. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("'{name}' is not a suite: use one of {}", .names.join(", "))]
    NoSuchSuite { name: String, names: Vec<&'static str> },
    #[error("--time {0}")]
    Time(ValueError),
    #[error("--scale {0}: give a positive factor such as 0.1")]
    Scale(f64),
    #[error("--dql 0: at least one outstanding I/O per disk")]
    NoDepth,
    /// `--dql` as given, and why it cannot be read (the plan axis reader's words, or ours).
    #[error(
        "--dql {text}: {why}; expected N (1..N outstanding I/Os per disk), a list such as 1,2,4 or a \
             range such as 1..32x2"
    )]
    Dql { text: String, why: String },
    #[error("the jbod suite needs the drives to scale over: give one or more targets")]
    JbodNoTargets,
    #[error(
        "--each with the jbod suite: jbod measures drives running at once (1..N of them); drop --each, or \
             run `drivelab suite iometer --each` to measure each drive alone"
    )]
    JbodEach,
}

impl From<SuiteError> for Error {
    fn from(e: SuiteError) -> Error {
        Error::refused(e)
    }
}

pub fn find(name: &str) -> Result<&'static Suite, Error> {
    SUITES.iter().find(|s| s.name == name).ok_or_else(|| {
        let names: Vec<&str> = SUITES.iter().map(|s| s.name).collect();
        SuiteError::NoSuchSuite { name: name.to_string(), names }.into()
    })
}

/// The size of the smallest of `targets` (what `span` scales to): a file that does not exist
/// yet counts at `new_file_size`, the size it will be created with.
pub fn smallest_target_bytes(targets: &[String], new_file_size: u64) -> Result<u64, Error> {
    let mut smallest = u64::MAX;
    for t in targets {
        let info = drivelab_engine::target::probe(t)?;
        let new_file = info.kind == drivelab_engine::target::TargetKind::File && !info.exists;
        smallest = smallest.min(if new_file { new_file_size } else { info.size_bytes });
    }
    Ok(smallest)
}

/// The per-point time as a duration string the plan parser takes.
fn point_time(suite: &Suite, opts: &SuiteOptions) -> Result<String, Error> {
    if let Some(t) = &opts.time {
        parse_duration(t).map_err(SuiteError::Time)?;
        return Ok(t.clone());
    }
    if !(opts.scale > 0.0 && opts.scale.is_finite()) {
        return Err(SuiteError::Scale(opts.scale).into());
    }
    let base = parse_duration(suite.default_time).expect("suite defaults parse");
    let ms = ((base.as_secs_f64() * opts.scale) * 1000.0).round().max(100.0) as u64;
    Ok(format!("{ms}ms"))
}

/// The span AnandTech's 4K random tests run over (`span`): 8 GiB, or the target if smaller.
pub const SPAN_BYTES: u64 = 8 << 30;

/// Said before `span` runs on a target smaller than [`SPAN_BYTES`]: the span it will cover.
pub fn span_notice(opts: &SuiteOptions) -> Option<String> {
    (opts.target_bytes < SPAN_BYTES).then(|| {
        format!(
            "notice: span: the smallest target holds {}, so the tests run over {} and not the suite's {}; give \
             targets of 8 GiB or more (--size 8g for a new file) to measure what the seed measured",
            drivelab_engine::units::fmt_size_words(opts.target_bytes),
            drivelab_engine::units::fmt_size_words(opts.target_bytes / 4096 * 4096),
            drivelab_engine::units::fmt_size_words(SPAN_BYTES)
        )
    })
}

/// The plan of suite `id` on `targets`.
pub fn plan(id: SuiteId, targets: &[String], opts: &SuiteOptions) -> Result<Plan, Error> {
    let suite = id.suite();
    let name = suite.name;
    let time = point_time(suite, opts)?;
    let file = format!("suite {name}");
    if id == SuiteId::Jbod {
        if opts.together == Some(false) {
            return Err(SuiteError::JbodEach.into());
        }
        return jbod(targets, &time);
    }
    if opts.dql.is_empty() || opts.dql.contains(&0) {
        return Err(SuiteError::NoDepth.into());
    }
    let dql: Vec<String> = opts.dql.iter().map(u32::to_string).collect();
    // span's 8 GiB at most; hdparm's buffered pass reads each target once at most (a second
    // pass would read the page cache).
    let span = if id == SuiteId::Hdparm { opts.target_bytes } else { opts.target_bytes.min(SPAN_BYTES) };
    let span = (span / 4096 * 4096).max(4096);
    let text = match id {
        SuiteId::Quick => QUICK,
        SuiteId::Iometer => IOMETER,
        SuiteId::Span => SPAN,
        SuiteId::Mixed => MIXED,
        SuiteId::Bsqd => BSQD,
        SuiteId::Hdparm => HDPARM,
        SuiteId::Sync => SYNC,
        SuiteId::Jbod => unreachable!("built above"),
    };
    let text = text.replace("{time}", &time).replace("{dql}", &dql.join(", ")).replace("{span}", &span.to_string());
    let together = opts.together.unwrap_or(suite.together);
    plan::parse(&format!("together = {together}\n{text}"), &file, targets)
}

/// `--dql`: a whole number N is Iometer's 1..N outstanding I/Os per disk; a list or a range
/// (`1,2,4..32 x2`, the syntax of a plan's axis) is those depths.
pub fn dql(text: &str) -> Result<Vec<u32>, Error> {
    let bad = |why: String| -> Error { SuiteError::Dql { text: text.to_string(), why }.into() };
    let values = plan::count_list(text).map_err(bad)?;
    if values.contains(&0) {
        return Err(bad("0 outstanding I/Os is no load: give at least 1".into()));
    }
    let values = match values[..] {
        [n] if !text.contains("..") => {
            if n > plan::MAX_AXIS_VALUES as u64 {
                return Err(bad(format!("1..{n} is more than {} depths", plan::MAX_AXIS_VALUES)));
            }
            (1..=n).collect()
        }
        _ => values,
    };
    let mut depths = Vec::with_capacity(values.len());
    for v in values {
        match u32::try_from(v) {
            Ok(d) => depths.push(d),
            Err(_) => return Err(bad(format!("{v} is too deep a queue"))),
        }
    }
    Ok(depths)
}

/// For k = 1..N, the four workloads on the first k targets at once.
fn jbod(targets: &[String], time: &str) -> Result<Plan, Error> {
    if targets.is_empty() {
        return Err(SuiteError::JbodNoTargets.into());
    }
    let steps = JBOD_STEPS.replace("{time}", time);
    let mut all: Option<Plan> = None;
    for k in 1..=targets.len() {
        let text = format!("name = \"jbod\"\ntogether = true\n{steps}");
        let mut p = plan::parse(&text, "suite jbod", &targets[..k])?;
        for pt in &mut p.points {
            pt.label = format!("{} on {k} target(s)", pt.label);
            pt.slug = format!("k{k}-{}", pt.slug);
        }
        match all.as_mut() {
            None => all = Some(p),
            Some(a) => a.points.extend(p.points),
        }
    }
    let mut plan = all.expect("at least one target");
    for (i, p) in plan.points.iter_mut().enumerate() {
        p.index = i + 1;
    }
    plan.targets = targets.to_vec();
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> SuiteOptions {
        SuiteOptions { time: None, scale: 1.0, dql: vec![1, 2, 3], target_bytes: 1 << 30, together: None }
    }

    #[test]
    fn every_suite_expands() {
        let t = vec!["a".to_string(), "b".to_string()];
        let expect = [
            ("quick", 16),
            ("iometer", 48),
            ("jbod", 4 + 4),
            ("span", 14),
            ("mixed", 22),
            ("bsqd", 384),
            ("hdparm", 6),
            ("sync", 6),
        ];
        for (name, n) in expect {
            let p = plan(name.parse().unwrap(), &t, &opts()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(p.points.len(), n, "{name}");
        }
        assert_eq!(SUITES.len(), expect.len());
        assert_eq!(SuiteId::ALL.len(), SUITES.len());
        for id in SuiteId::ALL {
            assert_eq!(id.name().parse::<SuiteId>().unwrap(), id, "names round-trip");
        }
    }

    #[test]
    fn iometer_measures_each_disk_alone_unless_together_and_jbod_only_together() {
        let t = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let p = plan(SuiteId::Iometer, &t, &SuiteOptions { dql: vec![1, 2], ..opts() }).unwrap();
        assert!(!p.together);
        assert_eq!(p.points.len(), 3 * 4 * 2 * 2, "every point once per disk");
        assert!(p.points.iter().all(|pt| pt.targets.len() == 1));
        assert_eq!(p.points[0].spec.bs[0].bytes, 65536);
        assert_eq!((p.points[2].spec.random_pct, p.points[2].spec.read_pct, p.points[2].spec.qd), (0, 0, 1));
        let both = SuiteOptions { dql: vec![1, 2], together: Some(true), ..opts() };
        let p = plan(SuiteId::Iometer, &t, &both).unwrap();
        assert_eq!(p.points.len(), 4 * 2 * 2);
        assert!(p.together && p.points.iter().all(|pt| pt.targets.len() == 3));
        for id in SuiteId::ALL {
            let each = plan(id, &t, &SuiteOptions { together: Some(false), ..opts() });
            match id {
                SuiteId::Jbod => {
                    assert!(matches!(each.unwrap_err().refusal::<SuiteError>(), Some(SuiteError::JbodEach)))
                }
                _ => assert!(each.unwrap().points.iter().all(|pt| pt.targets.len() == 1), "{id:?}"),
            }
            let default = plan(id, &t, &opts()).unwrap();
            assert_eq!(default.together, id.suite().together, "{id:?}");
        }
    }

    #[test]
    fn dql_is_1_to_n_or_a_list_and_iometer_runs_8_points_per_depth_whatever_the_disks() {
        assert_eq!(dql("3").unwrap(), [1, 2, 3]);
        assert_eq!(dql("1,2,4..32 x2").unwrap(), [1, 2, 4, 8, 16, 32]);
        assert_eq!(dql("16..16 +1").unwrap(), [16], "a range of one depth is that depth");
        for bad in ["0", "1,0", "", "1..32", "x", "99999999999", "4294967296,1"] {
            let e = dql(bad).unwrap_err();
            assert!(e.is_invalid() && e.to_string().starts_with(&format!("--dql {bad}: ")), "{bad}: {e}");
        }
        let two: Vec<String> = vec!["a".into(), "b".into()];
        let p = plan(SuiteId::Iometer, &two, &SuiteOptions { dql: dql("32").unwrap(), ..opts() }).unwrap();
        assert_eq!(p.points.len(), 512, "4 access specs x reads and writes x 32 depths, each disk alone");
        let p =
            plan(SuiteId::Iometer, &two[..1], &SuiteOptions { dql: dql("1,2,4..32x2").unwrap(), ..opts() }).unwrap();
        let qds: Vec<u32> = p.points.iter().map(|pt| pt.spec.qd).take(6).collect();
        assert_eq!((p.points.len(), qds), (48, vec![1, 2, 4, 8, 16, 32]));
    }

    #[test]
    fn jbod_grows_the_set_of_targets() {
        let t: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let p = plan(SuiteId::Jbod, &t, &opts()).unwrap();
        let sizes: Vec<usize> = p.points.iter().map(|pt| pt.targets.len()).collect();
        assert_eq!(sizes, vec![1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
        let idx: Vec<usize> = p.points.iter().map(|pt| pt.index).collect();
        assert_eq!(idx, (1..=12).collect::<Vec<_>>());
        let mut slugs: Vec<&String> = p.points.iter().map(|pt| &pt.slug).collect();
        slugs.dedup();
        assert_eq!(slugs.len(), 12);
    }

    #[test]
    fn span_is_8g_or_the_target_if_smaller_and_time_scales() {
        let p = plan(SuiteId::Span, &["a".into()], &SuiteOptions { scale: 0.01, ..opts() }).unwrap();
        assert_eq!(p.points[0].spec.span_bytes, Some(1 << 30));
        assert_eq!(p.points[0].spec.time_ns, Some(1_800_000_000), "3m x 0.01");
        let p = plan(
            SuiteId::Span,
            &["a".into()],
            &SuiteOptions { target_bytes: 100 << 30, time: Some("1s".into()), ..opts() },
        )
        .unwrap();
        assert_eq!(p.points[0].spec.span_bytes, Some(8 << 30));
        assert_eq!(p.points[1].spec.align_bytes, Some(4096));
        assert_eq!(p.points[4].spec.align_bytes, Some(512));
    }

    #[test]
    fn unknown_suites_and_bad_options_are_refused() {
        assert!(find("crystal").unwrap_err().to_string().contains("quick"));
        assert!(plan(SuiteId::Quick, &["a".into()], &SuiteOptions { scale: 0.0, ..opts() }).is_err());
        assert!(plan(SuiteId::Quick, &["a".into()], &SuiteOptions { time: Some("5".into()), ..opts() }).is_err());
        assert!(plan(SuiteId::Jbod, &[], &opts()).is_err());
    }
}
