//! A sweep's point and its id.
//!
//! The id is a digest of the point's settings alone (sorted by key), not of
//! its position: the same settings keep the same id whatever the order of
//! `--vary`, so a result file can always be matched to its point and a
//! resumed sweep recognises what is already done.

use std::fmt::Write;

/// One point: the varied keys and the values they take here, in `--vary`
/// order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub settings: Vec<(String, String)>,
    id: String,
}

impl Point {
    pub fn new(settings: Vec<(String, String)>) -> Point {
        let mut sorted: Vec<&(String, String)> = settings.iter().collect();
        sorted.sort();
        let mut canonical = String::new();
        for (k, v) in sorted {
            let _ = writeln!(canonical, "{k}={v}");
        }
        Point {
            id: digest(canonical.as_bytes()),
            settings,
        }
    }

    /// Sixteen hex digits, usable as a file name.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// `key=value key=value`, for messages.
    pub fn label(&self) -> String {
        self.settings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// 64-bit FNV-1a of `bytes` as sixteen hex digits. Written out here rather
/// than taken from `std::hash`, whose hashers may change between Rust
/// versions: ids are kept in files and must not.
pub fn digest(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &[(&str, &str)]) -> Point {
        Point::new(
            s.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn fnv1a_reference_values() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(digest(b""), "cbf29ce484222325");
        assert_eq!(digest(b"a"), "af63dc4c8601ec8c");
        assert_eq!(digest(b"foobar"), "85944171f73967e8");
    }

    #[test]
    fn id_depends_on_settings_not_their_order() {
        let a = p(&[("policy.name", "fpfs"), ("policy.max_jumps", "5")]);
        let b = p(&[("policy.max_jumps", "5"), ("policy.name", "fpfs")]);
        let c = p(&[("policy.max_jumps", "6"), ("policy.name", "fpfs")]);
        assert_eq!(a.id(), b.id());
        assert_ne!(a.id(), c.id());
        // Pinned: an id written into a result folder must read the same
        // with every later build.
        assert_eq!(a.id(), digest(b"policy.max_jumps=5\npolicy.name=fpfs\n"));
        assert_eq!(a.id().len(), 16);
    }
}
