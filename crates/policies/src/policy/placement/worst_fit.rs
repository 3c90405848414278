//! Worst fit (WFit): the widest component to the freest cluster, the next to
//! the next freest, so the free processors stay as even as possible.

use super::{Assignment, Placement, greedy};

#[derive(Clone, Copy, Debug, Default)]
pub struct WorstFit;

impl Placement for WorstFit {
    fn place(&self, widths: &[u32], free: &[u32]) -> Option<Assignment> {
        greedy(widths, free, |free, used, w| {
            // Freest unused cluster (lowest index on ties). Matching sorted
            // widths to sorted free counts finds a placement whenever one
            // exists, so failing here means none does.
            let best = (0..free.len())
                .filter(|&c| !used.contains(c))
                .max_by(|&a, &b| free[a].cmp(&free[b]).then(b.cmp(&a)))?;
            (free[best] >= w).then_some(best)
        })
    }
}
