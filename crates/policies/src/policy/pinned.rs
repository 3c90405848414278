//! Backfilling with reservations pinned to numbered processors
//! (`[policy] machines = "pinned"`, one cluster).
//!
//! Machine-level simulators such as Batsim give a reservation particular
//! machines, not a number of them: the lowest-numbered ones free over the
//! reservation's window. A job started ahead of the queue then fits only
//! on processors outside every reservation it would overlap, where the
//! counted policies (`easy.rs`, `conservative.rs`) let it use any
//! processors left over in number. The two agree on the start times until
//! the first decision where identity matters, and then part.
//!
//! * EASY: the jobs at the head start while they fit, on the
//!   lowest-numbered free processors. The first that does not gets a
//!   reservation at the earliest time enough processors are free, given
//!   the running jobs' expected ends (every release at that time counted),
//!   on the lowest-numbered of them. A later job starts now on the
//!   lowest-numbered free processors outside that reservation, or on any
//!   free ones if it ends by the reservation's time. Recomputed at every
//!   decision point.
//! * Conservative: every queued job holds a reservation of particular
//!   processors over [start, start + estimate): the earliest time at which
//!   enough processors are free over the whole window, given the running
//!   jobs and every other reservation, on the lowest-numbered of them. A
//!   new job is placed after the others; when any job ends (or one is put
//!   back in the queue) every reservation is taken out and placed again,
//!   in queue order, with the others in place.
//!
//! Each decision costs the queue times the processors (EASY) or the queue
//! squared (conservative): this mode is for comparisons on workloads of
//! thousands of jobs, not for whole overloaded traces.

use super::backfill::{self, expected_end, expected_span};
use super::{Phased, PolicySpec, PolicyState, Start, StartKind, SystemView};
use crate::model::SimTime;
use crate::policy::SharedParams;
use crate::policy::{BuildPlacement, SortQueue};
use crate::sched::{BackfillView, JobKey};

/// Which processors are free now: running jobs hold theirs.
fn free_now(view: &SystemView<'_>) -> Vec<bool> {
    let n = view.platform.clusters[0].processors as usize;
    let mut free = vec![true; n];
    for &k in view.running {
        for &p in view.job(k).processors.iter().flatten() {
            free[p as usize] = false;
        }
    }
    free
}

/// The lowest-numbered `w` processors with `ok(p)`, if there are as many.
fn lowest(n: usize, w: u32, ok: impl Fn(usize) -> bool) -> Option<Vec<u32>> {
    let mut got = Vec::with_capacity(w as usize);
    for p in 0..n {
        if got.len() == w as usize {
            break;
        }
        if ok(p) {
            got.push(p as u32);
        }
    }
    (got.len() == w as usize).then_some(got)
}

fn span_of(view: &SystemView<'_>, key: JobKey) -> SimTime {
    let j = view.job(key);
    expected_span(view.platform, j.estimate, &vec![(0, j.size)])
}

fn decision(key: JobKey, w: u32, procs: Vec<u32>, kind: StartKind) -> Start {
    Start {
        job: key,
        assignment: vec![(0, w)],
        kind,
        processors: Some(vec![procs]),
        processes: None,
    }
}

/// EASY backfilling with the head's reservation pinned to processors.
pub struct PinnedEasy {
    spec: PolicySpec,
    plan: BackfillView,
    order: Vec<usize>,
}

impl PinnedEasy {
    /// Whether the placement puts `widths` on the processors `free` now
    /// (the test behind aborting expired jobs for the head).
    fn fits_now(&self, widths: &[u32], free: &[u32]) -> bool {
        self.spec.placement().build().place(widths, free).is_some()
    }

    pub fn new(spec: PolicySpec) -> PinnedEasy {
        PinnedEasy {
            spec,
            plan: BackfillView::default(),
            order: Vec::new(),
        }
    }

