//! The console's per-frame costs with a long queue: building a snapshot
//! and rendering a full frame, with 10,000 queued jobs on 5 × 20; and the
//! snapshot of one cluster of 4,000,000,000 processors, which must cost
//! what its few hundred cells cost, not what its processors would.

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use schedscope::console::app::{App, Msg};
use schedscope::console::session::{Request, Session};
use schedscope::console::ui;
use schedscope::engine::{Command, InjectJob};
use schedscope::model::SimTime;
use schedscope::policy::{SharedParams, names};
use schedscope::scenario::Scenario;
use schedscope::sched::{PolicyName, PolicySpec};
use std::hint::black_box;
use std::sync::Arc;

/// The default scenario at t = 600 s under `policy` with the machine
/// filled by one long job and `queued` more jobs waiting behind it.
fn long_queue(policy: PolicyName, queued: usize) -> Session {
    let sc = Scenario::embedded_default();
    let mut s = Session::new(sc, 1, true).unwrap();
    s.advance_to(SimTime::from_secs(600), usize::MAX);
    s.handle(Request::Apply(Command::SetPolicy {
        policy: PolicySpec::named(policy),
    }));
    let job = |size, components: Vec<u32>, count| InjectJob {
        size,
        runtime: 1e6,
        estimate: None,
        components: Some(components),
        count,
        site: None,
    };
    s.handle(Request::Apply(Command::InjectJobs {
        jobs: vec![job(100, vec![20; 5], 1)],
    }));
    // Small jobs take the processors left free until the big one starts.
    while s.engine().queue_len() < queued {
        let more = (queued - s.engine().queue_len()) as u32;
        s.handle(Request::Apply(Command::InjectJobs {
            jobs: vec![job(1, vec![1], more)],
        }));
    }
    let n = s.engine().queue_len();
    assert!(n >= queued, "{n} queued");
    s
}

fn bench(c: &mut Criterion) {
    for (policy, label) in [(names::FPFS, "fpfs"), (names::CONSERVATIVE, "conservative")] {
        for queued in [10_000, 100_000] {
            let mut session = long_queue(policy, queued);
            c.bench_function(
                &format!("snapshot, {}k queued, 5x20, {label}", queued / 1000),
                |b| b.iter(|| black_box(session.snapshot())),
            );
        }
    }
    let mut session = long_queue(names::FPFS, 10_000);
    let snap = Arc::new(session.snapshot());
    let mut app = App::new(snap.clone());
    app.update(Msg::Snapshot(snap));
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    c.bench_function("full frame 200x60, 10k queued, 5x20", |b| {
        b.iter(|| {
            // A fresh frame each time: clear so nothing is diffed away.
            terminal.clear().unwrap();
            terminal
                .draw(|f| {
                    let area = f.area();
                    ui::view(&app, true, area, f.buffer_mut())
                })
                .unwrap();
        })
    });
}

fn huge(c: &mut Criterion) {
    let text = r#"
name = "huge"
[platform]
shape = "1x4000000000"
[workload]
kind = "jobs"
jobs = [
  { submit = 0, size = 16, runtime = 600 },
  { submit = 5, size = 300, runtime = 300 },
  { submit = 10, size = 1, runtime = 100 },
]
"#;
    let sc = Scenario::parse(text, "huge", std::path::Path::new("."), &[]).unwrap();
    let mut s = Session::new(sc, 1, false).unwrap();
    s.advance_to(SimTime::from_secs(20), usize::MAX);
    c.bench_function("snapshot, one cluster of 4e9 processors", |b| {
        b.iter(|| black_box(s.snapshot()))
    });
    let snap = Arc::new(s.snapshot());
    let app = App::new(snap);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    c.bench_function("compact frame 80x24, one cluster of 4e9 processors", |b| {
        b.iter(|| {
            terminal.clear().unwrap();
            terminal
                .draw(|f| {
                    let area = f.area();
                    ui::view(&app, true, area, f.buffer_mut())
                })
                .unwrap();
        })
    });
}

criterion_group!(benches, bench, huge);
criterion_main!(benches);
