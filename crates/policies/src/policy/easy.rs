//! EASY (aggressive) backfilling.
//!
//! Jobs start in queue order while the head fits. When it does not, the
//! head gets a reservation: the earliest time (the *shadow time*) at which
//! the placement can place all its components, given the running jobs'
//! *estimated* ends; the processors left over on each cluster at that time
//! are the *extra* processors. A later job may then start now if it fits now
//! and either is expected to end by the shadow time or uses only extra
//! processors (which it then takes from the extra). Everything is
//! recomputed at every decision point.

use super::backfill::{self, expected_span, releases};
use super::placement::{Assignment, Placement};
use super::profile::Profile;
use super::{Phased, PolicySpec, PolicyState, Start, StartKind, SystemView};
use crate::model::SimTime;
use crate::policy::BuildPlacement;
use crate::policy::SortQueue;
use crate::policy::catalog::PolicyEntry;
use crate::policy::catalog::common::{MACHINES, ORDER, PLACEMENT, backfill_label, one_cluster};
use crate::policy::{BackfillOrder, Machines};
use crate::policy::{SharedParams, names};
use crate::sched::{BackfillView, JobKey};

pub struct Easy {
    placement: Box<dyn Placement>,
    spec: PolicySpec,
    free: Vec<u32>,
    started: Vec<(JobKey, Assignment)>,
    candidates: Vec<usize>,
    /// The head's reservation from the last decision point.
    plan: BackfillView,
    /// What the last backfill scan ended with (see [`Scanned`]).
    scanned: Option<Scanned>,
    /// One cluster: the queue as the backfill scan needs it.
    queue: Option<QueueCopy>,
}

/// The state the last backfill scan ended with. Every queued job that
/// arrived by `last_arrival` was tried in it and could not start (or the
/// scan stopped with no processor free). Whether a job can start only gets
/// harder with fewer free or extra processors, an earlier shadow time and
/// a later now (placement is monotone in the free counts, and on clusters
/// of one speed a job's span does not depend on where it goes): a decision
/// point that begins its scan with no more than this, with the queue edited
/// only by arrivals, needs to try the jobs that arrived since only.
#[derive(Clone, Debug)]
struct Scanned {
    queue_edits: u64,
    last_arrival: u64,
    free: Vec<u32>,
    extra: Vec<u32>,
    shadow: SimTime,
    speeds: Vec<u64>,
    /// Arrivals of the jobs started at that decision point: none may still
    /// be queued (the engine refused none of them).
    started: Vec<u64>,
}

/// The head job's reservation: when and where it can start, and the
/// processors per cluster left over then.
#[derive(Clone, Debug, PartialEq)]
pub struct Reservation {
    pub shadow: SimTime,
    pub assignment: Assignment,
    pub extra: Vec<u32>,
}

impl Easy {
    /// Whether the placement puts `widths` on the processors `free` now
    /// (the test behind aborting expired jobs for the head).
    fn fits_now(&self, widths: &[u32], free: &[u32]) -> bool {
        self.placement.place(widths, free).is_some()
    }

    pub fn new(placement: Box<dyn Placement>, spec: PolicySpec) -> Easy {
        Easy {
            placement,
            spec,
            free: Vec::new(),
            started: Vec::new(),
            candidates: Vec::new(),
            plan: BackfillView::default(),
            scanned: None,
            queue: None,
        }
    }

