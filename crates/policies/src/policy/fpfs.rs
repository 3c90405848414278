//! FPFS(maxJumps) and FCFS (= FPFS(0)), as Ngubiri and van Vliet define them.
//!
//! Jobs queue in arrival order. At each decision point the scheduler scans
//! from the head for the first job that fits, starts it, and carries on: the
//! free processors only shrink during a pass, so jobs already passed over
//! still do not fit and one pass starts every job that can start. A job that
//! starts ahead of the head counts as one jump of the head; once the head has
//! been jumped `maxJumps` times nothing may pass it until it starts itself.

use super::placement::Placement;
use super::{MaxJumps, Phased, PolicySpec, PolicyState, Start, StartKind, SystemView};
use crate::policy::BuildPlacement;
use crate::policy::catalog::PolicyEntry;
use crate::policy::catalog::common::{MAX_JUMPS, PLACEMENT, place};
use crate::policy::{SharedParams, names};
use crate::sched::explain::{self, on_clusters};
use crate::sched::{Explanation, JobKey, JobView, Panel, PanelLine, Tone};

pub struct Fpfs {
    max_jumps: MaxJumps,
    placement: Box<dyn Placement>,
    spec: PolicySpec,
    /// The head job (by arrival sequence) and how often it has been jumped.
    head: Option<(u64, u32)>,
    free: Vec<u32>,
    /// The queue position where the last pass stopped because the head
    /// had been jumped as often as allowed, if it did.
    stopped_at: Option<usize>,
}

impl Fpfs {
    /// Whether the placement puts `widths` on the processors `free` now
    /// (the test behind aborting expired jobs for the head).
    fn fits_now(&self, widths: &[u32], free: &[u32]) -> bool {
        self.placement.place(widths, free).is_some()
    }

    pub fn new(max_jumps: MaxJumps, placement: Box<dyn Placement>, spec: PolicySpec) -> Fpfs {
        Fpfs {
            max_jumps,
            placement,
            spec,
            head: None,
            free: Vec::new(),
            stopped_at: None,
        }
    }

    fn jumps_of(&self, arrival: u64) -> u32 {
        match self.head {
            Some((a, j)) if a == arrival => j,
            _ => 0,
        }
    }

    /// One decision point: jobs start in queue order while they fit, and a
    /// job that fits starts ahead of a head that does not while the head has
    /// been jumped fewer than maxJumps times.
    fn starts(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.free.clear();
        self.free.extend_from_slice(view.free);
        // Index of the current head among `view.queue`. The scan goes
        // forward only, so when the head starts, the job right after it is
        // the next head: no job after it has been tried yet.
        let mut head_idx = 0;
        self.stopped_at = None;
        for (i, &key) in view.queue.iter().enumerate() {
            let job = view.job(key);
            let is_head = i == head_idx;
            if !is_head {
                let head = view.job(view.queue[head_idx]);
                if !self.max_jumps.allows(self.jumps_of(head.arrival)) {
                    self.stopped_at = Some(i);
                    break;
                }
            }
            let Some(assignment) = self.placement.place(&job.widths(view.platform), &self.free)
            else {
                continue;
            };
            for &(c, w) in &assignment {
                self.free[c as usize] -= w;
            }
            out.push(Start {
                job: key,
                assignment,
                kind: if is_head {
                    StartKind::Head
                } else {
                    StartKind::Ahead
                },
                processors: None,
                processes: None,
            });
            if is_head {
                head_idx = i + 1;
                self.head = None;
            } else {
                let head = view.job(view.queue[head_idx]);
                let j = self.jumps_of(head.arrival) + 1;
                self.head = Some((head.arrival, j));
            }
        }
        if let Some(&k) = view.queue.get(head_idx) {
            let a = view.job(k).arrival;
            if self.head.map(|(h, _)| h) != Some(a) {
                self.head = Some((a, 0));
            }
        } else {
            self.head = None;
        }
    }
}

impl Phased for Fpfs {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn aborts(&mut self, view: &SystemView<'_>, out: &mut Vec<crate::sched::Abort>) {
        let state = self.state(view);
        super::backfill::aborts_for_head(view, &state, &|w, f| self.fits_now(w, f), out);
    }

