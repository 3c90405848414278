//! The two-site grid of Dimitriadou and Karatza: a grid scheduler above
//! sites (clusters) whose processors each serve their own FIFO queue.
//!
//! * Local jobs (one task, bound to their `home` site) go to a processor
//!   where they can start now — its queue empty, or a gang waiting at its
//!   head and the job's estimate ≤ the time until that gang can start + T
//!   — chosen at random among those; else to the shortest queue (the job in
//!   service counts; random among equals).
//! * Gangs (approach 1): a site with enough idle processors starts the
//!   gang at once (random site if both); else a site with enough empty
//!   queues gets one task per empty queue, and the gang starts when all
//!   those processors are idle; else the gang waits in the grid queue.
//!   Approach 2 adds: if the idle processors of all sites together suffice,
//!   the gang is split and starts now (the platform's `split_overhead`
//!   makes it run longer, through [`crate::sched::rate`]).
//! * When a job leaves and a queue is left empty, the grid queue is
//!   searched, largest gang first, oldest on ties: step 1, a site with
//!   enough empty queues; step 2 (approach 2), enough idle processors over
//!   all sites; repeated until nothing fits.
//! * When a processor frees and a gang heads its queue but cannot start,
//!   the first later local job in the queue meeting the same condition
//!   backfills.
//!
//! * A gang no single site can hold (wider than every site, or asking for
//!   components on several clusters: never in the paper, common on other
//!   platforms) is split over sites under both approaches, with the
//!   overhead: at once on idle processors of several sites if there are
//!   enough; else, by the `wide` rule, on empty queues of several sites
//!   (`queues`, the default: the step-1 rule over sites) or only when
//!   enough processors are idle at once (`idle`). It is never dropped.
//!
//! The policy keeps the queues itself; the engine's queue holds every job
//! not yet started, in arrival order. Running jobs are read back from the
//! view at each decision, so the policy also takes over a platform another
//! policy left running (a policy switch). Open readings are [`GridRules`].
//! A split gang takes the idle processors of the site with most of them
//! first; one that fits in one site there is not split (no overhead).

pub use super::grid_rules::{ElapsedReading, GridRules, IdleReading, QueuePick, WideRule};
use super::grid_view::{GridProcView, GridStateView};
use super::{JobKey, Phased, PolicySpec, PolicyState, Start, StartKind, SystemView};
use crate::model::rng::stream_number;
use crate::model::{ClusterIdx, SimTime};
use crate::sched::rate::expected_span;
use crate::sched::{Abort, JobState, JobView, PolicyName};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// An entry of a processor's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Local(JobKey),
    /// A task of a gang dispatched to this site (always at the head).
    Gang(JobKey),
}

/// The job a processor runs: its slot, arrival and end as planned when it
/// started (estimate at its rate), for jobs the engine does not show yet.
#[derive(Clone, Copy, Debug)]
struct Exec {
    key: JobKey,
    arrival: u64,
    planned_end: SimTime,
}

#[derive(Clone, Debug, Default)]
struct Proc {
    exec: Option<Exec>,
    queue: VecDeque<Entry>,
}

/// Processors per site, in the order of a job's assignment.
type Parts = Vec<(usize, Vec<u32>)>;

/// A job the policy runs (started, or taken over from the platform), and
/// the processors it holds.
#[derive(Clone, Debug)]
struct Run {
    key: JobKey,
    arrival: u64,
    held: Held,
}

#[derive(Clone, Debug)]
enum Held {
    /// One processor of a site (a local job: no allocation).
    One(usize, u32),
    Parts(Parts),
}

impl Held {
    fn each(&self, mut f: impl FnMut(usize, u32)) {
        match self {
            Held::One(s, p) => f(*s, *p),
            Held::Parts(parts) => {
                for (s, ps) in parts {
                    for &p in ps {
                        f(*s, p);
                    }
                }
            }
        }
    }
}

/// A gang dispatched to empty queues (of one site, or of several for a
/// gang no site holds), waiting for their processors.
#[derive(Clone, Debug)]
struct Dispatched {
    key: JobKey,
    parts: Parts,
}

