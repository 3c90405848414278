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
//!
//! Here are the policy's state and its decision point; what the sites
//! offer is in `sites`, the gangs' rules in `gangs`, the local jobs' and
//! the processor queues' in `queues`, the running jobs' bookkeeping in
//! `running` and what the console is shown in `state`.

mod explain;
mod gangs;
mod queues;
mod running;
mod sites;
mod state;

pub use super::grid_rules::{ElapsedReading, GridRules, IdleReading, QueuePick, WideRule};
use super::{JobKey, Phased, PolicySpec, PolicyState, Start, SystemView};
use crate::model::SimTime;
use crate::model::rng::stream_number;
use crate::policy::catalog::{Param, ParamKind, PolicyEntry};
use crate::policy::names;
use crate::sched::Abort;
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

#[derive(Clone)]
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
    /// The gangs' times until their processors are idle, worked out while
    /// freed processors advance (see [`Grid::advance_freed`]).
    elapsed_memo: ElapsedMemo,
}

/// Gangs' elapsed times ([`Grid::elapsed`]) kept while no job starts: a
/// wide job's end frees hundreds of processors that one gang heads, and
/// each of them asks for the gang's time over all its processors. Only a
/// start changes what a processor runs while the freed ones advance, and
/// every start is pushed on the pass's starts: the memo holds while their
/// count is `starts`.
#[derive(Clone, Debug, Default)]
struct ElapsedMemo {
    starts: Option<usize>,
    gangs: Vec<(JobKey, SimTime)>,
}

impl Grid {
    /// The grid of `spec` (approach 2 for `grid-2`), its readings those of
    /// `spec`'s parameters.
    pub fn new(spec: PolicySpec) -> Grid {
        Grid {
            split: spec.name == names::GRID_2,
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
            elapsed_memo: ElapsedMemo::default(),
            runs: Vec::new(),
            busy: Vec::new(),
            long_reads: 0,
        }
    }

    /// The grid's random stream, seeded at the first decision.
    fn rng(&mut self) -> &mut ChaCha8Rng {
        self.rng.as_mut().expect("seeded at the first decision")
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

    /// One decision point: the processors freed since the last one
    /// advance their queues (and the grid queue is searched if one was
    /// left empty), then jobs to place again and new arrivals are placed.
    fn starts(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        if self.rng.is_none() {
            self.first_decision(view);
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
        self.advance_freed(view, &freed, out);
        self.place_new(view, retry, out);
    }

    /// At the first decision: the seeded stream and the platform's sites.
    fn first_decision(&mut self, view: &SystemView<'_>) {
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

    /// The processors `freed` advance their queues, each twice (another
    /// processor of a gang may have freed first: each freed processor's
    /// gang gets a second look once all have been seen); then the grid
    /// queue is searched if one of them was left with an empty queue.
    fn advance_freed(
        &mut self,
        view: &SystemView<'_>,
        freed: &[(usize, usize)],
        out: &mut Vec<Start>,
    ) {
        self.elapsed_memo = ElapsedMemo::default();
        for &(s, p) in freed {
            self.advance(view, s, p, out);
        }
        for &(s, p) in freed {
            if self.sites[s][p].exec.is_none() {
                self.advance(view, s, p, out);
            }
        }
        self.elapsed_memo = ElapsedMemo::default();
        if freed
            .iter()
            .any(|&(s, p)| self.sites[s][p].queue.is_empty())
        {
            self.search(view, out);
        }
    }

    /// Jobs to place again (`retry`), then new arrivals, in arrival order.
    fn place_new(&mut self, view: &SystemView<'_>, mut retry: Vec<JobKey>, out: &mut Vec<Start>) {
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
}

impl Phased for Grid {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn aborts(&mut self, _view: &SystemView<'_>, _out: &mut Vec<Abort>) {}

    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
        self.starts(view, out);
    }

    fn recheck_at(&self, _view: &SystemView<'_>) -> Option<SimTime> {
        None
    }

    fn state(&self, view: &SystemView<'_>) -> PolicyState {
        self.grid_state(view)
    }

    fn explain(&self, view: &SystemView<'_>, key: JobKey) -> crate::sched::Explanation {
        let mut pass = self.clone();
        let mut starts = Vec::new();
        pass.starts(view, &mut starts);
        pass.explain_after(view, key, &starts)
    }

    fn sees_running_ends(&self) -> bool {
        self.rules.elapsed == ElapsedReading::Exact
    }
}

/// The two-site grid's open readings, the literal one as default.
pub const GRID_PARAMS: &[Param] = &[
    Param {
        key: "threshold",
        title: "T",
        hint: "seconds a backfill may delay a gang",
        kind: ParamKind::Number {
            min: 0.0,
            max: 1e6,
            step: 0.5,
            default: 0.0,
        },
    },
    Param {
        key: "idle",
        title: "idle",
        hint: "what the grid scheduler counts as idle",
        kind: ParamKind::Choice {
            values: &["not-executing", "unclaimed"],
            default: "not-executing",
            shown: &[],
        },
    },
    Param {
        key: "elapsed",
        title: "elapsed",
        hint: "time until a gang starts: exact or estimated",
        kind: ParamKind::Choice {
            values: &["exact", "estimated"],
            default: "exact",
            shown: &[],
        },
    },
    Param {
        key: "empty_queues",
        title: "queues",
        hint: "which empty queues a gang takes",
        kind: ParamKind::Choice {
            values: &["lowest", "idle-first", "random"],
            default: "lowest",
            shown: &[],
        },
    },
    Param {
        key: "wide",
        title: "wide",
        hint: "a gang no site holds: split on empty queues or only on idle",
        kind: ParamKind::Choice {
            values: &["queues", "idle"],
            default: "queues",
            shown: &[],
        },
    },
];

/// Its catalog entry.
pub const GRID_1_ENTRY: PolicyEntry = PolicyEntry {
    name: names::GRID_1,
    summary: "two-site grid, approach 1: a gang runs on one site; a FIFO \
              queue per processor, local jobs backfill behind a waiting gang",
    params: GRID_PARAMS,
    label: |_| "grid approach 1 (one site)".to_string(),
    build: |s, _| Ok(Box::new(Grid::new(s.clone()))),
};

/// Its catalog entry.
pub const GRID_2_ENTRY: PolicyEntry = PolicyEntry {
    name: names::GRID_2,
    summary: "two-site grid, approach 2: as approach 1, and a gang may be \
              split over both sites' idle processors (with the overhead)",
    params: GRID_PARAMS,
    label: |_| "grid approach 2 (may split)".to_string(),
    build: |s, _| Ok(Box::new(Grid::new(s.clone()))),
};

#[cfg(test)]
mod tests;