    /// Never: FPFS reserves nothing for its head, so its aborts are due at
    /// every decision point (an expired job's expiry is one) and there is
    /// no reservation to wake for. (The shared rule returns `None` for any
    /// state but a backfilling head's.)
    fn recheck_at(&self, _view: &SystemView<'_>) -> Option<crate::model::SimTime> {
        None
    }

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.starts(view, out);
    }

    /// The pass run on a copy: the job starts if the copy starts it; else
    /// the head does not fit, or the job does not fit, or the head has
    /// been jumped as often as allowed.
    fn explain(&self, view: &SystemView<'_>, key: JobKey) -> Explanation {
        let mut pass = Fpfs::new(
            self.max_jumps,
            self.spec.placement().build(),
            self.spec.clone(),
        );
        pass.head = self.head;
        let mut starts = Vec::new();
        pass.starts(view, &mut starts);
        if let Some(s) = starts.iter().find(|s| s.job == key) {
            return Explanation::starts(format!(
                "it fits{}: {}",
                match s.kind {
                    StartKind::Head => " in arrival order",
                    _ => ", ahead of the head",
                },
                on_clusters(view, &s.assignment)
            ));
        }
        let Some(head_key) = view
            .queue
            .iter()
            .copied()
            .find(|&k| starts.iter().all(|s| s.job != k))
        else {
            return explain::generic(view, key);
        };
        let head = view.job(head_key);
        let fcfs = self.max_jumps == MaxJumps::Limit(0);
        let rule = if fcfs { "FCFS" } else { "FPFS" };
        let needs = format!(
            "it needs {}; {}",
            explain::asks(view, key),
            explain::free_now(&pass.free)
        );
        if head_key == key {
            let jumps = if fcfs {
                String::new()
            } else {
                format!(
                    " It has been jumped {} of {} times.",
                    pass.jumps_of(head.arrival),
                    self.max_jumps
                )
            };
            return Explanation::waits(format!("It is the head and does not fit: {needs}.{jumps}"));
        }
        let at = view.queue.iter().position(|&k| k == key).unwrap_or(0);
        if pass.stopped_at.is_some_and(|s| at >= s) {
            return Explanation::waits(if fcfs {
                format!(
                    "{rule} starts jobs in arrival order only: it waits behind the head, job {}, which does not fit.",
                    head.id
                )
            } else {
                format!(
                    "The head, job {}, has been jumped {} of {} times: nothing may pass it until it starts.",
                    head.id,
                    pass.jumps_of(head.arrival),
                    self.max_jumps
                )
            });
        }
        Explanation::waits(format!(
            "It does not fit now, so it cannot jump the head (job {}, jumped {} of {} times): {needs}.",
            head.id,
            pass.jumps_of(head.arrival),
            self.max_jumps
        ))
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        match view.queue.first() {
            Some(&k) => {
                let job = view.job(k);
                let jumps = self.jumps_of(job.arrival);
                PolicyState::new(head_panel(jumps, self.max_jumps, job, view.free)).with_detail(
                    HeadJumps {
                        head: job.id,
                        jumps,
                        max_jumps: self.max_jumps,
                    },
                )
            }
            None => PolicyState::default(),
        }
    }
}

/// FPFS's typed state: the head and how often it has been jumped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadJumps {
    pub head: u64,
    pub jumps: u32,
    pub max_jumps: MaxJumps,
}

/// What the console shows of FPFS: the head's jumps against maxJumps (in
/// the queue and as a gauge of one cell per allowed jump, scaled down
/// past 20) and what the head needs against what is free.
pub fn head_panel(jumps: u32, max_jumps: MaxJumps, head: &JobView, free: &[u32]) -> Panel {
    let mut gauge = PanelLine::of(format!("jumped {jumps} of {max_jumps}"), Tone::Plain);
    if let MaxJumps::Limit(m) = max_jumps {
        let cells = m.min(20);
        let used = if m == 0 {
            0
        } else {
            (jumps.min(m) as u64 * cells as u64).div_ceil(m as u64) as u32
        };
        let tone = if jumps >= m { Tone::Alert } else { Tone::Head };
        if cells > 0 {
            gauge = gauge.then(" ", Tone::Plain);
        }
        gauge = gauge
            .then("▰".repeat(used as usize), tone)
            .then("▱".repeat((cells - used) as usize), Tone::Dim);
        if jumps >= m {
            gauge = gauge.then(" no more jumps", Tone::Alert);
        }
    }
    let parts = head.components.len();
    let widest = head.components.iter().copied().max().unwrap_or(head.size);
    let have = free.iter().filter(|&&f| f >= widest).count();
    let needs = PanelLine::of(
        format!(
            "needs {parts} cluster{}, widest {widest}; {have} {} ≥ {widest} free",
            if parts == 1 { "" } else { "s" },
            if have == 1 { "has" } else { "have" },
        ),
        Tone::Plain,
    );
    Panel {
        note_column: Some("jumps".into()),
        head_note: Some(format!("{jumps}/{max_jumps}")),
        head_lines: vec![gauge, needs],
        ..Panel::default()
    }
}

