//! The panes that take the focus, and where the arrows and Tab move it.

/// The panes that take the focus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Queue,
    Clusters,
    Backfill,
    Groups,
    History,
}

impl Pane {
    pub const ORDER: [Pane; 5] = [
        Pane::Queue,
        Pane::Clusters,
        Pane::Backfill,
        Pane::Groups,
        Pane::History,
    ];

    pub(super) fn index(self) -> usize {
        Pane::ORDER.iter().position(|p| *p == self).unwrap_or(0)
    }

    pub(super) fn next(self) -> Pane {
        Pane::ORDER[(self.index() + 1) % Pane::ORDER.len()]
    }

    pub(super) fn prev(self) -> Pane {
        Pane::ORDER[(self.index() + Pane::ORDER.len() - 1) % Pane::ORDER.len()]
    }

    pub(super) fn right(self) -> Pane {
        match self {
            Pane::Queue => Pane::Clusters,
            Pane::Clusters => Pane::Backfill,
            Pane::Groups => Pane::History,
            p => p,
        }
    }

    pub(super) fn left(self) -> Pane {
        match self {
            Pane::Backfill => Pane::Clusters,
            Pane::Clusters => Pane::Queue,
            Pane::History => Pane::Groups,
            p => p,
        }
    }

    pub(super) fn down(self) -> Pane {
        match self {
            Pane::Queue | Pane::Clusters => Pane::Groups,
            Pane::Backfill => Pane::History,
            p => p,
        }
    }

    pub(super) fn up(self) -> Pane {
        match self {
            Pane::Groups => Pane::Queue,
            Pane::History => Pane::Backfill,
            p => p,
        }
    }
}
