//! The inject form: count, size, run time, estimate, components and (on
//! a grid workload) the site of a local job, each checked in place against
//! the platform before the form closes, so that what the operator typed
//! stays on screen next to what is wrong with it.

use super::app::Form;
use super::keymap::Action;
use super::snapshot::Snapshot;
use crate::engine::InjectJob;
use crate::model::{Platform, split_even};
use crate::scenario::Scenario;
use crate::scenario::Workload;
use crossterm::event::{KeyCode, KeyEvent};
use std::sync::Arc;

/// The form's fields, in order.
pub const INJECT_FIELDS: [&str; 6] = [
    "count",
    "size",
    "runtime (s)",
    "estimate (s)",
    "components",
    "site",
];

const COUNT: usize = 0;
const SIZE: usize = 1;
const RUNTIME: usize = 2;
const ESTIMATE: usize = 3;
const COMPONENTS: usize = 4;
/// Shown only where jobs have sites ([`FitRules::sites`]).
pub const SITE: usize = 5;

/// What an injected job must fit: the platform, and the component counts
/// the engine may split a job into when the operator leaves the components
/// to it (the scenario's splitting rule, else the policy's).
#[derive(Clone, Debug, Default)]
pub struct FitRules {
    pub platform: Platform,
    /// The workload, when it splits jobs by a rule of its own.
    split: Option<Arc<dyn Workload>>,
    /// Sites a local job may be injected at (the grid workload's, one per
    /// cluster); 0 where jobs have no site and the form hides the field.
    sites: u32,
}

impl FitRules {
    /// The rules of `platform`, with the splitting rule of `workload` when
    /// it has one.
    pub fn new(platform: Platform, workload: Option<Arc<dyn Workload>>) -> FitRules {
        FitRules {
            platform,
            split: workload,
            sites: 0,
        }
    }

    /// These rules with a site field: a local job may be injected at one
    /// of the platform's clusters.
    pub fn with_sites(mut self) -> FitRules {
        self.sites = self.platform.clusters.len() as u32;
        self
    }

    /// Sites the form offers (0: no site field).
    pub fn sites(&self) -> u32 {
        self.sites
    }

    /// Fields the form shows: the site only where jobs have sites.
    pub fn fields(&self) -> usize {
        if self.sites > 0 {
            INJECT_FIELDS.len()
        } else {
            SITE
        }
    }

    /// The rules of `scenario`, as its engine applies them to injected jobs.
    pub fn of(scenario: &Scenario) -> FitRules {
        let workload = &scenario.facts.workload;
        let rules = FitRules::new(scenario.facts.platform.clone(), Some(workload.clone()));
        if workload.has_sites() {
            rules.with_sites()
        } else {
            rules
        }
    }

    /// Every split the engine may give a job of `size` with no components:
    /// by the scenario's splitting rule, else the policy's own (the
    /// fewest clusters that hold it, as for the workload's jobs without
    /// components).
    pub fn automatic_splits(&self, size: u32) -> Vec<Vec<u32>> {
        let Some(mut out) = self.split.as_ref().and_then(|w| w.splits(size)) else {
            return vec![crate::sched::fewest_split(&self.platform, size)];
        };
        out.dedup();
        out
    }

