use clap::Parser;
use schedscope::cli::{self, Cli, Failure};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli::execute(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            match &f {
                Failure::Expectation => eprintln!("schedscope: an expectation failed"),
                // The reader of standard output has gone: nothing to say.
                Failure::ClosedPipe => {}
                Failure::BadInput(m) | Failure::Incomplete(m) | Failure::Internal(m) => {
                    eprintln!("schedscope: {m}")
                }
                Failure::Other(e) => eprintln!("schedscope: {e:#}"),
                Failure::Stopped(s) => eprintln!("schedscope: {s}"),
            }
            ExitCode::from(f.exit_code())
        }
    }
}
