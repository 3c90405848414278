//! Every policy schedscope can run, each declaring its name, what it is,
//! the parameters it reads with their ranges, its label and its builder.
//! Scenarios, commands, the console's picker and the help all read this
//! list: adding a policy is its own file, which declares its entry, plus
//! one line in `entries`.
//!
//! Here are what an entry holds and the registry of policies of one's own;
//! `entries` lists the built-in ones, `common` declares the parameters
//! several policies share, `shared` types them (`MaxJumps`,
//! `PlacementName`, `BackfillOrder`, `Machines`), reads `[policy]` and
//! puts a spec in the form outputs write, `names` names the built-in
//! policies callers name, and `params` checks a spec's parameters against
//! its entry, reads them and lists them.

pub mod common;
mod entries;
pub mod names;
mod params;
pub mod shared;

use super::Policy;
use crate::model::Platform;
use crate::sched::{PolicyBuilder, PolicyName, PolicySpec};

pub use entries::POLICIES;
pub use params::{
    check, check_key, choice, count, declared_only, describe, markdown_table, number, param, set,
    value,
};
pub use shared::{SharedParams, normalize, read};

/// One policy as the rest of schedscope knows it.
pub struct PolicyEntry {
    pub name: PolicyName,
    /// One line on what the policy does, for the picker and the help.
    pub summary: &'static str,
    /// The parameters it reads, in the order the picker shows them.
    pub params: &'static [Param],
    /// A short human label for a spec of this policy, e.g.
    /// `FPFS(maxJumps 10) + worst fit`.
    pub label: fn(&PolicySpec) -> String,
    /// Builds it for a platform, or says why it cannot run there.
    pub build: PolicyBuilder,
}

/// A parameter a policy reads.
pub struct Param {
    /// The key in a scenario: one of the common keys several policies
    /// share (`max_jumps`, `placement`, `order`, `machines`, written in
    /// `[policy]` itself) or a key of `[policy.params]`.
    pub key: &'static str,
    /// Its name on the picker.
    pub title: &'static str,
    /// A few words on what it changes, for the picker.
    pub hint: &'static str,
    pub kind: ParamKind,
}

/// What values a parameter takes. Scenario checks, the picker, the help
/// and `schedscope policies` read a parameter through its kind alone.
pub enum ParamKind {
    /// A whole number in `min..=max`.
    Count { min: i64, max: i64, default: i64 },
    /// A limit: a whole number from 0 to `max`, or `"unlimited"`.
    Limit { max: i64, default: i64 },
    /// A number in `min..=max`, stepped by `step` on the picker.
    Number {
        min: f64,
        max: f64,
        step: f64,
        default: f64,
    },
    /// One of a few words; `shown` says each on the picker (the words
    /// themselves when empty).
    Choice {
        values: &'static [&'static str],
        default: &'static str,
        shown: &'static [&'static str],
    },
    /// Free text, such as an address (set in a scenario or with `--set`;
    /// the picker shows it and leaves it as it is). An empty default means
    /// unset; `check`, when there is one, refuses a value the policy could
    /// not use, with the reason (a scenario points at its line).
    Text {
        default: &'static str,
        check: Option<TextCheck>,
    },
}

/// Refuses a text a policy could not use, with the reason.
pub type TextCheck = fn(&str) -> Result<(), String>;

/// The word for no limit in a [`ParamKind::Limit`].
pub const UNLIMITED: &str = "unlimited";

/// Policies added by [`register`], after the built-in ones.
static REGISTERED: std::sync::RwLock<Vec<&'static PolicyEntry>> =
    std::sync::RwLock::new(Vec::new());

/// Adds a policy of your own to the catalog for the life of the process:
/// scenarios, `run`, `sweep`, `check`, `schedscope policies` and the
/// console's picker then know it by its name like a built-in one. Call it
/// before the command line is read (see `crates/sjf-easy` for a whole
/// program). A name already in the catalog, or one that is not lowercase
/// words joined by `-`, is refused.
pub fn register(entry: PolicyEntry) -> Result<(), String> {
    let name = entry.name.as_str();
    if !crate::sched::is_catalog_name(name) {
        return Err(format!(
            "a policy name is lowercase letters and digits in words joined by \"-\", \
             not \"{name}\""
        ));
    }
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if POLICIES
        .iter()
        .chain(registered.iter().copied())
        .any(|e| e.name == entry.name)
    {
        return Err(format!(
            "a policy named \"{name}\" is already in the catalog"
        ));
    }
    registered.push(Box::leak(Box::new(entry)));
    Ok(())
}

/// Every policy: the built-in ones in picker order, then the registered.
pub fn all() -> Vec<&'static PolicyEntry> {
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    POLICIES.iter().chain(registered.iter().copied()).collect()
}

/// The entry for `name`, if there is such a policy.
pub fn find(name: PolicyName) -> Option<&'static PolicyEntry> {
    if let Some(e) = POLICIES.iter().find(|e| e.name == name) {
        return Some(e);
    }
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    registered.iter().copied().find(|e| e.name == name)
}

/// Every policy's name, in catalog order.
pub fn names() -> impl Iterator<Item = PolicyName> {
    all().into_iter().map(|e| e.name)
}

fn known() -> String {
    let names: Vec<String> = all()
        .iter()
        .map(|e| format!("\"{}\"", e.name.as_str()))
        .collect();
    names.join(", ")
}

/// What the catalog knows of a spec: its label and how to build it.
pub trait Catalogued {
    /// A short human label, e.g. `FPFS(maxJumps 10) + worst fit`; its own
    /// parameters follow in brackets when set.
    fn label(&self) -> String;
    /// Builds the policy, or says why it cannot run on `platform`.
    fn build(&self, platform: &Platform) -> Result<Box<dyn Policy>, String>;
}

impl Catalogued for PolicySpec {
    fn label(&self) -> String {
        label(self)
    }

    fn build(&self, platform: &Platform) -> Result<Box<dyn Policy>, String> {
        let entry = check(self)?;
        (entry.build)(self, platform)
    }
}

/// [`Catalogued::label`].
pub fn label(spec: &PolicySpec) -> String {
    let Some(entry) = find(spec.name) else {
        return spec.name.as_str().to_string();
    };
    format!(
        "{}{}",
        (entry.label)(spec),
        crate::sched::params_suffix(spec)
    )
}

#[cfg(test)]
mod tests;