/// Its catalog entry.
pub const FCFS_ENTRY: PolicyEntry = PolicyEntry {
    name: names::FCFS,
    summary: "first come, first served: only the head of the queue starts",
    params: &[PLACEMENT],
    label: |s| format!("FCFS + {}", place(s)),
    build: |s, _| {
        Ok(Box::new(Fpfs::new(
            MaxJumps::Limit(0),
            s.placement().build(),
            s.clone(),
        )))
    },
};

/// Its catalog entry.
pub const FPFS_ENTRY: PolicyEntry = PolicyEntry {
    name: names::FPFS,
    summary: "fit processors first served: the first job that fits starts, \
              the head jumped at most maxJumps times",
    params: &[MAX_JUMPS, PLACEMENT],
    label: |s| format!("FPFS(maxJumps {}) + {}", s.max_jumps(), place(s)),
    build: |s, _| {
        Ok(Box::new(Fpfs::new(
            s.max_jumps(),
            s.placement().build(),
            s.clone(),
        )))
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Platform, SimTime};
    use crate::policy::placement::WorstFit;
    use crate::sched::{JobKey, JobView};
    use slab::Slab;

    /// Queued jobs of the given sizes, the first `arrival` numbers given.
    fn queue(jobs: &mut Slab<JobView>, sized: &[(u64, u32)]) -> Vec<JobKey> {
        sized
            .iter()
            .map(|&(arrival, size)| {
                JobKey(jobs.insert(JobView {
                    id: arrival,
                    size,
                    components: vec![size],
                    estimate: SimTime::from_secs(10),
                    arrival,
                    rate: 1.0,
                    ..JobView::default()
                }))
            })
            .collect()
    }

    fn pass(
        fpfs: &mut Fpfs,
        platform: &Platform,
        free: &[u32],
        jobs: &Slab<JobView>,
        q: &[JobKey],
    ) -> Vec<u64> {
        let view = SystemView {
            now: SimTime::ZERO,
            platform,
            free,
            queue: q,
            running: &[],
            jobs,
            queue_edits: 0,
            requeue_expired: false,
            kill_expired: false,
            reservations: &[],
            seed: 0,
        };
        let mut out = Vec::new();
        fpfs.schedule(&view, &mut out);
        out.iter().map(|s| jobs[s.job.0].id).collect()
    }

    /// FPFS(1) with worst fit.
    fn one_jump() -> Fpfs {
        Fpfs::new(
            MaxJumps::Limit(1),
            Box::new(WorstFit),
            PolicySpec::scenario_default(),
        )
    }

    #[test]
    fn jumps_are_counted_for_the_job_at_the_head_only() {
        let platform = Platform::uniform(1, 4);
        let mut fpfs = one_jump();
        let mut jobs = Slab::new();
        // Head 2 (4 wide) cannot start; 3 jumps it once; 4 may not.
        let q = queue(&mut jobs, &[(2, 4), (3, 1), (4, 1)]);
        assert_eq!(pass(&mut fpfs, &platform, &[2], &jobs, &q), vec![3]);
        assert_eq!(fpfs.jumps_of(2), 1);
        // A job that arrived earlier comes back to the queue (an aborted
        // job) and is the head now: it has not been jumped, so 4 may pass it.
        let r = queue(&mut jobs, &[(1, 4)]);
        let q = vec![r[0], q[0], q[2]];
        assert_eq!(pass(&mut fpfs, &platform, &[1], &jobs, &q), vec![4]);
        assert_eq!(fpfs.jumps_of(1), 1);
        assert_eq!(fpfs.jumps_of(2), 0);
    }

    #[test]
    fn when_the_head_starts_the_next_job_is_the_head_with_no_jumps() {
        let platform = Platform::uniform(1, 4);
        let mut fpfs = one_jump();
        let mut jobs = Slab::new();
        // 1 starts as the head; 2 is the head then and cannot start; 3
        // jumps it; 4 may not; 5 may not either.
        let q = queue(&mut jobs, &[(1, 1), (2, 4), (3, 1), (4, 1), (5, 1)]);
        assert_eq!(pass(&mut fpfs, &platform, &[3], &jobs, &q), vec![1, 3]);
        assert_eq!(fpfs.jumps_of(2), 1);
    }

    #[test]
    fn it_keeps_the_spec_it_was_built_with() {
        let spec = PolicySpec::scenario_default().with_max_jumps(MaxJumps::Limit(3));
        assert_ne!(spec, PolicySpec::scenario_default());
        let fpfs = Fpfs::new(MaxJumps::Limit(3), Box::new(WorstFit), spec.clone());
        assert_eq!(fpfs.spec(), &spec);
    }
}