    /// The fewest even components `size` fits as, if any.
    fn suggestion(&self, size: u32) -> Option<Vec<u32>> {
        let n = self.platform.clusters.len() as u32;
        (1..=n.min(size))
            .map(|k| split_even(size, k))
            .find(|w| self.platform.can_ever_fit(w))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct InjectForm {
    pub values: [String; 6],
    pub cursor: usize,
    pub errors: [Option<String>; 6],
    /// Fields shown, from the first: all six where jobs have sites, else
    /// the five before the site.
    pub fields: usize,
}

impl Default for InjectForm {
    fn default() -> Self {
        InjectForm {
            values: [
                "1".into(),
                "16".into(),
                "60".into(),
                String::new(),
                String::new(),
                String::new(),
            ],
            cursor: 0,
            errors: Default::default(),
            fields: SITE,
        }
    }
}

impl InjectForm {
    /// The form a platform opens with: one job of 16 processors, or of the
    /// most that every automatic split fits where 16 would not (a 1×4
    /// teaching example).
    pub fn for_rules(rules: &FitRules) -> InjectForm {
        let fits = |size: u32| {
            let splits = rules.automatic_splits(size);
            !splits.is_empty() && splits.iter().all(|w| rules.platform.can_ever_fit(w))
        };
        let size = (1..=16).rev().find(|&s| fits(s)).unwrap_or(1);
        let mut f = InjectForm {
            fields: rules.fields(),
            ..InjectForm::default()
        };
        f.values[SIZE] = size.to_string();
        f
    }

    /// The form as the operator left it last time, errors cleared.
    pub fn reopen(&self) -> InjectForm {
        InjectForm {
            values: self.values.clone(),
            cursor: 0,
            errors: Default::default(),
            fields: self.fields,
        }
    }

    /// One key: moves, edits, or checks and hands over the job.
    pub fn update(
        &mut self,
        action: Option<Action>,
        key: KeyEvent,
        snap: &Snapshot,
    ) -> Form<InjectJob> {
        let n = self.fields;
        match action {
            Some(Action::Close) => return Form::Cancel,
            Some(Action::Up) => self.cursor = (self.cursor + n - 1) % n,
            Some(Action::Down) => self.cursor = (self.cursor + 1) % n,
            Some(Action::Backspace) => {
                self.values[self.cursor].pop();
                self.errors[self.cursor] = None;
            }
            Some(Action::Confirm) => {
                if let Some(job) = self.validate(&snap.fit) {
                    return Form::Submit(job);
                }
                // Straight to the first field in error.
                if let Some(i) = self.errors.iter().position(Option::is_some) {
                    self.cursor = i;
                }
            }
            _ => {
                if let KeyCode::Char(c) = key.code
                    && (c.is_ascii_digit() || c == '.' || c == '+')
                    && self.values[self.cursor].len() < 24
                {
                    self.values[self.cursor].push(c);
                    self.errors[self.cursor] = None;
                }
            }
        }
        Form::Open
    }

    /// Checks every field, then the job against `rules`; on failure the
    /// errors are kept next to their fields and the values stay as typed.
    pub fn validate(&mut self, rules: &FitRules) -> Option<InjectJob> {
        self.errors = Default::default();
        let count = self.count_field();
        let size = self.size_field();
        let runtime = seconds(&self.values[RUNTIME]);
        if runtime.is_none() {
            self.errors[RUNTIME] = Some("seconds ≥ 0".into());
        }
        let estimate = self.estimate_field();
        // The times a scenario's timeline may inject, by the same rule: a
        // time past what the simulation holds is refused, never clamped.
        if let (Some(runtime), Some(estimate)) = (runtime, estimate)
            && let Some((what, e)) = InjectJob::times(runtime, estimate).time_error()
        {
            let field = if what == "runtime" { RUNTIME } else { ESTIMATE };
            self.errors[field] = Some(e.trim_start_matches("must be a time in ").to_string());
            return None;
        }
        let components = self.components_field();
        let site = self.site_field(rules);
        let (Some(count), Some(size), Some(runtime), Some(estimate), Some(components), Some(site)) =
            (count, size, runtime, estimate, components, site)
        else {
            return None;
        };
        if let Err((field, e)) = fits(rules, size, components.as_deref()) {
            self.errors[field] = Some(e);
            return None;
        }
        let job = InjectJob {
            size,
            runtime,
            estimate,
            components,
            count,
            site,
        };
        if let Some(e) = job.site_error(&rules.platform) {
            self.errors[SITE] = Some(e);
            return None;
        }
        Some(job)
    }

    /// How many jobs, 1 to 1000; else its error is set.
    fn count_field(&mut self) -> Option<u32> {
        match self.values[COUNT].trim().parse::<u32>() {
            Ok(n) if (1..=1000).contains(&n) => Some(n),
            _ => {
                self.errors[COUNT] = Some("a whole number from 1 to 1000".into());
                None
            }
        }
    }

    /// Processors per job, at least one; else its error is set.
    fn size_field(&mut self) -> Option<u32> {
        match self.values[SIZE].trim().parse::<u32>() {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                self.errors[SIZE] = Some("a whole number ≥ 1".into());
                None
            }
        }
    }

    /// The estimate in seconds, or `Some(None)` left empty for the
    /// estimate model; else its error is set.
    fn estimate_field(&mut self) -> Option<Option<f64>> {
        if self.values[ESTIMATE].trim().is_empty() {
            Some(None)
        } else {
            match seconds(&self.values[ESTIMATE]) {
                Some(e) => Some(Some(e)),
                None => {
                    self.errors[ESTIMATE] =
                        Some("seconds ≥ 0, or empty for the estimate model".into());
                    None
                }
            }
        }
    }

    /// The components' widths joined by `+`, or `Some(None)` left empty;
    /// else its error is set.
    fn components_field(&mut self) -> Option<Option<Vec<u32>>> {
        if self.values[COMPONENTS].trim().is_empty() {
            Some(None)
        } else {
            let parts: Result<Vec<u32>, _> = self.values[COMPONENTS]
                .split('+')
                .map(|p| p.trim().parse::<u32>())
                .collect();
            match parts {
                Ok(p) if !p.is_empty() && !p.contains(&0) => Some(Some(p)),
                _ => {
                    self.errors[COMPONENTS] = Some("widths ≥ 1 joined by +, or empty".into());
                    None
                }
            }
        }
    }

    /// The site, or `Some(None)` for a gang (left empty, or where jobs
    /// have no sites); else its error is set.
    fn site_field(&mut self, rules: &FitRules) -> Option<Option<u32>> {
        if rules.sites == 0 || self.values[SITE].trim().is_empty() {
            Some(None)
        } else {
            match self.values[SITE].trim().parse::<u32>() {
                Ok(s) if s < rules.sites => Some(Some(s)),
                _ => {
                    self.errors[SITE] = Some(format!(
                        "a site from 0 to {} (c0 … c{}), or empty for a gang",
                        rules.sites - 1,
                        rules.sites - 1
                    ));
                    None
                }
            }
        }
    }
}

/// Seconds typed in a field: a finite number ≥ 0.
fn seconds(s: &str) -> Option<f64> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0)
}

