//! Local jobs and the processors' queues: where a local job goes, how long
//! it may delay a gang waiting at a queue's head, and what a processor
//! starts when its job leaves.

use super::{ElapsedReading, Entry, Exec, Grid, Proc};
use crate::model::SimTime;
use crate::sched::{JobKey, JobState, Start, StartKind, SystemView};
use rand::RngExt;

impl Grid {
    /// When the job on a processor ends, as the rules let the policy know.
    fn end_of(&self, view: &SystemView<'_>, e: &Exec) -> SimTime {
        match view.jobs.get(e.key.0) {
            Some(j) if j.arrival == e.arrival && j.state == JobState::Running => {
                match self.rules.elapsed {
                    ElapsedReading::Exact => j.known_end.unwrap_or(e.planned_end),
                    ElapsedReading::Estimated => j.estimated_end,
                }
            }
            _ => e.planned_end,
        }
    }

    /// The time until a dispatched gang's processors are all idle.
    fn elapsed(&self, view: &SystemView<'_>, g: usize) -> SimTime {
        let d = &self.dispatched[g];
        d.parts
            .iter()
            .flat_map(|(s, ps)| ps.iter().map(move |&p| (*s, p)))
            .filter_map(|(s, p)| self.sites[s][p as usize].exec.as_ref())
            .map(|e| self.end_of(view, e).max(view.now) - view.now)
            .max()
            .unwrap_or(SimTime::ZERO)
    }

    /// [`Grid::elapsed`] of the dispatched gang `g` while the freed
    /// processors advance, kept until a job starts (`starts`: the count of
    /// the pass's starts now; see `ElapsedMemo`).
    fn elapsed_while_none_start(
        &mut self,
        view: &SystemView<'_>,
        g: usize,
        starts: usize,
    ) -> SimTime {
        let key = self.dispatched[g].key;
        let memo = &mut self.elapsed_memo;
        if memo.starts != Some(starts) {
            memo.starts = Some(starts);
            memo.gangs.clear();
        }
        if let Some(&(_, e)) = memo.gangs.iter().find(|(k, _)| *k == key) {
            debug_assert_eq!(e, self.elapsed(view, g), "a kept elapsed time went stale");
            return e;
        }
        let e = self.elapsed(view, g);
        self.elapsed_memo.gangs.push((key, e));
        e
    }

    /// T, the `threshold` reading: how long a local job may delay a gang.
    fn threshold(&self) -> SimTime {
        SimTime::from_secs_f64(self.rules.threshold)
    }

    /// The longest estimate a local job may have to start now ahead of
    /// the dispatched gang `key`: the time until the gang can start + T.
    /// A local job may start now on an idle processor whose queue is empty
    /// or headed by a gang whose limit its estimate does not pass.
    fn gang_limit(&self, view: &SystemView<'_>, key: JobKey) -> SimTime {
        self.elapsed(view, self.dispatched_index(key)) + self.threshold()
    }

    /// An index below `n` (at least 1) drawn at random; no draw when there
    /// is one to choose.
    fn random_index(&mut self, n: usize) -> usize {
        if n == 1 {
            0
        } else {
            self.rng().random_range(0..n)
        }
    }

    /// A local job arrives at its site: it starts on a processor where it
    /// can start now, chosen at random among them, else joins the shortest
    /// queue (random among equals).
    pub(super) fn local_arrives(
        &mut self,
        view: &SystemView<'_>,
        key: JobKey,
        site: usize,
        out: &mut Vec<Start>,
    ) {
        let est = view.job(key).estimate;
        let mut now = std::mem::take(&mut self.scratch);
        now.clear();
        self.can_start_now(view, site, est, &mut now);
        if !now.is_empty() {
            let i = self.random_index(now.len());
            let p = now[i];
            self.scratch = now;
            let kind = if self.sites[site][p as usize].queue.is_empty() {
                StartKind::Head
            } else {
                StartKind::Ahead
            };
            self.run_local(view, key, site, p, kind, out);
            return;
        }
        self.shortest_queues(site, &mut now);
        let i = self.random_index(now.len());
        let p = now[i] as usize;
        self.scratch = now;
        self.sites[site][p].queue.push_back(Entry::Local(key));
    }

