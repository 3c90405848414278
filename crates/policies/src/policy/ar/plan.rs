//! A reservation's plan laid out on the cluster: the backfill
//! candidates it is filled with, when and where each job it holds starts,
//! and its busy blocks as the console draws them.

use crate::model::SimTime;
use crate::policy::SystemView;
use crate::sched::{JobKey, ReservedBlock};
use crate::taskgraph::ar::{self as tg, Candidate};

/// The waiting independent `jobs` as backfill candidates of a
/// reservation, their estimates rounded up to whole `unit`s (at least one).
pub(super) fn backfill_candidates(
    view: &SystemView<'_>,
    jobs: &[JobKey],
    unit: SimTime,
) -> Vec<Candidate> {
    let units = |t: SimTime| (t.0 as u64).div_ceil(unit.0 as u64);
    jobs.iter()
        .enumerate()
        .map(|(i, &k)| {
            let j = view.job(k);
            Candidate {
                job: i,
                width: j.size as usize,
                estimate: units(j.estimate).max(1),
            }
        })
        .collect()
}

/// When and where each job of a reservation starts (job id, start,
/// processors): the graphs `placed`, then the backfilled jobs, its rows
/// on the processors `procs` and its units at times `at`.
pub(super) fn plan_entries(
    view: &SystemView<'_>,
    r: &tg::Reservation,
    placed: &[(JobKey, usize)],
    filled: &[tg::Filled],
    jobs: &[JobKey],
    procs: &[u32],
    at: &impl Fn(u64) -> SimTime,
) -> Vec<(u64, SimTime, Vec<u32>)> {
    let mut entries = Vec::new();
    for &(k, i) in placed {
        let j = view.job(k);
        let p = &r.placements[i];
        let mut ps: Vec<u32> = p.rows.iter().flatten().map(|&q| procs[q]).collect();
        ps.sort_unstable();
        entries.push((j.id, at(p.offset), ps));
    }
    for f in filled {
        let j = view.job(jobs[f.job]);
        entries.push((
            j.id,
            at(f.start),
            f.procs.iter().map(|&q| procs[q]).collect(),
        ));
    }
    entries
}

/// A reservation's busy blocks as the console draws them, its rows on the
/// processors `procs` and its units at times `at`.
pub(super) fn plan_blocks(
    view: &SystemView<'_>,
    r: &tg::Reservation,
    placed: &[(JobKey, usize)],
    jobs: &[JobKey],
    procs: &[u32],
    at: &impl Fn(u64) -> SimTime,
) -> Vec<ReservedBlock> {
    let mut blocks = Vec::new();
    for (q, row) in r.busy.iter().enumerate() {
        for b in row {
            let (job, graph) = match b.who {
                tg::Occupant::Subtask { graph, .. } => (view.job(placed[graph].0).id, true),
                tg::Occupant::Job { job } => (view.job(jobs[job]).id, false),
            };
            blocks.push(ReservedBlock {
                processor: procs[q],
                start: at(b.start),
                end: at(b.end),
                job,
                graph,
            });
        }
    }
    blocks
}
