//! The tests of the engine and the policies, as one test binary, for
//! mutation testing only (`.cargo/mutants.toml`; build it with
//! `--features mutation-suite`).
//!
//! Each file is still its own test target in a plain `cargo test`. Under
//! cargo-mutants every mutant relinks every test binary, and thirty of them
//! cost a mutant about as much as compiling the crate; one binary halves
//! that. Run under nextest, each test still runs in a process of its own.
//!
//! A new test file of the engine or a policy is listed here too.
//! `console_reservations` stays a target of its own: its insta snapshots
//! are named after the module they are asserted in.

// Each file below loads the shared helpers it needs, as it does as a
// target of its own.
#![allow(clippy::duplicate_mod)]

#[path = "../properties.rs"]
mod properties;

#[path = "../backfill_properties.rs"]
mod backfill_properties;

#[path = "../backfill_hand.rs"]
mod backfill_hand;

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

// The console's session names the timeline command a step applied: the
// only reader of the engine's timeline messages.
#[path = "../console_session.rs"]
mod console_session;
