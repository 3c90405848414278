//! The SWF reader over gzip streams: the input compressed (so the fuzzer
//! explores the text through the decoder), then broken off and corrupted.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    let z = e.finish().unwrap();
    let whole = schedscope::workload::swf::read_from(&z[..], "fuzz.swf.gz");
    if !data.starts_with(&[0x1f, 0x8b]) {
        // Compressed or not, the same text reads the same.
        let plain = schedscope::workload::swf::read_from(data, "fuzz.swf");
        assert_eq!(whole.is_ok(), plain.is_ok());
    }
    let _ = schedscope::workload::swf::read_from(&z[..z.len() / 2], "fuzz.swf.gz");
    // The raw bytes as a gzip stream of their own.
    let _ = schedscope::workload::swf::read_from(data, "fuzz.swf.gz");
});
