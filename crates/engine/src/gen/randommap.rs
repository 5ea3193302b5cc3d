//! fio's random map (`axmap`): a random I/O goes to a block not yet visited in this pass over the
//! region, so a size-bound random job touches every block exactly once (fio's default;
//! `norandommap` draws each offset independently, as Iometer does). One bit per position of the
//! alignment grid, with a level above it of one bit per full word, and so on up to one word:
//! finding the next free position from a random draw climbs and descends those levels (a few
//! word reads), never scans the region. Built once per job; per I/O no allocation.

/// The most positions one job's map covers (a bitmap of 256 MiB); over that the job draws
/// independently (a 16 TiB region at 4 KiB steps is 2^32 positions).
pub const MAX_POSITIONS: u64 = 1 << 31;

pub struct RandomMap {
    /// `levels[0]`: a bit per position, set once visited this pass; `levels[k]`: a bit per word
    /// of `levels[k - 1]`, set when that word is full. Bits past the end are set, so a full word
    /// is all ones. The last level is one word.
    levels: Vec<Vec<u64>>,
    positions: u64,
}

impl RandomMap {
    /// A map over `positions` (at least 1), none visited.
    pub fn new(positions: u64) -> RandomMap {
        let positions = positions.max(1);
        let mut levels = Vec::new();
        let mut n = positions;
        loop {
            let words = n.div_ceil(64);
            levels.push(vec![0u64; words as usize]);
            if words == 1 {
                break;
            }
            n = words;
        }
        let mut m = RandomMap { levels, positions };
        m.reset();
        m
    }

    /// A new pass: every position free again.
    pub fn reset(&mut self) {
        let mut n = self.positions;
        for level in &mut self.levels {
            level.fill(0);
            let used = n % 64;
            if used != 0 {
                *level.last_mut().expect("a level has a word") = !0u64 << used;
            }
            n = level.len() as u64;
        }
    }

    /// The position for a block of `blocks` positions whose draw was `drawn` (below `limit`, the
    /// positions where such a block fits): `drawn` if it is free, else the next free one (from
    /// the start again past the end); when none is free below `limit`, a new pass begins at
    /// `drawn`. The free positions from there, up to `blocks`, are marked visited; how many is
    /// the second number: as fio's `axmap_set_nr`, a block that reaches a visited position is
    /// cut short there (fio shortens the transfer to the gap).
    #[inline]
    pub fn take(&mut self, drawn: u64, limit: u64, blocks: u64) -> (u64, u64) {
        let fits = |p: Option<u64>| p.filter(|&p| p < limit);
        let p = match fits(self.next_free(drawn)).or_else(|| fits(self.next_free(0))) {
            Some(p) => p,
            None => {
                self.reset();
                drawn
            }
        };
        let mut n = 0;
        for q in p..(p + blocks.max(1)).min(self.positions) {
            if !self.set(q) {
                break;
            }
            n += 1;
        }
        (p, n)
    }

    /// The positions of the region (the smallest block's grid).
    #[inline]
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// Whether position `p` is still to be visited this pass.
    #[inline]
    pub fn is_free(&self, p: u64) -> bool {
        p < self.positions && self.levels[0][(p / 64) as usize] & (1u64 << (p % 64)) == 0
    }

    /// Mark position `p` visited (and the words above it that it fills); false if it was.
    #[inline]
    fn set(&mut self, p: u64) -> bool {
        let mut i = p;
        let bit = 1u64 << (i % 64);
        if self.levels[0][(i / 64) as usize] & bit != 0 {
            return false;
        }
        for level in &mut self.levels {
            let word = &mut level[(i / 64) as usize];
            *word |= 1u64 << (i % 64);
            if *word != !0 {
                break;
            }
            i /= 64;
        }
        true
    }

    /// The first free position at or after `from`; None when every one from there is visited.
    #[inline]
    pub fn next_free(&self, from: u64) -> Option<u64> {
        if from >= self.positions {
            return None;
        }
        let (mut k, mut i) = (0, from);
        loop {
            let level = &self.levels[k];
            let w = (i / 64) as usize;
            let word = *level.get(w)?;
            // Bits below `i` count as visited: only what follows is looked at.
            let masked = word | ((1u64 << (i % 64)) - 1);
            if masked != !0 {
                let mut pos = w as u64 * 64 + u64::from((!masked).trailing_zeros());
                // Down to a position: each level's word `pos` has a free bit.
                while k > 0 {
                    k -= 1;
                    pos = pos * 64 + u64::from((!self.levels[k][pos as usize]).trailing_zeros());
                }
                return Some(pos);
            }
            // The rest of this word is full: look after it one level up.
            k += 1;
            if k == self.levels.len() {
                return None;
            }
            i = w as u64 + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_position_once_per_pass_whatever_is_drawn() {
        for n in [1u64, 63, 64, 65, 4095, 4096, 4097, 300_000] {
            let mut m = RandomMap::new(n);
            let mut rng = fastrand::Rng::with_seed(n);
            let mut seen = vec![false; n as usize];
            for _ in 0..n {
                let (p, one) = m.take(rng.u64(0..n), n, 1);
                assert_eq!(one, 1);
                assert!(!seen[p as usize], "{n}: {p} twice in a pass");
                seen[p as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "{n}: every position visited");
            assert_eq!(m.next_free(0), None, "{n}: the pass is full");
            // The next draw starts a new pass.
            let d = rng.u64(0..n);
            assert_eq!(m.take(d, n, 1), (d, 1));
            assert_eq!(m.next_free(0), if n == 1 { None } else { Some(u64::from(d == 0)) });
        }
    }

    #[test]
    fn next_free_climbs_past_full_words_and_wraps_to_the_start() {
        let mut m = RandomMap::new(64 * 64 * 3);
        for p in 5..(64 * 64 * 2 + 7) {
            m.set(p);
        }
        assert_eq!(m.next_free(5), Some(64 * 64 * 2 + 7));
        assert_eq!(m.next_free(0), Some(0));
        assert_eq!(m.next_free(4), Some(4));
        // Nothing free from the drawn position to the end: the start's free position.
        for p in (64 * 64 * 2 + 7)..(64 * 64 * 3) {
            m.set(p);
        }
        assert_eq!(m.next_free(100), None);
        assert_eq!(m.take(100, 64 * 64 * 3, 1), (0, 1));
    }

    #[test]
    fn a_block_of_several_positions_marks_them_and_is_cut_short_at_a_visited_one() {
        let mut m = RandomMap::new(16);
        // Blocks of 4 positions fit at 0..=12.
        assert_eq!(m.take(12, 13, 4), (12, 4));
        assert_eq!(m.next_free(12), None);
        // Drawn at 10: free there, but 12 is visited: the block is cut to 2 positions (fio).
        assert_eq!(m.take(10, 13, 4), (10, 2));
        assert_eq!(m.next_free(0), Some(0));
        // Drawn where nothing is free up to the end: from the start.
        assert_eq!(m.take(11, 13, 2), (0, 2));
    }
}
