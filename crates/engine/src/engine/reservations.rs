//! Advance reservations: the engine grants a policy's [`Reserve`] when its
//! processors are its own over the window, then enforces it.
//!
//! * Before its window, a reservation only refuses starts: a job it does
//!   not hold may not take one of its processors if the job's estimated
//!   end lies past the window's start.
//! * At its start (a wake-up event) it takes its processors from the free
//!   pool (a job still on one, past its estimate, is killed: the window is
//!   the reservation's). The jobs it holds then start on its processors
//!   without taking them: the policy that asked for it places them (graphs
//!   interwoven, independent jobs in the gaps), so two of them may share a
//!   processor at different times while one is still running elsewhere;
//!   and a held job may run on fewer processors than its size (a graph
//!   whose subtasks were moved onto fewer processors).
//! * At its finish (a wake-up event) it gives its processors back; a job
//!   it holds still running then is killed, as at a walltime.
//!
//! Runs without reservations never reach this file past an empty check, so
//! their schedules are those of an engine without it.

use super::*;
use crate::sched::reserve::blocking;
use crate::sched::{ReservationView, Reserve};

/// Owner mark of a processor taken by an active reservation.
pub(super) const RESERVED: u32 = u32::MAX;

/// The reservation book: the advance reservations granted and not over,
/// and their ids. It knows windows and processors; the engine enforces
/// them on the jobs and the machine.
#[derive(Default)]
pub(super) struct ReservationBook {
    /// Granted and not over, in grant order.
    list: Vec<ReservationView>,
    /// The last id given out (0: none yet).
    last_id: u64,
}

impl ReservationBook {
    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The reservations in grant order.
    pub(super) fn views(&self) -> &[ReservationView] {
        &self.list
    }

    /// The reservation holding job `id`, if any.
    pub(super) fn holder(&self, id: u64) -> Option<&ReservationView> {
        if self.list.is_empty() {
            return None;
        }
        self.list.iter().find(|r| r.holds(id))
    }

    /// A reservation of processor `p` of cluster `c` whose window meets
    /// [`start`, `finish`).
    fn overlapping(
        &self,
        c: ClusterIdx,
        p: u32,
        start: SimTime,
        finish: SimTime,
    ) -> Option<&ReservationView> {
        self.list.iter().find(|o| {
            o.cluster == c && o.processors.contains(&p) && o.start < finish && start < o.finish
        })
    }

    /// The first reservation other than one holding job `id` that
    /// reserves processor `p` of cluster `c` at some time in [`from`, `to`).
    pub(super) fn blocking(
        &self,
        id: u64,
        c: ClusterIdx,
        p: u32,
        from: SimTime,
        to: SimTime,
    ) -> Option<&ReservationView> {
        blocking(&self.list, id, c, p, from, to)
    }

    /// Books a checked request under a new id, not active yet.
    fn book(&mut self, r: &Reserve) -> u64 {
        self.last_id += 1;
        let id = self.last_id;
        self.list.push(ReservationView {
            id,
            cluster: r.cluster,
            processors: r.processors.clone(),
            start: r.start,
            finish: r.finish,
            holds: r.holds.clone(),
            active: false,
        });
        id
    }

    /// Takes out a reservation whose window is over at `now`, if any.
    fn take_over(&mut self, now: SimTime) -> Option<ReservationView> {
        let i = self.list.iter().position(|r| r.finish <= now)?;
        Some(self.list.remove(i))
    }

    /// Makes active the first reservation whose window has begun at `now`
    /// and is not active yet; returns its cluster, processors and id.
    fn begin_due(&mut self, now: SimTime) -> Option<(usize, Vec<u32>, u64)> {
        let r = self.list.iter_mut().find(|r| !r.active && r.start <= now)?;
        r.active = true;
        Some((r.cluster as usize, r.processors.clone(), r.id))
    }
}

impl Engine {
    /// The advance reservations granted and not over, in grant order.
    pub fn reservations(&self) -> &[ReservationView] {
        self.book.views()
    }

    /// Grants a policy's reservation request, or says why not.
    pub(super) fn grant(&mut self, r: &Reserve) -> Result<u64, Refusal> {
        let refuse = |why: String| Err(Refusal::Reservation(why));
        let Some(cs) = self.machine.clusters.get(r.cluster as usize) else {
            return refuse(format!("no cluster {}", r.cluster));
        };
        if r.processors.is_empty() {
            return refuse("no processors named".into());
        }
        if r.start < self.now || r.finish <= r.start {
            return refuse(format!(
                "window [{}, {}) is not ahead of now ({})",
                r.start, r.finish, self.now
            ));
        }
        for (n, &p) in r.processors.iter().enumerate() {
            if p as usize >= cs.owner.len() || r.processors[..n].contains(&p) {
                return refuse(format!(
                    "processor {p} of cluster {} is not there or named twice",
                    r.cluster
                ));
            }
            if let Some(o) = self.book.overlapping(r.cluster, p, r.start, r.finish) {
                return refuse(format!(
                    "processor {p} of cluster {} is in reservation {} over [{}, {})",
                    r.cluster, o.id, o.start, o.finish
                ));
            }
            let owner = cs.owner[p as usize];
            if owner != 0 && owner != RESERVED {
                let job = &self.table.jobs[owner as usize - 1];
                if job.estimated_end > r.start && !r.holds.contains(&job.id) {
                    return refuse(format!(
                        "processor {p} of cluster {} runs job {} until {} (estimated)",
                        r.cluster, job.id, job.estimated_end
                    ));
                }
            }
        }
        for &id in &r.holds {
            if let Some(o) = self.book.holder(id) {
                return refuse(format!("job {id} is held by reservation {} already", o.id));
            }
        }
        let id = self.book.book(r);
        if r.start > self.now {
            self.events.push(r.start, EventKind::Wake);
        }
        self.events.push(r.finish, EventKind::Wake);
        self.tick_reservations();
        Ok(id)
    }

