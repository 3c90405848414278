//! The queue as a scan for the next job that may fit needs it, kept from
//! one decision point to the next: each queued job's widest component and
//! total width in arrival order, with the least of each per block of
//! positions, so that a scan skips at once the blocks in which no job can
//! fit. On a long queue (an overloaded trace holds tens of thousands of
//! jobs) a pass then costs the jobs it starts, not the length of the queue.
//!
//! Jobs that leave the queue stay as gaps until the copy is rebuilt; it is
//! rebuilt when the queue was edited (jobs put back, estimates changed),
//! when the clusters' sizes changed (a job's split depends on them), and
//! whenever it no longer mirrors the queue.

use crate::sched::{JobKey, SystemView};

/// Positions per block.
const BLOCK: usize = 64;
/// Widths of a job that left the queue: fits nowhere.
const GONE: u64 = u64::MAX;

#[derive(Clone, Debug, Default)]
pub struct QueueIndex {
    queue_edits: u64,
    /// The clusters' sizes the widths were computed for.
    shape: Vec<u32>,
    arrivals: Vec<u64>,
    keys: Vec<JobKey>,
    /// Each job's widest component and total width (`GONE` once it left).
    widest: Vec<u64>,
    total: Vec<u64>,
    /// The least widest component and total width in each block.
    block_widest: Vec<u64>,
    block_total: Vec<u64>,
    live: usize,
    /// Every position before this one is a gap.
    front: usize,
    /// Arrivals of the jobs started since the copy was last brought up to
    /// date.
    pending: Vec<u64>,
}

impl QueueIndex {
    /// Brings the copy up to date with `view`'s queue: the jobs started
    /// since leave it, the arrivals join it; rebuilt when that does not
    /// give the queue back.
    pub fn sync(&mut self, view: &SystemView<'_>) {
        let shape: Vec<u32> = view
            .platform
            .clusters
            .iter()
            .map(|c| c.processors)
            .collect();
        let kept = self.queue_edits == view.queue_edits && self.shape == shape && {
            self.leave_pending();
            let last = self.arrivals.last().copied();
            let from = last.map_or(0, |l| {
                view.queue.partition_point(|&k| view.job(k).arrival <= l)
            });
            for &k in &view.queue[from..] {
                self.push(view, k);
            }
            self.mirrors(view)
        };
        if !kept {
            *self = QueueIndex {
                queue_edits: view.queue_edits,
                shape,
                ..QueueIndex::default()
            };
            for &k in view.queue {
                self.push(view, k);
            }
        }
        debug_assert!(
            view.queue.len() > 2048 || self.mirrors_exactly(view),
            "the queue's copy drifted"
        );
    }

    /// Notes that the job at `p` was started (it leaves the copy at the
    /// next [`QueueIndex::sync`]).
    pub fn started(&mut self, p: usize) {
        self.pending.push(self.arrivals[p]);
    }

    /// Whether the copy holds the queue: as many jobs, the same first and
    /// last (a full comparison in debug builds), and not mostly gaps.
    fn mirrors(&self, view: &SystemView<'_>) -> bool {
        let first = self.next_live(0).map(|p| self.keys[p]);
        let last = (0..self.keys.len())
            .rev()
            .find(|&p| self.widest[p] != GONE)
            .map(|p| self.keys[p]);
        self.live == view.queue.len()
            && first == view.queue.first().copied()
            && last == view.queue.last().copied()
            && self.keys.len() <= 2 * self.live + 1024
    }

    fn mirrors_exactly(&self, view: &SystemView<'_>) -> bool {
        let live: Vec<JobKey> = (0..self.keys.len())
            .filter(|&p| self.widest[p] != GONE)
            .map(|p| self.keys[p])
            .collect();
        live == view.queue
    }

    fn leave_pending(&mut self) {
        for a in std::mem::take(&mut self.pending) {
            if let Ok(p) = self.arrivals.binary_search(&a)
                && self.widest[p] != GONE
            {
                self.widest[p] = GONE;
                self.total[p] = GONE;
                self.live -= 1;
                self.refresh_block(p / BLOCK);
            }
        }
        while self.front < self.keys.len() && self.widest[self.front] == GONE {
            self.front += 1;
        }
    }

    fn push(&mut self, view: &SystemView<'_>, k: JobKey) {
        let j = view.job(k);
        let widths = j.widths(view.platform);
        let widest = widths.iter().copied().max().unwrap_or(0) as u64;
        let total: u64 = widths.iter().map(|&w| w as u64).sum();
        let p = self.keys.len();
        self.arrivals.push(j.arrival);
        self.keys.push(k);
        self.widest.push(widest);
        self.total.push(total);
        self.live += 1;
        if p.is_multiple_of(BLOCK) {
            self.block_widest.push(widest);
            self.block_total.push(total);
        } else {
            let b = p / BLOCK;
            self.block_widest[b] = self.block_widest[b].min(widest);
            self.block_total[b] = self.block_total[b].min(total);
        }
    }

    fn refresh_block(&mut self, b: usize) {
        let r = b * BLOCK..((b + 1) * BLOCK).min(self.keys.len());
        self.block_widest[b] = self.widest[r.clone()].iter().copied().min().unwrap_or(GONE);
        self.block_total[b] = self.total[r].iter().copied().min().unwrap_or(GONE);
    }

    pub fn key(&self, p: usize) -> JobKey {
        self.keys[p]
    }

    pub fn arrival(&self, p: usize) -> u64 {
        self.arrivals[p]
    }

    /// The first position from `p` on that holds a queued job.
    pub fn next_live(&self, p: usize) -> Option<usize> {
        (p.max(self.front)..self.keys.len()).find(|&q| self.widest[q] != GONE)
    }

    /// The first position from `p` on whose job may fit processors of
    /// which the freest cluster has `freest` and all have `total`: its
    /// widest component and its total width are no more. A necessary
    /// condition only; the caller tries the placement.
    pub fn next_candidate(&self, p: usize, freest: u32, total: u64) -> Option<usize> {
        let (freest, n) = (freest as u64, self.keys.len());
        let may = |q: usize| self.widest[q] <= freest && self.total[q] <= total;
        let mut q = p.max(self.front);
        while q < n {
            let b = q / BLOCK;
            if q.is_multiple_of(BLOCK)
                && (self.block_widest[b] > freest || self.block_total[b] > total)
            {
                q += BLOCK;
                continue;
            }
            if may(q) {
                return Some(q);
            }
            q += 1;
        }
        None
    }
}
