//! Unit tests of the grid: its running jobs read back the short way and
//! the long, refused starts and requeued jobs placed again, its spec.

use super::*;
use crate::model::Platform;
use crate::policy::{SharedParams, names};
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
        kill_expired: false,
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
    Grid::new(PolicySpec::named(names::GRID_1))
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
        params: [(
            "threshold".to_string(),
            crate::sched::ParamValue::Float(3.0),
        )]
        .into(),
        ..PolicySpec::named(names::GRID_2)
    };
    assert_ne!(spec, PolicySpec::scenario_default());
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
            params: [(
                "elapsed".to_string(),
                crate::sched::ParamValue::Text(elapsed.to_string()),
            )]
            .into(),
            ..PolicySpec::named(names::GRID_1)
        });
        assert_eq!(g.sees_running_ends(), sees, "{elapsed}");
    }
}
