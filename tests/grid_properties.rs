//! Invariants of the two-site grid, checked on generated workloads by
//! watching every processor after every event: a gang's tasks start at the
//! same instant, no processor runs two jobs, and with exact estimates
//! (E = 0) and T = 0 no backfilled local job is what a gang waits for last.

use schedscope::engine::EngineConfig;
use schedscope::model::{JobRecord, Platform, SimTime};
use schedscope::policy::{PolicyName, PolicySpec};
use schedscope::policy::{SharedParams, names};
use schedscope::workload::estimates::EstimateModel;
use schedscope::workload::grid::{GangSizes, GridParams, GridWorkload};
use std::collections::HashMap;

/// A processor's runs: (job id, first seen, last seen).
type Runs = Vec<(u64, SimTime, SimTime)>;

/// Per job: the processors it was seen on (site, processor) and the first
/// and last instants it was seen there.
struct Watch {
    records: HashMap<u64, JobRecord>,
    /// (site, processor) → the jobs it ran, in order: (id, first seen, last seen).
    runs: HashMap<(usize, usize), Runs>,
    first: HashMap<u64, Vec<SimTime>>,
}

fn watch(name: PolicyName, lambda: f64, sizes: GangSizes, seed: u64, events: usize) -> Watch {
    let mut platform = Platform::uniform(2, 16);
    platform.split_overhead = 0.1;
    let policy = PolicySpec::named(name);
    let config = EngineConfig {
        seed,
        estimates: EstimateModel::exact(),
        ..EngineConfig::default()
    };
    let params = GridParams {
        local_rate: lambda,
        gang_sizes: sizes,
        ..GridParams::default()
    };
    let mut e = schedscope::simulation::engine(
        platform,
        Box::new(GridWorkload::new(params, seed)),
        &policy,
        config,
    )
    .unwrap();
    let mut w = Watch {
        records: HashMap::new(),
        runs: HashMap::new(),
        first: HashMap::new(),
    };
    for _ in 0..events {
        e.step();
        if !e.settle() {
            panic!("stuck");
        }
        let s = e.snapshot();
        let mut seen: HashMap<u64, u32> = HashMap::new();
        for (c, cl) in s.clusters.iter().enumerate() {
            assert_eq!(cl.per_cell, 1);
            for (p, cell) in cl.cells.iter().enumerate() {
                assert!(cell.busy <= 1, "a processor runs two jobs");
                let Some(id) = cell.job else { continue };
                *seen.entry(id).or_default() += 1;
                let runs = w.runs.entry((c, p)).or_default();
                match runs.last_mut() {
                    Some(last) if last.0 == id => last.2 = s.now,
                    _ => {
                        runs.push((id, s.now, s.now));
                        w.first.entry(id).or_default().push(s.now);
                    }
                }
            }
        }
        for r in &s.running {
            assert_eq!(
                seen.get(&r.id),
                Some(&r.size),
                "job {} on all its processors",
                r.id
            );
        }
        let busy: usize = seen.values().map(|&n| n as usize).sum();
        let sizes: u32 = s.running.iter().map(|r| r.size).sum();
        assert_eq!(busy, sizes as usize, "no processor is counted twice");
        for r in e.drain_records() {
            w.records.insert(r.id, r);
        }
    }
    assert_eq!(e.counters().refused, 0);
    w
}

#[test]
fn a_gangs_tasks_start_at_the_same_instant_and_no_processor_runs_two_jobs() {
    let mut gangs = 0;
    let mut split = 0;
    for (name, seed) in [(names::GRID_1, 1), (names::GRID_2, 2)] {
        let w = watch(name, 12.5, GangSizes::PowerOfTwo, seed, 6000);
        for r in w.records.values().filter(|r| r.size > 1) {
            let firsts = &w.first[&r.id];
            assert_eq!(firsts.len(), r.size as usize, "gang {}", r.id);
            assert!(
                firsts.iter().all(|&t| t == r.start),
                "gang {}: {firsts:?}",
                r.id
            );
            gangs += 1;
            split += (r.clusters.len() > 1) as u32;
        }
    }
    assert!(gangs > 50, "gangs observed: {gangs}");
    assert!(split > 0, "approach 2 split some gangs");
}

