//! The waiting jobs in arrival order, as policies see them: a slice.
//!
//! Jobs leave mostly from the front (the head starts, or jobs just behind
//! it are backfilled) while tens of thousands may wait behind them. A plain
//! vector would move every waiting job down at each start; here the
//! storage keeps a start offset, so a removal moves the shorter side of
//! its gap: the jobs before it up, or the jobs after it down.

use crate::sched::JobKey;
use std::ops::Deref;

#[derive(Debug, Default)]
pub(super) struct ArrivalQueue {
    buf: Vec<JobKey>,
    /// The queue is `buf[head..]`; the slots before it are spare.
    head: usize,
}

impl Deref for ArrivalQueue {
    type Target = [JobKey];

    fn deref(&self) -> &[JobKey] {
        &self.buf[self.head..]
    }
}

impl ArrivalQueue {
    pub fn push(&mut self, key: JobKey) {
        self.buf.push(key);
    }

    /// Puts `key` at position `pos` of the queue.
    pub fn insert(&mut self, pos: usize, key: JobKey) {
        if self.head > 0 && pos < self.len() / 2 {
            // Room before the head: move the jobs before `pos` up one.
            self.head -= 1;
            let h = self.head;
            self.buf.copy_within(h + 1..h + 1 + pos, h);
            self.buf[h + pos] = key;
        } else {
            self.buf.insert(self.head + pos, key);
        }
    }

    /// Removes the jobs at queue positions `gone` (sorted, distinct),
    /// keeping the order of the others.
    pub fn remove_sorted(&mut self, gone: &[usize]) {
        let Some(&last) = gone.last() else {
            return;
        };
        let n = self.len();
        let h = self.head;
        if last + 1 == gone.len() {
            // The first jobs of the queue, the common case.
            self.head += gone.len();
        } else if last < n - gone[0] {
            // Fewer jobs before the last gap than after the first: each
            // run of kept jobs between two gaps moves up as one block.
            let mut end = h + last + 1;
            for (i, &g) in gone.iter().enumerate().rev() {
                let begin = if i == 0 { 0 } else { gone[i - 1] + 1 };
                let run = g - begin;
                self.buf.copy_within(h + begin..h + g, end - run);
                end -= run;
            }
            debug_assert_eq!(end, h + gone.len());
            self.head += gone.len();
        } else {
            // Each run of kept jobs between two gaps moves down as one
            // block.
            let mut kept = h + gone[0];
            for (i, &g) in gone.iter().enumerate() {
                let end = gone.get(i + 1).copied().unwrap_or(n);
                self.buf.copy_within(h + g + 1..h + end, kept);
                kept += end - g - 1;
            }
            self.buf.truncate(kept);
        }
        // The spare slots are given back once they outnumber the queue.
        if self.head >= 1024 && self.head * 2 >= self.buf.len() {
            self.buf.drain(..self.head);
            self.head = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// An insertion in the front half takes the spare slot before the
    /// head and moves the jobs before it; one in the back half moves the
    /// jobs after it, leaving the spare slots alone.
    #[test]
    fn an_insertion_moves_the_shorter_side() {
        let mut q = ArrivalQueue::default();
        for k in 0..10 {
            q.push(JobKey(k));
        }
        q.remove_sorted(&[0, 1]);
        assert_eq!((q.head, q.buf.len()), (2, 10));
        q.insert(1, JobKey(100));
        assert_eq!((q.head, q.buf.len()), (1, 10));
        q.insert(8, JobKey(101));
        assert_eq!((q.head, q.buf.len()), (1, 11));
        let keys: Vec<usize> = q.iter().map(|k| k.0).collect();
        assert_eq!(keys, vec![2, 100, 3, 4, 5, 6, 7, 8, 101, 9]);
    }

    /// A removal inside the queue moves the shorter side of its gap: the
    /// jobs before it up (into the spare slots before the head), or the
    /// jobs after it down (giving the last slot back).
    #[test]
    fn a_removal_moves_the_shorter_side() {
        let mut q = ArrivalQueue::default();
        for k in 0..10 {
            q.push(JobKey(k));
        }
        // Five jobs before the gap, four after it: the four move down.
        q.remove_sorted(&[5]);
        assert_eq!((q.head, q.buf.len()), (0, 9));
        // One job before the gap, seven after it: the one moves up.
        q.remove_sorted(&[1]);
        assert_eq!((q.head, q.buf.len()), (1, 9));
        // Two gaps, one job before the last and five after the first.
        q.remove_sorted(&[0, 2]);
        assert_eq!((q.head, q.buf.len()), (3, 9));
        let keys: Vec<usize> = q.iter().map(|k| k.0).collect();
        assert_eq!(keys, vec![2, 4, 6, 7, 8, 9]);
    }

    /// The spare slots before the head are given back exactly when there
    /// are at least 1,024 of them and at least as many as queued jobs.
    #[test]
    fn spare_slots_are_given_back_once_they_outnumber_the_queue() {
        let mut q = ArrivalQueue::default();
        for k in 0..10 {
            q.push(JobKey(k));
        }
        // Six spare slots for four jobs: too few to bother.
        q.remove_sorted(&[0, 1, 2, 3, 4, 5]);
        assert_eq!((q.head, q.buf.len()), (6, 10));

        let mut q = ArrivalQueue::default();
        for k in 0..2048 {
            q.push(JobKey(k));
        }
        let front: Vec<usize> = (0..1023).collect();
        q.remove_sorted(&front);
        assert_eq!((q.head, q.buf.len()), (1023, 2048));
        // The 1,024th spare slot, as many as the 1,024 jobs left.
        q.remove_sorted(&[0]);
        assert_eq!((q.head, q.buf.len()), (0, 1024));
        assert!(q.iter().map(|k| k.0).eq(1024..2048));
    }

    /// Random removals and insertions agree with a plain vector.
    #[test]
    fn agrees_with_a_vector() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut next = |m: u64| rng.random_range(0..m);
        let (mut q, mut v) = (ArrivalQueue::default(), Vec::new());
        let mut key = 0;
        let (mut fronts, mut ups, mut downs) = (0, 0, 0);
        for _ in 0..20_000 {
            match next(10) {
                0..=4 => {
                    for _ in 0..next(8) {
                        q.push(JobKey(key));
                        v.push(JobKey(key));
                        key += 1;
                    }
                }
                5 if !v.is_empty() => {
                    let pos = next(v.len() as u64 + 1) as usize;
                    q.insert(pos, JobKey(key));
                    v.insert(pos, JobKey(key));
                    key += 1;
                }
                _ if !v.is_empty() => {
                    let mut gone: Vec<usize> = (0..next(4) + 1)
                        .map(|_| match next(3) {
                            0 => next(3.min(v.len() as u64)) as usize,
                            _ => next(v.len() as u64) as usize,
                        })
                        .collect();
                    gone.sort_unstable();
                    gone.dedup();
                    let last = *gone.last().expect("one");
                    if last + 1 == gone.len() {
                        fronts += 1;
                    } else if last < v.len() - gone[0] {
                        ups += 1;
                    } else {
                        downs += 1;
                    }
                    q.remove_sorted(&gone);
                    for &g in gone.iter().rev() {
                        v.remove(g);
                    }
                }
                _ => {}
            }
            assert_eq!(&q[..], &v[..]);
        }
        assert!(
            fronts > 100 && ups > 100 && downs > 100,
            "{fronts} {ups} {downs}"
        );
    }
}
