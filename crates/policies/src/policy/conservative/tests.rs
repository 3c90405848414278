//! Unit tests of conservative backfilling on one cluster, driven decision
//! point by decision point with views built by hand.

use super::*;
use crate::policy::{SharedParams, names};
use crate::sched::JobView;

fn s(x: i64) -> SimTime {
    SimTime::from_secs(x)
}

/// One cluster (of 4 processors unless said) and the policy's decision points,
/// driven with views built by hand: the jobs running and their
/// estimated ends are whatever a test says the engine shows.
struct World {
    platform: crate::model::Platform,
    jobs: slab::Slab<crate::sched::JobView>,
    running: Vec<JobKey>,
    policy: Conservative,
    processors: u32,
}

fn view<'a>(
    platform: &'a crate::model::Platform,
    jobs: &'a slab::Slab<JobView>,
    running: &'a [JobKey],
    free: &'a [u32],
    now: i64,
    queue: &'a [JobKey],
) -> SystemView<'a> {
    SystemView {
        now: s(now),
        platform,
        free,
        queue,
        running,
        jobs,
        queue_edits: 0,
        requeue_expired: false,
        kill_expired: false,
        reservations: &[],
        seed: 0,
    }
}

impl World {
    fn new() -> World {
        World::of(4)
    }

    /// Under `[policy.params] broken = reading`.
    fn reading(mut self, reading: &str) -> World {
        let mut spec = PolicySpec::named(names::CONSERVATIVE);
        spec.params.insert(
            "broken".to_string(),
            crate::sched::ParamValue::Text(reading.to_string()),
        );
        self.policy = Conservative::new(Box::new(super::super::placement::WorstFit), spec);
        self
    }

    fn of(processors: u32) -> World {
        World {
            processors,
            platform: crate::model::Platform::uniform(1, processors),
            jobs: slab::Slab::new(),
            running: Vec::new(),
            policy: Conservative::new(
                Box::new(super::super::placement::WorstFit),
                PolicySpec::scenario_default(),
            ),
        }
    }

    /// A job as the engine shows it: queued, or running on `size`
    /// processors until `end` (estimated) when `end` is given.
    fn job(&self, arrival: u64, size: u32, estimate: i64, end: Option<i64>) -> JobView {
        let mut j = JobView {
            id: arrival,
            size,
            estimate: s(estimate),
            arrival,
            rate: 1.0,
            ..JobView::default()
        };
        if let Some(end) = end {
            j.state = crate::sched::JobState::Running;
            j.assignment = vec![(0, size)];
            j.estimated_end = s(end);
        }
        j
    }

    fn run(&mut self, j: JobView) -> JobKey {
        let k = JobKey(self.jobs.insert(j));
        self.running.push(k);
        k
    }

    fn free(&self) -> [u32; 1] {
        let held: u32 = self.running.iter().map(|&k| self.jobs[k.0].size).sum();
        [self.processors - held]
    }

    /// A decision point at `now` with `queue` waiting: the ids started.
    fn decide(&mut self, now: i64, queue: &[JobKey]) -> Vec<u64> {
        let free = self.free();
        let view = view(&self.platform, &self.jobs, &self.running, &free, now, queue);
        let mut out = Vec::new();
        self.policy.schedule(&view, &mut out);
        out.iter().map(|d| self.jobs[d.job.0].id).collect()
    }

    /// The engine starts a job the policy started at `now`.
    fn start(&mut self, key: JobKey, now: i64) {
        let j = &mut self.jobs[key.0];
        j.state = crate::sched::JobState::Running;
        j.assignment = vec![(0, j.size)];
        j.estimated_end = s(now) + j.estimate;
        self.running.push(key);
    }

    /// What the console is shown at `now` with `queue` waiting.
    fn plan(&self, now: i64, queue: &[JobKey]) -> Option<BackfillView> {
        let free = self.free();
        let view = view(&self.platform, &self.jobs, &self.running, &free, now, queue);
        self.policy.plan(&view)
    }

    fn reserved_at(&self, key: JobKey) -> Option<SimTime> {
        self.policy.slot(key).map(|slot| slot.start)
    }
}

