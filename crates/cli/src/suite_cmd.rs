//! `drivelab suite NAME [TARGET...]`: a built-in methodology as a plan, run into a results
//! directory, ending with the suite's tables.

use drivelab_engine::Error;
use drivelab_lab::results::Kind;
use drivelab_lab::suites::{self, SuiteId, SuiteOptions, SUITES};

use crate::args::SuiteArgs;
use crate::default_job::SCRATCH;
use crate::events::Voice;
use crate::output::stdout_line;
use crate::plan_cmd;
use crate::run_cmd::Outcome;

pub fn run(args: &SuiteArgs) -> Result<Outcome, Error> {
    let Some(name) = &args.name else {
        stdout_line("suites (drivelab suite NAME [TARGET...] [--time DUR | --scale F]):");
        // Each suite's description continued under itself, so the names stay a column.
        let width = crate::term::width(crate::term::Stream::Stdout);
        for s in SUITES {
            let line = format!("  {:<8} {}: {} [default {} per point]", s.name, s.reproduces, s.about, s.default_time);
            stdout_line(&crate::term::wrap_under(&line, width, Some(11)));
        }
        return Ok(Outcome::Done);
    };
    let id: SuiteId = name.parse()?;
    args.steady.check()?;
    let dql = suites::dql(&args.dql)?;
    let targets = if args.targets.is_empty() { vec![SCRATCH.to_string()] } else { args.targets.clone() };
    let new_size = args.safety.new_file_size()?;
    let target_bytes = suites::smallest_target_bytes(&targets, new_size)?;
    let together = match (args.together, args.each) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    };
    let opts = SuiteOptions { time: args.time.clone(), scale: args.scale.unwrap_or(1.0), dql, target_bytes, together };
    let mut plan = suites::plan(id, &targets, &opts)?;
    if id == SuiteId::Span {
        if let Some(n) = suites::span_notice(&opts) {
            crate::term::eprint_warning(&n);
        }
    }
    if args.verify || args.verify_after {
        let left_out = drivelab_lab::verify::verify_plan(&mut plan, args.verify_after);
        if !left_out.is_empty() {
            crate::term::eprint_warning(&format!(
                "notice: --verify: {} point(s) write zeros, which cannot carry a header, and run unverified: {}",
                left_out.len(),
                left_out.join(", ")
            ));
        }
    }
    if args.dry_run {
        let mut plan = plan;
        plan.name_targets(&args.safety.names(&plan.targets)?)?;
        return plan_cmd::dry_run(&plan, false);
    }
    let power = args.power_cmd.as_ref();
    let (outcome, dir) = plan_cmd::execute(
        &plan,
        Kind::Suite(id),
        None,
        &args.safety,
        &args.results,
        Voice::quiet_if(args.quiet),
        power,
        &args.steady,
    )?;
    crate::report_cmd::print_tables(&dir)?;
    Ok(outcome)
}
