//! Policies by name with their parameters: what scenarios, commands, the
//! console's picker and the command log speak. Data only; each policy's
//! behaviour lives with the policy.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A policy's name, as scenarios, commands and the command log spell it
/// (`fcfs`, `easy`, …). Which names exist, what each takes and how each is
/// built is the policy catalog's business (`policy::catalog`): a name read
/// from a file is only checked against it when the policy is built, so
/// this module stays data only.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PolicyName(&'static str);

impl PolicyName {
    /// A name known when the program is built (a catalog entry's).
    pub const fn new(name: &'static str) -> PolicyName {
        PolicyName(name)
    }

    /// The name `text` spells. Names are few (one per policy, plus any
    /// misspelling a file carries before it is refused), so each distinct
    /// one is kept for the life of the process.
    pub fn intern(text: &str) -> PolicyName {
        use std::sync::{Mutex, OnceLock};
        static NAMES: OnceLock<Mutex<Vec<&'static str>>> = OnceLock::new();
        let mut names = NAMES
            .get_or_init(|| Mutex::new(Vec::new()))
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(n) = names.iter().find(|n| **n == text) {
            return PolicyName(n);
        }
        // A bound on what a stream of misspelt files can keep: past it, an
        // unknown name reads as one that no policy has.
        if names.len() >= 1024 {
            return PolicyName("(unknown)");
        }
        let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
        names.push(leaked);
        PolicyName(leaked)
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Debug for PolicyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for PolicyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for PolicyName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for PolicyName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Ok(PolicyName::intern(&text))
    }
}

/// Whether `name` is spelt as names of a catalog are (policies, workload
/// kinds): lowercase letters and digits in words joined by `-`.
pub fn is_catalog_name(name: &str) -> bool {
    name.split('-').all(|w| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    })
}

/// A policy by name with its parameters: what scenarios, commands and the
/// console's picker use. Data only: which keys exist, what each takes and
/// its default are the policy catalog's (`policy::catalog`), which reads a
/// spec from a scenario, fills in the defaults and keeps the keys in its
/// order; this type carries them and writes them as it holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySpec {
    pub name: PolicyName,
    /// The keys several policies share, written in `[policy]` itself
    /// (`max_jumps`, `placement`, … as the catalog declares them), in the
    /// order they are written out.
    pub shared: Vec<(String, ParamValue)>,
    /// The policy's own parameters beyond the shared ones, by the keys its
    /// catalog entry declares (`[policy.params]` in a scenario).
    pub params: BTreeMap<String, ParamValue>,
}

impl PolicySpec {
    /// The policy `name` with no key set.
    pub fn new(name: PolicyName) -> PolicySpec {
        PolicySpec {
            name,
            shared: Vec::new(),
            params: BTreeMap::new(),
        }
    }

    /// The value of the shared key `key`, if the spec holds it.
    pub fn shared(&self, key: &str) -> Option<&ParamValue> {
        self.shared.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Sets the shared key `key`: in its place if the spec holds it, else
    /// after the others.
    pub fn set_shared(&mut self, key: &str, value: ParamValue) {
        match self.shared.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value,
            None => self.shared.push((key.to_string(), value)),
        }
    }

    /// Takes the shared key `key` out, if the spec holds it.
    pub fn remove_shared(&mut self, key: &str) -> Option<ParamValue> {
        let at = self.shared.iter().position(|(k, _)| k == key)?;
        Some(self.shared.remove(at).1)
    }
}

/// `name`, the shared keys in the order held, then `params` when any.
impl Serialize for PolicySpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let extra = usize::from(!self.params.is_empty());
        let mut map = s.serialize_map(Some(1 + self.shared.len() + extra))?;
        map.serialize_entry("name", &self.name)?;
        for (k, v) in &self.shared {
            map.serialize_entry(k, v)?;
        }
        if !self.params.is_empty() {
            map.serialize_entry("params", &self.params)?;
        }
        map.end()
    }
}

/// Any key besides `name` and `params` is read as a shared one, as
/// written: the catalog checks the keys and fills in the defaults
/// (`policy::catalog::read` does both while reading a scenario).
impl<'de> Deserialize<'de> for PolicySpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = PolicySpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("struct PolicySpec")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<PolicySpec, A::Error> {
                use serde::de::Error;
                let mut name = None;
                let mut shared: Vec<(String, ParamValue)> = Vec::new();
                let mut params = None;
                while let Some(key) = map.next_key::<String>()? {
                    let twice = match key.as_str() {
                        "name" => name.replace(map.next_value::<PolicyName>()?).is_some(),
                        "params" => params.replace(map.next_value()?).is_some(),
                        _ => {
                            let value = map.next_value::<ParamValue>()?;
                            let twice = shared.iter().any(|(k, _)| *k == key);
                            shared.push((key.clone(), value));
                            twice
                        }
                    };
                    if twice {
                        return Err(A::Error::custom(format_args!("duplicate field `{key}`")));
                    }
                }
                Ok(PolicySpec {
                    name: name.ok_or_else(|| A::Error::missing_field("name"))?,
                    shared,
                    params: params.unwrap_or_default(),
                })
            }
        }
        d.deserialize_map(V)
    }
}

/// The value of a policy's own parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl ParamValue {
    /// The value as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Int(i) => Some(*i as f64),
            ParamValue::Float(x) => Some(*x),
            _ => None,
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Text(t) => f.write_str(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> PolicySpec {
        let mut s = PolicySpec::new(PolicyName::new("easy"));
        s.set_shared("order", ParamValue::Text("smallest".into()));
        s.set_shared("max_jumps", ParamValue::Int(3));
        s
    }

    #[test]
    fn a_spec_is_written_as_it_holds_its_keys() {
        let mut s = spec();
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"name":"easy","order":"smallest","max_jumps":3}"#
        );
        // Set again in place; params last, when any.
        s.set_shared("order", ParamValue::Text("arrival".into()));
        s.params.insert("window".into(), ParamValue::Int(2));
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"name":"easy","order":"arrival","max_jumps":3,"params":{"window":2}}"#
        );
        assert_eq!(
            s.remove_shared("order"),
            Some(ParamValue::Text("arrival".into()))
        );
        assert_eq!(s.shared("order"), None);
    }

    #[test]
    fn a_spec_reads_back_as_written_and_every_other_key_as_a_shared_one() {
        let s = spec();
        let back: PolicySpec = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let odd: PolicySpec = serde_json::from_str(r#"{"zeta":1,"name":"x","alpha":"a"}"#).unwrap();
        let keys: Vec<&str> = odd.shared.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["zeta", "alpha"]);
        let e = serde_json::from_str::<PolicySpec>(r#"{"order":"arrival"}"#).unwrap_err();
        assert!(e.to_string().contains("missing field `name`"), "{e}");
        let e = serde_json::from_str::<PolicySpec>(r#"{"name":"a","x":1,"x":2}"#).unwrap_err();
        assert!(e.to_string().contains("duplicate field `x`"), "{e}");
    }
}
