//! The command line as users meet it: every command, its errors and exit codes,
//! output folders and the tools that read them, sweeps in shards and Slurm arrays,
//! the README's tour, bounds on input sizes and the readers under fuzzing.
//!
//! Each file is one module of this binary, where it stays in `tests/`: one
//! link instead of one per file.

// Each file loads the shared helpers it needs, as it would on its own.
#![allow(clippy::duplicate_mod)]

#[path = "../cli.rs"]
mod cli;

#[path = "../cli_messages.rs"]
mod cli_messages;

#[path = "../closed_pipe.rs"]
mod closed_pipe;

#[path = "../out_folder.rs"]
mod out_folder;

#[path = "../tool_outputs.rs"]
mod tool_outputs;

#[path = "../sweep_shards.rs"]
mod sweep_shards;

#[path = "../readme_tour.rs"]
mod readme_tour;

#[path = "../bounds.rs"]
mod bounds;

#[path = "../fuzz_readers.rs"]
mod fuzz_readers;

#[path = "../slurm_array.rs"]
mod slurm_array;

#[path = "../taskgraph_cli.rs"]
mod taskgraph_cli;
