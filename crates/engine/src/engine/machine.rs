//! The machine: the platform, who owns each processor, the free counts
//! per cluster and whether the links' load has changed. It knows
//! processors and links, not jobs: a job is its owner mark (its slot plus
//! one), an active reservation [`RESERVED`].

use super::reservations::RESERVED;
use crate::model::{ClusterIdx, Platform};
use crate::sched::Assignment;

/// Per-cluster processor ownership.
#[derive(Clone, Debug)]
pub(super) struct ClusterState {
    /// `owner[p]` is the slot of the job on processor `p` plus one, 0 if
    /// free, [`RESERVED`] if an active reservation took it.
    pub(super) owner: Vec<u32>,
    pub(super) free: u32,
}

pub(super) struct Machine {
    pub(super) platform: Platform,
    pub(super) clusters: Vec<ClusterState>,
    /// Free processors per cluster (what policies see).
    pub(super) free: Vec<u32>,
    /// Running jobs' rates are to be recomputed from the links (a job
    /// started or ended, or a link changed, on a platform with a network).
    pub(super) rates_stale: bool,
}

impl Machine {
    /// The platform with every processor free.
    pub(super) fn new(platform: Platform) -> Machine {
        let clusters = platform
            .clusters
            .iter()
            .map(|c| ClusterState {
                owner: vec![0; c.processors as usize],
                free: c.processors,
            })
            .collect();
        let free = platform.clusters.iter().map(|c| c.processors).collect();
        Machine {
            platform,
            clusters,
            free,
            rates_stale: false,
        }
    }

    /// The owner mark of processor `p` of cluster `c`.
    pub(super) fn owner(&self, c: usize, p: u32) -> u32 {
        self.clusters[c].owner[p as usize]
    }

    /// Gives `owner` processors of cluster `c` for a component `w` wide:
    /// those of `chosen`, else the lowest-numbered free ones.
    pub(super) fn take(
        &mut self,
        c: ClusterIdx,
        w: u32,
        owner: u32,
        chosen: Option<&Vec<u32>>,
    ) -> Vec<u32> {
        let cs = &mut self.clusters[c as usize];
        let mut got = Vec::with_capacity(w as usize);
        if let Some(chosen) = chosen {
            for &p in chosen {
                cs.owner[p as usize] = owner;
                got.push(p);
            }
        } else {
            for (p, o) in cs.owner.iter_mut().enumerate() {
                if got.len() == w as usize {
                    break;
                }
                if *o == 0 {
                    *o = owner;
                    got.push(p as u32);
                }
            }
        }
        debug_assert_eq!(
            got.len(),
            w as usize,
            "free count out of step with ownership"
        );
        cs.free -= w;
        self.free[c as usize] -= w;
        got
    }

    /// Frees the processors `procs` of cluster `c` that the job in `slot`
    /// held, `w` of them counted.
    pub(super) fn give_back(&mut self, c: ClusterIdx, w: u32, slot: usize, procs: &[u32]) {
        let cs = &mut self.clusters[c as usize];
        for &p in procs {
            debug_assert_eq!(
                cs.owner[p as usize],
                slot as u32 + 1,
                "processor owned by another job"
            );
            cs.owner[p as usize] = 0;
        }
        cs.free += w;
        self.free[c as usize] += w;
    }

    /// Moves the job in `slot` from the processors `old` of cluster `c`
    /// (`before` of them counted) to `new`.
    pub(super) fn move_job(
        &mut self,
        c: usize,
        slot: usize,
        (old, before): (&[u32], u32),
        new: &[u32],
    ) {
        let owner = slot as u32 + 1;
        let cs = &mut self.clusters[c];
        for &p in old {
            cs.owner[p as usize] = 0;
        }
        for &p in new {
            cs.owner[p as usize] = owner;
        }
        let after = new.len() as u32;
        cs.free = cs.free + before - after;
        self.free[c] = self.free[c] + before - after;
    }

    /// An active reservation takes the free processors `procs` of cluster
    /// `c`.
    pub(super) fn reserve(&mut self, c: usize, procs: &[u32], id: u64) {
        let cs = &mut self.clusters[c];
        for &p in procs {
            debug_assert_eq!(cs.owner[p as usize], 0, "reservation {id} over a job");
            cs.owner[p as usize] = RESERVED;
        }
        cs.free -= procs.len() as u32;
        self.free[c] -= procs.len() as u32;
    }

    /// A reservation's window is over: its processors are free again.
    pub(super) fn unreserve(&mut self, c: usize, procs: &[u32]) {
        let cs = &mut self.clusters[c];
        for &p in procs {
            debug_assert_eq!(cs.owner[p as usize], RESERVED);
            cs.owner[p as usize] = 0;
        }
        cs.free += procs.len() as u32;
        self.free[c] += procs.len() as u32;
    }

    /// Free processors of cluster `c`, lowest first.
    pub(super) fn free_of(&self, c: ClusterIdx) -> impl Iterator<Item = u32> + '_ {
        self.clusters[c as usize]
            .owner
            .iter()
            .enumerate()
            .filter(|&(_, &o)| o == 0)
            .map(|(p, _)| p as u32)
    }

    /// Processors held per cluster (`assignment`'s order) as the
    /// platform-wide numbers of [`crate::model::Placement`], sorted.
    pub(super) fn numbered(&self, assignment: &Assignment, processors: &[Vec<u32>]) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::with_capacity(processors.iter().map(Vec::len).sum());
        for (&(c, _), procs) in assignment.iter().zip(processors) {
            let offset: u32 = self.platform.clusters[..c as usize]
                .iter()
                .map(|k| k.processors)
                .sum();
            out.extend(procs.iter().map(|&p| offset + p));
        }
        out.sort_unstable();
        out
    }

    /// The links' available bandwidth now, if the platform has a network.
    pub(super) fn link_bandwidth(&self) -> Option<&[f64]> {
        self.platform.network.as_ref().map(|n| n.abw.as_slice())
    }

    /// Marks the rates for recomputation when the platform has a network.
    pub(super) fn links_changed(&mut self) {
        if self.platform.network.is_some() {
            self.rates_stale = true;
        }
    }
}
