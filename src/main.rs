use std::process::ExitCode;

fn main() -> ExitCode {
    schedscope::cli::main()
}
