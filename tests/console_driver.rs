//! The driver thread: it publishes snapshots, applies requests and records
//! them, and runs flat out when asked. Only outcomes are checked, never
//! wall-clock timings.

#[path = "common/mod.rs"]
mod common;

use schedscope::console::driver::{Driver, ToDriver};
use schedscope::console::session::{Request, Session};
use schedscope::console::snapshot::{Snapshot, Speed};
use schedscope::engine::Command;
use schedscope::policy::SharedParams;
use schedscope::policy::{MaxJumps, PolicySpec};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn wait_until(driver: &mut Driver, what: &str, ok: impl Fn(&Snapshot) -> bool) -> Arc<Snapshot> {
    let start = Instant::now();
    loop {
        let s = driver.snapshots.borrow_and_update().clone();
        if ok(&s) {
            return s;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "never: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn applies_requests_and_publishes_their_result() {
    let sc = common::ngubiri();
    let mut session = Session::new(sc, 1, true).unwrap();
    session.speed = Speed::Rate(50.0);
    let mut d = Driver::spawn(session).unwrap();
    let send = |d: &Driver, r| d.requests.send(ToDriver::Request(r)).unwrap();
    send(&d, Request::Faster);
    send(&d, Request::Faster);
    wait_until(&mut d, "faster", |s| s.speed == Speed::Rate(200.0));
    let before = wait_until(&mut d, "time passes", |s| s.engine.now.0 > 0);
    send(
        &d,
        Request::Apply(Command::SetPolicy {
            policy: PolicySpec::fpfs(MaxJumps::Limit(0)),
        }),
    );
    let s = wait_until(&mut d, "policy applied", |s| {
        s.message
            .as_ref()
            .is_some_and(|m| m.text.contains("policy is now FPFS(maxJumps 0)"))
    });
    assert_eq!(s.engine.policy, PolicySpec::fpfs(MaxJumps::Limit(0)));
    assert!(s.engine.now >= before.engine.now);
    send(&d, Request::TogglePause);
    let paused = wait_until(&mut d, "paused", |s| s.paused);
    std::thread::sleep(Duration::from_millis(120));
    let later = d.snapshots.borrow().clone();
    assert_eq!(
        later.engine.now, paused.engine.now,
        "paused time stands still"
    );
    send(&d, Request::StepEvent);
    wait_until(&mut d, "one event", |s| {
        s.engine.counters.events == paused.engine.counters.events + 1
    });
    d.stop();
}

#[test]
fn runs_flat_out() {
    let sc = common::ngubiri();
    let mut session = Session::new(sc, 1, true).unwrap();
    session.speed = Speed::Max;
    let mut d = Driver::spawn(session).unwrap();
    // Far beyond what ×50 would reach in the time allowed.
    wait_until(&mut d, "an hour of simulated time", |s| {
        s.engine.now.as_secs_f64() > 3600.0
    });
    let s = wait_until(&mut d, "an event rate", |s| s.events_per_sec > 0.0);
    assert!(s.events_per_sec > 0.0);
    d.stop();
}
