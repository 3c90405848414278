//! The built-in policies, in the order the picker lists them: each
//! declares its entry in its own file, and this list names it once.

use super::PolicyEntry;
use crate::policy::{ar, coalloc, conservative, easy, fjt, fpfs, grid};

/// Every policy, in the order the picker lists them.
pub static POLICIES: &[PolicyEntry] = &[
    fpfs::FCFS_ENTRY,
    fpfs::FPFS_ENTRY,
    easy::EASY_ENTRY,
    conservative::CONSERVATIVE_ENTRY,
    coalloc::CBS_ENTRY,
    coalloc::JPR_ENTRY,
    coalloc::PAS_ENTRY,
    grid::GRID_1_ENTRY,
    grid::GRID_2_ENTRY,
    ar::AR_ENTRY,
    fjt::FIFO_ENTRY,
    fjt::FJT4_ENTRY,
    fjt::FJT4_BFA_ENTRY,
    fjt::FJT1_BFA_ENTRY,
    fjt::FJT1_BFM_ENTRY,
];