    /// One decision point: the jobs at the head start while they fit; the
    /// first that does not gets a reservation, and later jobs backfill
    /// around it in scan order.
    fn starts(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        let n = view.platform.clusters[0].processors as usize;
        let mut free = free_now(view);
        self.plan = BackfillView::default();
        // Processors released at their expected ends, with the jobs
        // started in this pass.
        let mut releases = running_releases(view);
        let head = start_heads(view, &mut free, &mut releases, out);
        let Some(&head_key) = view.queue.get(head) else {
            return;
        };
        let need = view.job(head_key).size as usize;
        let Some((shadow, count, avail)) = head_window(view.now, need, &free, releases) else {
            return; // larger than the cluster (validation prevents this)
        };
        let reserved = lowest(n, need as u32, |p| avail[p]).expect("counted");
        let mut in_reservation = vec![false; n];
        for &p in &reserved {
            in_reservation[p as usize] = true;
        }
        self.plan.head = Some(view.job(head_key).id);
        self.plan.shadow = Some(shadow);
        self.plan.extra = vec![(count - need) as u32];
        self.plan.reservations = vec![(view.job(head_key).id, shadow)];
        self.backfill(view, head, shadow, &mut free, &in_reservation, out);
    }

    /// Backfills the jobs after the head (at queue position `head`) in
    /// scan order: each starts on the lowest-numbered free processors,
    /// outside the head's reservation unless it ends by the `shadow` time.
    fn backfill(
        &mut self,
        view: &SystemView<'_>,
        head: usize,
        shadow: SimTime,
        free: &mut [bool],
        in_reservation: &[bool],
        out: &mut Vec<Start>,
    ) {
        let now = view.now;
        let n = view.platform.clusters[0].processors as usize;
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(head + 1..view.queue.len());
        self.spec.order().sort(view, &mut order);
        for &i in &order {
            let key = view.queue[i];
            let w = view.job(key).size;
            let past_shadow = now.saturating_add(span_of(view, key)) > shadow;
            let Some(procs) = lowest(n, w, |p| free[p] && !(past_shadow && in_reservation[p]))
            else {
                continue;
            };
            for &p in &procs {
                free[p as usize] = false;
            }
            out.push(decision(key, w, procs, StartKind::Ahead));
        }
        self.order = order;
    }
}

/// The processors of the running jobs, each at its job's expected end.
fn running_releases(view: &SystemView<'_>) -> Vec<(SimTime, u32)> {
    let now = view.now;
    let mut releases: Vec<(SimTime, u32)> = Vec::new();
    for &k in view.running {
        let end = expected_end(now, view.job(k));
        releases.extend(view.job(k).processors.iter().flatten().map(|&p| (end, p)));
    }
    releases
}

/// Starts the jobs at the head while they fit, on the lowest-numbered
/// `free` processors, their processors added to the `releases`; the queue
/// position of the first that does not fit.
fn start_heads(
    view: &SystemView<'_>,
    free: &mut [bool],
    releases: &mut Vec<(SimTime, u32)>,
    out: &mut Vec<Start>,
) -> usize {
    let now = view.now;
    let n = view.platform.clusters[0].processors as usize;
    let mut head = 0;
    while let Some(&key) = view.queue.get(head) {
        let w = view.job(key).size;
        let Some(procs) = lowest(n, w, |p| free[p]) else {
            break;
        };
        let end = now.saturating_add(span_of(view, key));
        for &p in &procs {
            free[p as usize] = false;
            releases.push((end, p));
        }
        out.push(decision(key, w, procs, StartKind::Head));
        head += 1;
    }
    head
}

/// The head's reservation of `need` processors: the earliest time enough
/// are free (from `now`, the `free` ones and then the `releases` in time
/// order, every release at that time counted), how many are available
/// then, and which. `None` if never enough.
fn head_window(
    now: SimTime,
    need: usize,
    free: &[bool],
    mut releases: Vec<(SimTime, u32)>,
) -> Option<(SimTime, usize, Vec<bool>)> {
    releases.sort_unstable();
    let mut avail = free.to_vec();
    let mut count = avail.iter().filter(|&&f| f).count();
    let mut shadow = now;
    for &(end, p) in &releases {
        if count >= need && end > shadow {
            break;
        }
        if !avail[p as usize] {
            avail[p as usize] = true;
            count += 1;
        }
        shadow = shadow.max(end);
    }
    (count >= need).then_some((shadow, count, avail))
}

