//! Hand-worked runs on a platform with an inter-cluster network: every
//! start, rate change and end asserted under the slowdown model
//! `SD = σ·SP + (1 − σ)·SC`.

use schedscope::engine::{Command, Engine, EngineConfig};
use schedscope::model::{Cluster, CommNeed, JobSpec, Network, Platform, SimTime};
use schedscope::policy::PolicySpec;
use schedscope::policy::{SharedParams, names};

/// Two clusters of 4 processors with effective powers `g0`, `g1`, each
/// linked to the switch at 1 GB/s.
fn platform(g0: f64, g1: f64) -> Platform {
    Platform {
        clusters: vec![
            Cluster {
                name: "a".into(),
                processors: 4,
                speed: g0,
            },
            Cluster {
                name: "b".into(),
                processors: 4,
                speed: g1,
            },
        ],
        split_overhead: 0.0,
        network: Some(Network {
            abw: vec![1.0, 1.0],
        }),
    }
}

/// A 4-task job split 2 + 2 whose per-node bandwidth makes it ask exactly
/// 1 GB/s of each link: BW = 2 · 0.75 · 2/3 = 1.
fn job(id: u64, submit: i64, runtime: i64, sigma: f64) -> JobSpec {
    JobSpec {
        work: None,
        id,
        submit: SimTime::from_secs(submit),
        size: 4,
        components: vec![2, 2],
        runtime: SimTime::from_secs(runtime),
        estimate: None,
        user: None,
        injected: false,
        home: None,
        app: None,
        comm: Some(CommNeed { pnbw: 0.75, sigma }),
        graph: None,
    }
}