    /// Begins the windows that are due and ends those that are over.
    pub(super) fn tick_reservations(&mut self) {
        if self.book.is_empty() {
            return;
        }
        let now = self.now;
        // Ends first: a processor may pass from one window to the next.
        while let Some(r) = self.book.take_over(now) {
            let inside: Vec<usize> = self
                .table
                .running
                .iter()
                .map(|k| k.0)
                .filter(|&s| self.table.hidden[s].held == Some(r.id))
                .collect();
            for slot in inside {
                self.finish(slot, true);
            }
            if r.active {
                self.machine.unreserve(r.cluster as usize, &r.processors);
            }
            self.pass.dirty = true;
        }
        while let Some((c, procs, id)) = self.book.begin_due(now) {
            for &p in &procs {
                let owner = self.machine.owner(c, p);
                if owner != 0 && owner != RESERVED {
                    // Still running past its estimate: the window wins.
                    self.finish(owner as usize - 1, true);
                }
            }
            self.machine.reserve(c, &procs, id);
            self.pass.dirty = true;
        }
    }

    /// Checks a start against the reservations: `Some(id)` when the job
    /// starts inside reservation `id`, `None` when it starts outside every
    /// reservation (and its processors are to be checked as usual).
    pub(super) fn check_reserved_start(&self, d: &Start) -> Result<Option<u64>, Refusal> {
        let job = &self.table.jobs[d.job.0];
        let Some(r) = self.book.holder(job.id) else {
            return Ok(None);
        };
        let outside = Err(Refusal::OutsideReservation {
            job: job.id,
            reservation: r.id,
        });
        let [(c, w)] = d.assignment[..] else {
            return outside;
        };
        let wanted = job.components.first().copied().unwrap_or(job.size);
        let named = d.processors.as_ref().and_then(|ps| ps.first());
        let Some(named) = named else {
            return outside;
        };
        let end = self.now.saturating_add(span(
            job.estimate,
            job_rate(&self.machine.platform, &d.assignment),
        ));
        if c != r.cluster
            || w == 0
            || w > wanted
            || named.len() != w as usize
            || !r.active
            || end > r.finish
            || named
                .iter()
                .enumerate()
                .any(|(n, p)| !r.processors.contains(p) || named[..n].contains(p))
        {
            return outside;
        }
        Ok(Some(r.id))
    }

    /// For a job outside every reservation, the first reserved processor
    /// the start would take inside a window (named ones), or too few
    /// unreserved free processors for the engine's own pick.
    pub(super) fn check_unreserved(&self, d: &Start) -> Result<(), Refusal> {
        if self.book.is_empty() {
            return Ok(());
        }
        let job = &self.table.jobs[d.job.0];
        let end = self.now.saturating_add(span(
            job.estimate,
            job_rate(&self.machine.platform, &d.assignment),
        ));
        for (i, &(c, w)) in d.assignment.iter().enumerate() {
            match d.processors.as_ref().and_then(|ps| ps.get(i)) {
                Some(named) => {
                    for &p in named {
                        if let Some(r) = self.book.blocking(job.id, c, p, self.now, end) {
                            return Err(Refusal::Reserved {
                                job: job.id,
                                cluster: c,
                                processor: p,
                                reservation: r.id,
                            });
                        }
                    }
                }
                None => {
                    let usable = self.unreserved_free(c, job.id, end).count() as u32;
                    if usable < w {
                        return Err(Refusal::TooFew {
                            job: job.id,
                            cluster: c,
                            wanted: w,
                            free: usable,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Free processors of cluster `c` that no reservation (but one holding
    /// job `id`) claims between now and `end`, lowest first.
    pub(super) fn unreserved_free(
        &self,
        c: ClusterIdx,
        id: u64,
        end: SimTime,
    ) -> impl Iterator<Item = u32> + '_ {
        let now = self.now;
        self.machine
            .free_of(c)
            .filter(move |&p| self.book.blocking(id, c, p, now, end).is_none())
    }
}

/// Where a running job runs: (cluster, processor indices) per component.
pub type RunsOn = Vec<(ClusterIdx, Vec<u32>)>;

impl Engine {
    /// The running jobs by workload id with the processors they run on
    /// (cluster, indices), for checks and the console.
    pub fn running_processors(&self) -> Vec<(u64, RunsOn)> {
        self.table
            .running
            .iter()
            .map(|k| {
                let j = &self.table.jobs[k.0];
                let on = j
                    .assignment
                    .iter()
                    .zip(&j.processors)
                    .map(|(&(c, _), ps)| (c, ps.clone()))
                    .collect();
                (j.id, on)
            })
            .collect()
    }
}
