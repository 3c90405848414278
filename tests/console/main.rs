//! The console without its snapshots: the driver, sessions replayed, paging, huge
//! queues, the mouse, a soak under random keys, and a real terminal in tmux.
//!
//! Each file is one module of this binary, where it stays in `tests/`: one
//! link instead of one per file.

// Each file loads the shared helpers it needs, as it would on its own.
#![allow(clippy::duplicate_mod)]

#[path = "../console_cli.rs"]
mod console_cli;

#[path = "../console_driver.rs"]
mod console_driver;

#[path = "../console_huge.rs"]
mod console_huge;
// The tests start in the order of their names, two at a time. A real
// terminal's tests wait on a console at its real pace (the tour about
// 15 s, named to start first): they start early so that the rest runs
// beside them instead of after.
#[path = "../console_in_tmux.rs"]
mod console_in_tmux;

#[path = "../console_lessons.rs"]
mod console_lessons;

#[path = "../console_mouse.rs"]
mod console_mouse;

#[path = "../console_replay.rs"]
mod console_replay;

#[path = "../console_speed.rs"]
mod console_speed;

#[path = "../console_soak.rs"]
mod console_soak;

#[path = "../console_window.rs"]
mod console_window;
