//! The SWF reader over arbitrary bytes: it may refuse them, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = schedscope::workload::swf::read_from(data, "fuzz.swf");
});