impl Phased for PinnedEasy {
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
        self.starts(view, out);
    }

    fn explain(&self, view: &SystemView<'_>, key: JobKey) -> crate::sched::Explanation {
        let mut pass = PinnedEasy::new(self.spec.clone());
        let mut starts = Vec::new();
        pass.starts(view, &mut starts);
        let place = self.spec.placement().build();
        backfill::explain_easy(view, key, &starts, &pass.plan, &|w, f| place.place(w, f))
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        backfill::head_state(view, &self.plan)
    }

    fn plan(&self, view: &SystemView<'_>) -> Option<BackfillView> {
        backfill::head_plan(view, &self.plan)
    }
}

/// A queued job's pinned reservation.
#[derive(Clone, Debug)]
struct Pin {
    start: SimTime,
    span: SimTime,
    procs: Vec<u32>,
}

/// Conservative backfilling with every reservation pinned to processors.
#[derive(Clone)]
pub struct PinnedConservative {
    spec: PolicySpec,
    pins: Vec<Option<Pin>>,
    /// The running jobs at the end of the last decision point, sorted.
    running: Vec<usize>,
    queue_edits: u64,
    wake: Option<SimTime>,
    plan: BackfillView,
}

impl PinnedConservative {
    /// Whether the placement puts `widths` on the processors `free` now
    /// (the test behind aborting expired jobs for the head).
    fn fits_now(&self, widths: &[u32], free: &[u32]) -> bool {
        self.spec.placement().build().place(widths, free).is_some()
    }

    pub fn new(spec: PolicySpec) -> PinnedConservative {
        PinnedConservative {
            spec,
            pins: Vec::new(),
            running: Vec::new(),
            queue_edits: 0,
            wake: None,
            plan: BackfillView::default(),
        }
    }

    fn pin(&self, key: JobKey) -> Option<&Pin> {
        self.pins.get(key.0).and_then(Option::as_ref)
    }

    fn set_pin(&mut self, key: JobKey, pin: Option<Pin>) {
        if self.pins.len() <= key.0 {
            self.pins.resize(key.0 + 1, None);
        }
        self.pins[key.0] = pin;
    }

    /// The earliest window of `key`'s estimate in which enough processors
    /// are free throughout, given the running jobs and every other
    /// reservation; the lowest-numbered of them.
    fn first_fit(&self, view: &SystemView<'_>, key: JobKey) -> Option<Pin> {
        let now = view.now;
        let n = view.platform.clusters[0].processors as usize;
        let w = view.job(key).size;
        let span = span_of(view, key);
        // (from, to, processors) of everything holding processors.
        let mut held: Vec<(SimTime, SimTime, &[u32])> = Vec::new();
        for &k in view.running {
            let j = view.job(k);
            held.push((j.start, expected_end(now, j), &j.processors[0]));
        }
        for &k in view.queue {
            if k != key
                && let Some(p) = self.pin(k)
            {
                held.push((p.start, p.start.saturating_add(p.span), &p.procs));
            }
        }
        let mut times: Vec<SimTime> = held.iter().map(|h| h.1).filter(|&t| t > now).collect();
        times.push(now);
        times.sort_unstable();
        times.dedup();
        let mut busy = vec![false; n];
        for t in times {
            // A window of no length still needs its processors at `t`.
            let to = t.saturating_add(span.max(SimTime(1)));
            busy.fill(false);
            for &(from, end, procs) in &held {
                if from < to && end > t {
                    for &p in procs {
                        busy[p as usize] = true;
                    }
                }
            }
            if let Some(procs) = lowest(n, w, |p| !busy[p]) {
                return Some(Pin {
                    start: t,
                    span,
                    procs,
                });
            }
        }
        None
    }

