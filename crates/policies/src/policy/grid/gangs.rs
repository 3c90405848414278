//! Gangs: where one goes when it arrives (idle processors of a site, empty
//! queues, split over sites, or the grid queue) and the grid queue's
//! search when a processor queue is left empty.

use super::{Dispatched, Entry, Grid, Parts, WideRule};
use crate::sched::{JobKey, JobView, Start, SystemView};

impl Grid {
    /// Whether one site can hold the gang: it asks for one component, or
    /// leaves its split to the policy and is no wider than the largest site.
    pub(super) fn one_site(&self, j: &JobView) -> bool {
        match j.components.len() {
            0 => j.size as usize <= self.largest,
            1 => true,
            _ => false,
        }
    }

    /// Where a gang's tasks go given each site's available processors
    /// (`avail`): a flexible gang takes those of the site with most of them
    /// first (one part when a site suffices), a gang asking for components
    /// puts its widest on the site with most available, and so on (sorted
    /// matching: it finds a placement whenever one exists). Parts are in
    /// the order of the job's assignment; `None` if there is no room.
    fn assign(j: &JobView, avail: &[Vec<u32>]) -> Option<Parts> {
        let mut order: Vec<usize> = (0..avail.len()).collect();
        order.sort_by_key(|&s| (std::cmp::Reverse(avail[s].len()), s));
        if j.components.is_empty() {
            let n = j.size as usize;
            if avail.iter().map(|v| v.len()).sum::<usize>() < n {
                return None;
            }
            let mut left = n;
            let mut parts = Vec::new();
            for s in order {
                if left == 0 {
                    break;
                }
                let take = left.min(avail[s].len());
                if take > 0 {
                    parts.push((s, avail[s][..take].to_vec()));
                    left -= take;
                }
            }
            parts.sort_by_key(|(s, _)| *s);
            return Some(parts);
        }
        let mut comps: Vec<usize> = (0..j.components.len()).collect();
        comps.sort_by_key(|&i| (std::cmp::Reverse(j.components[i]), i));
        if comps.len() > order.len() {
            return None;
        }
        let mut parts: Vec<(usize, Vec<u32>)> = vec![(0, Vec::new()); comps.len()];
        for (&i, &s) in comps.iter().zip(&order) {
            let w = j.components[i] as usize;
            if avail[s].len() < w {
                return None;
            }
            parts[i] = (s, avail[s][..w].to_vec());
        }
        Some(parts)
    }

    /// A placement of a gang on empty queues of several sites, the queues
    /// of each site picked by the `empty_queues` rule.
    fn assign_queues(&mut self, j: &JobView) -> Option<Parts> {
        let parts = Self::assign(j, &self.empty_all())?;
        Some(
            parts
                .into_iter()
                .map(|(s, ps)| {
                    let empty = self.empty_queues(s);
                    (s, self.pick_queues(s, empty, ps.len()))
                })
                .collect(),
        )
    }

    /// Where the dispatched gang `key` is in the list of dispatched gangs.
    pub(super) fn dispatched_index(&self, key: JobKey) -> usize {
        self.dispatched
            .iter()
            .position(|d| d.key == key)
            .expect("a gang in a queue is dispatched")
    }

    /// Sends a gang's tasks to `n` empty queues of `site`.
    fn dispatch_site(
        &mut self,
        view: &SystemView<'_>,
        key: JobKey,
        site: usize,
        out: &mut Vec<Start>,
    ) {
        let n = view.job(key).size as usize;
        let empty = self.empty_queues(site);
        let procs = self.pick_queues(site, empty, n);
        self.dispatch(view, key, vec![(site, procs)], out);
    }

    /// Puts a gang's tasks on these empty queues; it starts at once if
    /// their processors are all free.
    pub(super) fn dispatch(
        &mut self,
        view: &SystemView<'_>,
        key: JobKey,
        parts: Parts,
        out: &mut Vec<Start>,
    ) {
        if self.all_free(&parts) {
            self.run_gang(view, key, parts, out);
            return;
        }
        for (s, ps) in &parts {
            for &p in ps {
                self.sites[*s][p as usize].queue.push_back(Entry::Gang(key));
            }
        }
        self.dispatched.push(Dispatched { key, parts });
    }