/// Whether a job of `size` (split as `components`, or by the engine) can
/// ever run on the platform: the field to blame and why if not.
fn fits(rules: &FitRules, size: u32, components: Option<&[u32]>) -> Result<(), (usize, String)> {
    let p = &rules.platform;
    let total = p.total_processors();
    if u64::from(size) > total {
        return Err((SIZE, format!("at most {total} on {}", p.shape())));
    }
    let hint = || match rules.suggestion(size) {
        Some(w) => format!("; try {}", join(&w)),
        None => String::new(),
    };
    let limits = || {
        format!(
            "{} takes one component per cluster, at most {} wide",
            p.shape(),
            p.largest_cluster()
        )
    };
    match components {
        Some(c) => {
            if c.iter().map(|&w| u64::from(w)).sum::<u64>() != u64::from(size) {
                return Err((COMPONENTS, format!("must add up to the size {size}")));
            }
            if !p.can_ever_fit(c) {
                return Err((COMPONENTS, format!("cannot fit: {}{}", limits(), hint())));
            }
        }
        None => {
            let splits = rules.automatic_splits(size);
            if let Some(bad) = splits.iter().find(|w| !p.can_ever_fit(w)) {
                let how = if splits.len() == 1 {
                    "split automatically"
                } else {
                    "may be split"
                };
                return Err((
                    SIZE,
                    format!("{how} as {}: {}{}", join(bad), limits(), hint()),
                ));
            }
        }
    }
    Ok(())
}

