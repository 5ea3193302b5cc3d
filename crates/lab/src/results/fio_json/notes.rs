//! What an imported fio result says about itself (`RunResult::notices`, shown by every report):
//! where its figures came from, how its percentiles were made and how far they may be off,
//! what fio's output did not hold and what drivelab's results have no place for.

use super::doc::{Dir, Job};
use super::group::{lat_dist, Context};
use super::lat::{Shape, DRIVELAB_BUCKET, FIO_BIN, IMPORTED};
use super::options::Workload;

/// The notices of one point, each once, in the order first said.
pub struct Notes {
    lines: Vec<String>,
    quiet: bool,
    group: u64,
    plus: bool,
}

fn pct(share: f64) -> String {
    format!("{:.2}%", share * 100.0)
}

/// The histogram notice: how a percentile recomputed from fio's bins relates to the truth and
/// to fio's own figure.
pub fn binned() -> String {
    format!(
        "percentiles recomputed from fio's json+ histogram: fio keeps each latency in a bin whose value is \
         within 1/{fio:.0} ({fio_pct}) of it, and drivelab's buckets hold that value within 1/{dl:.0} ({dl_pct}), so \
         each percentile is within {both} of the true latency and within {dl_pct} of fio's own percentile (or at \
         fio's exact min or max, where drivelab clamps it)",
        fio = 1.0 / FIO_BIN,
        fio_pct = pct(FIO_BIN),
        dl = 1.0 / DRIVELAB_BUCKET,
        dl_pct = pct(DRIVELAB_BUCKET),
        both = pct(IMPORTED),
    )
}

impl Notes {
    /// The notices of a point made from `entries` of fio's entries of reporting group `group`.
    pub fn new(ctx: &Context, group: u64, entries: usize, names: &[&str]) -> Notes {
        let mut n = Notes { lines: Vec::new(), quiet: false, group, plus: ctx.plus };
        n.push(format!(
            "fio {} results, read from fio's JSON output ({}): IOPS, bytes, and every latency's min, mean, stdev \
             and max are fio's own figures; lat is fio's lat (from fio's setup of each I/O to its completion: slat \
             + clat), clat is fio's clat, slat fio's slat",
            ctx.tool.version,
            if ctx.plus { "json+" } else { "json" }
        ));
        if entries > 1 {
            n.push(format!(
                "{entries} fio jobs of reporting group {group} ran at once ({}): one point, as drivelab runs a group; \
                 their I/Os and bytes are added over the longest job's window (as fio's group_reporting does) and \
                 their latencies merged",
                names.join(", ")
            ));
        }
        n
    }

    /// Notices that are not kept (the per-target results repeat the point's).
    pub fn quiet() -> Notes {
        Notes { lines: Vec::new(), quiet: true, group: 0, plus: false }
    }

    fn push(&mut self, line: String) {
        if !self.quiet && !self.lines.contains(&line) {
            self.lines.push(line);
        }
    }

    /// Where a summary of `live` parts got its percentiles.
    pub fn shape(&mut self, shape: Shape, live: usize) {
        match shape {
            Shape::Binned => self.push(binned()),
            Shape::FioPercentiles => self.push(format!(
                "fio's JSON without its histogram (json, not json+): fio's own percentiles are kept (each within \
                 {} of the true latency); the others (p25, p75, p99.999...) and the latency histogram are not \
                 available: fio --output-format=json+ gives them",
                pct(FIO_BIN)
            )),
            Shape::None if live > 1 && !self.plus => self.push(
                "fio's JSON without its histogram gives each job's and direction's percentiles apart, and \
                 percentiles do not add up: the total's (and a group's) percentiles are not available; \
                 fio --output-format=json+ gives the histograms they are computed from"
                    .into(),
            ),
            Shape::None | Shape::Empty => {}
        }
    }

    /// Where lat's percentiles over all of a point's directions `dirs` came from: once per
    /// point, whatever its directions' shapes.
    pub fn lat_source(&mut self, dirs: &[&Dir]) {
        let ran: Vec<&&Dir> = dirs.iter().filter(|d| d.total_ios > 0).collect();
        let from_clat: Vec<&&&Dir> = ran.iter().filter(|d| std::ptr::eq(lat_dist(d), &d.clat_ns)).collect();
        if !from_clat.is_empty() {
            let n: f64 = from_clat.iter().map(|d| d.lat_ns.n as f64).sum();
            let gap = from_clat.iter().map(|d| d.lat_ns.n as f64 * (d.lat_ns.mean - d.clat_ns.mean)).sum::<f64>()
                / n.max(1.0);
            self.push(format!(
                "fio records no slat for a synchronous engine: lat's percentiles are fio's clat percentiles, of the \
                 same I/Os from their submit call (fio's lat mean is {gap:.0} ns above its clat mean: fio's own \
                 setup of each I/O)"
            ));
        } else if ran.iter().any(|d| d.lat_ns.bins.is_none() && d.lat_ns.percentile.is_none()) {
            self.push(
                "fio computed no percentiles of lat (only of clat, its default): lat has fio's min, mean, stdev \
                 and max but no percentiles (fio --lat_percentiles=1 gives them); clat's are under clat"
                    .into(),
            );
        }
    }

    /// What one job entry's output holds that the result does not.
    pub fn job(&mut self, j: &Job, w: &Workload) {
        if !w.untranslated.is_empty() {
            self.push(format!("fio options of {} not in the spec: {}", j.jobname, w.untranslated.join(", ")));
        }
        let dirs = [&j.read, &j.write, &j.trim, &j.mixed];
        let short: u64 = dirs.iter().copied().flatten().map(|d| d.short_ios).sum();
        let dropped: u64 = dirs.iter().copied().flatten().map(|d| d.drop_ios).sum();
        if short + dropped > 0 {
            self.push(format!("fio counted {short} short and {dropped} dropped I/Os of {}", j.jobname));
        }
        if j.mixed.is_some() {
            self.push(
                "fio's unified_rw_reporting gave reads and writes together: only the total is known, reads and \
                 writes show none"
                    .into(),
            );
        }
    }

    /// The group's workloads: the point's spec is the first job's.
    pub fn workloads(&mut self, all: &[Workload], names: &[&str]) {
        if all.iter().any(|w| w.spec != all[0].spec) {
            self.push(format!(
                "the point's spec is {}'s: the other jobs of reporting group {} ran other workloads",
                names.first().copied().unwrap_or("the first job"),
                self.group
            ));
        }
    }

    /// Every notice, the closing ones last.
    pub fn finish(mut self) -> Vec<String> {
        self.push(
            "CPU: fio's usr and sys of each job, as % of one core; fio does not measure how long its jobs waited \
             for a CPU, so whether the CPU was the limit is not judged"
                .into(),
        );
        self.push(
            "not kept (drivelab's results have no place for them): fio's per-interval bandwidth and IOPS \
             statistics, I/O depth and latency-range distributions, context switches, page faults and disk \
             utilization"
                .into(),
        );
        self.lines
    }
}