    /// A gang arrives at the grid scheduler.
    pub(super) fn gang_arrives(
        &mut self,
        view: &SystemView<'_>,
        key: JobKey,
        out: &mut Vec<Start>,
    ) {
        let j = view.job(key);
        let n = j.size as usize;
        if !self.one_site(j) {
            if let Some(parts) = Self::assign(j, &self.idle_all()) {
                self.run_gang(view, key, parts, out);
            } else if let Some(parts) = (self.rules.wide == WideRule::Queues)
                .then(|| self.assign_queues(j))
                .flatten()
            {
                self.dispatch(view, key, parts, out);
            } else {
                self.grid_queue.push(key);
            }
            return;
        }
        if let Some(site) = self.random_site(|g, s| g.count_idle(s) >= n) {
            let procs = self.idle_procs(site);
            let procs = procs[..n].to_vec();
            self.run_gang(view, key, vec![(site, procs)], out);
        } else if let Some(site) = self.random_site(|g, s| g.count_empty(s) >= n) {
            self.dispatch_site(view, key, site, out);
        } else if let Some(parts) = (self.split && j.components.is_empty())
            .then(|| Self::assign(j, &self.idle_all()))
            .flatten()
        {
            self.run_gang(view, key, parts, out);
        } else {
            self.grid_queue.push(key);
        }
    }

    /// The largest gang of the grid queue (oldest on ties) that passes `ok`.
    fn largest(&self, view: &SystemView<'_>, ok: impl Fn(&JobView) -> bool) -> Option<usize> {
        let mut best: Option<(u32, usize)> = None;
        for (i, &k) in self.grid_queue.iter().enumerate() {
            let j = view.job(k);
            let n = j.size;
            if best.is_none_or(|(b, _)| n > b) && ok(j) {
                best = Some((n, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// The grid queue search after a queue was left empty: step 1, then
    /// step 2, until neither places a gang.
    pub(super) fn search(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        while !self.grid_queue.is_empty() {
            if self.search_empty_queues(view, out) {
                continue;
            }
            if self.search_idle(view, out) {
                continue;
            }
            break;
        }
    }

    /// Step 1 of the search: the largest gang for which a site has enough
    /// empty queues (for a gang no site holds, under `wide = "queues"`:
    /// enough over several sites) is dispatched there. Whether one was.
    fn search_empty_queues(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) -> bool {
        // The lists are built only for a gang no site holds.
        let empty = std::cell::OnceCell::new();
        let most_empty = (0..self.sites.len())
            .map(|s| self.count_empty(s))
            .max()
            .unwrap_or(0);
        let queues_wide = self.rules.wide == WideRule::Queues;
        let step1 = self.largest(view, |j| {
            if self.one_site(j) {
                j.size as usize <= most_empty
            } else {
                queues_wide && Self::assign(j, empty.get_or_init(|| self.empty_all())).is_some()
            }
        });
        let Some(i) = step1 else {
            return false;
        };
        let key = self.grid_queue.remove(i);
        let j = view.job(key);
        if self.one_site(j) {
            let n = j.size as usize;
            let site = self
                .random_site(|g, s| g.count_empty(s) >= n)
                .expect("a site has the empty queues");
            self.dispatch_site(view, key, site, out);
        } else {
            let parts = self
                .assign_queues(j)
                .expect("the sites have the empty queues");
            self.dispatch(view, key, parts, out);
        }
        true
    }

    /// Step 2 of the search (approach 2, and any gang no site holds): the
    /// largest gang for which the sites together have enough idle
    /// processors starts on them. Whether one did.
    fn search_idle(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) -> bool {
        let idle = std::cell::OnceCell::new();
        let total: usize = (0..self.sites.len()).map(|s| self.count_idle(s)).sum();
        let step2 = self.largest(view, |j| {
            if self.one_site(j) {
                self.split && j.components.is_empty() && j.size as usize <= total
            } else {
                Self::assign(j, idle.get_or_init(|| self.idle_all())).is_some()
            }
        });
        let Some(i) = step2 else {
            return false;
        };
        let key = self.grid_queue.remove(i);
        let idle = idle.get_or_init(|| self.idle_all());
        let parts = Self::assign(view.job(key), idle).expect("enough idle processors");
        self.run_gang(view, key, parts, out);
        true
    }
}
