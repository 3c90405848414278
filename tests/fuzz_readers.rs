//! Every reader of outside input, over arbitrary bytes and over inputs
//! shaped like the real thing: the SWF reader (plain and gzip), scenario
//! TOML with `--set` overrides, and Batsim JSON workloads. A reader may
//! refuse its input with an error; it must never panic.
//!
//! `cargo test` runs a bounded number of cases. The long runs are the
//! ignored `*_long` tests, with the number of cases per target from
//! `FUZZ_CASES`:
//!
//!   FUZZ_CASES=1000000 cargo test --release --test commands fuzz_readers -- --ignored --nocapture

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use schedscope::scenario::Scenario;
use schedscope::workload::batsim;
use schedscope::workload::swf;
use std::io::Write;
use std::path::Path;

// ---------------------------------------------------------------- SWF

/// A field as traces write it, and as they should not.
fn swf_field() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (-1i64..5000).prop_map(|v| v.to_string()),
        1 => Just("-1".to_string()),
        1 => any::<i64>().prop_map(|v| v.to_string()),
        1 => any::<f64>().prop_map(|v| v.to_string()),
        1 => "[0-9.eE+-]{0,12}",
        1 => Just("18446744073709551616".to_string()),
        1 => "[^ \t\r\n]{0,6}",
    ]
}

/// A line: a record of (about) 18 fields, a header comment, or noise.
fn swf_line() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(swf_field(), 16..=20).prop_map(|f| f.join(" ")),
        2 => prop::collection::vec(swf_field(), 0..30).prop_map(|f| f.join("\t")),
        1 => "; ?(MaxProcs|MaxNodes|UnixStartTime|TimeZoneString|Note): ?[ -~]{0,20}",
        1 => "[ -~]{0,40}",
        1 => Just(String::new()),
    ]
}

fn swf_text() -> impl Strategy<Value = String> {
    (prop::collection::vec(swf_line(), 0..30), any::<bool>())
        .prop_map(|(lines, crlf)| lines.join(if crlf { "\r\n" } else { "\n" }))
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Reads `bytes` as SWF; compares plain and gzip when asked.
fn check_swf(bytes: &[u8]) {
    let plain = swf::read_from(bytes, "fuzz.swf");
    let zipped = swf::read_from(&gzip(bytes)[..], "fuzz.swf");
    // Bytes opening with the gzip magic are read as gzip, whatever follows:
    // compressed, they are text.
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return;
    }
    // Compressed or not, the same text reads the same.
    match (&plain, &zipped) {
        (Ok(a), Ok(b)) => assert_eq!(a.records.len(), b.records.len()),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("plain {:?} but gzip {:?}", a.is_ok(), b.is_ok()),
    }
}

fn swf_bytes_case(bytes: Vec<u8>) -> Result<(), TestCaseError> {
    check_swf(&bytes);
    // Gzip that breaks off, or with its body corrupted.
    let z = gzip(&bytes);
    let _ = swf::read_from(&z[..z.len() / 2], "fuzz.swf.gz");
    let mut bad = z.clone();
    if bad.len() > 12 {
        let i = 10 + bytes.len() % (bad.len() - 10);
        bad[i] ^= 0x5a;
    }
    let _ = swf::read_from(&bad[..], "fuzz.swf.gz");
    Ok(())
}

fn swf_text_case(text: String) -> Result<(), TestCaseError> {
    check_swf(text.as_bytes());
    Ok(())
}

// ---------------------------------------------------------------- scenario

const KEYS: &[&str] = &[
    "name",
    "seed",
    "platform.shape",
    "platform.clusters",
    "workload.kind",
    "workload.path",
    "workload.q",
    "workload.min_size",
    "workload.max_size",
    "workload.mean_interarrival",
    "workload.mean_runtime",
    "workload.split.threshold",
    "workload.split.max_components",
    "workload.split.approach",
    "workload.jobs",
    "policy.name",
    "policy.max_jumps",
    "policy.placement",
    "policy.order",
    "policy.machines",
    "estimates.source",
    "estimates.error_percent",
    "estimates.on_overrun",
    "run.jobs",
    "run.replications",
    "run.warmup_jobs",
    "expect.art",
    "commands",
    "x",
    "platform",
    "workload",
    "policy.name.x",
    "",
    ".",
    "a..b",
];

fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|v| v.to_string()),
        (-3i64..200).prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| format!("{v:?}")),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("-0.0".to_string()),
        "[a-z0-9x-]{0,12}",
        "\"[ -~]{0,12}\"",
        Just("true".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("[1, 2]".to_string()),
        Just("{ min = 1.0, max = 0.0 }".to_string()),
        Just("5x20".to_string()),
        Just("0x0".to_string()),
        Just("4294967296x1".to_string()),
        Just("fcfs".to_string()),
        Just("easy".to_string()),
        Just("conservative".to_string()),
        Just("fpfs".to_string()),
        Just("swf".to_string()),
        Just("batsim".to_string()),
        Just("inline".to_string()),
        Just("ngubiri".to_string()),
        Just("trace".to_string()),
        Just("kill".to_string()),
        Just("requeue".to_string()),
        Just("pinned".to_string()),
        "[ -~]{0,16}",
    ]
}

fn set() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (prop::sample::select(KEYS), toml_value()).prop_map(|(k, v)| format!("{k}={v}")),
        1 => "[ -~]{0,24}",
    ]
}

/// The scenarios shipped, as text, but those reading a trace or workload
/// from `../shared/data` (validating them reads the whole file).
fn shipped() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .filter(|t| !t.contains("shared/data"))
        .collect();
    v.sort();
    assert!(v.len() >= 8, "the shipped scenarios were not found");
    v
}

fn parse_scenario(text: &str, sets: &[String]) {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let _ = Scenario::parse(text, "fuzz.toml", &base, sets);
}

/// A shipped scenario with some lines dropped or cut and some `--set`s.
fn scenario_case(
    texts: &[String],
    (which, cuts, sets): (usize, Vec<(usize, usize)>, Vec<String>),
) -> Result<(), TestCaseError> {
    let text = &texts[which % texts.len()];
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for (i, cut) in cuts {
        if lines.is_empty() {
            break;
        }
        let i = i % lines.len();
        let l = &lines[i];
        let at = (0..=cut.min(l.len()))
            .rev()
            .find(|&c| l.is_char_boundary(c))
            .unwrap_or(0);
        if cut % 3 == 0 {
            lines.remove(i);
        } else {
            lines[i] = l[..at].to_string();
        }
    }
    let text = lines.join("\n");
    parse_scenario(&text, &[]);
    parse_scenario(&text, &sets);
    parse_scenario(&texts[which % texts.len()], &sets);
    Ok(())
}

fn scenario_shape() -> impl Strategy<Value = (usize, Vec<(usize, usize)>, Vec<String>)> {
    (
        any::<usize>(),
        prop::collection::vec((any::<usize>(), 0usize..40), 0..4),
        prop::collection::vec(set(), 0..5),
    )
}

// ---------------------------------------------------------------- Batsim

fn json_number() -> impl Strategy<Value = String> {
    prop_oneof![
        (0i64..1000).prop_map(|v| v.to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<f64>()
            .prop_filter("finite", |v| v.is_finite())
            .prop_map(|v| format!("{v:?}")),
        Just("1e308".to_string()),
        Just("-1".to_string()),
        Just("1.5".to_string()),
        Just("\"3\"".to_string()),
        Just("null".to_string()),
        Just("18446744073709551616".to_string()),
    ]
}

fn batsim_job() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            json_number(),
            Just("\"w!7\"".to_string()),
            Just("\"!\"".to_string()),
            Just("[]".to_string())
        ],
        json_number(),
        json_number(),
        prop::option::of(json_number()),
        prop_oneof![
            Just("\"delay\"".to_string()),
            Just("\"p\"".to_string()),
            Just("\"missing\"".to_string()),
            Just("3".to_string())
        ],
    )
        .prop_map(|(id, sub, res, wall, prof)| {
            let wall = wall
                .map(|w| format!(", \"walltime\": {w}"))
                .unwrap_or_default();
            format!(
                "{{\"id\": {id}, \"subtime\": {sub}, \"res\": {res}{wall}, \"profile\": {prof}}}"
            )
        })
}

fn batsim_profile() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["delay", "p", "x"][..]),
        prop::sample::select(&["delay", "parallel_homogeneous", "composed", ""][..]),
        prop::option::of(json_number()),
    )
        .prop_map(|(name, kind, delay)| {
            let delay = delay
                .map(|d| format!(", \"delay\": {d}"))
                .unwrap_or_default();
            format!("\"{name}\": {{\"type\": \"{kind}\"{delay}}}")
        })
}

