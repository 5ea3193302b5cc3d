//! fio's `disk_util` in a run: the disks under the targets, their kernel statistics read just
//! before the jobs start and once they have all ended (`crate::diskstat`); each stream's result
//! holds the disks under its own targets.

use super::feature::{RunFeature, RunInfo, StreamEnd};
use super::Stream;
use crate::diskstat::{DiskUtil, Snapshot};
use crate::error::Error;
use crate::measurement::kinds::Disks as Kind;

struct Disks {
    names: Vec<String>,
    before: Option<Snapshot>,
    after: Vec<DiskUtil>,
}

pub(super) fn prepare(streams: &[Stream], _: &RunInfo) -> Result<Option<Box<dyn RunFeature>>, Error> {
    let names: Vec<String> =
        streams.iter().flat_map(|st| st.targets.iter().filter_map(|t| t.info.disk.clone())).collect();
    Ok((!names.is_empty()).then(|| Box::new(Disks { names, before: None, after: Vec::new() }) as Box<dyn RunFeature>))
}

impl RunFeature for Disks {
    fn starting(&mut self) {
        self.before = Some(Snapshot::take(self.names.iter().map(String::as_str)));
    }

    fn ended(&mut self, _: &mut [super::JobReport]) {
        self.after = self.before.as_ref().map(Snapshot::since).unwrap_or_default();
    }

    fn finish(&mut self, s: &mut StreamEnd) {
        // Each disk at the place of its first target in the stream.
        let place = |d: &DiskUtil| s.st.targets.iter().position(|t| t.info.disk.as_deref() == Some(&d.name));
        let own = self.after.iter().filter_map(|d| place(d).map(|p| (p as u64, d.clone())));
        s.m.kinds.disks = Kind(own.collect());
    }
}
