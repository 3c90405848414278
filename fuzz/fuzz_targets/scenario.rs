//! Scenario TOML with `--set` overrides: the input's lines after a line
//! `--set` are overrides. Relative paths resolve in a folder that does not
//! exist, so a case never reads a trace.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (body, sets) = match text.split_once("\n--set\n") {
        Some((body, sets)) => (body, sets.lines().map(str::to_string).collect()),
        None => (text, Vec::new()),
    };
    let base = Path::new("/nonexistent-schedscope-fuzz");
    let _ = schedscope::scenario::Scenario::parse(body, "fuzz.toml", base, &sets);
});
