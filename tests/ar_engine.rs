//! The reservation scheduler (`ar`) in the engine, on random workloads of
//! task graphs and independent jobs: nothing outside a reservation runs on
//! its processors inside its window, the jobs inside one never share a
//! processor at once, and every job and every graph ends exactly once.

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schedscope::engine::{Engine, EngineConfig};
use schedscope::model::{JobSpec, Platform, SimTime};
use schedscope::policy::{SharedParams, names};
use schedscope::sched::{ParamValue, PolicyName, PolicySpec};
use schedscope::taskgraph::generate::SizeClass;
use schedscope::workload::graphs::{GraphPace, GraphStreamParams, WithGraphs};
use std::collections::HashSet;

fn jobs(seed: u64, n: usize, procs: u32, horizon: i64) -> Vec<JobSpec> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut v: Vec<JobSpec> = (0..n)
        .map(|i| {
            let rt = SimTime::from_secs(rng.random_range(1..=1_500));
            let size = rng.random_range(1..=procs);
            JobSpec {
                work: None,
                id: i as u64 + 1,
                submit: SimTime::from_secs(rng.random_range(0..horizon)),
                size,
                components: vec![size],
                runtime: rt,
                estimate: Some(rt),
                user: None,
                injected: false,
                home: None,
                comm: None,
                graph: None,
                app: None,
            }
        })
        .collect();
    v.sort_by_key(|j| j.submit);
    v
}

struct Outcome {
    ended: usize,
    arrived: u64,
    graphs_ended: usize,
    reservations: u64,
    checked: u64,
    backfilled: u64,
}

/// A reservation's window has begun: the engine took its processors, or
/// the instant it begins at is over.
fn inside(r: &schedscope::sched::ReservationView, now: SimTime) -> bool {
    r.active || now > r.start
}

/// Six hours of independent jobs on `procs` processors and a Poisson
/// stream of 7–12-task graphs on 4 TPEs.
fn graphs_and_jobs(seed: u64, procs: u32) -> WithGraphs {
    let horizon = 6 * 3_600;
    WithGraphs::new(
        Box::new(jobs(seed, 60, procs, horizon).into_iter()),
        GraphStreamParams {
            pace: GraphPace::Rate(150.0),
            size: SizeClass::Gs7_12,
            tpes: 4,
            per_family: 5,
            unit: 1.0,
            from: SimTime::ZERO,
            until: SimTime::from_secs(horizon),
        },
        seed,
    )
}

/// Checks that no job a reservation does not hold runs on its processors
/// inside its window; returns how many (job, reservation) pairs it
/// looked at.
fn check_reservations(e: &Engine) -> u64 {
    let now = e.now();
    let mut checked = 0;
    for r in e.reservations() {
        // Inside its window once the engine has settled the instant the
        // window begins at (it takes the processors then, ending what
        // still runs on them; a job due to end at that instant may still
        // be listed until its end event is handled).
        if !(inside(r, now) && now < r.finish) {
            continue;
        }
        for (id, on) in e.running_processors() {
            if r.holds(id) {
                continue;
            }
            for (_, ps) in on {
                assert!(
                    ps.iter().all(|p| !r.processors.contains(p)),
                    "job {id} on {ps:?} inside reservation {} ({:?}) at {now}",
                    r.id,
                    r.processors
                );
                checked += 1;
            }
        }
    }
    checked
}

/// An engine under `ar` on one cluster of `procs` processors, its
/// independent jobs scheduled by `independent` (`fcfs`, `easy`).
fn under_ar(source: WithGraphs, procs: u32, independent: &str) -> Engine {
    under_ar_with(source, procs, &[("independent", independent)])
}

/// An engine under `ar` with the word parameters `params`.
fn under_ar_with(source: WithGraphs, procs: u32, params: &[(&str, &str)]) -> Engine {
    let mut spec = PolicySpec::named(PolicyName::new("ar"));
    for (key, word) in params {
        spec.params
            .insert(key.to_string(), ParamValue::Text(word.to_string()));
    }
    schedscope::simulation::engine(
        Platform::uniform(1, procs),
        Box::new(source),
        &spec,
        EngineConfig::default(),
    )
    .unwrap()
}