    /// The first queue position the backfill scan must try: after the head,
    /// and after every job the last scan already turned away when nothing
    /// it depended on has grown since.
    fn first_untried(&self, view: &SystemView<'_>, head: usize, r: &Reservation) -> usize {
        let Some(m) = &self.scanned else {
            return head + 1;
        };
        let le = |a: &[u32], b: &[u32]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x <= y);
        let same_speeds = m.speeds.len() == view.platform.clusters.len()
            && m.speeds
                .iter()
                .zip(&view.platform.clusters)
                .all(|(&s, c)| s == c.speed.to_bits());
        let arrival_at = |i: usize| view.job(view.queue[i]).arrival;
        let still_queued = |a: u64| {
            let i = view.queue.partition_point(|&k| view.job(k).arrival < a);
            i < view.queue.len() && arrival_at(i) == a
        };
        if m.queue_edits != view.queue_edits
            || !same_speeds
            || r.shadow > m.shadow
            || !le(&self.free, &m.free)
            || !le(&r.extra, &m.extra)
            || m.started.iter().any(|&a| still_queued(a))
        {
            return head + 1;
        }
        let after = view
            .queue
            .partition_point(|&k| view.job(k).arrival <= m.last_arrival);
        after.max(head + 1)
    }

    /// One decision point (see the module's documentation).
    fn starts(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.free.clear();
        self.free.extend_from_slice(view.free);
        self.started.clear();
        self.plan = BackfillView::default();
        let scanned = self.scanned.take();
        let head = self.start_heads(view, out);
        if head >= view.queue.len() {
            return;
        }
        self.scanned = scanned;
        let head_key = view.queue[head];
        let Some(mut r) = reserve_head(
            view,
            self.placement.as_ref(),
            head_key,
            &self.free,
            &self.started,
        ) else {
            self.scanned = None;
            return;
        };
        self.plan = BackfillView {
            head: Some(view.job(head_key).id),
            shadow: Some(r.shadow),
            extra: r.extra.clone(),
            reservations: vec![(view.job(head_key).id, r.shadow)],
            reserved: 1,
        };
        // On clusters of one speed a job's expected span does not depend on
        // where it goes: whether it ends by the shadow time is known before
        // placing it, and a job that does not is tried on the extra only.
        let one_speed = view
            .platform
            .clusters
            .windows(2)
            .all(|w| w[0].speed == w[1].speed);
        let mut within = vec![0u32; self.free.len()];
        if view.platform.clusters.len() == 1 && self.spec.order() == BackfillOrder::Arrival {
            self.backfill_arrivals(view, head_key, &mut r, &mut within, one_speed, out);
            self.scanned = None;
        } else {
            self.backfill_in_order(view, head, &mut r, &mut within, one_speed, out);
        }
        self.plan.extra = r.extra;
    }

    /// Starts jobs in queue order while the head fits; the queue position
    /// of the first that does not (the queue's length if all started).
    fn start_heads(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) -> usize {
        let mut head = 0;
        while head < view.queue.len() {
            let key = view.queue[head];
            let Some(a) = self
                .placement
                .place(&view.job(key).widths(view.platform), &self.free)
            else {
                break;
            };
            for &(c, w) in &a {
                self.free[c as usize] -= w;
            }
            self.started.push((key, a.clone()));
            out.push(Start {
                job: key,
                assignment: a,
                kind: StartKind::Head,
                processors: None,
                processes: None,
            });
            head += 1;
        }
        head
    }

    /// Backfills on one cluster in arrival order behind the head
    /// `head_key`: the compact copy of the queue skips the jobs that cannot
    /// start without looking them up.
    fn backfill_arrivals(
        &mut self,
        view: &SystemView<'_>,
        head_key: JobKey,
        r: &mut Reservation,
        within: &mut [u32],
        one_speed: bool,
        out: &mut Vec<Start>,
    ) {
        self.sync_queue(view);
        let q = self.queue.take().expect("synced");
        let head_arrival = view.job(head_key).arrival;
        let mut i = q.arrivals.partition_point(|&a| a <= head_arrival);
        while self.free[0] > 0 {
            let (f, x) = (self.free[0], self.free[0].min(r.extra[0]));
            let Some(j) = q.next_candidate(i, f, x, view.now.0, r.shadow.0) else {
                break;
            };
            self.try_backfill(view, q.keys[j], r, within, one_speed, out);
            i = j + 1;
        }
        self.queue = Some(q);
    }

    /// Backfills behind the head at queue position `head` in the
    /// configured order, from the first job not turned away before, and
    /// notes what the scan ended with (on clusters of one speed).
    fn backfill_in_order(
        &mut self,
        view: &SystemView<'_>,
        head: usize,
        r: &mut Reservation,
        within: &mut [u32],
        one_speed: bool,
        out: &mut Vec<Start>,
    ) {
        let first = self.first_untried(view, head, r);
        self.candidates.clear();
        self.candidates.extend(first..view.queue.len());
        self.spec.order().sort(view, &mut self.candidates);
        let candidates = std::mem::take(&mut self.candidates);
        for &i in &candidates {
            if self.free.iter().all(|&f| f == 0) {
                break;
            }
            self.try_backfill(view, view.queue[i], r, within, one_speed, out);
        }
        self.candidates = candidates;
        self.scanned = one_speed.then(|| Scanned {
            queue_edits: view.queue_edits,
            last_arrival: view.job(view.queue[view.queue.len() - 1]).arrival,
            free: self.free.clone(),
            extra: r.extra.clone(),
            shadow: r.shadow,
            speeds: view
                .platform
                .clusters
                .iter()
                .map(|c| c.speed.to_bits())
                .collect(),
            started: out.iter().map(|d| view.job(d.job).arrival).collect(),
        });
    }

    /// Starts `key` ahead of the head if it ends by the shadow time (on any
    /// processors free now) or fits in the processors extra at the shadow
    /// time (which it then takes from the extra).
    fn try_backfill(
        &mut self,
        view: &SystemView<'_>,
        key: JobKey,
        r: &mut Reservation,
        within: &mut [u32],
        one_speed: bool,
        out: &mut Vec<Start>,
    ) {
        let anywhere: Assignment = vec![(0, 0)];
        let job = view.job(key);
        let widths = &job.widths(view.platform);
        let by_shadow = one_speed
            .then(|| view.now + expected_span(view.platform, job.estimate, &anywhere) <= r.shadow);
        // Ends by the shadow time: anything free now will do.
        let mut chosen = None;
        if by_shadow != Some(false)
            && let Some(a) = self.placement.place(widths, &self.free)
            && view.now + expected_span(view.platform, job.estimate, &a) <= r.shadow
        {
            chosen = Some(a);
        }
        // Otherwise only processors that are extra at the shadow time.
        if chosen.is_none() {
            for (w, (&f, &x)) in within.iter_mut().zip(self.free.iter().zip(&r.extra)) {
                *w = f.min(x);
            }
            if let Some(a) = self.placement.place(widths, within) {
                for &(c, w) in &a {
                    r.extra[c as usize] -= w;
                }
                chosen = Some(a);
            }
        }
        if let Some(a) = chosen {
            for &(c, w) in &a {
                self.free[c as usize] -= w;
            }
            out.push(Start {
                job: key,
                assignment: a,
                kind: StartKind::Ahead,
                processors: None,
                processes: None,
            });
        }
    }

    /// Brings the compact copy of the queue up to date: the jobs started
    /// at the last decision points leave it, the arrivals since join it;
    /// anything else (a job put back, estimates changed, a start the engine
    /// refused, a cluster's speed changed) rebuilds it.
    fn sync_queue(&mut self, view: &SystemView<'_>) {
        let speed = view.platform.clusters[0].speed.to_bits();
        let arrival = |k: JobKey| view.job(k).arrival;
        let kept = match &mut self.queue {
            Some(q) if q.queue_edits == view.queue_edits && q.speed == speed => {
                for a in q.pending.drain(..) {
                    if let Ok(j) = q.arrivals.binary_search(&a)
                        && q.sizes[j] != QueueCopy::GONE
                    {
                        q.sizes[j] = QueueCopy::GONE;
                        q.live -= 1;
                    }
                }
                let from = match q.arrivals.last() {
                    Some(&last) => view.queue.partition_point(|&k| arrival(k) <= last),
                    None => 0,
                };
                for &k in &view.queue[from..] {
                    q.push(view, k);
                }
                q.live == view.queue.len() && q.arrivals.len() <= 2 * q.live + 1024
            }
            _ => false,
        };
        if !kept {
            let mut q = QueueCopy {
                queue_edits: view.queue_edits,
                speed,
                ..QueueCopy::default()
            };
            for &k in view.queue {
                q.push(view, k);
            }
            self.queue = Some(q);
        }
    }
}

