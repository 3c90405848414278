//! What the sites offer a gang: their idle processors and empty queues,
//! and a site or queues picked among them by the grid's rules.

use super::{Grid, IdleReading, Parts, QueuePick};
use rand::RngExt;

impl Grid {
    /// Whether processor `p` of `site` is idle, as the `idle` reading
    /// counts it.
    pub(super) fn idle(&self, site: usize, p: usize) -> bool {
        let pr = &self.sites[site][p];
        pr.exec.is_none() && (self.rules.idle == IdleReading::NotExecuting || pr.queue.is_empty())
    }

    /// The idle processors of `site`, lowest first.
    pub(super) fn idle_procs(&self, site: usize) -> Vec<u32> {
        (0..self.sites[site].len())
            .filter(|&p| self.idle(site, p))
            .map(|p| p as u32)
            .collect()
    }

    /// The processors of `site` with an empty queue, lowest first.
    pub(super) fn empty_queues(&self, site: usize) -> Vec<u32> {
        (0..self.sites[site].len())
            .filter(|&p| self.sites[site][p].queue.is_empty())
            .map(|p| p as u32)
            .collect()
    }

    /// How many processors of `site` are idle.
    pub(super) fn count_idle(&self, site: usize) -> usize {
        (0..self.sites[site].len())
            .filter(|&p| self.idle(site, p))
            .count()
    }

    /// How many processors of `site` have an empty queue.
    pub(super) fn count_empty(&self, site: usize) -> usize {
        self.sites[site]
            .iter()
            .filter(|p| p.queue.is_empty())
            .count()
    }

    /// Idle processors of every site.
    pub(super) fn idle_all(&self) -> Vec<Vec<u32>> {
        (0..self.sites.len()).map(|s| self.idle_procs(s)).collect()
    }

    /// Empty queues of every site.
    pub(super) fn empty_all(&self) -> Vec<Vec<u32>> {
        (0..self.sites.len())
            .map(|s| self.empty_queues(s))
            .collect()
    }

    /// Whether every processor of these parts is free of a running job.
    pub(super) fn all_free(&self, parts: &Parts) -> bool {
        parts.iter().all(|(s, ps)| {
            ps.iter()
                .all(|&p| self.sites[*s][p as usize].exec.is_none())
        })
    }

    /// Picks `n` of the empty queues `empty` of `site`.
    pub(super) fn pick_queues(&mut self, site: usize, mut empty: Vec<u32>, n: usize) -> Vec<u32> {
        match self.rules.empty_queues {
            QueuePick::Lowest => {}
            QueuePick::IdleFirst => {
                let s = &self.sites[site];
                empty.sort_by_key(|&p| (s[p as usize].exec.is_some(), p));
            }
            QueuePick::Random => {
                // A partial Fisher–Yates shuffle.
                let rng = self.rng();
                for i in 0..n.min(empty.len()) {
                    let j = rng.random_range(i..empty.len());
                    empty.swap(i, j);
                }
            }
        }
        empty.truncate(n);
        empty.sort_unstable();
        empty
    }

    /// A site chosen at random among those that pass `ok`.
    pub(super) fn random_site(&mut self, ok: impl Fn(&Grid, usize) -> bool) -> Option<usize> {
        let mut n = 0;
        let mut first = None;
        for s in 0..self.sites.len() {
            if ok(self, s) {
                n += 1;
                first = first.or(Some(s));
            }
        }
        match n {
            0 => None,
            1 => first,
            n => {
                let i = self.rng().random_range(0..n);
                (0..self.sites.len()).filter(|&s| ok(self, s)).nth(i)
            }
        }
    }
}