fn batsim_text() -> impl Strategy<Value = String> {
    (
        prop::option::of(json_number()),
        prop::collection::vec(batsim_job(), 0..12),
        prop::collection::vec(batsim_profile(), 0..4),
        0usize..400,
    )
        .prop_map(|(nb, jobs, profiles, cut)| {
            let nb = nb.map(|n| format!("\"nb_res\": {n}, ")).unwrap_or_default();
            let text = format!(
                "{{{nb}\"jobs\": [{}], \"profiles\": {{{}}}}}",
                jobs.join(", "),
                profiles.join(", ")
            );
            // Sometimes cut short.
            if cut < 40 && text.is_char_boundary(text.len() * cut / 40) {
                text[..text.len() * cut / 40].to_string()
            } else {
                text
            }
        })
}

fn batsim_case(text: String) -> Result<(), TestCaseError> {
    let _ = batsim::parse(&text, "fuzz.json");
    Ok(())
}

// ---------------------------------------------------------------- runs

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Runs every target for `cases` cases each; returns the executions.
fn fuzz_all(cases: u32) -> u64 {
    let mut execs = 0u64;
    let mut r = runner(cases);
    r.run(&prop::collection::vec(any::<u8>(), 0..600), swf_bytes_case)
        .unwrap();
    execs += cases as u64;
    let mut r = runner(cases);
    r.run(&swf_text(), swf_text_case).unwrap();
    execs += cases as u64;
    let texts = shipped();
    let mut r = runner(cases);
    r.run(&scenario_shape(), |c| scenario_case(&texts, c))
        .unwrap();
    execs += cases as u64;
    let mut r = runner(cases);
    r.run(&"[ -~\n]{0,300}", |t| {
        parse_scenario(&t, &[]);
        Ok(())
    })
    .unwrap();
    execs += cases as u64;
    let mut r = runner(cases);
    r.run(&batsim_text(), batsim_case).unwrap();
    execs += cases as u64;
    let mut r = runner(cases);
    r.run(&"\\PC{0,200}", batsim_case).unwrap();
    execs += cases as u64;
    execs
}

#[test]
fn readers_never_panic() {
    assert_eq!(fuzz_all(256), 6 * 256);
}

/// The long run (see the module's documentation).
#[test]
#[ignore]
fn readers_never_panic_long() {
    let cases: u32 = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let t = std::time::Instant::now();
    let execs = fuzz_all(cases);
    println!(
        "{execs} executions ({cases} per target) in {:.1} s, 0 panics",
        t.elapsed().as_secs_f64()
    );
}

/// Inputs found by fuzzing that once broke a reader.
#[test]
fn fuzz_regressions() {
    // Structure-aware inputs shaped like the shipped ones still parse.
    let texts = shipped();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let default = texts
        .iter()
        .find(|t| t.contains("ngubiri-fpfs"))
        .expect("default.toml");
    assert!(Scenario::parse(default, "default.toml", &base, &[]).is_ok());
    assert!(swf::read_from(&b"1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n"[..], "x").is_ok());
    assert!(batsim::parse("{\"jobs\": []}", "x").is_ok());
    // Found by the long run: plain bytes opening with the gzip magic are
    // read as gzip and refused with a message, not a panic.
    let e = swf::read_from(&[0x1f, 0x8b, b'1', b' ', b'2'][..], "x").unwrap_err();
    assert!(e.to_string().contains("read error"), "{e}");
    // Found by cargo-fuzz (fuzz/fuzz_targets/scenario.rs): a TOML error
    // right after a character wider than one byte, where the message looks
    // back for the key, cut that character in two and panicked.
    let text =
        "# The DAS2-fs1-2003-1\u{48c}runtime = \u{17}5.0\n\n[worfs,easy,9 \"firstirst-fit\"\n";
    let e = Scenario::parse(text, "crash.toml", &base, &[]).unwrap_err();
    assert!(e.to_string().contains("crash.toml"), "{e}");
    let e = Scenario::parse("é = \u{17}", "wide.toml", &base, &[]).unwrap_err();
    assert!(e.to_string().contains("wide.toml:1"), "{e}");
}
