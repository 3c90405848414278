//! A lesson's cues as the scenario reader takes them: every wrong one is
//! refused with the file, the line and the key.

use super::*;

const LESSON: &str = "name = \"lesson\"
[platform]
shape = \"1x4\"
[workload]
kind = \"jobs\"
jobs = [
  { id = 1, submit = 0, size = 2, runtime = 20 },
  { id = 5, submit = 2, size = 1, runtime = 10 },
]
";

/// The lesson with one timeline entry of `lines` at t = 2.
fn with_entry(lines: &str) -> Result<Scenario, ScenarioError> {
    let text = format!("{LESSON}\n[[timeline]]\nat = 2\n{lines}\n");
    Scenario::parse(&text, "lesson.toml", Path::new("."), &[])
}

fn error(lines: &str) -> String {
    match with_entry(lines) {
        Ok(_) => panic!("{lines:?} was taken"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_cue_is_read_and_kept_from_the_engine() {
    let s = with_entry(
        "action = \"cue\"\ntext = \"C fits before H's shadow time.\"\nselect = 5\npane = \"backfill\"",
    )
    .unwrap();
    let cues = s.cues();
    assert_eq!(cues.len(), 1);
    let (at, cue) = &cues[0];
    assert_eq!(*at, SimTime::from_secs(2));
    assert_eq!(cue.text, "C fits before H's shadow time.");
    assert_eq!(cue.select, Some(5));
    assert_eq!(cue.pane, Some(CuePane::Backfill));
    // No command reaches the engine: nothing is scheduled at t = 2.
    let engine = s.build_engine(1, false).unwrap();
    assert!(engine.command_log().is_empty());
    let plain = Scenario::parse(LESSON, "lesson.toml", Path::new("."), &[]).unwrap();
    let run = |s: &Scenario| {
        let mut e = s.build_engine(1, false).unwrap();
        let mut events = Vec::new();
        while let Some(t) = e.next_event_time() {
            events.push(t);
            e.step();
        }
        (events, e.counters().events)
    };
    assert_eq!(run(&s), run(&plain), "a cue is no event");
}

#[test]
fn cues_come_by_time_then_as_written() {
    let text = format!(
        "{LESSON}
[[timeline]]
at = 9
action = \"cue\"
text = \"third\"

[[timeline]]
at = 2
action = \"cue\"
text = \"first\"

[[timeline]]
at = 2
action = \"cue\"
text = \"second\"
"
    );
    let s = Scenario::parse(&text, "lesson.toml", Path::new("."), &[]).unwrap();
    let texts: Vec<String> = s.cues().into_iter().map(|c| c.1.text).collect();
    assert_eq!(texts, ["first", "second", "third"]);
}

#[test]
fn a_cue_needs_a_text_of_one_short_paragraph() {
    let e = error("action = \"cue\"");
    assert!(
        e.contains("lesson.toml:11:1") && e.contains("`text` is missing"),
        "{e}"
    );
    let e = error("action = \"cue\"\ntext = \"  \"");
    assert!(e.contains("lesson.toml:14:8"), "at the text's line: {e}");
    assert!(e.contains("cue `text` must say something"), "{e}");
    let e = error(&format!(
        "action = \"cue\"\ntext = \"{}\"",
        "word ".repeat(60)
    ));
    assert!(
        e.contains("at most 280 characters") && e.contains("found 300"),
        "{e}"
    );
    let e = error("action = \"cue\"\ntext = \"two\\nlines\"");
    assert!(e.contains("without control characters"), "{e}");
    let e = error("action = \"cue\"\ntext = 3");
    assert!(
        e.contains("`text` must be a string in quotes, found 3"),
        "{e}"
    );
}

#[test]
fn a_cue_selects_a_job_of_the_workload_and_a_pane_of_the_console() {
    let e = error("action = \"cue\"\ntext = \"x\"\nselect = 7");
    assert!(e.contains("lesson.toml:15:10"), "at the select's line: {e}");
    assert!(
        e.contains("names job 7, which the workload does not have (its jobs: 1, 5)"),
        "{e}"
    );
    let e = error("action = \"cue\"\ntext = \"x\"\nselect = -1");
    assert!(e.contains("`select` must be a whole number"), "{e}");
    let e = error("action = \"cue\"\ntext = \"x\"\npane = \"links\"");
    assert!(
        e.contains(
            "`pane` must be one of \"queue\", \"clusters\", \"backfill\", \"groups\", \"history\", found \"links\""
        ),
        "{e}"
    );
    let e = error("action = \"cue\"\ntext = \"x\"\nwhy = 1");
    assert!(
        e.contains("unknown key `why`") && e.contains("`select`"),
        "{e}"
    );
}

#[test]
fn an_injected_job_may_be_selected_after_its_injection() {
    let inject = "action = \"inject-jobs\"\njobs = [{ size = 1, runtime = 1 }]";
    let cue = |at: u32| {
        format!(
            "{LESSON}\n[[timeline]]\nat = 2\n{inject}\n\n[[timeline]]\nat = {at}\naction = \"cue\"\ntext = \"x\"\nselect = 1000000001\n"
        )
    };
    assert!(Scenario::parse(&cue(3), "lesson.toml", Path::new("."), &[]).is_ok());
    let e = Scenario::parse(&cue(1), "lesson.toml", Path::new("."), &[]).unwrap_err();
    assert!(e.to_string().contains("names job 1000000001"), "{e}");
}

#[test]
fn an_unknown_action_lists_the_cue_too() {
    let e = error("action = \"pause\"");
    assert!(
        e.contains(
            "must be one of \"set-policy\", \"inject-jobs\", \"set-estimate-error\", \"set-link-bandwidth\", \"cue\", found \"pause\""
        ),
        "{e}"
    );
}

/// A run saved without commands and with the scenario's seed is the
/// scenario's own run: its `[expect]` bounds stay. With commands or
/// another seed they are left out, with a word why.
#[test]
fn a_saved_run_keeps_its_bounds_only_when_it_is_the_scenarios_own() {
    let text = "name = \"t\"\nseed = 3\n[platform]\nshape = \"1x4\"\n[workload]\nkind = \"ngubiri\"\nmax_size = 4\n\n# Bounds.\n[expect]\nart = { min = 1.0, max = 2.0 }\n";
    let s = Scenario::parse(text, "t", Path::new("."), &[]).unwrap();
    let kept = s.save_run(3, &[]);
    assert!(kept.contains("[expect]\nart = {"), "{kept}");
    let log = [(
        SimTime::from_secs(5),
        crate::engine::Command::SetPolicy {
            policy: <crate::sched::PolicySpec as crate::policy::SharedParams>::fcfs(),
        },
    )];
    for saved in [s.save_run(3, &log), s.save_run(4, &[])] {
        assert!(!saved.contains("[expect]\n"), "{saved}");
        assert!(!saved.contains("# Bounds."), "{saved}");
        assert!(
            saved.contains("# The [expect] bounds of t are left out"),
            "{saved}"
        );
        Scenario::parse(&saved, "saved", Path::new("."), &[]).unwrap();
    }
}