/// One cluster: the queue as the backfill scan needs it, in arrival order,
/// kept across decision points. Jobs that left it stay as gaps until it is
/// rebuilt.
#[derive(Debug, Default)]
struct QueueCopy {
    queue_edits: u64,
    speed: u64,
    arrivals: Vec<u64>,
    keys: Vec<JobKey>,
    /// Processors needed on the cluster (`GONE` for a job that left,
    /// `NEVER` for one of several components).
    sizes: Vec<u32>,
    /// Expected span on the cluster, in ticks.
    spans: Vec<i64>,
    live: usize,
    /// Arrivals of the jobs started since the last update.
    pending: Vec<u64>,
}

impl QueueCopy {
    const GONE: u32 = u32::MAX;
    const NEVER: u32 = u32::MAX - 1;

    fn push(&mut self, view: &SystemView<'_>, k: JobKey) {
        let j = view.job(k);
        let size = match &*j.widths(view.platform) {
            [w] => *w,
            _ => QueueCopy::NEVER,
        };
        self.arrivals.push(j.arrival);
        self.keys.push(k);
        self.sizes.push(size);
        self.spans
            .push(expected_span(view.platform, j.estimate, &vec![(0, 0)]).0);
        self.live += 1;
    }

    /// The first job from `i` on that may start: one that fits in `extra`
    /// processors, or in `free` ones and is expected to end (from `now`)
    /// by `shadow`. A necessary condition only; the scan checks it in full.
    fn next_candidate(
        &self,
        i: usize,
        free: u32,
        extra: u32,
        now: i64,
        shadow: i64,
    ) -> Option<usize> {
        (i..self.sizes.len()).find(|&j| {
            let s = self.sizes[j];
            s <= extra || (s <= free && now.saturating_add(self.spans[j]) <= shadow)
        })
    }
}