/// A running job's estimated end can move earlier (a job expanded, or
/// running faster than its placement's speed): the room after it is
/// given back and the reservation behind it moves up.
#[test]
fn a_running_job_ending_earlier_than_held_gives_the_room_back() {
    let mut w = World::new();
    let r = w.run(w.job(1, 4, 100, Some(100)));
    let q = JobKey(w.jobs.insert(w.job(2, 4, 10, None)));
    assert!(w.decide(0, &[q]).is_empty());
    assert_eq!(w.reserved_at(q), Some(s(100)));
    w.jobs[r.0].estimated_end = s(50);
    assert!(w.decide(1, &[q]).is_empty());
    assert_eq!(w.reserved_at(q), Some(s(50)));
    // And later again: the reservation follows it.
    w.jobs[r.0].estimated_end = s(70);
    assert!(w.decide(2, &[q]).is_empty());
    assert_eq!(w.reserved_at(q), Some(s(70)));
}

/// A job running that the policy never started nor saw (started by
/// another policy before a switch) holds its processors from the
/// decision point that first sees it until its expected end.
#[test]
fn a_running_job_never_seen_holds_its_processors_until_its_end() {
    let mut w = World::new();
    w.run(w.job(1, 2, 50, Some(50)));
    assert!(w.decide(0, &[]).is_empty());
    w.run(w.job(2, 2, 80, Some(80)));
    let q = JobKey(w.jobs.insert(w.job(3, 4, 10, None)));
    assert!(w.decide(10, &[q]).is_empty());
    assert_eq!(w.reserved_at(q), Some(s(80)));
}

/// A queue long enough that the profile is searched block by block:
/// when the running job ends early every reservation moves up by what
/// it gave back, the last one too.
#[test]
fn a_long_queue_moves_up_when_a_job_ends_early() {
    let mut w = World::new();
    let r = w.run(w.job(0, 4, 100, Some(100)));
    // Three and four wide in turn: a step at every boundary.
    let queue: Vec<JobKey> = (1..=150)
        .map(|a| JobKey(w.jobs.insert(w.job(a, 3 + a as u32 % 2, 10, None))))
        .collect();
    assert!(w.decide(0, &queue).is_empty());
    assert_eq!(w.reserved_at(queue[149]), Some(s(100 + 1490)));
    assert!(!w.policy.profile.as_ref().expect("kept").is_short());
    w.running.retain(|&k| k != r);
    assert_eq!(w.decide(50, &queue), vec![1]);
    for (i, &q) in queue.iter().enumerate().skip(1) {
        assert_eq!(w.reserved_at(q), Some(s(50 + 10 * i as i64)), "{i}");
    }
}

/// A reservation an overrun breaks is placed again before the
/// reservations of the jobs behind it (`broken = "in-order"`), not
/// around them (`"around-later"`). On 4 processors S (2, expected to
/// end at 100) and B (2, until 1,000) run; A (2 for 500 s) is reserved
/// on S's processors at 100 and C (2 for 50 s), behind it, at 600. At
/// 200 S is still running: A's reservation no longer holds. In order,
/// A follows S and C follows A; around the later ones, C (behind A)
/// takes the room first and A waits for it.
#[test]
fn a_reservation_an_overrun_breaks_goes_before_the_later_ones() {
    let tick = SimTime(1);
    for (reading, a_at, c_at) in [
        (None, s(200) + tick, s(700) + tick),
        (Some("in-order"), s(200) + tick, s(700) + tick),
        // C moves up into the room A gave up, and A goes after it.
        (Some("around-later"), s(650), s(200) + tick),
    ] {
        let mut w = match reading {
            Some(r) => World::new().reading(r),
            None => World::new(),
        };
        w.run(w.job(0, 2, 100, Some(100)));
        w.run(w.job(0, 2, 1000, Some(1000)));
        let a = JobKey(w.jobs.insert(w.job(1, 2, 500, None)));
        let c = JobKey(w.jobs.insert(w.job(2, 2, 50, None)));
        assert!(w.decide(0, &[a, c]).is_empty());
        assert_eq!(
            (w.reserved_at(a), w.reserved_at(c)),
            (Some(s(100)), Some(s(600)))
        );
        assert!(w.decide(200, &[a, c]).is_empty());
        assert_eq!(
            (w.reserved_at(a), w.reserved_at(c)),
            (Some(a_at), Some(c_at)),
            "{reading:?}"
        );
    }
}

