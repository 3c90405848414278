//! The console's first speed, chosen from each scenario's arrivals: on
//! every shipped scenario something happens in every few wall seconds, and
//! not so much that it blurs.

#[path = "common/mod.rs"]
mod common;

use schedscope::console::driver::QUIET_SKIP_AFTER;
use schedscope::console::session::Session;
use schedscope::console::snapshot::Speed;
use schedscope::model::SimTime;
use schedscope::scenario::Scenario;

/// Arrivals and ends in the first `wall` seconds at the session's speed,
/// paced as the driver paces it: a tenth of a second of wall time at a
/// time, quiet stretches skipped, a lesson's cue read at once.
fn events_in(s: &mut Session, wall: f64) -> (u64, u64, bool) {
    let Speed::Rate(rate) = s.speed else {
        panic!("a first speed is a rate, not ×max");
    };
    let mut spent = 0.0;
    while spent < wall && !s.engine().is_done() {
        if s.skip_quiet(SimTime::from_secs_f64(QUIET_SKIP_AFTER * rate)) {
            continue;
        }
        let to = s.engine().now() + SimTime::from_secs_f64(0.1 * rate);
        while s.engine().now() < to && !s.engine().is_done() {
            s.advance_to(to, 1 << 16);
        }
        spent += 0.1;
    }
    let c = s.engine().counters();
    (c.arrived, c.finished, s.engine().is_done())
}

#[test]
fn every_shipped_scenario_shows_about_an_arrival_a_second() {
    let (mut seen, mut bad) = (0, Vec::new());
    for path in common::shipped_scenarios(|_| true) {
        let sc = match Scenario::load(&path) {
            Ok(sc) => sc,
            // A trace absent here: the shared-data guard says whether
            // that may be (it fails under CI).
            Err(e) if e.is_missing_data() => {
                common::shared_data("swf");
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        let mut s = Session::new(sc, 1, false).unwrap();
        let speed = s.speed;
        let (arrived, finished, done) = events_in(&mut s, 30.0);
        println!(
            "{}: {} · in 30 s {arrived} arrived, {finished} ended{}",
            path.display(),
            speed.label(),
            if done { ", done" } else { "" }
        );
        seen += 1;
        if !(done || arrived + finished >= 15) {
            bad.push(format!(
                "{}: at {} only {arrived} arrivals and {finished} ends in 30 s",
                path.display(),
                speed.label()
            ));
        }
        if arrived > 150 {
            bad.push(format!(
                "{}: at {} {arrived} arrivals in 30 s blur",
                path.display(),
                speed.label()
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(seen >= 20, "only {seen} scenarios");
}

/// A workload of one job, or of none, has no spacing to measure: the
/// console opens at the default speed.
#[test]
fn a_workload_too_small_to_measure_opens_at_the_default_speed() {
    for jobs in ["[{ submit = 0, size = 2, runtime = 5 }]", "[]"] {
        let text = format!(
            "name = \"tiny\"\n[platform]\nshape = \"1x4\"\n[workload]\nkind = \"jobs\"\njobs = {jobs}\n[policy]\nname = \"fcfs\"\n"
        );
        let sc = match Scenario::parse(&text, "tiny.toml", std::path::Path::new("."), &[]) {
            Ok(sc) => sc,
            // An empty list may be refused when read: then there is nothing to open.
            Err(e) => {
                assert!(jobs == "[]", "{e}");
                continue;
            }
        };
        let s = Session::new(sc, 1, false).unwrap();
        assert_eq!(s.speed, Speed::DEFAULT, "{jobs}");
    }
}