fn run(seed: u64, procs: u32, independent: &str) -> Outcome {
    let mut e = under_ar(graphs_and_jobs(seed, procs), procs, independent);
    let mut ids = HashSet::new();
    let mut graphs_ended = 0;
    let mut checked = 0;
    let mut ended = 0;
    while e.step().is_some() {
        checked += check_reservations(&e);
        for rec in e.drain_records() {
            assert!(ids.insert(rec.id), "job {} ended twice", rec.id);
            assert!(!rec.killed, "job {} killed", rec.id);
            if rec.id >= schedscope::workload::graphs::GRAPH_ID_BASE {
                graphs_ended += 1;
            }
            ended += 1;
        }
    }
    e.check_conservation().unwrap();
    // Every request and every start ar made was granted: it plans on the
    // engine's own facts (a refused plan is the only case in which ar must
    // tell its own requests from other reservations starting then).
    assert_eq!(
        e.counters().refused,
        0,
        "the engine refused a decision of ar"
    );
    let Some(v) = e.policy_state().panel.plan else {
        panic!("ar reports its reservations");
    };
    Outcome {
        ended,
        arrived: e.counters().arrived,
        graphs_ended,
        reservations: v.reservations,
        checked,
        backfilled: v.backfilled,
    }
}

/// The blocks of the reservations in force never overlap on a processor.
fn blocks_disjoint(seed: u64, procs: u32) {
    let source = WithGraphs::new(
        Box::new(jobs(seed, 40, procs, 3 * 3_600).into_iter()),
        GraphStreamParams {
            pace: GraphPace::Rate(150.0),
            size: SizeClass::Gs13_18,
            tpes: 4,
            per_family: 5,
            unit: 1.0,
            from: SimTime::ZERO,
            until: SimTime::from_secs(3 * 3_600),
        },
        seed,
    );
    let mut e = under_ar(source, procs, "fcfs");
    let mut seen = 0;
    while e.step().is_some() {
        let Some(v) = e.policy_state().panel.plan else {
            panic!("ar reports its reservations");
        };
        for (i, a) in v.blocks.iter().enumerate() {
            for b in &v.blocks[i + 1..] {
                if a.processor == b.processor {
                    seen += 1;
                    assert!(a.end <= b.start || b.end <= a.start, "{a:?} overlaps {b:?}");
                }
            }
        }
    }
    assert!(
        seen > 0,
        "no two blocks shared a processor: nothing checked"
    );
}

#[test]
fn reservation_blocks_never_overlap() {
    blocks_disjoint(3, 16);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]
    #[test]
    fn reservations_are_kept_and_every_job_ends_once(
        seed in 0u64..1_000,
        procs in prop::sample::select(vec![8u32, 16, 32]),
        easy in any::<bool>(),
    ) {
        let o = run(seed, procs, if easy { "easy" } else { "fcfs" });
        prop_assert_eq!(o.ended as u64, o.arrived);
        prop_assert!(o.graphs_ended > 50, "{} graphs", o.graphs_ended);
        prop_assert!(o.reservations > 0);
        prop_assert!(o.checked > 0, "no job ran beside a reservation");
        let _ = o.backfilled;
    }
}