fn engine(p: Platform, jobs: Vec<JobSpec>) -> Engine {
    schedscope::simulation::engine(
        p,
        Box::new(jobs.into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap()
}

/// (id, rate) of the running jobs, by id.
fn rates(e: &Engine) -> Vec<(u64, f64)> {
    let mut v: Vec<(u64, f64)> = e
        .snapshot()
        .running
        .iter()
        .map(|r| (r.id, r.rate))
        .collect();
    v.sort_by_key(|r| r.0);
    v
}

fn ends(e: &mut Engine) -> Vec<(u64, f64, f64)> {
    let mut v: Vec<(u64, f64, f64)> = e
        .drain_records()
        .map(|r| (r.id, r.start.as_secs_f64(), r.end.as_secs_f64()))
        .collect();
    v.sort_by_key(|r| r.0);
    v
}

#[test]
fn a_job_slows_when_a_second_shares_its_links_and_speeds_up_when_it_leaves() {
    // σ = 0: the jobs only communicate. J1 alone asks 1 of each 1 GB/s
    // link: not saturated, rate 1. At 10 J2 starts on the same two links:
    // each carries 2 against 1, SC = 2, both run at 1/2. J1 has 20 s of
    // work left, J2 10 s: J2 ends at 10 + 10/0.5 = 30. Then J1 (left
    // 20 − 20·0.5 = 10) is alone again at rate 1 and ends at 40.
    let mut e = engine(
        platform(1.0, 1.0),
        vec![job(1, 0, 30, 0.0), job(2, 10, 10, 0.0)],
    );
    e.step_until(SimTime::from_secs(5));
    assert_eq!(rates(&e), vec![(1, 1.0)]);
    let links = e.snapshot().links;
    assert_eq!(links.len(), 2);
    assert!(links.iter().all(|l| l.demand == 1.0 && !l.saturated()));
    e.step_until(SimTime::from_secs(10));
    assert_eq!(rates(&e), vec![(1, 0.5), (2, 0.5)]);
    let links = e.snapshot().links;
    assert!(links.iter().all(|l| l.demand == 2.0 && l.saturated()));
    let sd = e.snapshot().running[0].slowdown.unwrap();
    assert_eq!((sd.sp, sd.sc, sd.sd), (1.0, 2.0, 2.0));
    // The engine's own query agrees (moldable jobs fold by it).
    // J1 came in first: it holds the first slot of the job table.
    let j1 = schedscope::sched::JobKey(0);
    assert_eq!(e.job_slowdown(j1).map(|sd| sd.sd), Some(2.0));
    e.step_until(SimTime::from_secs(30));
    assert_eq!(rates(&e), vec![(1, 1.0)]);
    e.run();
    assert_eq!(ends(&mut e), vec![(1, 0.0, 40.0), (2, 10.0, 30.0)]);
    // J1's estimate (its run time, 30 s) was a wall-clock allowance fixed
    // at its start: slowed down, it outlived it.
    assert_eq!(e.counters().overruns, 1);
}

#[test]
fn at_sigma_one_the_links_do_not_matter_and_the_slowest_cluster_does() {
    // σ = 1: SD = SP = 1/Γ of the slowest cluster = 1/0.5 = 2, shared
    // links or not. J1: 30 s of work at 1/2 from 0 ends at 60; J2 from 10
    // ends at 10 + 20 = 30.
    let mut e = engine(
        platform(1.0, 0.5),
        vec![job(1, 0, 30, 1.0), job(2, 10, 10, 1.0)],
    );
    e.step_until(SimTime::from_secs(10));
    assert_eq!(rates(&e), vec![(1, 0.5), (2, 0.5)]);
    e.run();
    assert_eq!(ends(&mut e), vec![(1, 0.0, 60.0), (2, 10.0, 30.0)]);
}

#[test]
fn at_sigma_one_half_both_slowdowns_weigh_half() {
    // σ = 1/2, Γ = (1, 0.5): alone SD = 0.5·2 + 0.5·1 = 1.5; sharing the
    // links SD = 0.5·2 + 0.5·2 = 2. J1 (12 s of work) runs alone 0–3 at
    // 2/3 (2 s of work done), then with J2 at 1/2. J2 (2 s of work) ends at
    // 3 + 4 = 7, J1 has done 2 + 2 = 4 by then; 8 s left at 2/3 is 12 s:
    // J1 ends at 19.
    let mut e = engine(
        platform(1.0, 0.5),
        vec![job(1, 0, 12, 0.5), job(2, 3, 2, 0.5)],
    );
    e.step_until(SimTime::from_secs(1));
    assert_eq!(rates(&e), vec![(1, 1.0 / 1.5)]);
    e.step_until(SimTime::from_secs(3));
    assert_eq!(rates(&e), vec![(1, 0.5), (2, 0.5)]);
    e.run();
    let got = ends(&mut e);
    assert_eq!(got[1], (2, 3.0, 7.0));
    assert_eq!((got[0].0, got[0].1), (1, 0.0));
    assert!((got[0].2 - 19.0).abs() < 2e-6, "{got:?}");
}

#[test]
fn degrading_a_link_slows_its_jobs_at_once_and_restoring_it_speeds_them_up() {
    // σ = 0, J1 alone asks 1 of each link. At 10 the operator halves link
    // b: it carries 1 against 0.5, SC = 2, rate 1/2. At 20 it is restored.
    // J1 (30 s of work): 10 done by 10, 5 more by 20, 15 left at rate 1:
    // ends at 35.
    let mut e = engine(platform(1.0, 1.0), vec![job(1, 0, 30, 0.0)]);
    e.step_until(SimTime::from_secs(10));
    let out = e
        .apply(Command::SetLinkBandwidth {
            link: "b".into(),
            abw: 0.5,
        })
        .unwrap();
    assert_eq!(out.message, "link b bandwidth 1 → 0.5");
    assert_eq!(rates(&e), vec![(1, 0.5)]);
    assert!(e.snapshot().links[1].saturated());
    e.step_until(SimTime::from_secs(20));
    e.apply(Command::SetLinkBandwidth {
        link: "b".into(),
        abw: 1.0,
    })
    .unwrap();
    assert_eq!(rates(&e), vec![(1, 1.0)]);
    e.run();
    assert_eq!(ends(&mut e), vec![(1, 0.0, 35.0)]);
    let bad = e.apply(Command::SetLinkBandwidth {
        link: "z".into(),
        abw: 1.0,
    });
    assert!(bad.unwrap_err().to_string().contains("no link \"z\""));
    // A bandwidth that is not a number above 0 is refused, and the link
    // keeps the one it had.
    for abw in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let bad = e.apply(Command::SetLinkBandwidth {
            link: "b".into(),
            abw,
        });
        let err = bad.unwrap_err().to_string();
        assert!(err.contains("must be a number above 0"), "{abw}: {err}");
    }
    assert_eq!(e.link_bandwidth(), Some(&[1.0, 1.0][..]));
    // A link is also named by its cluster's index, 0 or 1 here.
    let out = e
        .apply(Command::SetLinkBandwidth {
            link: "1".into(),
            abw: 0.25,
        })
        .unwrap();
    assert_eq!(out.message, "link b bandwidth 1 → 0.25");
    let bad = e.apply(Command::SetLinkBandwidth {
        link: "2".into(),
        abw: 1.0,
    });
    assert!(bad.unwrap_err().to_string().contains("no link \"2\""));
    assert_eq!(e.link_bandwidth(), Some(&[1.0, 0.25][..]));
}

#[test]
fn a_job_on_one_cluster_never_feels_the_links() {
    // J1 (2 + 2) saturates nothing alone; J2 (4 on one cluster... here 4
    // does not fit beside J1, so J2 is 2 wide on cluster a) asks nothing
    // of any link and runs at its cluster's speed.
    let mut j2 = job(2, 0, 10, 0.0);
    j2.size = 2;
    j2.components = vec![2];
    let mut e = engine(platform(1.0, 1.0), vec![job(1, 0, 10, 0.0), j2]);
    e.run();
    assert_eq!(ends(&mut e), vec![(1, 0.0, 10.0), (2, 0.0, 10.0)]);
}

/// An operator's link command is a decision point where nothing else is
/// new. Under EASY, right after the newest queued job was backfilled, it
/// must change nothing: J1 holds cluster a until 100, J2 (4 + 4) waits for
/// it, J3 (2 wide, 50 s) arrives last and is backfilled on cluster b at 2;
/// the commands at 10 and 20 come while J3 runs and nothing has ended.
/// (The backfill scan's memo looks the jobs it started up in the queue,
/// and J3 was its newest.)
#[test]
fn a_link_command_right_after_a_backfill_changes_nothing_under_easy() {
    let local = |id, submit, size: u32, runtime| {
        let mut j = job(id, submit, runtime, 0.0);
        j.size = size;
        j.components = vec![size];
        j.comm = None;
        j
    };
    let mut wide = job(2, 1, 10, 0.0);
    wide.size = 8;
    wide.components = vec![4, 4];
    wide.comm = None;
    let jobs = vec![local(1, 0, 4, 100), wide, local(3, 2, 2, 50)];
    let easy = PolicySpec::named(names::EASY);
    for commands in [false, true] {
        let mut e = schedscope::simulation::engine(
            platform(1.0, 1.0),
            Box::new(jobs.clone().into_iter()),
            &easy,
            EngineConfig::default(),
        )
        .unwrap();
        if commands {
            for (t, link, abw) in [(10, "a", 0.5), (20, "b", 0.25)] {
                e.step_until(SimTime::from_secs(t));
                e.apply(Command::SetLinkBandwidth {
                    link: link.into(),
                    abw,
                })
                .unwrap();
                assert_eq!(e.snapshot().queue.len(), 1, "J2 waits at {t}");
            }
        }
        e.run();
        assert_eq!(
            ends(&mut e),
            vec![(1, 0.0, 100.0), (2, 100.0, 110.0), (3, 2.0, 52.0)],
            "with the commands: {commands}"
        );
    }
}

/// Two jobs that use the links end at the same instant while a third runs:
/// the rates are worked out again once, when the instant is settled, not
/// after each end. J1 and J2 (2 tasks, 1 + 1, 10 s) and J3 (4 tasks,
/// 2 + 2, 100 s) start together and slow each other down; J1 and J2 end
/// together. The run counts 11 events: 3 arrivals, 2 estimate expiries (J1
/// and J2 outrun their allowance) and 6 completions, live or made stale by
/// a change of rate. Working the rates out after J1's end, before J2's at
/// the same instant, would reschedule J2 and J3 once more each: 13.
#[test]
fn rates_are_worked_out_once_an_instant_is_settled() {
    let pair = |id: u64, runtime: i64| JobSpec {
        size: 2,
        components: vec![1, 1],
        ..job(id, 0, runtime, 0.5)
    };
    let mut e = engine(
        platform(1.0, 1.0),
        vec![pair(1, 10), pair(2, 10), job(3, 0, 100, 0.5)],
    );
    e.run();
    e.check_conservation().unwrap();
    let ends = ends(&mut e);
    assert_eq!(ends[0].2, ends[1].2, "J1 and J2 end together: {ends:?}");
    assert!(ends[2].2 > ends[0].2);
    assert_eq!(e.counters().overruns, 2);
    assert_eq!(e.counters().events, 11, "{:?}", e.counters());
}