pub struct Grid {
    spec: PolicySpec,
    split: bool,
    rules: GridRules,
    sites: Vec<Vec<Proc>>,
    /// Gangs in the grid queue, in arrival order.
    grid_queue: Vec<JobKey>,
    dispatched: Vec<Dispatched>,
    /// The first arrival number not yet seen.
    seen: u64,
    /// The view's `queue_edits` at the last decision: when it moves, a job
    /// may be back in the queue and the queue is read again whole.
    edits: u64,
    /// Processors in the largest site.
    largest: usize,
    rng: Option<ChaCha8Rng>,
    /// Reused for the candidate processors of a local job.
    scratch: Vec<u32>,
    /// The running jobs the policy knows of, so that a decision looks only
    /// at them to find the processors freed since the last one.
    runs: Vec<Run>,
    /// Processors per site with a running job, as the policy sees them.
    busy: Vec<u32>,
    /// Decisions that read every processor back ([`Grid::read_back`]):
    /// the first after a switch to this policy, and one after anything
    /// that changed a running job under it; none in a run it alone
    /// schedules, where the short way of [`Grid::sync`] suffices.
    long_reads: u64,
}

impl Grid {
    pub fn new(spec: PolicySpec) -> Grid {
        Grid {
            split: spec.name == PolicyName::Grid2,
            rules: GridRules::from_spec(&spec),
            spec,
            sites: Vec::new(),
            grid_queue: Vec::new(),
            dispatched: Vec::new(),
            seen: 0,
            edits: 0,
            largest: 0,
            rng: None,
            scratch: Vec::new(),
            runs: Vec::new(),
            busy: Vec::new(),
            long_reads: 0,
        }
    }

    fn rng(&mut self) -> &mut ChaCha8Rng {
        self.rng.as_mut().expect("seeded at the first decision")
    }

    fn idle(&self, site: usize, p: usize) -> bool {
        let pr = &self.sites[site][p];
        pr.exec.is_none() && (self.rules.idle == IdleReading::NotExecuting || pr.queue.is_empty())
    }

    fn idle_procs(&self, site: usize) -> Vec<u32> {
        (0..self.sites[site].len())
            .filter(|&p| self.idle(site, p))
            .map(|p| p as u32)
            .collect()
    }

    fn empty_queues(&self, site: usize) -> Vec<u32> {
        (0..self.sites[site].len())
            .filter(|&p| self.sites[site][p].queue.is_empty())
            .map(|p| p as u32)
            .collect()
    }

    fn count_idle(&self, site: usize) -> usize {
        (0..self.sites[site].len())
            .filter(|&p| self.idle(site, p))
            .count()
    }

    fn count_empty(&self, site: usize) -> usize {
        self.sites[site]
            .iter()
            .filter(|p| p.queue.is_empty())
            .count()
    }

    /// Idle processors of every site.
    fn idle_all(&self) -> Vec<Vec<u32>> {
        (0..self.sites.len()).map(|s| self.idle_procs(s)).collect()
    }

    /// Empty queues of every site.
    fn empty_all(&self) -> Vec<Vec<u32>> {
        (0..self.sites.len())
            .map(|s| self.empty_queues(s))
            .collect()
    }

