//! FPFS(maxJumps) and FCFS (= FPFS(0)), as Ngubiri and van Vliet define them.
//!
//! Jobs queue in arrival order. At each decision point the scheduler scans
//! from the head for the first job that fits, starts it, and carries on: the
//! free processors only shrink during a pass, so jobs already passed over
//! still do not fit and one pass starts every job that can start. A job that
//! starts ahead of the head counts as one jump of the head; once the head has
//! been jumped `maxJumps` times nothing may pass it until it starts itself.

use super::placement::Placement;
use super::queue_index::QueueIndex;
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
    /// The arrival of the job where the last pass stopped because the
    /// head had been jumped as often as allowed, if it did.
    stopped_at: Option<u64>,
    /// The queue as the pass scans it, kept across decision points.
    index: QueueIndex,
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
            index: QueueIndex::default(),
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
    /// been jumped fewer than maxJumps times. The jobs that cannot fit the
    /// processors free (too wide a component, too large in all) are passed
    /// over without a placement being tried (see `queue_index`).
    fn starts(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.free.clear();
        self.free.extend_from_slice(view.free);
        self.stopped_at = None;
        let mut index = std::mem::take(&mut self.index);
        index.sync(view);
        // The head's position. The scan goes forward only, so when the
        // head starts, the next job in the queue is the next head: no job
        // after it has been tried yet.
        let mut head = index.next_live(0);
        let mut at = head;
        // What a job must not pass to fit (changed only by a start).
        let room = |free: &[u32]| {
            let freest = free.iter().copied().max().unwrap_or(0);
            (freest, free.iter().map(|&f| f as u64).sum::<u64>())
        };
        let (mut freest, mut total) = room(&self.free);
        while let Some(p) = at {
            let is_head = Some(p) == head;
            let p = if is_head {
                p
            } else {
                let head_arrival = index.arrival(head.expect("a job before this one"));
                if !self.max_jumps.allows(self.jumps_of(head_arrival)) {
                    self.stopped_at = Some(index.arrival(p));
                    break;
                }
                match index.next_candidate(p, freest, total) {
                    Some(q) => q,
                    None => break,
                }
            };
            at = index.next_live(p + 1);
            let key = index.key(p);
            let job = view.job(key);
            let Some(assignment) = self.placement.place(&job.widths(view.platform), &self.free)
            else {
                continue;
            };
            for &(c, w) in &assignment {
                self.free[c as usize] -= w;
            }
            (freest, total) = room(&self.free);
            index.started(p);
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
                head = at;
                self.head = None;
            } else {
                let head_arrival = index.arrival(head.expect("a job before this one"));
                let j = self.jumps_of(head_arrival) + 1;
                self.head = Some((head_arrival, j));
            }
        }
        match head {
            Some(p) => {
                let a = index.arrival(p);
                if self.head.map(|(h, _)| h) != Some(a) {
                    self.head = Some((a, 0));
                }
            }
            None => self.head = None,
        }
        self.index = index;
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
        if pass.stopped_at.is_some_and(|s| view.job(key).arrival >= s) {
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

    /// The pass as a plain scan of the whole queue (what the indexed pass
    /// must do, job for job): the starts and the head's jumps after.
    fn plain_pass(
        max_jumps: MaxJumps,
        placement: &dyn Placement,
        head_state: &mut Option<(u64, u32)>,
        view: &SystemView<'_>,
    ) -> Vec<(JobKey, crate::policy::placement::Assignment, bool)> {
        let jumps_of = |h: &Option<(u64, u32)>, a: u64| match h {
            Some((x, j)) if *x == a => *j,
            _ => 0,
        };
        let mut free = view.free.to_vec();
        let mut out = Vec::new();
        let mut head_idx = 0;
        for (i, &key) in view.queue.iter().enumerate() {
            let job = view.job(key);
            let is_head = i == head_idx;
            if !is_head {
                let head = view.job(view.queue[head_idx]);
                if !max_jumps.allows(jumps_of(head_state, head.arrival)) {
                    break;
                }
            }
            let Some(a) = placement.place(&job.widths(view.platform), &free) else {
                continue;
            };
            for &(c, w) in &a {
                free[c as usize] -= w;
            }
            out.push((key, a, is_head));
            if is_head {
                head_idx = i + 1;
                *head_state = None;
            } else {
                let head = view.job(view.queue[head_idx]);
                let j = jumps_of(head_state, head.arrival) + 1;
                *head_state = Some((head.arrival, j));
            }
        }
        match view.queue.get(head_idx) {
            Some(&k) => {
                let a = view.job(k).arrival;
                if head_state.map(|(h, _)| h) != Some(a) {
                    *head_state = Some((a, 0));
                }
            }
            None => *head_state = None,
        }
        out
    }

    /// Over random platforms, queues and decision points (arrivals, starts
    /// the engine refuses, jobs put back, free processors that grow and
    /// shrink), the pass that skips what cannot fit starts exactly the
    /// jobs the plain scan of the queue starts, and the head's jumps agree.
    #[test]
    fn the_indexed_pass_starts_what_the_plain_scan_starts() {
        use crate::policy::placement::{BestFit, FirstFit};
        use rand::{RngExt, SeedableRng};
        use rand_chacha::ChaCha8Rng;
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut started, mut passed_over, mut long_queues) = (0, 0, 0);
        for round in 0..60 {
            let clusters = rng.random_range(1..=4usize);
            let size = rng.random_range(4..=32u32);
            let platform = Platform::uniform(clusters, size);
            let max_jumps = match round % 4 {
                0 => MaxJumps::Limit(0),
                1 => MaxJumps::Unlimited,
                _ => MaxJumps::Limit(rng.random_range(1..=12)),
            };
            let placement: Box<dyn Placement> = match round % 3 {
                0 => Box::new(WorstFit),
                1 => Box::new(BestFit),
                _ => Box::new(FirstFit),
            };
            let mut fpfs = Fpfs::new(max_jumps, placement.boxed(), PolicySpec::scenario_default());
            let mut plain_head = None;
            let mut jobs: Slab<JobView> = Slab::new();
            let mut q: Vec<JobKey> = Vec::new();
            let (mut arrival, mut edits) = (0u64, 0u64);
            for _ in 0..400 {
                for _ in 0..rng.random_range(0..6) {
                    arrival += 1;
                    let parts = rng.random_range(0..=clusters.min(3));
                    let components: Vec<u32> =
                        (0..parts).map(|_| rng.random_range(1..=size)).collect();
                    let total = if parts == 0 {
                        rng.random_range(1..=size * clusters as u32)
                    } else {
                        components.iter().sum()
                    };
                    q.push(JobKey(jobs.insert(JobView {
                        id: arrival,
                        size: total,
                        components,
                        estimate: SimTime::from_secs(10),
                        arrival,
                        rate: 1.0,
                        ..JobView::default()
                    })));
                }
                // A job put back in the queue at its arrival position.
                if rng.random_range(0..40) == 0 && arrival > 0 {
                    let a = rng.random_range(1..=arrival);
                    if !q.iter().any(|&k| jobs[k.0].arrival == a) {
                        let k = JobKey(jobs.insert(JobView {
                            id: a,
                            size: 1,
                            components: vec![1],
                            arrival: a,
                            rate: 1.0,
                            ..JobView::default()
                        }));
                        let at = q.partition_point(|&x| jobs[x.0].arrival < a);
                        q.insert(at, k);
                        edits += 1;
                    }
                }
                let free: Vec<u32> = (0..clusters).map(|_| rng.random_range(0..=size)).collect();
                let view = SystemView {
                    now: SimTime::ZERO,
                    platform: &platform,
                    free: &free,
                    queue: &q,
                    running: &[],
                    jobs: &jobs,
                    queue_edits: edits,
                    requeue_expired: false,
                    kill_expired: false,
                    reservations: &[],
                    seed: 0,
                };
                let want = plain_pass(max_jumps, placement.as_ref(), &mut plain_head, &view);
                let mut out = Vec::new();
                fpfs.schedule(&view, &mut out);
                let got: Vec<_> = out
                    .iter()
                    .map(|s| (s.job, s.assignment.clone(), s.kind == StartKind::Head))
                    .collect();
                assert_eq!(got, want, "round {round}, arrival {arrival}");
                assert_eq!(fpfs.head, plain_head, "round {round}, arrival {arrival}");
                started += got.len();
                passed_over += q.len() - got.len();
                long_queues += usize::from(q.len() > 100);
                // The engine starts them, but now and then refuses one.
                let refused = rng.random_range(0..10) == 0;
                let gone: Vec<JobKey> = got
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| !(refused && i == 0))
                    .map(|(_, g)| g.0)
                    .collect();
                q.retain(|k| !gone.contains(k));
            }
        }
        assert!(
            started > 5_000 && passed_over > 50_000 && long_queues > 500,
            "{started} {passed_over} {long_queues}"
        );
    }
}