/// The head's reservation given the free processors now, the running jobs
/// and those started in this pass; `None` if it can never be placed.
pub fn reserve_head(
    view: &SystemView<'_>,
    placement: &dyn Placement,
    head: JobKey,
    free: &[u32],
    started: &[(JobKey, Assignment)],
) -> Option<Reservation> {
    let rel = releases(view, started);
    let profile = Profile::new(view.now, free, &rel);
    let widths = &view.job(head).widths(view.platform);
    // The head needs its processors from the shadow time on, for as long
    // as it runs; only what is free for good at that time counts, so a
    // step's free counts are enough: they never fall later (no other
    // reservation exists under EASY).
    for k in 0..profile.steps() {
        let f = profile.free_at(k);
        if let Some(a) = placement.place(widths, &f) {
            let mut extra = f;
            for &(c, w) in &a {
                extra[c as usize] -= w;
            }
            return Some(Reservation {
                shadow: profile.time(k),
                assignment: a,
                extra,
            });
        }
    }
    None
}

impl Phased for Easy {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn aborts(&mut self, view: &SystemView<'_>, out: &mut Vec<crate::sched::Abort>) {
        let state = self.state(view);
        super::backfill::aborts_for_head(view, &state, &|w, f| self.fits_now(w, f), out);
    }

