//! A workload kind's own figures: a family of named figures (`grid.rt`,
//! `grid.wsld` …) that every run of the kind reports beside the common
//! ones, folded in job by job. The kind declares the family once, with
//! how a run's table and a sweep's table show it; the runner, the
//! reports, the sweeps and `[expect]` read that declaration and know no
//! kind by name.

use crate::engine::Engine;
use crate::model::JobRecord;

/// One figure of a family.
pub struct Figure {
    /// Its name in the family: `rt` is `grid.rt` in sweeps, `[expect]` and
    /// the JSON summary.
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

/// A kind's family of figures.
pub struct FigureFamily {
    /// The family's name, the first part of each figure's dotted name.
    pub name: &'static str,
    /// The title of its block in a run's table.
    pub title: &'static str,
    /// Its figures, in report order.
    pub figures: &'static [Figure],
    /// The figures that are a sweep's table columns, in column order (a
    /// sweep whose points all run the kind shows these instead of the
    /// common columns).
    pub columns: &'static [&'static str],
    /// A fresh fold of one run's jobs into the family's figures.
    pub fold: fn() -> Box<dyn FigureFold>,
}

impl FigureFamily {
    /// Its figures' names.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.figures.iter().map(|f| f.name)
    }

    /// The figure `name`.
    pub fn figure(&self, name: &str) -> Option<&'static Figure> {
        self.figures.iter().find(|f| f.name == name)
    }
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
        let i = self.family.figures.iter().position(|f| f.name == name)?;
        self.values.get(i).copied()
    }
}

impl PartialEq for FigureFamily {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
