//! The engine and the policies: hand-worked schedules, references written again from
//! the papers' definitions, properties over random workloads and timelines, and the
//! paper scenarios that exercise them. `.cargo/mutants.toml` runs this binary.
//!
//! Each file is one module of this binary, where it stays in `tests/`: one
//! link instead of one per file.

// Each file loads the shared helpers it needs, as it would on its own.
#![allow(clippy::duplicate_mod)]

#[path = "../properties.rs"]
mod properties;

#[path = "../explanations.rs"]
mod explanations;

#[path = "../explain_hand.rs"]
mod explain_hand;

#[path = "../backfill_properties.rs"]
mod backfill_properties;

#[path = "../backfill_hand.rs"]
mod backfill_hand;

#[path = "../backfill_pinned_hand.rs"]
mod backfill_pinned_hand;

#[path = "../easy_reference.rs"]
mod easy_reference;

#[path = "../conservative_reference.rs"]
mod conservative_reference;

#[path = "../operator_timelines.rs"]
mod operator_timelines;

#[path = "../ar_engine.rs"]
mod ar_engine;

#[path = "../ar_independent_hand.rs"]
mod ar_independent_hand;

#[path = "../reservations_hand.rs"]
mod reservations_hand;

#[path = "../taskgraph_ar_hand.rs"]
mod taskgraph_ar_hand;

#[path = "../taskgraph_properties.rs"]
mod taskgraph_properties;

#[path = "../taskgraph_backfill_traces.rs"]
mod taskgraph_backfill_traces;

#[path = "../moldable_properties.rs"]
mod moldable_properties;

#[path = "../moldable_hand.rs"]
mod moldable_hand;

#[path = "../moldable_readings.rs"]
mod moldable_readings;

#[path = "../moldable_scenario.rs"]
mod moldable_scenario;

#[path = "../grid_hand.rs"]
mod grid_hand;

#[path = "../grid_properties.rs"]
mod grid_properties;

#[path = "../grid_scenario.rs"]
mod grid_scenario;

#[path = "../grid_paper.rs"]
mod grid_paper;

#[path = "../network_hand.rs"]
mod network_hand;

#[path = "../batsim_agreement.rs"]
mod batsim_agreement;

#[path = "../trace_policies.rs"]
mod trace_policies;

#[path = "../estimate_error_sweep.rs"]
mod estimate_error_sweep;

#[path = "../figures.rs"]
mod figures;

#[path = "../teaching.rs"]
mod teaching;

#[path = "../ngubiri_paper.rs"]
mod ngubiri_paper;

#[path = "../pas_mip.rs"]
mod pas_mip;

#[path = "../blanco_findings.rs"]
mod blanco_findings;

#[path = "../console_session.rs"]
mod console_session;

#[path = "../nothing_lost.rs"]
mod nothing_lost;

#[path = "../own_workload_kind.rs"]
mod own_workload_kind;

#[path = "../conservative_estimate_error.rs"]
mod conservative_estimate_error;
