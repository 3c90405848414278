//! Room given back to the profile, kept summarised so that a reservation
//! is searched again only where room was given back since it was made.

use super::super::profile::Profile;
use super::Assignment;
use crate::model::SimTime;

/// Room given back to the profile, in order: a job placed at the earliest
/// time it fits can start earlier later only if room was given back since
/// over the window it would move to (room only ever shrinks otherwise, and
/// whether a window fits is monotone in the free counts). What a search
/// needs of the releases since a job was placed is kept summarised: their
/// earliest start and latest end.
#[derive(Clone, Debug, Default)]
pub(super) struct GivenBack {
    /// Releases so far.
    pub(super) count: u64,
    /// Releases before this one are forgotten: every queued job was placed
    /// after them.
    floor: u64,
    /// (release number, start) with starts rising: the earliest start of
    /// the releases from a number on is the first entry at or after it.
    starts: Vec<(u64, SimTime)>,
    /// (release number, end) with ends falling, likewise for the latest end.
    ends: Vec<(u64, SimTime)>,
    /// Releases since the profile was last compacted.
    pub(super) since_compact: usize,
}

impl GivenBack {
    /// Gives `assignment`'s processors over [from, from + span) back to the
    /// profile and notes it.
    pub(super) fn give(
        &mut self,
        profile: &mut Profile,
        from: SimTime,
        span: SimTime,
        assignment: &Assignment,
    ) {
        profile.release(from, span, assignment);
        self.since_compact += 1;
        let to = from.saturating_add(span);
        if to <= from {
            return;
        }
        let n = self.count;
        self.count += 1;
        while self.starts.last().is_some_and(|&(_, a)| a >= from) {
            self.starts.pop();
        }
        self.starts.push((n, from));
        while self.ends.last().is_some_and(|&(_, b)| b <= to) {
            self.ends.pop();
        }
        self.ends.push((n, to));
    }

    /// The earliest start and the latest end of the room given back from
    /// release `seen` on; `None` when none was.
    pub(super) fn since(&self, seen: u64) -> Option<(SimTime, SimTime)> {
        if seen >= self.count {
            return None;
        }
        if seen < self.floor {
            return Some((SimTime(i64::MIN), SimTime::MAX));
        }
        let i = self.starts.partition_point(|&(n, _)| n < seen);
        let j = self.ends.partition_point(|&(n, _)| n < seen);
        Some((self.starts.get(i)?.1, self.ends.get(j)?.1))
    }

    /// Forgets the releases before `seen`.
    pub(super) fn forget_before(&mut self, seen: u64) {
        self.floor = self.floor.max(seen);
        let i = self.starts.partition_point(|&(n, _)| n < seen);
        self.starts.drain(..i);
        let j = self.ends.partition_point(|&(n, _)| n < seen);
        self.ends.drain(..j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn s(x: i64) -> SimTime {
        SimTime::from_secs(x)
    }

    /// The summary of room given back from a release on agrees with the
    /// releases themselves, through forgetting.
    #[test]
    fn given_back_bounds_the_releases_since() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut next = |m: u64| rng.random_range(0..m);
        let mut g = GivenBack::default();
        let mut p = Profile::new(s(0), &[1000], &[]);
        let mut log: Vec<(SimTime, SimTime)> = Vec::new();
        let mut checked = 0;
        for round in 0..2000 {
            let from = s(next(10_000) as i64);
            let span = s(next(50) as i64);
            p.reserve(from, span, &vec![(0, 1)]);
            g.give(&mut p, from, span, &vec![(0, 1)]);
            if span > SimTime(0) {
                log.push((from, from + span));
            }
            if round % 97 == 0 {
                let floor = log.len() as u64 / 2;
                g.forget_before(floor);
                assert!(g.floor >= floor);
                let kept = g.starts.iter().chain(&g.ends);
                assert!(kept.map(|e| e.0).all(|n| n >= floor), "forgotten");
            }
            let seen = next(log.len() as u64 + 2);
            let want = log.get(seen as usize..).filter(|l| !l.is_empty()).map(|l| {
                (
                    l.iter().map(|r| r.0).min().expect("some"),
                    l.iter().map(|r| r.1).max().expect("some"),
                )
            });
            match g.since(seen) {
                Some((lo, hi)) if seen < g.floor => {
                    assert_eq!((lo, hi), (SimTime(i64::MIN), SimTime::MAX))
                }
                got => {
                    assert_eq!(got, want, "from release {seen}");
                    checked += 1;
                }
            }
        }
        assert!(
            checked > 1000 && g.starts.len() < log.len() / 10,
            "{checked}"
        );
        assert!(g.floor > 0, "some releases forgotten");
        // Every release counts towards the next compaction of the profile,
        // the empty ones too.
        assert_eq!(g.since_compact, 2000);
    }
}