    /// Whether one site can hold the gang: it asks for one component, or
    /// leaves its split to the policy and is no wider than the largest site.
    fn one_site(&self, j: &JobView) -> bool {
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

    /// Whether every processor of these parts is free of a running job.
    fn all_free(&self, parts: &Parts) -> bool {
        parts.iter().all(|(s, ps)| {
            ps.iter()
                .all(|&p| self.sites[*s][p as usize].exec.is_none())
        })
    }

    fn threshold(&self) -> SimTime {
        SimTime::from_secs_f64(self.rules.threshold)
    }

    fn dispatched_index(&self, key: JobKey) -> usize {
        self.dispatched
            .iter()
            .position(|d| d.key == key)
            .expect("a gang in a queue is dispatched")
    }

    /// The longest estimate a local job may have to start now ahead of
    /// the dispatched gang `key`: the time until the gang can start + T.
    /// A local job may start now on an idle processor whose queue is empty
    /// or headed by a gang whose limit its estimate does not pass.
    fn gang_limit(&self, view: &SystemView<'_>, key: JobKey) -> SimTime {
        self.elapsed(view, self.dispatched_index(key)) + self.threshold()
    }

    fn run_local(
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
    fn run_gang(
        &mut self,
        view: &SystemView<'_>,
        key: JobKey,
        parts: Vec<(usize, Vec<u32>)>,
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
        parts: Vec<(usize, Vec<u32>)>,
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

    /// Picks `n` of the empty queues `empty` of `site`.
    fn pick_queues(&mut self, site: usize, mut empty: Vec<u32>, n: usize) -> Vec<u32> {
        match self.rules.empty_queues {
            QueuePick::Lowest => {}
            QueuePick::IdleFirst => {
                let s = &self.sites[site];
                empty.sort_by_key(|&p| (s[p as usize].exec.is_some(), p));
            }
            QueuePick::Random => {
                // A partial Fisher–Yates shuffle.
                let rng = self.rng();
                for i in 0..n.min(empty.len()) {
                    let j = rng.random_range(i..empty.len());
                    empty.swap(i, j);
                }
            }
        }
        empty.truncate(n);
        empty.sort_unstable();
        empty
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
    fn dispatch(&mut self, view: &SystemView<'_>, key: JobKey, parts: Parts, out: &mut Vec<Start>) {
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

    /// A site chosen at random among those that pass `ok`.
    fn random_site(&mut self, ok: impl Fn(&Grid, usize) -> bool) -> Option<usize> {
        let mut n = 0;
        let mut first = None;
        for s in 0..self.sites.len() {
            if ok(self, s) {
                n += 1;
                first = first.or(Some(s));
            }
        }
        match n {
            0 => None,
            1 => first,
            n => {
                let i = self.rng().random_range(0..n);
                (0..self.sites.len()).filter(|&s| ok(self, s)).nth(i)
            }
        }
    }

    /// A gang arrives at the grid scheduler.
    fn gang_arrives(&mut self, view: &SystemView<'_>, key: JobKey, out: &mut Vec<Start>) {
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

    /// A local job arrives at its site.
    fn local_arrives(
        &mut self,
        view: &SystemView<'_>,
        key: JobKey,
        site: usize,
        out: &mut Vec<Start>,
    ) {
        let est = view.job(key).estimate;
        let n = self.sites[site].len();
        let mut now = std::mem::take(&mut self.scratch);
        now.clear();
        // The limit of a gang heading several idle queues is worked out
        // once (the processors of one gang come one after another).
        let mut limit: Option<(JobKey, SimTime)> = None;
        for p in 0..n {
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
        if !now.is_empty() {
            let i = if now.len() == 1 {
                0
            } else {
                self.rng().random_range(0..now.len())
            };
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
        let load = |pr: &Proc| pr.queue.len() + pr.exec.is_some() as usize;
        let least = self.sites[site].iter().map(load).min().unwrap_or(0);
        now.extend((0..n as u32).filter(|&p| load(&self.sites[site][p as usize]) == least));
        let i = if now.len() == 1 {
            0
        } else {
            self.rng().random_range(0..now.len())
        };
        let p = now[i] as usize;
        self.scratch = now;
        self.sites[site][p].queue.push_back(Entry::Local(key));
    }

    /// A processor with nothing running: its head starts, or a gang at the
    /// head starts if all its processors are idle, or a later local job
    /// backfills.
    fn advance(&mut self, view: &SystemView<'_>, site: usize, p: usize, out: &mut Vec<Start>) {
        if self.sites[site][p].exec.is_some() {
            return;
        }
        match self.sites[site][p].queue.front().copied() {
            None => {}
            Some(Entry::Local(k)) => {
                self.sites[site][p].queue.pop_front();
                self.run_local(view, k, site, p as u32, StartKind::Head, out);
            }
            Some(Entry::Gang(k)) => {
                let g = self.dispatched_index(k);
                if self.all_free(&self.dispatched[g].parts) {
                    let d = self.dispatched.remove(g);
                    for (s, ps) in &d.parts {
                        for &q in ps {
                            let front = self.sites[*s][q as usize].queue.pop_front();
                            debug_assert_eq!(
                                front,
                                Some(Entry::Gang(k)),
                                "a gang heads its queues"
                            );
                        }
                    }
                    self.run_gang(view, k, d.parts, out);
                    return;
                }
                let limit = self.elapsed(view, g) + self.threshold();
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

    /// The grid queue search after a queue was left empty.
    fn search(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        while !self.grid_queue.is_empty() {
            // Step 1: a site with enough empty queues (for a gang no site
            // holds, under `wide = "queues"`: enough over several sites).
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
            if let Some(i) = step1 {
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
                continue;
            }
            // Step 2 (approach 2, and any gang no site holds): enough idle
            // processors over the sites.
            let idle = std::cell::OnceCell::new();
            let total: usize = (0..self.sites.len()).map(|s| self.count_idle(s)).sum();
            let step2 = self.largest(view, |j| {
                if self.one_site(j) {
                    self.split && j.components.is_empty() && j.size as usize <= total
                } else {
                    Self::assign(j, idle.get_or_init(|| self.idle_all())).is_some()
                }
            });
            if let Some(i) = step2 {
                let key = self.grid_queue.remove(i);
                let idle = idle.get_or_init(|| self.idle_all());
                let parts = Self::assign(view.job(key), idle).expect("enough idle processors");
                self.run_gang(view, key, parts, out);
                continue;
            }
            break;
        }
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
    fn sync(
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
        for (s, site) in self.sites.iter().enumerate() {
            self.busy[s] = site.iter().filter(|p| p.exec.is_some()).count() as u32;
        }
    }

    /// Queued jobs the policy holds nowhere (back in the queue after an
    /// abort, or left by a refused start).
    fn untracked(&self, view: &SystemView<'_>) -> Vec<JobKey> {
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

    /// A job comes to the grid: a local job to its site, a gang to the
    /// grid scheduler.
    fn arrives(&mut self, view: &SystemView<'_>, k: JobKey, out: &mut Vec<Start>) {
        let j = view.job(k);
        match j.home {
            Some(site) if (site as usize) < self.sites.len() && j.size == 1 => {
                self.local_arrives(view, k, site as usize, out)
            }
            _ if j.size == 1 && self.sites.len() == 1 => self.local_arrives(view, k, 0, out),
            _ => self.gang_arrives(view, k, out),
        }
    }
}

impl Phased for Grid {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn aborts(&mut self, _view: &SystemView<'_>, _out: &mut Vec<Abort>) {}

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        if self.rng.is_none() {
            self.rng = Some(stream_number(view.seed, 64));
            self.sites = view
                .platform
                .clusters
                .iter()
                .map(|c| vec![Proc::default(); c.processors as usize])
                .collect();
            self.largest = self.sites.iter().map(Vec::len).max().unwrap_or(0);
            self.busy = vec![0; self.sites.len()];
        }
        // Jobs that have left free their processors.
        let mut freed = Vec::new();
        let mut retry = Vec::new();
        self.sync(view, &mut freed, &mut retry);
        if view.queue_edits != self.edits {
            self.edits = view.queue_edits;
            for k in self.untracked(view) {
                if !retry.contains(&k) {
                    retry.push(k);
                }
            }
        }
        for &(s, p) in &freed {
            self.advance(view, s, p, out);
        }
        // Another processor of a gang may have freed first: give each freed
        // processor's gang a second look once all have been seen.
        for &(s, p) in &freed {
            if self.sites[s][p].exec.is_none() {
                self.advance(view, s, p, out);
            }
        }
        if freed
            .iter()
            .any(|&(s, p)| self.sites[s][p].queue.is_empty())
        {
            self.search(view, out);
        }
        // Jobs to place again, then new arrivals, in arrival order.
        retry.sort_by_key(|k| view.job(*k).arrival);
        for k in retry {
            self.arrives(view, k, out);
        }
        // The queue is in arrival order: the new jobs are at its end.
        let seen = self.seen;
        let mut from = view.queue.len();
        while from > 0 && view.job(view.queue[from - 1]).arrival >= seen {
            from -= 1;
        }
        for &k in &view.queue[from..] {
            self.seen = view.job(k).arrival + 1;
            self.arrives(view, k, out);
        }
    }

    fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
        None
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        let id = |k: JobKey| view.jobs.get(k.0).map_or(0, |j| j.id);
        let sites = self
            .sites
            .iter()
            .map(|s| {
                s.iter()
                    .map(|p| GridProcView {
                        running: p.exec.map(|e| id(e.key)),
                        depth: p.queue.len() as u32,
                        head: p.queue.front().map(|e| match *e {
                            Entry::Local(k) => (id(k), false),
                            Entry::Gang(k) => (id(k), true),
                        }),
                    })
                    .collect()
            })
            .collect();
        let waiting = self
            .dispatched
            .iter()
            .map(|d| {
                let a = d
                    .parts
                    .iter()
                    .map(|(s, ps)| (*s as ClusterIdx, ps.len() as u32))
                    .collect();
                (id(d.key), a)
            })
            .collect();
        let split = view
            .running
            .iter()
            .map(|&k| view.job(k))
            .filter(|j| j.assignment.len() > 1)
            .map(|j| (j.id, j.assignment.clone()))
            .collect();
        let g = GridStateView {
            sites,
            grid_queue: self
                .grid_queue
                .iter()
                .map(|&k| (id(k), view.job(k).size))
                .collect(),
            waiting,
            split,
        };
        PolicyState::new(g.panel(view.platform)).with_detail(g)
    }

    fn sees_running_ends(&self) -> bool {
        self.rules.elapsed == ElapsedReading::Exact
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Platform;
    use crate::sched::{JobState, JobView};
    use slab::Slab;

    fn view<'a>(
        platform: &'a Platform,
        free: &'a [u32],
        queue: &'a [JobKey],
        running: &'a [JobKey],
        jobs: &'a Slab<JobView>,
    ) -> SystemView<'a> {
        SystemView {
            now: SimTime::ZERO,
            platform,
            free,
            queue,
            running,
            jobs,
            queue_edits: 0,
            requeue_expired: false,
            reservations: &[],
            seed: 0,
        }
    }

    /// Read back the long way (the engine's free count disagrees with the
    /// policy's: one processor is held by something the policy did not
    /// start, such as a replaced policy's advance reservation), a running
    /// job keeps its processor and frees nothing.
    #[test]
    fn reading_back_frees_only_the_processors_of_jobs_that_left() {
        let platform = Platform::uniform(2, 4);
        let mut grid = grid1();
        let mut jobs = Slab::new();
        let local = JobKey(jobs.insert(JobView {
            id: 1,
            size: 1,
            components: vec![1],
            estimate: SimTime::from_secs(10),
            home: Some(0),
            rate: 1.0,
            ..JobView::default()
        }));
        let mut out = Vec::new();
        grid.schedule(&view(&platform, &[4, 4], &[local], &[], &jobs), &mut out);
        let [start] = out.as_slice() else {
            panic!("the local job starts at once: {out:?}")
        };
        let p = start
            .processors
            .as_ref()
            .expect("the grid picks its processor")[0][0];
        let j = &mut jobs[local.0];
        j.state = JobState::Running;
        j.assignment = start.assignment.clone();
        j.processors = vec![vec![p]];
        // Site 0 has 2 free, not 3: the two disagree and everything is
        // read back.
        let (mut freed, mut retry) = (Vec::new(), Vec::new());
        grid.sync(
            &view(&platform, &[2, 4], &[], &[local], &jobs),
            &mut freed,
            &mut retry,
        );
        assert_eq!(freed, vec![], "nothing left");
        assert_eq!(grid.long_reads, 1, "read back the long way");
        assert!(retry.is_empty());
        assert!(grid.sites[0][p as usize].exec.is_some(), "still running");
        assert_eq!(grid.busy, vec![1, 0]);
        // Once it has left (the engine drops an ended job), its processor
        // is freed.
        jobs.remove(local.0);
        grid.sync(
            &view(&platform, &[3, 4], &[], &[], &jobs),
            &mut freed,
            &mut retry,
        );
        assert_eq!(freed, vec![(0, p as usize)]);
        assert_eq!(grid.busy, vec![0, 0]);
    }

    /// Approach 1, its readings the defaults.
    fn grid1() -> Grid {
        Grid::new(PolicySpec {
            name: PolicyName::Grid1,
            ..PolicySpec::default()
        })
    }

    fn local_job(jobs: &mut Slab<JobView>, id: u64, arrival: u64) -> JobKey {
        JobKey(jobs.insert(JobView {
            id,
            arrival,
            size: 1,
            components: vec![1],
            estimate: SimTime::from_secs(10),
            home: Some(0),
            rate: 1.0,
            ..JobView::default()
        }))
    }

    /// The engine runs a started job: what the view then shows of it.
    fn mark_running(jobs: &mut Slab<JobView>, start: &Start) -> u32 {
        let p = start
            .processors
            .as_ref()
            .expect("the grid picks its processors")[0][0];
        let j = &mut jobs[start.job.0];
        j.state = JobState::Running;
        j.assignment = start.assignment.clone();
        j.processors = vec![vec![p]];
        p
    }

    /// A start the engine refused leaves the job queued: the next decision
    /// finds it among the jobs the policy runs, frees its processor and
    /// places it again. Nothing else changed, so the short way finds it
    /// (no long read); and no queue edit is needed for it to be seen.
    #[test]
    fn a_refused_start_is_placed_again_the_short_way() {
        let platform = Platform::uniform(2, 4);
        let mut grid = grid1();
        let mut jobs = Slab::new();
        let local = local_job(&mut jobs, 1, 0);
        let mut out = Vec::new();
        grid.schedule(&view(&platform, &[4, 4], &[local], &[], &jobs), &mut out);
        assert_eq!(out.len(), 1, "the local job starts at once: {out:?}");
        assert_eq!(grid.busy, vec![1, 0]);
        // Refused: still queued, nothing running, every processor free.
        out.clear();
        grid.schedule(&view(&platform, &[4, 4], &[local], &[], &jobs), &mut out);
        let [again] = out.as_slice() else {
            panic!("the refused job is started again: {out:?}")
        };
        assert_eq!(again.job, local);
        assert_eq!(again.assignment, vec![(0, 1)], "on its own site");
        assert_eq!(grid.busy, vec![1, 0], "one processor held, not two");
        assert_eq!(grid.long_reads, 0);
    }

    /// In a run the policy alone schedules, a job that ends frees its
    /// processor the short way: the walk over the policy's own running
    /// jobs finds it, the busy counts then agree with the engine's, and
    /// nothing is read back the long way, decision after decision.
    #[test]
    fn a_job_that_ends_frees_its_processor_the_short_way() {
        let platform = Platform::uniform(2, 4);
        let mut grid = grid1();
        let mut jobs = Slab::new();
        let a = local_job(&mut jobs, 1, 0);
        let b = local_job(&mut jobs, 2, 1);
        let c = local_job(&mut jobs, 3, 2);
        let mut out = Vec::new();
        grid.schedule(&view(&platform, &[4, 4], &[a, b, c], &[], &jobs), &mut out);
        assert_eq!(out.len(), 3, "all three start on site 0: {out:?}");
        let ps: Vec<u32> = out.iter().map(|s| mark_running(&mut jobs, s)).collect();
        let mut freed = Vec::new();
        let mut retry = Vec::new();
        // Nothing has left.
        grid.sync(
            &view(&platform, &[1, 4], &[], &[a, b, c], &jobs),
            &mut freed,
            &mut retry,
        );
        assert_eq!(freed, vec![]);
        assert_eq!(grid.busy, vec![3, 0]);
        // The first ends (the engine drops an ended job), then the last.
        jobs.remove(a.0);
        grid.sync(
            &view(&platform, &[2, 4], &[], &[b, c], &jobs),
            &mut freed,
            &mut retry,
        );
        assert_eq!(freed, vec![(0, ps[0] as usize)]);
        assert_eq!(grid.busy, vec![2, 0]);
        freed.clear();
        jobs.remove(c.0);
        grid.sync(
            &view(&platform, &[3, 4], &[], &[b], &jobs),
            &mut freed,
            &mut retry,
        );
        assert_eq!(freed, vec![(0, ps[2] as usize)]);
        assert_eq!(grid.busy, vec![1, 0]);
        assert!(grid.sites[0][ps[1] as usize].exec.is_some(), "b still runs");
        assert!(retry.is_empty());
        assert_eq!(grid.long_reads, 0, "never the long way");
    }

    /// A job another policy or the engine started: running, on processor
    /// `p` of site `site`, unknown to the grid.
    fn foreign_job(jobs: &mut Slab<JobView>, id: u64, arrival: u64, site: u16, p: u32) -> JobKey {
        let k = local_job(jobs, id, arrival);
        let j = &mut jobs[k.0];
        j.home = None;
        j.state = JobState::Running;
        j.assignment = vec![(site, 1)];
        j.processors = vec![vec![p]];
        k
    }

    /// A grid running one local job, started at 0 on site 0 and run by the
    /// engine; the processor it runs on.
    fn grid_running_one(platform: &Platform, jobs: &mut Slab<JobView>) -> (Grid, JobKey, u32) {
        let mut grid = grid1();
        let a = local_job(jobs, 1, 0);
        let mut out = Vec::new();
        grid.schedule(&view(platform, &[4, 4], &[a], &[], jobs), &mut out);
        let [start] = out.as_slice() else {
            panic!("the local job starts at once: {out:?}")
        };
        let p = mark_running(jobs, start);
        (grid, a, p)
    }

    /// A running job the grid did not start (the engine started a job an
    /// advance reservation holds) hides from the short way how many of its
    /// own jobs left: its count of running jobs agrees with the engine's.
    /// The long way finds the one that left (freed, not placed again) and
    /// takes the other job over.
    #[test]
    fn the_long_way_finds_a_job_that_left_behind_a_job_it_did_not_start() {
        let platform = Platform::uniform(2, 4);
        let mut jobs = Slab::new();
        let (mut grid, a, p) = grid_running_one(&platform, &mut jobs);
        jobs.remove(a.0);
        let f = foreign_job(&mut jobs, 9, 5, 1, 2);
        let (mut freed, mut retry) = (Vec::new(), Vec::new());
        grid.sync(
            &view(&platform, &[4, 3], &[], &[f], &jobs),
            &mut freed,
            &mut retry,
        );
        assert_eq!(freed, vec![(0, p as usize)]);
        assert_eq!(retry, vec![], "a job that left is not placed again");
        assert_eq!(grid.long_reads, 1);
        assert_eq!(grid.busy, vec![0, 1]);
        let e = grid.sites[1][2].exec.expect("the other job is taken over");
        assert_eq!((e.key, e.arrival), (f, 5));
        assert_eq!(grid.runs.len(), 1);
        // From then on it is one of the grid's: its end is found the short
        // way.
        jobs.remove(f.0);
        freed.clear();
        grid.sync(
            &view(&platform, &[4, 4], &[], &[], &jobs),
            &mut freed,
            &mut retry,
        );
        assert_eq!(freed, vec![(1, 2)]);
        assert_eq!(grid.long_reads, 1);
    }

    /// The same, for a start the engine refused: the long way frees its
    /// processor and places it again.
    #[test]
    fn the_long_way_places_a_refused_start_again() {
        let platform = Platform::uniform(2, 4);
        let mut jobs = Slab::new();
        let (mut grid, a, p) = grid_running_one(&platform, &mut jobs);
        let j = &mut jobs[a.0];
        j.state = JobState::Queued;
        j.assignment.clear();
        j.processors.clear();
        let f = foreign_job(&mut jobs, 9, 5, 1, 2);
        let (mut freed, mut retry) = (Vec::new(), Vec::new());
        grid.sync(
            &view(&platform, &[4, 3], &[a], &[f], &jobs),
            &mut freed,
            &mut retry,
        );
        assert_eq!(freed, vec![(0, p as usize)]);
        assert_eq!(retry, vec![a]);
        assert_eq!(grid.long_reads, 1);
    }

    /// A job back in the queue (aborted and requeued, with the queue's edit
    /// count moved) that the grid holds nowhere is placed again; without
    /// the edit count moving, the grid does not look for one.
    #[test]
    fn a_job_back_in_the_queue_is_placed_again() {
        let platform = Platform::uniform(2, 4);
        let mut jobs = Slab::new();
        let x = local_job(&mut jobs, 1, 0);
        let b = local_job(&mut jobs, 2, 1);
        let mut grid = grid1();
        // x is out of the queue (aborted, not yet back): b starts.
        let mut out = Vec::new();
        grid.schedule(&view(&platform, &[4, 4], &[b], &[], &jobs), &mut out);
        let [sb] = out.as_slice() else {
            panic!("b starts: {out:?}")
        };
        mark_running(&mut jobs, sb);
        out.clear();
        grid.schedule(&view(&platform, &[3, 4], &[x], &[b], &jobs), &mut out);
        assert_eq!(out, vec![], "x is older than every job seen: not new");
        let (queue, running) = ([x], [b]);
        let mut v = view(&platform, &[3, 4], &queue, &running, &jobs);
        v.queue_edits = 1;
        grid.schedule(&v, &mut out);
        let [sx] = out.as_slice() else {
            panic!("x is placed again: {out:?}")
        };
        assert_eq!((sx.job, sx.assignment.clone()), (x, vec![(0, 1)]));
    }

    /// The debug check behind the short way catches a processor the grid
    /// takes as its job's when the engine runs that job elsewhere.
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "runs job 1 unseen")]
    fn the_short_way_is_checked_against_the_running_jobs() {
        let platform = Platform::uniform(2, 4);
        let mut jobs = Slab::new();
        let (mut grid, a, p) = grid_running_one(&platform, &mut jobs);
        jobs[a.0].processors = vec![vec![(p + 1) % 4]];
        let (mut freed, mut retry) = (Vec::new(), Vec::new());
        grid.sync(
            &view(&platform, &[3, 4], &[], &[a], &jobs),
            &mut freed,
            &mut retry,
        );
    }

    #[test]
    fn it_keeps_the_spec_it_was_built_with() {
        let spec = PolicySpec {
            name: PolicyName::Grid2,
            params: [(
                "threshold".to_string(),
                crate::sched::ParamValue::Float(3.0),
            )]
            .into(),
            ..PolicySpec::default()
        };
        assert_ne!(spec, PolicySpec::default());
        let g = Grid::new(spec.clone());
        assert_eq!(g.spec(), &spec);
    }

    /// The engine hands a policy the exact ends of running jobs only where
    /// it reads them: the exact reading of a gang's wait, not the
    /// estimated one.
    #[test]
    fn only_the_exact_reading_is_told_the_running_jobs_ends() {
        for (elapsed, sees) in [("exact", true), ("estimated", false)] {
            let g = Grid::new(PolicySpec {
                name: PolicyName::Grid1,
                params: [(
                    "elapsed".to_string(),
                    crate::sched::ParamValue::Text(elapsed.to_string()),
                )]
                .into(),
                ..PolicySpec::default()
            });
            assert_eq!(g.sees_running_ends(), sees, "{elapsed}");
        }
    }
}