fn join(w: &[u32]) -> String {
    super::format::parts(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::workload::ngubiri::{NgubiriParams, SplitApproach};
    use crossterm::event::KeyModifiers;

    fn form(values: [&str; 6]) -> InjectForm {
        InjectForm {
            values: values.map(String::from),
            ..InjectForm::default()
        }
    }

    fn ngubiri_5x20() -> FitRules {
        FitRules::new(
            Platform::uniform(5, 20),
            Some(Arc::new(NgubiriParams::default())),
        )
    }

    #[test]
    fn a_job_is_checked_against_the_platform() {
        let rules = FitRules::new(Platform::uniform(2, 8), None);
        let mut f = form(["1", "99", "60", "", "", ""]);
        assert!(f.validate(&rules).is_none());
        assert_eq!(f.errors[SIZE].as_deref(), Some("at most 16 on 2×8"));
        // Without a splitting rule the policy splits a job as it does the
        // workload's: 12 goes as 6 + 6, and the form takes it.
        let mut f = form(["1", "12", "60", "", "", ""]);
        assert!(f.validate(&rules).is_some(), "{:?}", f.errors);
        assert_eq!(rules.automatic_splits(12), vec![vec![6, 6]]);
        let mut f = form(["1", "12", "60", "", "6+6", ""]);
        assert!(f.validate(&rules).is_some());
        let mut f = form(["1", "12", "60", "", "10+2", ""]);
        assert!(f.validate(&rules).is_none());
        assert!(
            f.errors[COMPONENTS]
                .as_deref()
                .unwrap()
                .starts_with("cannot fit: 2×8 takes one component per cluster"),
            "{:?}",
            f.errors
        );
        assert_eq!(f.values[COMPONENTS], "10+2", "the input stays as typed");
    }

    #[test]
    fn a_time_the_simulation_cannot_hold_is_refused_not_clamped() {
        let rules = FitRules::new(Platform::uniform(2, 8), None);
        let mut f = form(["1", "4", "999999999999999", "", "", ""]);
        assert!(f.validate(&rules).is_none());
        assert!(
            f.errors[RUNTIME].as_deref().is_some_and(
                |e| e.starts_with("seconds from 0 to 9.2e12 (about 292,000 years), found 9.99")
            ),
            "{:?}",
            f.errors
        );
        let mut f = form(["1", "4", "60", "999999999999999", "", ""]);
        assert!(f.validate(&rules).is_none());
        assert!(f.errors[ESTIMATE].is_some(), "{:?}", f.errors);
        // The scenario reader's limit itself is accepted, as there.
        let mut f = form(["1", "4", "9000000000000", "", "", ""]);
        let job = f
            .validate(&rules)
            .expect("9e12 s is a time the simulation holds");
        assert_eq!(job.time_error(), None);
        assert_eq!(
            InjectJob::times(1e15, None).time_error().map(|(w, _)| w),
            Some("runtime")
        );
    }

    #[test]
    fn an_automatic_split_is_checked_for_every_count_it_may_draw() {
        let rules = ngubiri_5x20();
        // Above the threshold of 11, 2 to 4 even components.
        assert_eq!(
            rules.automatic_splits(90),
            vec![vec![45, 45], vec![30, 30, 30], vec![22, 22, 22, 24]]
        );
        assert_eq!(rules.automatic_splits(8), vec![vec![8]]);
        // 90 fits 5 × 20 only as five components, which the rule never draws.
        let mut f = form(["1", "90", "60", "", "", ""]);
        assert!(f.validate(&rules).is_none());
        assert_eq!(
            f.errors[SIZE].as_deref(),
            Some(
                "may be split as 45+45: 5×20 takes one component per cluster, at most 20 wide; try 18+18+18+18+18"
            )
        );
        // 40 fits as 2 × 20 but the rule may draw 2, 3 or 4: all fit.
        let mut f = form(["1", "40", "60", "", "", ""]);
        assert!(f.validate(&rules).is_some());
        // 41 as two components is 20 + 21.
        let mut f = form(["1", "41", "60", "", "", ""]);
        assert!(f.validate(&rules).is_none());
        // Phased: one count per size range.
        let phased = NgubiriParams {
            approach: SplitApproach::Phased,
            ..NgubiriParams::default()
        };
        let rules = FitRules::new(Platform::uniform(5, 20), Some(Arc::new(phased)));
        assert_eq!(rules.automatic_splits(38).len(), 1);
    }

    #[test]
    fn enter_keeps_the_form_open_on_the_field_in_error() {
        let snap = fixtures::snapshot();
        let mut f = form(["1", "99", "60", "", "", ""]);
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(f.update(Some(Action::Confirm), enter, &snap), Form::Open);
        assert_eq!(f.cursor, SIZE);
        assert_eq!(f.values[SIZE], "99");
        // Typing in the field clears its error.
        let nine = KeyEvent::new(KeyCode::Char('9'), KeyModifiers::NONE);
        f.update(None, nine, &snap);
        assert_eq!(f.errors[SIZE], None);
        assert_eq!(f.values[SIZE], "999");
    }

    #[test]
    fn a_site_is_offered_on_a_grid_and_checked_in_place() {
        let plain = FitRules::new(Platform::uniform(2, 16), None);
        assert_eq!(InjectForm::for_rules(&plain).fields, SITE, "no site field");
        // Where the field is hidden, whatever it holds is not read.
        let mut f = form(["1", "1", "60", "", "", "7"]);
        assert_eq!(f.validate(&plain).unwrap().site, None);

        let grid = FitRules::new(Platform::uniform(2, 16), None).with_sites();
        assert_eq!(InjectForm::for_rules(&grid).fields, INJECT_FIELDS.len());
        let mut f = form(["1", "1", "0.5", "", "", "1"]);
        let job = f.validate(&grid).unwrap();
        assert_eq!((job.size, job.site), (1, Some(1)));
        let mut f = form(["1", "1", "0.5", "", "", ""]);
        assert_eq!(f.validate(&grid).unwrap().site, None, "empty: no site");
        for bad in ["2", "1.5", "+"] {
            let mut f = form(["1", "1", "0.5", "", "", bad]);
            assert!(f.validate(&grid).is_none(), "{bad}");
            assert_eq!(
                f.errors[SITE].as_deref(),
                Some("a site from 0 to 1 (c0 … c1), or empty for a gang"),
                "{bad}"
            );
        }
        let mut f = form(["1", "4", "60", "", "", "0"]);
        assert!(f.validate(&grid).is_none());
        assert_eq!(
            f.errors[SITE].as_deref(),
            Some(
                "a site is for a one-task local job; this one has 4 tasks (leave the site out for a gang)"
            )
        );
        assert_eq!(f.errors[SIZE], None, "the site is to blame, not the size");
    }

    #[test]
    fn the_cursor_walks_the_fields_shown() {
        let snap = fixtures::snapshot();
        let down = KeyEvent::new(KeyCode::Down, KeyModifiers::NONE);
        let mut f = InjectForm::default();
        for _ in 0..SITE {
            f.update(Some(Action::Down), down, &snap);
        }
        assert_eq!(f.cursor, 0, "five fields: back to the first");
        let mut f =
            InjectForm::for_rules(&FitRules::new(Platform::uniform(2, 16), None).with_sites());
        for _ in 0..SITE {
            f.update(Some(Action::Down), down, &snap);
        }
        assert_eq!(f.cursor, SITE);
    }

    #[test]
    fn the_form_opens_with_a_size_the_platform_can_take() {
        let small = FitRules::new(Platform::uniform(1, 4), None);
        assert_eq!(InjectForm::for_rules(&small).values[SIZE], "4");
        let big = FitRules::new(Platform::uniform(5, 20), None);
        assert_eq!(InjectForm::for_rules(&big).values[SIZE], "16");
    }
}
