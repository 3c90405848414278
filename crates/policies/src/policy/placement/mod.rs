//! Placement: which cluster gets which component of a job.
//!
//! Queue disciplines decide *which* job starts; a placement decides *where*.
//! Every placement puts each component on a different cluster.

mod best_fit;
mod first_fit;
mod worst_fit;

pub use best_fit::BestFit;
pub use first_fit::FirstFit;
pub use worst_fit::WorstFit;

use crate::model::ClusterIdx;

pub use crate::policy::PlacementName;
pub use crate::sched::Assignment;

pub trait Placement: Send + Sync + BoxedPlacement {
    /// Places `widths` given the free processors per cluster, or says it
    /// cannot be placed now.
    fn place(&self, widths: &[u32], free: &[u32]) -> Option<Assignment>;
}

/// A copy of a boxed placement: what lets a policy that holds one be
/// copied (to run its pass on a copy when it explains itself). Every
/// `Placement + Clone` has it.
pub trait BoxedPlacement {
    fn boxed(&self) -> Box<dyn Placement>;
}

impl<T: Placement + Clone + 'static> BoxedPlacement for T {
    fn boxed(&self) -> Box<dyn Placement> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Placement> {
    fn clone(&self) -> Self {
        self.boxed()
    }
}

/// A placement rule at work: the protocol names the rules, the policies
/// place by them.
pub trait BuildPlacement {
    fn build(self) -> Box<dyn Placement>;
}

impl BuildPlacement for PlacementName {
    fn build(self) -> Box<dyn Placement> {
        match self {
            PlacementName::WorstFit => Box::new(WorstFit),
            PlacementName::BestFit => Box::new(BestFit),
            PlacementName::FirstFit => Box::new(FirstFit),
        }
    }
}

/// Clusters already given a component during one placement: a bit set on
/// the stack for platforms of up to 128 clusters, so that placing (which
/// the policies do for many queued jobs at every decision point) allocates
/// nothing until it succeeds.
pub(crate) struct Used {
    bits: u128,
    more: Vec<bool>,
}

impl Used {
    fn new(clusters: usize) -> Used {
        Used {
            bits: 0,
            more: if clusters > 128 {
                vec![false; clusters]
            } else {
                Vec::new()
            },
        }
    }

    pub(crate) fn contains(&self, c: usize) -> bool {
        if self.more.is_empty() {
            self.bits & (1u128 << c) != 0
        } else {
            self.more[c]
        }
    }

    fn insert(&mut self, c: usize) {
        if self.more.is_empty() {
            self.bits |= 1u128 << c;
        } else {
            self.more[c] = true;
        }
    }
}

/// Greedy placement shared by the fits: components widest first (ties:
/// lower index first), each to the cluster `choose` picks among the unused
/// clusters with room for it.
fn greedy(
    widths: &[u32],
    free: &[u32],
    choose: impl Fn(&[u32], &Used, u32) -> Option<usize>,
) -> Option<Assignment> {
    if widths.len() > free.len() {
        return None;
    }
    // The widest component needs the freest cluster at least: most jobs
    // that do not fit are turned away here, before any work.
    let widest = widths.iter().copied().max().unwrap_or(0);
    if free.iter().all(|&f| f < widest) {
        return None;
    }
    let mut used = Used::new(free.len());
    let mut out: Assignment = Vec::new();
    let mut placed = 0usize;
    // Widest first without sorting: pick the widest unplaced component each
    // round (jobs have a handful of components).
    let mut done = Used::new(widths.len());
    while placed < widths.len() {
        let mut i = usize::MAX;
        for (j, &w) in widths.iter().enumerate() {
            if !done.contains(j) && (i == usize::MAX || w > widths[i]) {
                i = j;
            }
        }
        let c = choose(free, &used, widths[i])?;
        used.insert(c);
        done.insert(i);
        if out.is_empty() {
            out = vec![(0 as ClusterIdx, 0u32); widths.len()];
        }
        out[i] = (c as ClusterIdx, widths[i]);
        placed += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clusters(a: &Assignment) -> Vec<ClusterIdx> {
        a.iter().map(|&(c, _)| c).collect()
    }

    #[test]
    fn worst_fit_puts_the_widest_on_the_freest() {
        let free = [3, 10, 7, 0, 5];
        let a = WorstFit.place(&[2, 6, 4], &free).unwrap();
        assert_eq!(clusters(&a), vec![4, 1, 2]);
        assert_eq!(WorstFit.place(&[11], &free), None);
        assert_eq!(WorstFit.place(&[8, 8], &free), None);
    }

    /// Components of equal width are placed in the job's order: the first
    /// of them takes the cluster the rule picks first. The assignment is
    /// reported in component order, so a tie broken the other way would
    /// put the same job on its clusters the other way round.
    #[test]
    fn equal_components_are_placed_in_the_jobs_order() {
        let free = [5, 10, 7];
        let a = WorstFit.place(&[3, 3, 3], &free).unwrap();
        assert_eq!(clusters(&a), vec![1, 2, 0]);
        let a = BestFit.place(&[3, 3, 3], &free).unwrap();
        assert_eq!(clusters(&a), vec![0, 2, 1]);
    }

    #[test]
    fn best_fit_fills_tightly() {
        let free = [3, 10, 7, 0, 5];
        let a = BestFit.place(&[2, 6, 4], &free).unwrap();
        // widest (6) -> 7 (c2); 4 -> 5 (c4); 2 -> 3 (c0)
        assert_eq!(clusters(&a), vec![0, 2, 4]);
    }

    #[test]
    fn first_fit_takes_the_lowest_index() {
        let free = [3, 10, 7, 0, 5];
        let a = FirstFit.place(&[2, 6, 4], &free).unwrap();
        // 6 -> c1; 4 -> c2; 2 -> c0
        assert_eq!(clusters(&a), vec![0, 1, 2]);
    }

    #[test]
    fn every_placement_uses_distinct_clusters_and_respects_room() {
        let free = [4, 4, 4];
        for p in PlacementName::ALL {
            let a = p.build().place(&[4, 4, 4], &free).unwrap();
            let mut c = clusters(&a);
            c.sort();
            c.dedup();
            assert_eq!(c.len(), 3, "{p:?}");
            assert!(p.build().place(&[1, 1, 1, 1], &free).is_none());
        }
    }
}
