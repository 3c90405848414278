//! FPFS(maxJumps) and FCFS (= FPFS(0)), as Ngubiri and van Vliet define them.
//!
//! Jobs queue in arrival order. At each decision point the scheduler scans
//! from the head for the first job that fits, starts it, and carries on: the
//! free processors only shrink during a pass, so jobs already passed over
//! still do not fit and one pass starts every job that can start. A job that
//! starts ahead of the head counts as one jump of the head; once the head has
//! been jumped `maxJumps` times nothing may pass it until it starts itself.

use super::placement::Placement;
use super::{MaxJumps, Policy, PolicySpec, PolicyState, Start, StartKind, SystemView};

pub struct Fpfs {
    max_jumps: MaxJumps,
    placement: Box<dyn Placement>,
    spec: PolicySpec,
    /// The head job (by arrival sequence) and how often it has been jumped.
    head: Option<(u64, u32)>,
    free: Vec<u32>,
    /// Which queue positions started in the current pass (kept between
    /// passes to save the allocation).
    started: Vec<bool>,
}

impl Fpfs {
    pub fn new(max_jumps: MaxJumps, placement: Box<dyn Placement>, spec: PolicySpec) -> Fpfs {
        Fpfs {
            max_jumps,
            placement,
            spec,
            head: None,
            free: Vec::new(),
            started: Vec::new(),
        }
    }

    fn jumps_of(&self, arrival: u64) -> u32 {
        match self.head {
            Some((a, j)) if a == arrival => j,
            _ => 0,
        }
    }
}

impl Policy for Fpfs {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn fits_now(&self, widths: &[u32], free: &[u32]) -> bool {
        self.placement.place(widths, free).is_some()
    }

    fn aborts(&mut self, view: &SystemView<'_>, out: &mut Vec<crate::sched::Abort>) {
        let state = self.state(view);
        super::backfill::aborts_for_head(view, &state, &|w, f| self.fits_now(w, f), out);
    }

    fn recheck_at(&self, view: &SystemView<'_>) -> Option<crate::model::SimTime> {
        super::backfill::recheck_for_head(view, &self.state(view), &|w, f| self.fits_now(w, f))
    }

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.free.clear();
        self.free.extend_from_slice(view.free);
        // Index of the current head among `view.queue`; jobs before it have
        // started in this pass.
        let mut head_idx = 0;
        let mut started = std::mem::take(&mut self.started);
        started.clear();
        started.resize(view.queue.len(), false);
        let mut i = 0;
        while i < view.queue.len() {
            if started[i] {
                i += 1;
                continue;
            }
            let key = view.queue[i];
            let job = view.job(key);
            let is_head = i == head_idx;
            if !is_head {
                let head = view.job(view.queue[head_idx]);
                if !self.max_jumps.allows(self.jumps_of(head.arrival)) {
                    break;
                }
            }
            if let Some(assignment) = self.placement.place(&job.widths(view.platform), &self.free) {
                for &(c, w) in &assignment {
                    self.free[c as usize] -= w;
                }
                started[i] = true;
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
                    // The next job not yet started becomes the head.
                    head_idx = i + 1;
                    while head_idx < view.queue.len() && started[head_idx] {
                        head_idx += 1;
                    }
                    self.head = None;
                } else {
                    let head = view.job(view.queue[head_idx]);
                    let j = self.jumps_of(head.arrival) + 1;
                    self.head = Some((head.arrival, j));
                }
            }
            i += 1;
        }
        self.started = started;
        if let Some(&k) = view.queue.get(head_idx) {
            let a = view.job(k).arrival;
            if self.head.map(|(h, _)| h) != Some(a) {
                self.head = Some((a, 0));
            }
        } else {
            self.head = None;
        }
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        match view.queue.first() {
            Some(&k) => {
                let job = view.job(k);
                PolicyState::Fpfs {
                    head: job.id,
                    jumps: self.jumps_of(job.arrival),
                    max_jumps: self.max_jumps,
                }
            }
            None => PolicyState::Idle,
        }
    }
}