#[test]
fn with_exact_estimates_and_no_threshold_no_backfill_delays_a_gang() {
    let mut checked = 0;
    let mut backfills_before_gangs = 0;
    for (name, seed) in [(names::GRID_1, 3), (names::GRID_2, 4)] {
        let w = watch(name, 12.5, GangSizes::Uniform, seed, 8000);
        for g in w
            .records
            .values()
            .filter(|r| r.size > 1 && r.start > r.submit)
        {
            // The jobs that ran on the gang's processors just before it.
            let mut last_before: Vec<&JobRecord> = Vec::new();
            for ((_, _), runs) in w.runs.iter() {
                if let Some(i) = runs.iter().position(|x| x.0 == g.id && x.1 == g.start)
                    && i > 0
                    && let Some(prev) = w.records.get(&runs[i - 1].0)
                    && prev.end <= g.start
                    && prev.end > g.submit
                {
                    last_before.push(prev);
                }
            }
            let Some(latest) = last_before.iter().map(|r| r.end).max() else {
                continue;
            };
            // A gang that started later than its processors freed was sent
            // from the grid queue onto idle processors: nothing delayed it
            // there.
            if latest != g.start {
                continue;
            }
            checked += 1;
            let backfilled = |r: &JobRecord| r.size == 1 && r.jumped_ahead;
            backfills_before_gangs += last_before.iter().filter(|r| backfilled(r)).count();
            // A backfilled job never ends after every other job the gang
            // waited for: it fitted in the gang's wait.
            assert!(
                last_before
                    .iter()
                    .any(|r| r.end == latest && !backfilled(r))
                    || last_before.iter().all(|r| r.end < latest || !backfilled(r)),
                "gang {} started at {} after a backfilled job: {:?}",
                g.id,
                g.start,
                last_before
                    .iter()
                    .map(|r| (r.id, r.start, r.end, r.jumped_ahead))
                    .collect::<Vec<_>>()
            );
        }
    }
    assert!(checked > 20, "gangs that waited: {checked}");
    assert!(
        backfills_before_gangs > 0,
        "some locals backfilled before a gang"
    );
}

/// A grid policy takes over a platform another policy left running, and
/// hands it on: EASY runs the grid workload first, grid-2 takes over mid-run,
/// then grid-1. The running jobs are read back once at each switch and
/// followed job by job after that (debug builds check each decision against
/// every processor); no start is refused and every job ends once.
#[test]
fn a_grid_policy_takes_over_a_running_platform_and_hands_it_on() {
    use schedscope::engine::Command;
    let mut platform = Platform::uniform(2, 16);
    platform.split_overhead = 0.1;
    let spec = |name| PolicySpec::named(name);
    let config = EngineConfig {
        seed: 7,
        estimates: EstimateModel::uniform_error(30.0),
        ..EngineConfig::default()
    };
    let params = GridParams {
        local_rate: 10.0,
        ..GridParams::default()
    };
    let mut e = schedscope::simulation::engine(
        platform,
        Box::new(GridWorkload::new(params, 7).take(6000)),
        &spec(names::EASY),
        config,
    )
    .unwrap();
    let mut running_at_switch = Vec::new();
    for (at, name) in [(40.0, names::GRID_2), (80.0, names::GRID_1)] {
        e.step_until(SimTime::from_secs_f64(at));
        running_at_switch.push(e.running_len());
        e.apply(Command::SetPolicy { policy: spec(name) }).unwrap();
    }
    assert!(
        running_at_switch.iter().all(|&n| n > 5),
        "the switches happen on a busy platform: {running_at_switch:?}"
    );
    e.run();
    let records: Vec<JobRecord> = e.drain_records().collect();
    let mut ids: Vec<u64> = records.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 6000, "every job ends once");
    assert_eq!(records.len(), 6000);
    assert_eq!(e.counters().refused, 0);
    e.check_conservation().unwrap();
}
