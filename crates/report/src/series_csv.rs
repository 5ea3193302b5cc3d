//! The per-second series of any results directory as one CSV (`report DIR --format csv
//! --series`), for a spreadsheet or a plotting tool: the report's charts show a point's seconds,
//! but only the data lets a reader redraw, zoom or correlate them.
//!
//! One row per second per point (run, plan, suite), per probe (qos) or per stream of a load
//! (act: each stream has its own series), with the figures the engine saved for that second
//! (`SeriesPoint`, docs/RESULTS.md). Units are in the column names, as in the result files:
//!
//! ```text
//! record,index,label,stream,time_s,dur_ns,ops,iops,read_iops,write_iops,mb_per_s,lat_mean_ns,lat_p99_ns,resp_p99_ns,lag_max_ns
//! point,1,qd=1,,1,1000000000,7352,7352,7352,0,30.11,135.2,182,,
//! ```
//!
//! `time_s` is the seconds since measurement started at the end of that second (the last may be
//! partial: `dur_ns` says how long it was); `mb_per_s` is 10^6 bytes per second; `resp_p99_ns`
//! and `lag_max_ns` are there for fixed-rate runs only (empty otherwise). Numbers are at full
//! precision.

use drivelab_engine::result::{RunResult, SeriesPoint};
use drivelab_lab::results::{ProbeData, Results, SearchBy, Setup};

use crate::grid::csv_field;
use crate::views::qos::role_name;

/// The header row.
pub const COLUMNS: [&str; 15] = [
    "record",
    "index",
    "label",
    "stream",
    "time_s",
    "dur_ns",
    "ops",
    "iops",
    "read_iops",
    "write_iops",
    "mb_per_s",
    "lat_mean_ns",
    "lat_p99_ns",
    "resp_p99_ns",
    "lag_max_ns",
];

/// Which series a row belongs to: record kind, index, label, stream.
struct Source<'a> {
    record: &'a str,
    index: usize,
    label: String,
    stream: String,
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

fn row(src: &Source, s: &SeriesPoint) -> String {
    let cells = [
        csv_field(src.record),
        src.index.to_string(),
        csv_field(&src.label),
        csv_field(&src.stream),
        s.t_s.to_string(),
        s.dur_ns.to_string(),
        s.ops.to_string(),
        s.iops.to_string(),
        s.read_iops.to_string(),
        s.write_iops.to_string(),
        (s.bw_bytes_per_s / 1e6).to_string(),
        s.lat_mean_ns.to_string(),
        s.lat_p99_ns.to_string(),
        opt(s.resp_p99_ns),
        opt(s.lag_max_ns),
    ];
    cells.join(",")
}

/// Every series of a results directory with the source it belongs to, in record order.
fn sources(r: &Results) -> Vec<(Source<'static>, &RunResult)> {
    let mut out = Vec::new();
    for p in &r.points {
        let src = Source { record: "point", index: p.point.index, label: p.point.label.clone(), stream: String::new() };
        out.push((src, &p.result));
    }
    let by_qd = matches!(&r.manifest.setup, Setup::Qos(q) if q.by == SearchBy::Qd);
    for p in &r.probes {
        let role = role_name(p.role);
        match &p.data {
            ProbeData::Qos(q) => {
                let load = if by_qd { format!("qd {}", p.value) } else { format!("{} IOPS", p.value) };
                let src = Source {
                    record: "probe",
                    index: p.index,
                    label: format!("{role} at {load}"),
                    stream: String::new(),
                };
                out.push((src, &q.result));
            }
            ProbeData::Act(a) => {
                for s in &a.streams {
                    let name = serde_json::to_value(s.role).ok().and_then(|v| v.as_str().map(str::to_string));
                    let src = Source {
                        record: "probe",
                        index: p.index,
                        label: format!("{role} at N={}", p.value),
                        stream: format!("{} on {}", name.unwrap_or_default(), s.target),
                    };
                    out.push((src, &s.result));
                }
            }
        }
    }
    out
}

/// The CSV: the header, then every second of every series (see the module docs).
pub fn csv(r: &Results) -> String {
    let mut out = COLUMNS.join(",") + "\n";
    for (src, result) in sources(r) {
        for s in &result.series {
            out.push_str(&row(&src, s));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{point, series};
    use crate::views::tests::{act_results, qos_results, QOS_LADDER};
    use drivelab_lab::act_run::{Role, StreamResult};

    fn plan_results() -> Results {
        let mut points: Vec<_> = (1..=2)
            .map(|i| {
                let mut p = point(&format!("qd={i}"), "", &[("qd", &i.to_string())], &[("/dev/x", 1.0)]);
                p.point.index = i;
                p.result.series = series(3, |s| (1000 * i + s) as f64, |s| (100 * i + s) as u64);
                p
            })
            .collect();
        points[1].result.series[2].resp_p99_ns = Some(777);
        crate::test_support::results("plan", points)
    }

    #[test]
    fn a_plan_gives_a_row_per_second_of_each_point_with_units_in_the_header() {
        let text = csv(&plan_results());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], COLUMNS.join(","));
        assert!(lines[0].contains(",time_s,") && lines[0].contains(",lat_p99_ns,") && lines[0].contains(",mb_per_s,"));
        assert_eq!(lines.len(), 1 + 2 * 3, "a row per second per point");
        // Point 2, second 3: 2002 IOPS (x 4096 bytes), p99 202 ns, mean 101, response p99 777.
        assert_eq!(lines[6], "point,2,qd=2,,3,1000000000,2002,2002,2002,0,8.200192,101,202,777,");
        assert!(lines[1].starts_with("point,1,qd=1,,1,1000000000,1000,1000,"), "{}", lines[1]);
    }

    #[test]
    fn qos_probes_and_each_act_stream_get_their_own_rows() {
        let mut q = qos_results(SearchBy::Rate, &QOS_LADDER);
        for p in &mut q.probes {
            if let ProbeData::Qos(x) = &mut p.data {
                x.result.series = series(2, |_| 10.0, |_| 5);
            }
        }
        let text = csv(&q);
        let rows: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(rows.len(), 2 * q.probes.len());
        let first = &q.probes[0];
        let want = format!("probe,{},{} at {} IOPS,,1,", first.index, role_name(first.role), first.value);
        assert!(rows[0].starts_with(&want), "{} vs {want}", rows[0]);

        // An ACT load of two streams on /dev/x: each its own rows.
        let mut a = act_results();
        let ProbeData::Act(x) = &mut a.probes[0].data else { panic!("an act probe") };
        for role in [Role::Reads, Role::LargeBlockWrites] {
            let mut result = point("s", "", &[], &[("/dev/x", 1.0)]).result;
            result.series = series(2, |_| 1.0, |_| 1);
            x.streams.push(StreamResult { role, target: "/dev/x".into(), result });
        }
        let (index, value) = (a.probes[0].index, a.probes[0].value);
        let text = csv(&a);
        let rows: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(rows.len(), 4, "two seconds of each stream: {text}");
        let label = format!("probe,{index},{} at N={value},", role_name(a.probes[0].role));
        assert!(rows[0].starts_with(&format!("{label}reads on /dev/x,1,")), "{text}");
        assert!(rows[3].starts_with(&format!("{label}large-block-writes on /dev/x,2,")), "{text}");
    }
}