    /// One decision point: the reservations are made (all again after an
    /// end or a queue edit), the jobs whose reservation is due start, and
    /// the wake-up and the console's plan follow.
    fn starts(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        let mut running: Vec<usize> = view.running.iter().map(|k| k.0).collect();
        running.sort_unstable();
        // A job that ended (or was killed or put back) since the last
        // decision point: every reservation is placed again, in order.
        let ended = self
            .running
            .iter()
            .any(|k| running.binary_search(k).is_err());
        let edited = view.queue_edits != self.queue_edits;
        self.queue_edits = view.queue_edits;
        self.place_pins(view, ended || edited);
        let free = self.start_due(view, out);
        for d in out.iter() {
            self.set_pin(d.job, None);
            running.push(d.job.0);
        }
        running.sort_unstable();
        self.running = running;
        // Wake for the first reservation whose processors are free now;
        // the others wait for a job to end, itself a decision point.
        self.wake = view
            .queue
            .iter()
            .filter_map(|&k| self.pin(k))
            .filter(|p| p.start > view.now && p.procs.iter().all(|&q| free[q as usize]))
            .map(|p| p.start)
            .min();
        self.plan = self.head_plan(view, &free);
    }

    /// Gives every queued job without one a reservation, in scan order;
    /// with `again`, every queued job's is taken out and placed again.
    fn place_pins(&mut self, view: &SystemView<'_>, again: bool) {
        let mut order: Vec<usize> = (0..view.queue.len()).collect();
        self.spec.order().sort(view, &mut order);
        if again {
            for &i in &order {
                let key = view.queue[i];
                self.set_pin(key, None);
                let pin = self.first_fit(view, key);
                self.set_pin(key, pin);
            }
        } else {
            for &i in &order {
                let key = view.queue[i];
                if self.pin(key).is_none() {
                    let pin = self.first_fit(view, key);
                    self.set_pin(key, pin);
                }
            }
        }
    }

    /// Starts every job whose reservation is due and whose processors are
    /// free (one past its estimate may still hold some: that job's end
    /// places everything again); the processors free after them.
    fn start_due(&self, view: &SystemView<'_>, out: &mut Vec<Start>) -> Vec<bool> {
        let mut free = free_now(view);
        for (pos, &key) in view.queue.iter().enumerate() {
            let Some(pin) = self.pin(key) else {
                continue;
            };
            if pin.start > view.now || !pin.procs.iter().all(|&p| free[p as usize]) {
                continue;
            }
            for &p in &pin.procs {
                free[p as usize] = false;
            }
            let kind = if pos == out.len() {
                StartKind::Head
            } else {
                StartKind::Ahead
            };
            out.push(decision(key, view.job(key).size, pin.procs.clone(), kind));
        }
        free
    }

    /// What the console shows: the first reserved job's reservation and
    /// the processors no reservation or running job holds then.
    fn head_plan(&self, view: &SystemView<'_>, free: &[bool]) -> BackfillView {
        let mut plan = BackfillView::default();
        if let Some(&k) = view.queue.iter().find(|&&k| self.pin(k).is_some())
            && let Some(pin) = self.pin(k)
        {
            plan.head = Some(view.job(k).id);
            plan.shadow = Some(pin.start);
            let n = free.len();
            let mut held = vec![false; n];
            for &q in view.queue {
                if let Some(p) = self.pin(q)
                    && p.start <= pin.start
                    && p.start.saturating_add(p.span.max(SimTime(1))) > pin.start
                {
                    for &x in &p.procs {
                        held[x as usize] = true;
                    }
                }
            }
            for &r in view.running {
                let j = view.job(r);
                if expected_end(view.now, j) > pin.start {
                    for &x in &j.processors[0] {
                        held[x as usize] = true;
                    }
                }
            }
            plan.extra = vec![held.iter().filter(|&&h| !h).count() as u32];
        }
        plan
    }
}

impl Phased for PinnedConservative {
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
        self.starts(view, out);
    }

    fn wake_at(&self) -> Option<SimTime> {
        self.wake
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        backfill::reserved_state(view, |k| self.pin(k).map(|p| p.start))
    }

    fn plan(&self, view: &SystemView<'_>) -> Option<BackfillView> {
        backfill::reserved_plan(view, &self.plan, |k| self.pin(k).map(|p| p.start))
    }

    fn explain(&self, view: &SystemView<'_>, key: JobKey) -> crate::sched::Explanation {
        let mut pass = self.clone();
        let mut starts = Vec::new();
        pass.starts(view, &mut starts);
        let slot = pass
            .pin(key)
            .map(|p| (p.start, p.span, vec![(0, p.procs.len() as u32)]));
        backfill::explain_reserved(view, key, &starts, slot)
    }
}
