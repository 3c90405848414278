//! Why a job waits on the grid: where the grid's queues hold it after a
//! decision point run on a copy of the policy.

use super::{Entry, Grid, IdleReading};
use crate::sched::explain::{self, ordinal};
use crate::sched::{Explanation, JobKey, Start, SystemView};

impl Grid {
    /// Why `key` starts or waits, the decision point just run on `self`
    /// (a copy) having started `starts`.
    pub(super) fn explain_after(
        &self,
        view: &SystemView<'_>,
        key: JobKey,
        starts: &[Start],
    ) -> Explanation {
        let site_name = |s: usize| view.platform.clusters[s].name.clone();
        if let Some(s) = starts.iter().find(|s| s.job == key) {
            let how = if view.job(key).size == 1 {
                "a processor of its site can take it now"
            } else if s.assignment.len() > 1 {
                "its tasks start now, split over sites"
            } else {
                "its tasks start now"
            };
            return Explanation::starts(format!(
                "{how}: {}",
                explain::on_clusters(view, &s.assignment)
            ));
        }
        let job = view.job(key);
        let idle_word = match self.rules.idle {
            IdleReading::NotExecuting => "idle",
            IdleReading::Unclaimed => "idle and unclaimed",
        };
        let idle: Vec<usize> = (0..self.sites.len()).map(|s| self.count_idle(s)).collect();
        let empty: Vec<usize> = (0..self.sites.len()).map(|s| self.count_empty(s)).collect();
        let list = |v: &[usize]| {
            let parts: Vec<String> = v
                .iter()
                .enumerate()
                .map(|(s, n)| format!("{n} on {}", site_name(s)))
                .collect();
            parts.join(", ")
        };
        if let Some(i) = self.grid_queue.iter().position(|&k| k == key) {
            let split = if self.split {
                format!(
                    "; approach 2 would split it over the sites, but they have {} {idle_word} together",
                    idle.iter().sum::<usize>()
                )
            } else {
                String::new()
            };
            return Explanation::waits(format!(
                "A gang of {} in the grid queue ({} of {}): no site has {} processors {idle_word} ({}) or {} empty queues ({}){split}. The grid queue is searched, largest gang first, when a processor's queue empties.",
                job.size,
                ordinal(i + 1),
                self.grid_queue.len(),
                job.size,
                list(&idle),
                job.size,
                list(&empty),
            ));
        }
        if let Some(d) = self.dispatched.iter().find(|d| d.key == key) {
            let mut busy = 0;
            let mut total = 0;
            for (s, ps) in &d.parts {
                for &p in ps {
                    total += 1;
                    busy += usize::from(self.sites[*s][p as usize].exec.is_some());
                }
            }
            let sites: Vec<String> = d.parts.iter().map(|(s, _)| site_name(*s)).collect();
            return Explanation::waits(format!(
                "A gang of {}: one task waits in each of {total} processor queues of {}; it starts when all {total} of those processors are free, and {busy} still run jobs.",
                job.size,
                sites.join(" and ")
            ));
        }
        for (s, procs) in self.sites.iter().enumerate() {
            for (p, pr) in procs.iter().enumerate() {
                let Some(at) = pr.queue.iter().position(|e| *e == Entry::Local(key)) else {
                    continue;
                };
                let runs = pr
                    .exec
                    .and_then(|e| view.jobs.get(e.key.0))
                    .map_or_else(|| "nothing".to_string(), |j| format!("job {}", j.id));
                let gang_ahead = pr.queue.iter().take(at).find_map(|e| match e {
                    Entry::Gang(g) => view.jobs.get(g.0).map(|j| j.id),
                    Entry::Local(_) => None,
                });
                let ahead = match gang_ahead {
                    Some(g) => format!(
                        "; a task of gang {g} waits ahead of it, and a local job passes such a gang only if its estimate ends before the gang can start"
                    ),
                    None => String::new(),
                };
                return Explanation::waits(format!(
                    "A local job of {}: {} in the queue of processor {p}, which runs {runs}{ahead}.",
                    site_name(s),
                    ordinal(at + 1)
                ));
            }
        }
        explain::generic(view, key)
    }
}
