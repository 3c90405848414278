//! schedscope with one more policy: `sjf-easy`. Every command of
//! `schedscope` works (`run`, `sweep`, `check`, `console`, `policies`, …);
//! `--set policy.name=sjf-easy` or `name = "sjf-easy"` in a scenario picks
//! it, and the console's picker lists it.

use std::process::ExitCode;

fn main() -> ExitCode {
    if let Err(e) = schedscope_sjf_easy::register() {
        eprintln!("schedscope: {e}");
        return ExitCode::from(3);
    }
    schedscope::cli::main()
}
