//! fio's `file_service_type` in a job over several files (`spec.files`): which file the next
//! I/O goes to. One small state per job, a compare and an add per I/O; nothing for a job of one
//! file (the queue does not ask).

use crate::spec::files::FileService;

pub(super) struct FileChooser {
    service: FileService,
    /// Each file's region length (a `sequential` pass over one is its length in bytes).
    spans: Vec<u64>,
    cur: u32,
    /// I/Os (`roundrobin`, `random`) or bytes (`sequential`) before the next switch.
    left: u64,
    rng: fastrand::Rng,
}

impl FileChooser {
    /// For files of `spans` (at least two), starting with the first, as fio does.
    pub fn new(service: FileService, spans: Vec<u64>, seed: u64) -> FileChooser {
        let mut c = FileChooser { service, spans, cur: 0, left: 0, rng: fastrand::Rng::with_seed(seed) };
        c.left = c.budget();
        c
    }

    fn budget(&self) -> u64 {
        match self.service {
            FileService::RoundRobin { switch } | FileService::Random { switch } => u64::from(switch),
            FileService::Sequential => self.spans[self.cur as usize].max(1),
        }
    }

    /// The file the next I/O goes to.
    #[inline]
    pub fn current(&self) -> u32 {
        self.cur
    }

    /// An I/O of `len` bytes was issued to the current file: switch when its share is done.
    #[inline]
    pub fn issued(&mut self, len: u32) {
        let used = match self.service {
            FileService::Sequential => u64::from(len),
            _ => 1,
        };
        self.left = self.left.saturating_sub(used);
        if self.left == 0 {
            let n = self.spans.len() as u32;
            self.cur = match self.service {
                FileService::Random { .. } => self.rng.u32(0..n),
                _ => (self.cur + 1) % n,
            };
            self.left = self.budget();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(c: &mut FileChooser, ios: usize, len: u32) -> Vec<u32> {
        (0..ios)
            .map(|_| {
                let f = c.current();
                c.issued(len);
                f
            })
            .collect()
    }

    #[test]
    fn roundrobin_alternates_every_n_ios_and_sequential_finishes_a_file_first() {
        let mut rr = FileChooser::new(FileService::RoundRobin { switch: 1 }, vec![8192, 8192, 8192], 1);
        assert_eq!(walk(&mut rr, 7, 4096), [0, 1, 2, 0, 1, 2, 0]);
        let mut rr2 = FileChooser::new(FileService::RoundRobin { switch: 2 }, vec![8192, 8192], 1);
        assert_eq!(walk(&mut rr2, 6, 4096), [0, 0, 1, 1, 0, 0]);
        let mut seq = FileChooser::new(FileService::Sequential, vec![8192, 12288], 1);
        assert_eq!(walk(&mut seq, 6, 4096), [0, 0, 1, 1, 1, 0]);
    }

    #[test]
    fn random_visits_every_file_evenly() {
        let mut r = FileChooser::new(FileService::Random { switch: 1 }, vec![4096; 4], 7);
        let mut seen = [0u32; 4];
        for f in walk(&mut r, 40_000, 4096) {
            seen[f as usize] += 1;
        }
        assert!(seen.iter().all(|&n| (9_000..11_000).contains(&n)), "{seen:?}");
    }
}