/// It wakes for the first reservation that fits the processors free
/// now, but not for one chained to a job past its estimate: that job
/// is expected to end a tick from now at every decision point, and
/// the chain moves on with it.
#[test]
fn it_wakes_for_a_reservation_that_fits_but_not_behind_an_overrun() {
    for (end, wake) in [(300, Some(s(310))), (100, None)] {
        let mut w = World::new();
        w.run(w.job(0, 2, end, Some(end)));
        let a = JobKey(w.jobs.insert(w.job(1, 4, 10, None)));
        let b = JobKey(w.jobs.insert(w.job(2, 2, 1000, None)));
        assert!(w.decide(200, &[a, b]).is_empty());
        // B fits the two processors free now, after A's reservation.
        let after_a = w.reserved_at(a).expect("placed") + s(10);
        assert_eq!(w.reserved_at(b), Some(after_a), "{end}");
        assert_eq!(w.policy.wake_at(), wake, "{end}");
    }
}

/// A reservation at the next estimated end of a job within its
/// estimate is not chained behind the job past its estimate, though
/// it begins where a chained one ends: it wakes the policy when it
/// fits the processors free now. At 200, O (1 processor) is past its
/// estimate, expected to end a tick from now; R1 (3 for 10 s) waits
/// for it. W (1) is expected to end with R1. R2 (2 for 1,000 s) fits
/// the two free now but not beside R1, so it waits for R1 and W.
#[test]
fn a_reservation_at_the_next_estimated_end_is_not_chained() {
    let tick = SimTime(1);
    let mut w = World::new();
    w.run(w.job(0, 1, 100, Some(100)));
    let end = s(210) + tick;
    let wj = w.run(w.job(0, 1, 300, Some(300)));
    w.jobs[wj.0].estimated_end = end;
    let r1 = JobKey(w.jobs.insert(w.job(1, 3, 10, None)));
    let r2 = JobKey(w.jobs.insert(w.job(2, 2, 1000, None)));
    assert!(w.decide(200, &[r1, r2]).is_empty());
    assert_eq!(w.reserved_at(r1), Some(s(200) + tick));
    assert_eq!(w.reserved_at(r2), Some(end));
    assert_eq!(w.policy.wake_at(), Some(end));
}

#[test]
fn it_keeps_the_spec_it_was_built_with() {
    let spec = PolicySpec::named(names::CONSERVATIVE).with_order(backfill::BackfillOrder::Smallest);
    assert_ne!(spec, PolicySpec::scenario_default());
    let c = Conservative::new(Box::new(super::super::placement::WorstFit), spec.clone());
    assert_eq!(c.spec(), &spec);
}

/// Jobs outliving their estimates leave two stretches short of room
/// with one between where every reservation still holds. Under
/// `broken = "around-later"` the one there is kept (the jobs before it
/// in the scan order may not take its room), those over the short
/// stretches are placed again: in the scan order, the first is given
/// up, the second holds, the third is given up, and the fourth holds
/// once the third's room is back; the first is placed again after the
/// fourth, the second moves up into the room the first left, the third
/// goes after them all and the fourth moves up behind the second. Under
/// `"in-order"` (the default) every reservation from the first broken
/// one on is placed again in order: the queue keeps its order.
#[test]
fn reservations_broken_by_shortfalls_under_each_reading() {
    for (reading, want) in [
        ("around-later", [230, 130, 250, 180]),
        ("in-order", [130, 180, 230, 230]),
    ] {
        let mut w = World::of(6).reading(reading);
        let r1 = w.run(w.job(0, 2, 100, Some(100)));
        let r2 = w.run(w.job(0, 2, 200, Some(200)));
        w.run(w.job(0, 2, 1000, Some(1000)));
        let queue: Vec<JobKey> = (1..=4)
            .map(|a| JobKey(w.jobs.insert(w.job(a, 2, 50, None))))
            .collect();
        let at = |w: &World| queue.iter().map(|&q| w.reserved_at(q)).collect::<Vec<_>>();
        assert!(w.decide(0, &queue).is_empty());
        assert_eq!(at(&w), [100, 150, 200, 200].map(|t| Some(s(t))));
        w.jobs[r1.0].estimated_end = s(130);
        w.jobs[r2.0].estimated_end = s(230);
        assert!(w.decide(10, &queue).is_empty());
        assert_eq!(at(&w), want.map(|t| Some(s(t))), "{reading}");
    }
}