    fn recheck_at(&self, view: &SystemView<'_>) -> Option<crate::model::SimTime> {
        super::backfill::recheck_for_head(view, &self.state(view), &|w, f| self.fits_now(w, f))
    }

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        let before = out.len();
        self.starts(view, out);
        if let Some(q) = &mut self.queue {
            q.pending
                .extend(out[before..].iter().map(|d| view.job(d.job).arrival));
        }
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        backfill::head_state(view, &self.plan)
    }

    fn plan(&self, view: &SystemView<'_>) -> Option<BackfillView> {
        backfill::head_plan(view, &self.plan)
    }

    /// The pass run afresh on a copy (without the scan's memo, which
    /// changes what is tried, never what starts).
    fn explain(&self, view: &SystemView<'_>, key: JobKey) -> crate::sched::Explanation {
        let mut pass = Easy::new(self.spec.placement().build(), self.spec.clone());
        let mut starts = Vec::new();
        pass.starts(view, &mut starts);
        backfill::explain_easy(view, key, &starts, &pass.plan, &|w, f| {
            self.placement.place(w, f)
        })
    }
}

/// Its catalog entry.
pub const EASY_ENTRY: PolicyEntry = PolicyEntry {
    name: names::EASY,
    summary: "EASY backfilling: the head holds a reservation, later jobs \
              start early if they do not delay it",
    params: &[ORDER, PLACEMENT, MACHINES],
    label: |s| backfill_label("EASY backfilling", s),
    build: |s, p| match s.machines() {
        Machines::Pinned => {
            one_cluster(p)?;
            Ok(Box::new(super::pinned::PinnedEasy::new(s.clone())))
        }
        Machines::Counted => Ok(Box::new(Easy::new(s.placement().build(), s.clone()))),
    },
};

#[cfg(test)]
mod tests {
    //! The backfill scan's memo (`first_untried`), driven with views built
    //! by hand: which queue positions a decision point tries, and that
    //! whatever can make an old job startable again makes it try them all.
    use super::*;
    use crate::model::Platform;
    use crate::policy::placement::WorstFit;
    use crate::sched::{JobState, JobView};
    use slab::Slab;

    fn s(x: i64) -> SimTime {
        SimTime::from_secs(x)
    }

    /// Clusters of 4 at `speed` (two, or one for [`World::one`]). Job R
    /// runs on 3 processors of each until 100 (estimated); a head that
    /// needs 4 on each waits for R: shadow time 100, nothing extra. One
    /// processor is free on each.
    struct World {
        platform: Platform,
        jobs: Slab<JobView>,
        running: Vec<JobKey>,
        free: Vec<u32>,
        now: SimTime,
        edits: u64,
    }

    impl World {
        fn new(speed: f64) -> World {
            World::on(2, speed)
        }

        fn one(speed: f64) -> World {
            World::on(1, speed)
        }

        fn on(clusters: usize, speed: f64) -> World {
            let mut platform = Platform::uniform(clusters, 4);
            for c in &mut platform.clusters {
                c.speed = speed;
            }
            let mut jobs = Slab::new();
            let r = JobKey(jobs.insert(JobView {
                id: 100,
                size: 3 * clusters as u32,
                components: vec![3; clusters],
                estimate: s(100),
                state: JobState::Running,
                assignment: (0..clusters as u16).map(|c| (c, 3)).collect(),
                processors: vec![vec![0, 1, 2]; clusters],
                rate: speed,
                estimated_end: s(100),
                ..JobView::default()
            }));
            World {
                platform,
                jobs,
                running: vec![r],
                free: vec![1; clusters],
                now: SimTime::ZERO,
                edits: 0,
            }
        }

        /// A queued job: its arrival number is its id.
        fn job(&mut self, arrival: u64, components: &[u32], estimate: i64) -> JobKey {
            JobKey(self.jobs.insert(JobView {
                id: arrival,
                size: components.iter().sum(),
                components: components.to_vec(),
                estimate: s(estimate),
                arrival,
                rate: 1.0,
                ..JobView::default()
            }))
        }

        /// One decision point: the ids started.
        fn decide(&self, easy: &mut Easy, queue: &[JobKey]) -> Vec<u64> {
            let view = SystemView {
                now: self.now,
                platform: &self.platform,
                free: &self.free,
                queue,
                running: &self.running,
                jobs: &self.jobs,
                queue_edits: self.edits,
                requeue_expired: false,
                kill_expired: false,
                reservations: &[],
                seed: 0,
            };
            let mut out = Vec::new();
            easy.schedule(&view, &mut out);
            out.iter().map(|d| self.jobs[d.job.0].id).collect()
        }

