//! The jobs the policy runs: starting them on their processors, and
//! reading them back from the view at each decision to find the
//! processors freed since the last one.

use super::{Entry, Exec, Grid, Held, Parts, Run};
use crate::model::ClusterIdx;
use crate::sched::rate::expected_span;
use crate::sched::{JobKey, JobState, Start, StartKind, SystemView};

impl Grid {
    /// Starts a local job now on processor `p` of `site`.
    pub(super) fn run_local(
        &mut self,
        view: &SystemView<'_>,
        key: JobKey,
        site: usize,
        p: u32,
        kind: StartKind,
        out: &mut Vec<Start>,
    ) {
        self.run_on(view, key, vec![(site, vec![p])], kind, out);
    }

    /// Starts a gang now on these processors per site (one site, or split).
    pub(super) fn run_gang(
        &mut self,
        view: &SystemView<'_>,
        key: JobKey,
        parts: Parts,
        out: &mut Vec<Start>,
    ) {
        self.run_on(view, key, parts, StartKind::Head, out);
    }

    /// Starts a job now on these processors per site, each held until its
    /// planned end.
    fn run_on(
        &mut self,
        view: &SystemView<'_>,
        key: JobKey,
        parts: Parts,
        kind: StartKind,
        out: &mut Vec<Start>,
    ) {
        let j = view.job(key);
        let assignment: Vec<(ClusterIdx, u32)> = parts
            .iter()
            .map(|(s, ps)| (*s as ClusterIdx, ps.len() as u32))
            .collect();
        let planned_end = view.now + expected_span(view.platform, j.estimate, &assignment);
        for (s, ps) in &parts {
            for &p in ps {
                self.sites[*s][p as usize].exec = Some(Exec {
                    key,
                    arrival: j.arrival,
                    planned_end,
                });
                self.busy[*s] += 1;
            }
        }
        let held = match parts.as_slice() {
            [(s, ps)] if ps.len() == 1 => Held::One(*s, ps[0]),
            _ => Held::Parts(parts.clone()),
        };
        self.runs.push(Run {
            key,
            arrival: j.arrival,
            held,
        });
        out.push(Start {
            job: key,
            assignment,
            kind,
            processors: Some(parts.into_iter().map(|(_, ps)| ps).collect()),
            processes: None,
        });
    }

    /// Reads the running jobs back from the view: processors whose job has
    /// left are `freed` (in site and processor order); processors a job
    /// runs on that the policy did not start (another policy's, before a
    /// switch) are taken as busy; a job the policy started that is still
    /// queued (the engine refused the start, or put it back) goes to
    /// `retry`, to be placed again.
    ///
    /// Only the jobs the policy runs are looked at, and only until those
    /// that left are found. When the rest are as many as the view's running
    /// jobs and every site has as many busy processors as the view says,
    /// the two agree; otherwise (the first decision on a platform another
    /// policy left running, a job whose processors changed under it) every
    /// processor and every running job is read back ([`Grid::read_back`]).
    pub(super) fn sync(
        &mut self,
        view: &SystemView<'_>,
        freed: &mut Vec<(usize, usize)>,
        retry: &mut Vec<JobKey>,
    ) {
        // Every running job is one of `runs` (jobs start only by a policy's
        // decisions, and `read_back` took over those of another policy):
        // as many of `runs` have left as there are more of them than
        // running jobs, and the walk stops once it has found them.
        let mut left = self.runs.len().saturating_sub(view.running.len());
        let mut i = 0;
        while left > 0 && i < self.runs.len() {
            let r = &self.runs[i];
            let j = view.jobs.get(r.key.0).filter(|j| j.arrival == r.arrival);
            if j.is_some_and(|j| j.state == JobState::Running) {
                i += 1;
                continue;
            }
            if j.is_some_and(|j| j.state == JobState::Queued) && !retry.contains(&r.key) {
                retry.push(r.key);
            }
            left -= 1;
            let r = self.runs.swap_remove(i);
            let (sites, busy) = (&mut self.sites, &mut self.busy);
            r.held.each(|s, p| {
                let pr = &mut sites[s][p as usize];
                if pr
                    .exec
                    .is_some_and(|e| e.key == r.key && e.arrival == r.arrival)
                {
                    pr.exec = None;
                    busy[s] -= 1;
                    freed.push((s, p as usize));
                }
            });
        }
        let agree = self.runs.len() == view.running.len()
            && self.sites.iter().enumerate().all(|(s, site)| {
                view.free
                    .get(s)
                    .map(|&f| f as usize + self.busy[s] as usize)
                    == Some(site.len())
            });
        if agree {
            #[cfg(debug_assertions)]
            self.check_agrees(view);
        } else {
            self.read_back(view, freed, retry);
        }
        freed.sort_unstable();
    }