/// Jobs that take no time hold no room, so two may be due at once on
/// the same processors: only the one that fits is started.
#[test]
fn of_two_jobs_due_on_the_same_processors_one_starts() {
    let mut w = World::new();
    let a = JobKey(w.jobs.insert(w.job(1, 4, 0, None)));
    let b = JobKey(w.jobs.insert(w.job(2, 4, 0, None)));
    assert_eq!(w.decide(0, &[a, b]), vec![1]);
}

/// The console is shown the first job still waiting once the jobs
/// started now are gone, its reservation and what is left beside it,
/// and every queued job's reservation.
#[test]
fn the_plan_shows_the_first_waiting_job_and_every_reservation() {
    let mut w = World::new();
    w.run(w.job(0, 2, 100, Some(100)));
    let q: Vec<JobKey> = [(1, 2, 10), (2, 3, 10), (3, 1, 5)]
        .map(|(a, size, est)| JobKey(w.jobs.insert(w.job(a, size, est, None))))
        .to_vec();
    assert_eq!(w.decide(0, &q), vec![1]);
    w.start(q[0], 0);
    let plan = w.plan(0, &q[1..]).expect("a plan");
    assert_eq!(plan.head, Some(2));
    assert_eq!(plan.shadow, Some(s(100)));
    assert_eq!(plan.extra, vec![1]);
    assert_eq!(plan.reservations, vec![(2, s(100)), (3, s(10))]);
    assert_eq!(plan.reserved, 2);
}

/// Reservations moved again and again leave none of their old
/// boundaries in the kept profile: it stays as long as the boundaries
/// of the reservations in it.
#[test]
fn moved_reservations_leave_no_stale_steps() {
    let mut w = World::new();
    let r = w.run(w.job(0, 4, 200, Some(200)));
    let queue: Vec<JobKey> = (1..=150)
        .map(|a| JobKey(w.jobs.insert(w.job(a, 3 + a as u32 % 2, 10, None))))
        .collect();
    assert!(w.decide(0, &queue).is_empty());
    let live = w.policy.profile.as_ref().expect("kept").steps();
    for i in 1..=20 {
        let end = 200 - 5 * i;
        w.jobs[r.0].estimated_end = s(end);
        assert!(w.decide(i, &queue).is_empty());
        assert_eq!(w.reserved_at(queue[149]), Some(s(end + 1490)));
        let steps = w.policy.profile.as_ref().expect("kept").steps();
        assert_eq!(steps, live, "round {i}");
    }
}

/// A job's slot taken by another job running (the first one gone, the
/// slot reused) between two decision points: the first job's room is
/// given back and the new one holds its own processors to its own end.
#[test]
fn a_reused_slot_holds_the_new_job_not_the_old() {
    let mut w = World::new();
    let k = w.run(w.job(1, 2, 100, Some(100)));
    assert!(w.decide(0, &[]).is_empty());
    w.jobs[k.0] = w.job(7, 3, 60, Some(60));
    let q = JobKey(w.jobs.insert(w.job(8, 2, 10, None)));
    let q2 = JobKey(w.jobs.insert(w.job(9, 3, 10, None)));
    assert!(w.decide(10, &[q, q2]).is_empty());
    // One processor free until 60, all four after.
    assert_eq!(w.reserved_at(q), Some(s(60)));
    assert_eq!(w.reserved_at(q2), Some(s(70)));
}
