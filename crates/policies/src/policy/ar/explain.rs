//! Why a job waits or starts under AR, in words for the console.

use super::Ar;
use crate::policy::SystemView;
use crate::sched::explain;
use crate::sched::{Explanation, JobKey};

impl Ar {
    /// The pass run on a copy: a job starts if the copy starts it; else a
    /// reservation holds it, or (a graph) it waits for the next request,
    /// or (an independent job) it finds no processors free and unreserved.
    pub(super) fn explanation(&self, view: &SystemView<'_>, key: JobKey) -> Explanation {
        let mut pass = self.clone();
        let mut starts = Vec::new();
        pass.starts(view, &mut starts);
        let job = view.job(key);
        if let Some(s) = starts.iter().find(|s| s.job == key) {
            let procs = s.processors.as_ref().and_then(|p| p.first());
            let on = procs.map_or_else(String::new, |p| format!(" on {}", processor_list(p)));

            return Explanation::starts(if pass.planned(job.id) {
                format!("its slot in a reservation has come{on}")
            } else {
                format!(
                    "{} around the reservations starts it{on}",
                    if self.easy {
                        "EASY backfilling"
                    } else {
                        "FCFS"
                    }
                )
            });
        }
        for p in &pass.plans {
            if let Some((_, at, procs)) = p.entries.iter().find(|e| e.0 == job.id) {
                return Explanation::waits(format!(
                    "A reservation holds it: it starts at {} on {} (the reservation runs from {} to {}{}).",
                    explain::ahead(view.now, *at),
                    processor_list(procs),
                    explain::ahead(view.now, p.start),
                    explain::ahead(view.now, p.finish),
                    if p.granted { "" } else { ", asked for" }
                ));
            }
        }
        let (graphs, jobs) = pass.waiting(view);
        if let Some(i) = graphs.iter().position(|&k| k == key) {
            let next = pass.next_tick.max(view.now);
            return Explanation::waits(format!(
                "A task graph waiting for a reservation: requests go out every {} (the next at {}), each for up to {} waiting graphs of the oldest one's family; {} graph{} wait{} before it.",
                explain::span(self.interval),
                explain::ahead(view.now, next),
                self.group,
                i,
                if i == 1 { "" } else { "s" },
                if i == 1 { "s" } else { "" },
            ));
        }
        let Some(i) = jobs.iter().position(|&k| k == key) else {
            return explain::generic(view, key);
        };
        let end = view.now.saturating_add(job.estimate);
        let mut taken: Vec<bool> = Ar::busy_until(view).iter().map(Option::is_some).collect();
        for s in &starts {
            for &p in s.processors.iter().flatten().flatten() {
                taken[p as usize] = true;
            }
        }
        let open = (0..taken.len() as u32)
            .filter(|&p| {
                !taken[p as usize]
                    && !view
                        .reservations
                        .iter()
                        .any(|r| r.covers(0, p, view.now, end))
            })
            .count();
        let first = jobs
            .iter()
            .find(|&&k| starts.iter().all(|s| s.job != k))
            .copied();
        if !self.easy && i > 0 && first != Some(key) {
            let head = first.map_or(0, |k| view.job(k).id);
            return Explanation::waits(format!(
                "FCFS keeps the independent jobs in order: it waits behind job {head}, which does not fit around the reservations."
            ));
        }
        Explanation::waits(format!(
            "An independent job, {} around the reservations: it needs {} processors free from now to its estimated end {}, and {open} are (the rest run jobs or are reserved for task graphs){}.",
            if self.easy {
                "EASY backfilling"
            } else {
                "FCFS"
            },
            job.size,
            explain::ahead(view.now, end),
            if self.easy && first != Some(key) {
                format!(
                    ", or it would delay job {}, the first independent job waiting",
                    first.map_or(0, |k| view.job(k).id)
                )
            } else {
                String::new()
            }
        ))
    }
}

/// Processors as ranges: `processors 0-3, 7`, `processor 5`.
fn processor_list(procs: &[u32]) -> String {
    let word = if procs.len() == 1 {
        "processor"
    } else {
        "processors"
    };
    format!("{word} {}", processor_ranges(procs))
}

fn processor_ranges(procs: &[u32]) -> String {
    let mut sorted = procs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    explain::runs(&sorted, ", ")
}