    /// What [`Grid::sync`]'s short way concludes, checked the long way: the
    /// processors the policy takes as busy are those the running jobs hold.
    #[cfg(debug_assertions)]
    fn check_agrees(&self, view: &SystemView<'_>) {
        let mut held = 0;
        for &k in view.running {
            let j = view.job(k);
            for (&(c, _), ps) in j.assignment.iter().zip(&j.processors) {
                for &p in ps {
                    let e = self.sites[c as usize][p as usize].exec;
                    debug_assert!(
                        e.is_some_and(|e| e.key == k && e.arrival == j.arrival),
                        "processor {p} of site {c} runs job {} unseen",
                        j.id
                    );
                    held += 1;
                }
            }
        }
        let busy: usize = self
            .sites
            .iter()
            .flatten()
            .filter(|p| p.exec.is_some())
            .count();
        debug_assert_eq!(busy, held, "a processor is taken as busy that no job holds");
    }

    /// [`Grid::sync`] the long way: every processor and every running job.
    fn read_back(
        &mut self,
        view: &SystemView<'_>,
        freed: &mut Vec<(usize, usize)>,
        retry: &mut Vec<JobKey>,
    ) {
        self.long_reads += 1;
        self.free_every_left(view, freed, retry);
        self.take_over_running(view);
        for (s, site) in self.sites.iter().enumerate() {
            self.busy[s] = site.iter().filter(|p| p.exec.is_some()).count() as u32;
        }
    }

    /// Every processor whose job is no longer running is `freed`; a job
    /// still queued goes to `retry`.
    fn free_every_left(
        &mut self,
        view: &SystemView<'_>,
        freed: &mut Vec<(usize, usize)>,
        retry: &mut Vec<JobKey>,
    ) {
        for (s, site) in self.sites.iter_mut().enumerate() {
            for (p, pr) in site.iter_mut().enumerate() {
                let Some(e) = pr.exec else { continue };
                let j = view.jobs.get(e.key.0).filter(|j| j.arrival == e.arrival);
                if j.is_some_and(|j| j.state == JobState::Running) {
                    continue;
                }
                if j.is_some_and(|j| j.state == JobState::Queued) && !retry.contains(&e.key) {
                    retry.push(e.key);
                }
                pr.exec = None;
                freed.push((s, p));
            }
        }
    }

    /// The running jobs become the policy's `runs`, each holding the
    /// processors the view says it runs on (a job another policy started
    /// is taken over until its estimated end).
    fn take_over_running(&mut self, view: &SystemView<'_>) {
        self.runs.clear();
        for &k in view.running {
            let j = view.job(k);
            let mut parts: Parts = Vec::new();
            for (&(c, _), ps) in j.assignment.iter().zip(&j.processors) {
                let Some(site) = self.sites.get_mut(c as usize) else {
                    continue;
                };
                let mut held = Vec::new();
                for &p in ps {
                    let Some(pr) = site.get_mut(p as usize) else {
                        continue;
                    };
                    if pr.exec.is_none_or(|e| e.key != k || e.arrival != j.arrival) {
                        pr.exec = Some(Exec {
                            key: k,
                            arrival: j.arrival,
                            planned_end: j.estimated_end,
                        });
                    }
                    held.push(p);
                }
                parts.push((c as usize, held));
            }
            self.runs.push(Run {
                key: k,
                arrival: j.arrival,
                held: Held::Parts(parts),
            });
        }
    }

    /// Queued jobs the policy holds nowhere (back in the queue after an
    /// abort, or left by a refused start).
    pub(super) fn untracked(&self, view: &SystemView<'_>) -> Vec<JobKey> {
        let mut held = std::collections::HashSet::new();
        for site in &self.sites {
            for pr in site {
                for e in &pr.queue {
                    let (Entry::Local(k) | Entry::Gang(k)) = *e;
                    held.insert(view.job(k).arrival);
                }
            }
        }
        for &k in &self.grid_queue {
            held.insert(view.job(k).arrival);
        }
        view.queue
            .iter()
            .copied()
            .filter(|&k| {
                let a = view.job(k).arrival;
                a < self.seen && !held.contains(&a)
            })
            .collect()
    }
}