        /// The engine starts `key` where the policy put it.
        fn start(&mut self, key: JobKey, cluster: u16) {
            let j = &mut self.jobs[key.0];
            j.state = JobState::Running;
            j.assignment = vec![(cluster, j.size)];
            j.estimated_end = j.estimate;
            self.free[cluster as usize] -= j.size;
            self.running.push(key);
        }
    }

    fn easy() -> Easy {
        Easy::new(Box::new(WorstFit), PolicySpec::scenario_default())
    }

    /// H (1) waits; A (2) and B (4) are too wide for one free processor;
    /// D (3) ends by the shadow time and is backfilled.
    fn first_pass(w: &mut World, easy: &mut Easy) -> [JobKey; 4] {
        let keys = [
            w.job(1, &[4, 4], 10),
            w.job(2, &[2], 10),
            w.job(3, &[1], 5),
            w.job(4, &[2], 10),
        ];
        assert_eq!(w.decide(easy, &keys), vec![3]);
        assert_eq!(easy.plan.shadow, Some(s(100)));
        assert_eq!(easy.plan.extra, vec![0, 0]);
        // Every job behind the head was tried, the head itself not.
        assert_eq!(easy.candidates, vec![1, 2, 3]);
        keys
    }

    #[test]
    fn a_decision_point_where_nothing_grew_tries_the_new_arrivals_only() {
        let mut w = World::new(1.0);
        let mut easy = easy();
        let [h, a, d, b] = first_pass(&mut w, &mut easy);
        // D started on the cluster with the lower index of the tie.
        w.start(d, 0);
        let c = w.job(5, &[2], 10);
        assert_eq!(w.decide(&mut easy, &[h, a, b, c]), Vec::<u64>::new());
        // Same shadow time, no more free or extra, D gone: only C, at
        // queue position 3, is new.
        assert_eq!(easy.candidates, vec![3]);
    }

    #[test]
    fn the_head_is_not_tried_again_behind_itself() {
        let mut w = World::new(1.0);
        let mut easy = easy();
        let h = w.job(1, &[4, 4], 10);
        let a = w.job(2, &[1], 5);
        assert_eq!(w.decide(&mut easy, &[h, a]), vec![2]);
        // At 10 R and A have ended (early and on time): H starts, and C,
        // the first job to arrive since, is the head. Everything behind it
        // arrived after the last scan: there is nothing to try.
        w.now = s(10);
        w.running.clear();
        w.free = vec![4, 4];
        let c = w.job(3, &[4, 4], 10);
        assert_eq!(w.decide(&mut easy, &[h, c]), vec![1]);
        assert_eq!(easy.plan.head, Some(3));
        assert_eq!(easy.plan.shadow, Some(s(20)));
        assert_eq!(easy.candidates, Vec::<usize>::new());
    }

    #[test]
    fn a_start_the_engine_refused_is_tried_again() {
        let mut w = World::new(1.0);
        let mut easy = easy();
        let [h, a, d, b] = first_pass(&mut w, &mut easy);
        // The engine did not start D, and its processor went to a job
        // that is not the policy's (until 50): no more free than after
        // the scan, the same shadow time.
        let x = w.job(0, &[1], 50);
        w.start(x, 0);
        assert_eq!(w.decide(&mut easy, &[h, a, d, b]), vec![3]);
        assert_eq!(easy.candidates, vec![1, 2, 3]);
    }

    #[test]
    fn faster_clusters_make_the_old_jobs_worth_trying_again() {
        // At half speed E's 60 s take 120: past the shadow time.
        let mut w = World::new(0.5);
        let mut easy = easy();
        let h = w.job(1, &[4, 4], 10);
        let e = w.job(2, &[1], 60);
        assert_eq!(w.decide(&mut easy, &[h, e]), Vec::<u64>::new());
        assert_eq!(easy.candidates, vec![1]);
        // The same jobs on clusters of full speed: E ends by 100.
        let mut fast = World::new(1.0);
        let (h, e) = (fast.job(1, &[4, 4], 10), fast.job(2, &[1], 60));
        assert_eq!(fast.decide(&mut easy, &[h, e]), vec![2]);
    }

