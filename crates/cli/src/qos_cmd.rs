//! `drivelab qos`: flags → [`QosSetup`] → the lab's qos driver (`drivelab_lab::qos`), with a line
//! per probe and the answer at the end.

use std::path::Path;

use drivelab_engine::units::{fmt_count, fmt_ns};
use drivelab_engine::Error;
use drivelab_lab::execute::Lab;
use drivelab_lab::qos::{self, QosField, QosSetup, SearchBy};
use drivelab_lab::search::parse_objective;

use crate::args::QosArgs;
use crate::events::{Printer, Style, Voice};
use crate::run_cmd::{lab_setup, Outcome};
use crate::term::{self, Stream};

pub fn run(args: &QosArgs) -> Result<Outcome, Error> {
    let objective = parse_objective(&args.objective).map_err(|e| Error::invalid(format!("--objective {e}")))?;
    if args.run.json.is_some() {
        return Err(Error::invalid(
            "--json with qos: every probe is saved in the results directory; drop --json and use `drivelab report DIR --format json`",
        ));
    }
    let setup = QosSetup {
        by: args.by.into(),
        objective: objective.clone(),
        spec: args.run.spec()?,
        targets: args.run.targets.clone(),
        tolerance_pct: args.tolerance,
        max_qd: args.max_qd,
        judge_busy: args.judge_busy,
    };
    setup.validate().map_err(|(field, why)| Error::invalid(format!("{} {why}", flag(field))))?;
    let fields = args.run.fields();
    for n in drivelab_engine::options::notices(fields.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
        crate::term::eprint_warning(&format!("drivelab: {n}"));
    }
    let conf = lab_setup(&args.run.safety, args.run.power_cmd.as_ref(), &setup.targets, false)?;
    let mut printer = Printer::new(Style::Search, Voice::quiet_if(args.run.quiet), false);
    let mut sink = printer.sink();
    let mut lab = Lab::new(conf, &mut sink);
    let end = qos::run(&mut lab, Path::new(&args.run.results), crate::command_line(), &setup)?;
    drop(lab);
    drop(sink);
    printer.finish();
    let o = &end.outcome;
    // The answer's own figures: the IOPS it carried and its latency, as the objective judged it.
    let at = end.answer.as_ref().and_then(|p| p.qos()).map(answer_figures).unwrap_or_default();
    let line = match (o.best, setup.by) {
        _ if o.interrupted => "qos: interrupted".to_string(),
        _ if o.errored => format!("qos: no answer: {}", o.reason),
        (Some(b), SearchBy::Rate) => {
            format!("qos: highest rate meeting {objective}: {} IOPS{at} ({})", fmt_count(b), o.reason)
        }
        (Some(b), SearchBy::Qd) => {
            format!("qos: highest queue depth meeting {objective}: qd {b}{at} ({})", o.reason)
        }
        (None, _) => format!("qos: no load meets {objective}: {}", o.reason),
    };
    crate::report_cmd::end_search(end.dir.path(), &term::wrap(&line, term::width(Stream::Stdout)), o)
}

/// `: 13.1M IOPS done, p50 30ns, p99 31ns` — what the answer's probe carried and its latency
/// (the objective's statistics, and p50 and p99 when the objective names neither).
fn answer_figures(q: &drivelab_lab::results::QosProbe) -> String {
    use drivelab_engine::hist::Pct;
    let iops = q.result.open_loop.as_ref().map_or(q.result.total.iops, |o| o.achieved_iops);
    let mut stats: Vec<String> = Vec::new();
    let judged = q.result.open_loop.as_ref().map_or(&q.result.total.lat_ns, |o| &o.total_resp_lat_ns);
    for (name, pct) in [("p50", Pct::P50), ("p99", Pct::P99)] {
        if !q.evaluation.clauses.iter().any(|c| c.stat() == name) {
            stats.push(format!("{name} {}", fmt_ns(judged.p(pct) as f64)));
        }
    }
    stats.extend(q.evaluation.clauses.iter().map(|c| format!("{} {}", c.stat(), fmt_ns(c.measured_ns as f64))));
    format!(": {} IOPS done, {}", fmt_count(iops), stats.join(", "))
}

fn flag(field: QosField) -> &'static str {
    match field {
        QosField::Rate => "--rate",
        QosField::Tolerance => "--tolerance",
        QosField::MaxQd => "--max-qd",
    }
}