    /// The processors of `site` on which a local job of estimate `est` can
    /// start now, lowest first, into `now`: idle, their queue empty or
    /// headed by a gang whose limit `est` does not pass.
    fn can_start_now(&self, view: &SystemView<'_>, site: usize, est: SimTime, now: &mut Vec<u32>) {
        // The limit of a gang heading several idle queues is worked out
        // once (the processors of one gang come one after another).
        let mut limit: Option<(JobKey, SimTime)> = None;
        for p in 0..self.sites[site].len() {
            let pr = &self.sites[site][p];
            if pr.exec.is_some() {
                continue;
            }
            let ok = match pr.queue.front() {
                None => true,
                Some(&Entry::Gang(k)) => {
                    let l = match limit {
                        Some((g, l)) if g == k => l,
                        _ => {
                            let l = self.gang_limit(view, k);
                            limit = Some((k, l));
                            l
                        }
                    };
                    est <= l
                }
                Some(Entry::Local(_)) => false,
            };
            if ok {
                now.push(p as u32);
            }
        }
    }

    /// The processors of `site` with the shortest queue (the job in
    /// service counts), lowest first, into `least`.
    fn shortest_queues(&self, site: usize, least: &mut Vec<u32>) {
        let n = self.sites[site].len();
        let load = |pr: &Proc| pr.queue.len() + pr.exec.is_some() as usize;
        let min = self.sites[site].iter().map(load).min().unwrap_or(0);
        least.extend((0..n as u32).filter(|&p| load(&self.sites[site][p as usize]) == min));
    }

    /// A processor with nothing running: its head starts, or a gang at the
    /// head starts if all its processors are idle, or a later local job
    /// backfills.
    pub(super) fn advance(
        &mut self,
        view: &SystemView<'_>,
        site: usize,
        p: usize,
        out: &mut Vec<Start>,
    ) {
        if self.sites[site][p].exec.is_some() {
            return;
        }
        match self.sites[site][p].queue.front().copied() {
            None => {}
            Some(Entry::Local(k)) => {
                self.sites[site][p].queue.pop_front();
                self.run_local(view, k, site, p as u32, StartKind::Head, out);
            }
            Some(Entry::Gang(k)) => self.advance_gang(view, site, p, k, out),
        }
    }

    /// [`Grid::advance`] for a processor whose queue the gang `k` heads: the
    /// gang starts if all its processors are free, else the first later
    /// local job within the gang's limit backfills.
    fn advance_gang(
        &mut self,
        view: &SystemView<'_>,
        site: usize,
        p: usize,
        k: JobKey,
        out: &mut Vec<Start>,
    ) {
        let g = self.dispatched_index(k);
        if self.all_free(&self.dispatched[g].parts) {
            let d = self.dispatched.remove(g);
            for (s, ps) in &d.parts {
                for &q in ps {
                    let front = self.sites[*s][q as usize].queue.pop_front();
                    debug_assert_eq!(front, Some(Entry::Gang(k)), "a gang heads its queues");
                }
            }
            self.run_gang(view, k, d.parts, out);
            return;
        }
        let limit = self.elapsed_while_none_start(view, g, out.len()) + self.threshold();
        let found = self.sites[site][p]
            .queue
            .iter()
            .enumerate()
            .skip(1)
            .find_map(|(i, e)| match *e {
                Entry::Local(l) if view.job(l).estimate <= limit => Some((i, l)),
                _ => None,
            });
        if let Some((i, l)) = found {
            self.sites[site][p].queue.remove(i);
            self.run_local(view, l, site, p as u32, StartKind::Ahead, out);
        }
    }
}