/// An operator switches from `ar` to a policy that makes no reservations
/// while reservations are in force, at a random moment: the reservations
/// already made are still kept (the engine refuses the new policy's starts
/// on reserved processors inside their windows), the graphs they hold
/// still run, and every job and graph that arrived ends exactly once.
/// The two-site grid policies know nothing of reservations: their refused
/// starts are placed again (on one site, one-task jobs are local jobs).
#[test]
fn switching_away_from_ar_with_reservations_in_force_loses_no_job() {
    use schedscope::engine::Command;
    use schedscope::policy::Machines;
    let mut switched_with_reservations = 0;
    let mut grid_refused = 0;
    let cases = [
        (1u64, names::FCFS, Machines::Counted),
        (2, names::EASY, Machines::Counted),
        (3, names::CONSERVATIVE, Machines::Counted),
        (4, PolicyName::new("fpfs"), Machines::Counted),
        (5, names::CONSERVATIVE, Machines::Pinned),
        (6, names::EASY, Machines::Pinned),
        (7, names::CONSERVATIVE, Machines::Counted),
        (8, names::CONSERVATIVE, Machines::Counted),
        (9, names::GRID_1, Machines::Counted),
        (10, names::GRID_2, Machines::Counted),
        (11, names::GRID_1, Machines::Counted),
        (12, names::GRID_2, Machines::Counted),
    ];
    for (seed, to, machines) in cases {
        let procs = 16;
        let mut e = under_ar(graphs_and_jobs(seed, procs), procs, "fcfs");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let at = SimTime::from_secs(rng.random_range(3_600..4 * 3_600));
        let mut ids = HashSet::new();
        let mut switched = false;
        let mut checked = 0;
        while e.step().is_some() {
            let now = e.now();
            if !switched && now >= at && !e.reservations().is_empty() {
                e.apply(Command::SetPolicy {
                    policy: PolicySpec::named(to).with_machines(machines),
                })
                .unwrap();
                switched = true;
                switched_with_reservations += 1;
            }
            checked += check_reservations(&e);
            for rec in e.drain_records() {
                assert!(ids.insert(rec.id), "{to:?}: job {} ended twice", rec.id);
                assert!(!rec.killed, "{to:?}: job {} killed", rec.id);
            }
        }
        if matches!(to, names::GRID_1 | names::GRID_2) {
            grid_refused += e.counters().refused;
        }
        assert!(switched, "{to:?}: no reservation was in force after {at}");
        e.check_conservation().unwrap();
        assert_eq!(ids.len() as u64, e.counters().arrived, "{to:?}");
        assert!(checked > 0, "{to:?}: no job ran beside a reservation");
    }
    assert_eq!(switched_with_reservations, cases.len());
    assert!(
        grid_refused > 0,
        "the grid policies, which know nothing of reservations, had no start refused"
    );
}

/// The `rearrange` parameter reaches the scheduler: on the same workload,
/// rearranging busiest-first and least-busy-first place the graphs'
/// subtasks on other processors of their reservations.
#[test]
fn the_rearrange_order_changes_where_subtasks_run() {
    let blocks = |seed: u64, order: &str| {
        let mut e = under_ar_with(graphs_and_jobs(seed, 16), 16, &[("rearrange", order)]);
        let mut seen = Vec::new();
        while e.step().is_some() && e.now() < SimTime::from_secs(3_600) {
            let Some(v) = e.policy_state().panel.plan else {
                panic!("ar reports its reservations");
            };
            seen.extend(
                v.blocks
                    .iter()
                    .filter(|b| b.graph)
                    .map(|b| (b.job, b.processor, b.start)),
            );
        }
        seen.sort();
        seen.dedup();
        assert!(!seen.is_empty(), "no graph reserved within the hour");
        seen
    };
    let differ = (1..=3)
        .filter(|&seed| blocks(seed, "busiest-first") != blocks(seed, "least-busy-first"))
        .count();
    assert!(differ > 0, "the order changed nothing on three workloads");
}

/// An operator leaves `ar` and comes back to it at the same instant while
/// reservations hold queued graphs: the new scheduler leaves the graphs
/// other reservations hold to them (it does not ask for them again, which
/// the engine would refuse), and every job and graph ends exactly once.
#[test]
fn coming_back_to_ar_leaves_held_graphs_to_their_reservations() {
    use schedscope::engine::Command;
    let procs = 16;
    let mut comebacks = 0;
    for seed in 1..=3u64 {
        let mut e = under_ar(graphs_and_jobs(seed, procs), procs, "fcfs");
        let mut ids = HashSet::new();
        let mut switched = false;
        let mut refused = 0;
        while e.step().is_some() {
            let held_queued = e
                .reservations()
                .iter()
                .any(|r| r.start > e.now() && !r.holds.is_empty());
            if !switched && e.now() >= SimTime::from_secs(3_600) && held_queued {
                let ar = PolicySpec::named(PolicyName::new("ar"));
                // FCFS may try a held graph at once, outside its window:
                // refused, as it should be.
                e.apply(Command::SetPolicy {
                    policy: PolicySpec::fcfs(),
                })
                .unwrap();
                e.apply(Command::SetPolicy { policy: ar }).unwrap();
                refused = e.counters().refused;
                switched = true;
                comebacks += 1;
            }
            for rec in e.drain_records() {
                assert!(ids.insert(rec.id), "job {} ended twice", rec.id);
            }
        }
        e.check_conservation().unwrap();
        assert_eq!(ids.len() as u64, e.counters().arrived);
        assert_eq!(
            e.counters().refused,
            refused,
            "seed {seed}: ar, back, had a decision refused: {:?}",
            e.last_refusal()
        );
    }
    assert!(comebacks > 0, "never came back with reservations in force");
}
