//! What `PointsArgs` (how a plan's or suite's points run) gives the lab: its defaults, read from
//! where each is defined, and its values checked and turned into the lab's rules.

use drivelab_engine::Error;
use drivelab_lab::repeat::Repeat;
use drivelab_lab::steady;

use super::PointsArgs;

/// The flags' defaults, each read from the lab where it is defined (as clap's are): what a
/// command that takes none of these flags runs with (`drivelab run JOB.fio`).
impl Default for PointsArgs {
    fn default() -> PointsArgs {
        let (repeat, rule) = (Repeat::default(), steady::SteadyRule::default());
        PointsArgs {
            precondition: 0,
            steady: false,
            steady_rounds: rule.max_rounds,
            steady_window: rule.window,
            steady_unreached_ok: false,
            continue_on_error: false,
            repeat: repeat.runs,
            pick: repeat.pick,
            no_prep: false,
            latency_split: false,
        }
    }
}

impl PointsArgs {
    /// Every value of these flags checked, before a dry run lists anything or a run measures.
    pub fn check(&self) -> Result<(), Error> {
        self.repeat()?;
        self.rule()?;
        Ok(())
    }

    pub fn repeat(&self) -> Result<drivelab_lab::repeat::Repeat, Error> {
        let r = Repeat { runs: self.repeat, pick: self.pick };
        r.validate().map_err(|e| Error::invalid(format!("--repeat {e}")))?;
        Ok(r)
    }

    pub fn rule(&self) -> Result<Option<drivelab_lab::steady::SteadyRule>, Error> {
        if !self.steady {
            return Ok(None);
        }
        let rule = drivelab_lab::steady::SteadyRule {
            window: self.steady_window,
            max_rounds: self.steady_rounds,
            ..Default::default()
        };
        rule.validate().map_err(|e| Error::invalid(format!("--steady: {e}")))?;
        Ok(Some(rule))
    }
}
