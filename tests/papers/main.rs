//! The papers' findings at length, real traces, the Standard Task Graph set, the
//! shipped scenarios' bounds, and the repository's own rules (layers, data guards).
//!
//! Each file is one module of this binary, where it stays in `tests/`: one
//! link instead of one per file.

// Each file loads the shared helpers it needs, as it would on its own.
#![allow(clippy::duplicate_mod)]

#[path = "../grid_findings.rs"]
mod grid_findings;

#[path = "../moldable_study.rs"]
mod moldable_study;

#[path = "../sulistio_findings.rs"]
mod sulistio_findings;

#[path = "../swf_traces.rs"]
mod swf_traces;

#[path = "../taskgraph_stg.rs"]
mod taskgraph_stg;

#[path = "../check_scenarios.rs"]
mod check_scenarios;

#[path = "../shared_data_guard.rs"]
mod shared_data_guard;

#[path = "../layers.rs"]
mod layers;
