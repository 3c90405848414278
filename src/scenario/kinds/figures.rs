//! A workload kind's own figures: a family of named figures (`grid.rt`,
//! `long.response`, `moldable.folded` …) that every run of the kind
//! reports beside the common ones, folded in job by job. The kind declares
//! the family once, with how a run's table and a sweep's table show it;
//! the runner, the reports, the sweeps and `[expect]` read that
//! declaration and know no kind by name.

use crate::engine::Engine;
use crate::metrics::Replicated;
use crate::model::JobRecord;

/// One figure of a family.
pub struct Figure {
    /// Its dotted name, as sweeps, `[expect]` and plots name it: `grid.rt`,
    /// `long.response`. In the JSON summary it sits in the family's table
    /// (`metrics.<family>`), or in a table of its own there when its
    /// first part is not the family's name (`long.response` is
    /// `metrics.moldable.long.response`).
    pub name: &'static str,
    /// The words before it in a run's table.
    pub label: &'static str,
    /// Decimals shown.
    pub decimals: usize,
    /// Its column title in a sweep's table, if it has a column there.
    pub column: Option<&'static str>,
    /// Shown only where it differs from this other figure of the family
    /// (two figures that coincide but in special cases).
    pub unless_equal_to: Option<&'static str>,
    /// Never negative by its definition (a count, a time, a ratio of
    /// them): a figure draws its confidence bars cut at zero then.
    pub never_negative: bool,
}

impl Figure {
    /// A figure never negative by its definition (a count, a time, a
    /// ratio or a share of them), always shown.
    pub const fn counted(
        name: &'static str,
        label: &'static str,
        decimals: usize,
        column: Option<&'static str>,
    ) -> Figure {
        Figure {
            name,
            label,
            decimals,
            column,
            unless_equal_to: None,
            never_negative: true,
        }
    }

    /// Its table within the family's JSON (`None`: the family's own) and
    /// its name there.
    pub fn place(&self, family: &str) -> (Option<&'static str>, &'static str) {
        match self.name.split_once('.') {
            Some((table, n)) if table != family => (Some(table), n),
            Some((_, n)) => (None, n),
            None => (None, self.name),
        }
    }
}

/// How a sweep's table shows a family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Columns {
    /// Its columns instead of the common ones, when some point reports
    /// the family (the two-site grid's figures replace ART and the rest).
    Instead(&'static [&'static str]),
    /// Its columns after the common ones.
    After(&'static [&'static str]),
}

impl Columns {
    /// The figures with a column, in column order.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Columns::Instead(n) | Columns::After(n) => n,
        }
    }
}

/// A kind's family of figures.
pub struct FigureFamily {
    /// The family's name: the table of the JSON summary's `metrics` that
    /// holds it.
    pub name: &'static str,
    /// The title of its block in a run's table.
    pub title: &'static str,
    /// Its figures, in report order.
    pub figures: &'static [Figure],
    /// The figures that are a sweep's table columns, in column order.
    pub columns: Columns,
    /// The figures a sweep's CSV adds after the common ones, in order.
    pub csv: &'static [&'static str],
    /// Its block in a run's table, given its values in the family's
    /// order ([`lines`] shows one figure per line under the title).
    pub block: fn(&FigureFamily, &[Replicated]) -> String,
    /// A fresh fold of one run's jobs into the family's figures, given the
    /// scenario's `[run] warmup_jobs` (whether the family counts the jobs
    /// before it is the family's own reading).
    pub fold: fn(warmup_jobs: u64) -> Box<dyn FigureFold>,
}

impl FigureFamily {
    /// Its figures' dotted names.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.figures.iter().map(|f| f.name)
    }

    /// The figure named `name` and its place in the family's order.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.figures.iter().position(|f| f.name == name)
    }

    /// The figure named `name` among `values`, given in the family's
    /// order.
    pub fn value<T: Copy>(&self, values: &[T], name: &str) -> Option<T> {
        values.get(self.position(name)?).copied()
    }

    /// The figure named `name`.
    pub fn figure(&self, name: &str) -> Option<&'static Figure> {
        self.figures.iter().find(|f| f.name == name)
    }
}

/// A family's block in a run's table: its title, then one figure per line;
/// a figure declared to be shown only where it differs from another is
/// left out where they are equal.
pub fn lines(family: &FigureFamily, values: &[Replicated]) -> String {
    use std::fmt::Write;
    let mean = |name: &str| family.value(values, name).map(|v| v.mean);
    let mut out = format!("  {}\n", family.title);
    for (f, &v) in family.figures.iter().zip(values) {
        if f.unless_equal_to
            .is_some_and(|other| mean(other).unwrap_or(0.0) == v.mean)
        {
            continue;
        }
        let _ = writeln!(
            out,
            "    {:<20}{}",
            f.label,
            crate::report::table::cell(v, f.decimals)
        );
    }
    out
}

impl std::fmt::Debug for FigureFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FigureFamily({})", self.name)
    }
}

/// One run's jobs folded into a family's figures.
pub trait FigureFold: Send {
    /// Folds in one ended job.
    fn record(&mut self, r: &JobRecord);

    /// The figures at the engine's present time (the jobs still in the
    /// system count up to now), in the family's order.
    fn values(&self, engine: &Engine) -> Vec<f64>;
}

/// A family's figures of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct FamilyValues {
    pub family: &'static FigureFamily,
    /// In the family's order.
    pub values: Vec<f64>,
}

impl FamilyValues {
    /// The figure `name` of the family.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.family.value(&self.values, name)
    }
}

impl PartialEq for FigureFamily {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
