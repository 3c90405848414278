//! Compare mode: one workload under two policies, side by side. The two
//! sides stay on the same simulated time whatever the operator does, an
//! injection reaches both, a policy switch only the left, and each side
//! gives the same figures as the same run headless.

use schedscope::console::session::{Request, Session};
use schedscope::console::{App, ui};
use schedscope::engine::{Command, InjectJob};
use schedscope::policy::PolicySpec;
use schedscope::policy::{SharedParams, names};
use schedscope::scenario::Scenario;
use std::path::Path;
use std::sync::Arc;

/// The lesson's workload without its cues, which would pause the run.
fn scenario(policy: &str) -> Scenario {
    Scenario::load_with(
        Path::new("scenarios/teach-backfill.toml"),
        &[format!("policy.name={policy}"), "timeline=[]".into()],
    )
    .unwrap()
}

fn pair() -> Session {
    let left = Session::new(scenario("fcfs"), 1, false).unwrap();
    let right = Session::new(scenario("easy"), 1, false).unwrap();
    left.with_twin(right)
}

fn same_time(s: &Session) {
    let twin = s.twin().expect("compare mode");
    assert_eq!(s.now(), twin.now(), "the sides drifted apart");
}

#[test]
fn the_sides_share_the_clock_and_the_commands() {
    let mut s = pair();
    same_time(&s);
    let mut steps = 0;
    // Step event by event, then in chunks, injecting a job on the way.
    while steps < 4 {
        s.handle(Request::StepEvent);
        same_time(&s);
        steps += 1;
    }
    s.handle(Request::Apply(Command::InjectJobs {
        jobs: vec![InjectJob {
            size: 1,
            runtime: 3.0,
            estimate: None,
            components: None,
            count: 2,
            site: None,
        }],
    }));
    let arrived = |s: &Session| s.engine().counters().arrived;
    assert_eq!(arrived(&s), arrived(s.twin().unwrap()), "both got the jobs");
    s.handle(Request::Apply(Command::SetPolicy {
        policy: PolicySpec::named(names::CONSERVATIVE),
    }));
    assert_eq!(s.engine().policy().name, names::CONSERVATIVE);
    assert_eq!(
        s.twin().unwrap().engine().policy().name,
        names::EASY,
        "the right side keeps the policy it is compared under"
    );
    while s.step_events(3) > 0 {
        assert!(s.now() >= s.twin().unwrap().now() || s.engine().is_done());
        if !s.engine().is_done() {
            same_time(&s);
        }
    }
    assert!(s.is_done());
    // Every job that arrived on either side has ended there.
    for side in [&s, s.twin().unwrap()] {
        let c = side.engine().counters();
        assert_eq!(c.finished, c.arrived, "{c:?}");
        assert_eq!(c.arrived, 7, "five jobs and two injected");
    }
}

#[test]
fn each_side_gives_the_figures_of_its_own_headless_run() {
    let mut s = pair();
    s.run_to_end();
    for (side, policy) in [(&s, "fcfs"), (s.twin().unwrap(), "easy")] {
        let headless = schedscope::runner::run(
            &scenario(policy),
            &Default::default(),
            &std::sync::atomic::AtomicU64::new(0),
        )
        .unwrap()
        .replications[0]
            .summary
            .clone();
        let live = side.metrics().summary();
        assert_eq!(live.jobs, headless.jobs, "{policy}");
        assert_eq!(live.art, headless.art, "{policy}");
    }
    // Under EASY the teaching example's C is backfilled: the two differ.
    assert_ne!(
        s.metrics().summary().art,
        s.twin().unwrap().metrics().summary().art
    );
}

#[test]
fn the_screen_shows_both_sides_and_the_differences() {
    let mut s = pair();
    s.run_to_end();
    let app = App::new(Arc::new(s.snapshot()));
    let area = ratatui::layout::Rect::new(0, 0, 120, 32);
    let mut buf = ratatui::buffer::Buffer::empty(area);
    ui::view(&app, false, area, &mut buf);
    let text: String = (0..area.height)
        .map(|y| {
            let mut line: String = (0..area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect();
            line.push('\n');
            line
        })
        .collect();
    assert!(text.contains("◧ left FCFS"), "{text}");
    assert!(text.contains("◨ right EASY backfilling"), "{text}");
    assert!(text.contains("ΔART"), "{text}");
    insta::assert_snapshot!("compare_120x32", text);
}