    /// On one cluster in arrival order the scan reads a copy of the queue
    /// kept across decision points: the jobs started leave gaps in it and
    /// the arrivals since are appended, without rebuilding it.
    #[test]
    fn the_copy_of_the_queue_is_kept_with_gaps() {
        let mut w = World::one(1.0);
        w.edits = 7;
        let mut easy = easy();
        let (h, a, b) = (w.job(1, &[4], 10), w.job(2, &[1], 5), w.job(3, &[2], 10));
        assert_eq!(w.decide(&mut easy, &[h, a, b]), vec![2]);
        w.start(a, 0);
        let c = w.job(4, &[2], 10);
        assert_eq!(w.decide(&mut easy, &[h, b, c]), Vec::<u64>::new());
        let q = easy.queue.as_ref().expect("a copy");
        assert_eq!(q.arrivals, vec![1, 2, 3, 4]);
        assert_eq!(q.sizes, vec![4, QueueCopy::GONE, 2, 2]);
        assert_eq!(q.live, 3);
    }

    #[test]
    fn the_copy_of_the_queue_is_rebuilt_on_a_faster_cluster() {
        let mut w = World::one(0.5);
        let mut easy = easy();
        let (h, e) = (w.job(1, &[4], 10), w.job(2, &[1], 60));
        assert_eq!(w.decide(&mut easy, &[h, e]), Vec::<u64>::new());
        let mut fast = World::one(1.0);
        let (h, e) = (fast.job(1, &[4], 10), fast.job(2, &[1], 60));
        assert_eq!(fast.decide(&mut easy, &[h, e]), vec![2]);
    }

    #[test]
    fn the_copy_of_the_queue_is_rebuilt_after_a_refused_start() {
        let mut w = World::one(1.0);
        let mut easy = easy();
        let (h, a, b) = (w.job(1, &[4], 10), w.job(2, &[1], 5), w.job(3, &[2], 10));
        assert_eq!(w.decide(&mut easy, &[h, a, b]), vec![2]);
        // The engine did not start A: it is tried again.
        assert_eq!(w.decide(&mut easy, &[h, a, b]), vec![2]);
    }

    /// The copy is rebuilt once its gaps outnumber the jobs in it by more
    /// than 1,024: with 1,101 entries, at 38 jobs queued and not at 39.
    #[test]
    fn the_copy_of_the_queue_is_rebuilt_once_the_gaps_are_many() {
        let mut w = World::one(1.0);
        let mut easy = easy();
        let mut queue = vec![w.job(1, &[4], 10)];
        queue.extend((2..=1101).map(|a| w.job(a, &[1], 5)));
        let mut sizes = Vec::new();
        while queue.len() > 1 {
            // One small job backfilled a pass; it ends before the next.
            assert_eq!(w.decide(&mut easy, &queue), vec![w.jobs[queue[1].0].id]);
            let q = easy.queue.as_ref().expect("a copy");
            sizes.push((queue.len(), q.arrivals.len()));
            queue.remove(1);
        }
        let rebuilt: Vec<_> = sizes.windows(2).filter(|p| p[1].1 < p[0].1).collect();
        assert_eq!(rebuilt.len(), 1, "{rebuilt:?}");
        assert_eq!(rebuilt[0][0], (39, 1101));
        assert_eq!(rebuilt[0][1], (38, 38));
    }

    #[test]
    fn it_keeps_the_spec_it_was_built_with() {
        let spec = PolicySpec::named(names::EASY).with_order(BackfillOrder::Smallest);
        assert_ne!(spec, PolicySpec::scenario_default());
        let easy = Easy::new(Box::new(WorstFit), spec.clone());
        assert_eq!(easy.spec(), &spec);
    }
}
