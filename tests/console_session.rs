//! What the console's session says and shows of a run: the clock starts at
//! the first event, the history spans the whole run, `.` names the event it
//! handled and `s` the full path it wrote.

mod common;

use schedscope::console::session::{HISTORY_LEN, Request, Session};
use schedscope::model::SimTime;
use schedscope::scenario::Scenario;
use std::path::{Path, PathBuf};

fn inline(jobs: &str, policy: &str) -> Scenario {
    let text = format!(
        "name = \"late\"\n[platform]\nshape = \"1x4\"\n[workload]\nkind = \"jobs\"\njobs = [{jobs}]\n[policy]\nname = \"{policy}\"\n"
    );
    Scenario::parse(&text, "late", Path::new("."), &[]).unwrap()
}

fn message(s: &mut Session) -> String {
    s.snapshot().message.map(|m| m.text).unwrap_or_default()
}

/// A workload whose first job arrives after almost a week starts there:
/// no hours of empty screen before anything happens.
#[test]
fn the_clock_starts_at_the_first_arrival() {
    let sc = inline(
        "{ submit = 599850, size = 2, runtime = 100 }, { submit = 599900, size = 4, runtime = 50 }",
        "fcfs",
    );
    let mut s = Session::new(sc, 1, false).unwrap();
    let first = SimTime::from_secs(599_850);
    assert!(s.now() < first && s.now() > first - SimTime::from_secs(1));
    assert_eq!(
        message(&mut s),
        "the clock starts at the first event, t = 599 850.0 s"
    );
    let snap = s.snapshot();
    assert!((snap.history.start - 599_850.0).abs() < 1.0);
    // The first `.` is the first arrival.
    s.handle(Request::StepEvent);
    assert_eq!(
        message(&mut s),
        "one event at t = 599 850.0 s: job 1 arrived; job 1 started"
    );
    // Restarting starts there again.
    s.handle(Request::Restart { new_seed: false });
    assert!(s.now() < first && s.now() > first - SimTime::from_secs(1));
}

/// `.` says which event it handled and what the policy did on it, on the
/// backfilling teaching example (A and B arrive at 0, H and Q at 1, C at 2;
/// B ends at 5), and which of the lesson's cues it reached.
#[test]
fn a_step_names_its_event() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/teach-backfill.toml");
    let mut s = Session::new(Scenario::load(&path).unwrap(), 1, false).unwrap();
    let mut said = Vec::new();
    for _ in 0..6 {
        s.handle(Request::StepEvent);
        said.push(message(&mut s));
    }
    assert_eq!(
        said,
        [
            "one event at t = 0.0 s: job 1 arrived",
            "one event at t = 0.0 s: job 2 arrived; jobs 1, 2 started",
            "one event at t = 1.0 s: job 3 arrived",
            "one event at t = 1.0 s: job 4 arrived · cue 1 of 6 at t = 1.0 s · paused · n: to the next cue · Space: run on",
            "one event at t = 2.0 s: job 5 arrived; job 5 started · cue 2 of 6 at t = 2.0 s · paused · n: to the next cue · Space: run on",
            "one event at t = 5.0 s: job 2 ended · cue 3 of 6 at t = 5.0 s · paused · n: to the next cue · Space: run on",
        ]
    );
    s.run_to_end();
    s.handle(Request::StepEvent);
    assert_eq!(message(&mut s), "no event is left");
}

/// Ends are named after hundreds of jobs too, when the records kept for
/// the job detail have long been full.
#[test]
fn a_step_names_an_end_after_many_jobs() {
    let jobs: Vec<String> = (0..400)
        .map(|i| format!("{{ submit = {}, size = 4, runtime = 10 }}", i * 10))
        .collect();
    let mut s = Session::new(inline(&jobs.join(", "), "fcfs"), 1, false).unwrap();
    assert!(s.advance_to(SimTime::from_secs(3_995), usize::MAX));
    s.handle(Request::StepEvent);
    assert_eq!(message(&mut s), "one event at t = 4 000.0 s: job 400 ended");
}

/// The history keeps at most a few hundred samples whatever the length of
/// the run, and they span all of it.
#[test]
fn the_history_spans_the_whole_run() {
    let jobs: Vec<String> = (0..200)
        .map(|i| format!("{{ submit = {}, size = 1, runtime = 3000 }}", i * 10_000))
        .collect();
    let sc = inline(&jobs.join(", "), "fcfs");
    let mut s = Session::new(sc, 1, false).unwrap();
    s.run_to_end();
    let h = s.snapshot().history;
    let run = s.now().as_secs_f64();
    assert!(h.utilization.len() < HISTORY_LEN, "{}", h.utilization.len());
    assert!(h.utilization.len() >= HISTORY_LEN / 2 - 1);
    assert!(
        h.span() <= run && h.span() > run - 2.0 * h.every,
        "{} of {run}",
        h.span()
    );
    // One processor of four busy 3000 s in every 10 000 s: 7.5 %.
    let mean: f64 = h.utilization.iter().sum::<f64>() / h.utilization.len() as f64;
    assert!((mean - 0.075).abs() < 0.01, "{mean}");
}

/// `s` names the full path of the file it wrote.
#[test]
fn save_says_the_full_path() {
    let dir = tempfile::tempdir().unwrap();
    let sc = inline("{ submit = 0, size = 1, runtime = 10 }", "fcfs");
    let mut s = Session::new(sc, 1, false)
        .unwrap()
        .with_save_dir(dir.path());
    s.handle(Request::Save);
    let m = message(&mut s);
    let path = PathBuf::from(m.strip_prefix("✓ saved 0 commands to ").unwrap());
    assert!(path.is_absolute(), "{m}");
    assert!(path.exists(), "{m}");
}

/// KTH's first job arrives at 599,850 s: the console opens there. Skipped
/// without the trace.
#[test]
fn kth_opens_at_its_first_arrival() {
    let Some(trace) = common::shared_data("swf/KTH-SP2-1996-2.1-cln.swf.gz") else {
        return;
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/trace-kth-sp2-1996-2.1.toml");
    let set = format!("workload.path={}", trace.display());
    let sc = Scenario::parse(
        &std::fs::read_to_string(&path).unwrap(),
        "kth",
        path.parent().unwrap(),
        &[set],
    )
    .unwrap();
    let mut s = Session::new(sc, 1, false).unwrap();
    assert!(
        (s.now().as_secs_f64() - 599_850.0).abs() < 1.0,
        "{:?}",
        s.now()
    );
    s.handle(Request::StepEvent);
    assert!(message(&mut s).contains("arrived"), "{}", message(&mut s));
}

/// A deliberately wrong policy under the console's session: every other
/// decision asks for more processors than are free. Each is refused with
/// its reason on the message line, counted, and the run goes on to end
/// every job (the good decisions start them).
#[test]
fn a_wrong_policy_is_refused_on_the_message_line_and_the_run_goes_on() {
    use schedscope::model::Platform;
    use schedscope::sched::{
        Abort, Phased, Policy, PolicySpec, PolicyState, Start, StartKind, SystemView,
    };

    struct Wrong {
        spec: PolicySpec,
        n: u64,
    }
    impl Phased for Wrong {
        fn spec(&self) -> &PolicySpec {
            &self.spec
        }
        fn aborts(&mut self, _: &SystemView<'_>, _: &mut Vec<Abort>) {}
        fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Start>) {
            let Some(&key) = view.queue.first() else {
                return;
            };
            let size = view.job(key).size;
            if size > view.free[0] {
                return;
            }
            self.n += 1;
            let width = if self.n % 2 == 1 {
                view.free[0] + 1
            } else {
                size
            };
            out.push(Start {
                job: key,
                assignment: vec![(0, width)],
                kind: StartKind::Head,
                processors: None,
                processes: None,
            });
        }
        fn recheck_at(&self, _: &SystemView<'_>) -> Option<SimTime> {
            // Asked again at once after a refusal: the next try is right.
            None
        }
        fn state(&self, _: &SystemView<'_>) -> PolicyState {
            PolicyState::default()
        }
    }
    fn wrong(spec: &PolicySpec, _: &Platform) -> Result<Box<dyn Policy>, String> {
        Ok(Box::new(Wrong {
            spec: spec.clone(),
            n: 0,
        }))
    }
    let sc = inline(
        "{ submit = 0, size = 2, runtime = 10 }, { submit = 1, size = 2, runtime = 10 }, { submit = 2, size = 4, runtime = 5 }",
        "fcfs",
    );
    let mut s =
        Session::with_builder(sc, 1, false, schedscope::sched::Policies::of(wrong)).unwrap();
    let mut refusals = Vec::new();
    loop {
        let before = s.engine().counters().refused;
        if !s.step() {
            break;
        }
        if s.engine().counters().refused > before {
            refusals.push(message(&mut s));
        }
    }
    assert!(!refusals.is_empty(), "the wrong decisions were refused");
    assert!(
        refusals[0].starts_with("✗ the policy's decision was refused at t = 0.0 s: job 1:"),
        "{refusals:?}"
    );
    let c = s.engine().counters();
    assert_eq!(c.refused as usize, refusals.len());
    assert_eq!(c.finished, 3, "every job ended: {c:?}");
    assert!(s.engine().check_conservation().is_ok());
}

/// `.` onto a command of the scenario's timeline names the command.
#[test]
fn a_step_names_the_timeline_command_it_applied() {
    let text = "name = \"timed\"\n[platform]\nshape = \"1x4\"\n[workload]\nkind = \"jobs\"\n\
        jobs = [{ submit = 0, size = 4, runtime = 10 }, { submit = 8, size = 2, runtime = 5 }]\n\
        [policy]\nname = \"fcfs\"\n\
        [[timeline]]\nat = 5.0\naction = \"set-policy\"\npolicy = { name = \"easy\" }\n";
    let sc = Scenario::parse(text, "timed", Path::new("."), &[]).unwrap();
    let mut s = Session::new(sc, 1, false).unwrap();
    let mut said = Vec::new();
    for _ in 0..3 {
        s.handle(Request::StepEvent);
        said.push(message(&mut s));
    }
    assert_eq!(
        said,
        [
            "one event at t = 0.0 s: job 1 arrived; job 1 started",
            "one event at t = 5.0 s: timeline: policy is now EASY backfilling + worst fit",
            "one event at t = 8.0 s: job 2 arrived",
        ]
    );
}
