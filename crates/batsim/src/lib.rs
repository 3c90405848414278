//! Batsim's protocol, schedscope on Batsim's side: a scheduler written
//! for Batsim (a pybatsim scheduler, batsched) drives schedscope's engine
//! as the policy `external`.
//!
//! The scheduler listens on a ZeroMQ REP socket (`pybatsim schedFcfs -s
//! tcp://*:28000`); schedscope connects a REQ socket to it and, at each
//! decision point with something to tell, sends what happened since the
//! last one: `SIMULATION_BEGINS` (the platform's processors as resources),
//! `JOB_SUBMITTED`, `JOB_COMPLETED`, `JOB_KILLED`, `REQUESTED_CALL`, and
//! `SIMULATION_ENDS` when the run is over. It carries out the reply's
//! `EXECUTE_JOB`, `CALL_ME_LATER` and `KILL_JOB` at once.
//!
//! * **Times**: the protocol's seconds (floats) are schedscope's
//!   microseconds, exactly both ways.
//! * **Resources** are numbered over the whole platform, cluster by
//!   cluster in the platform's order: cluster 0's processors are
//!   `0..n0`, cluster 1's follow, and so on. An allocation lands on the
//!   processors it names.
//! * **What stops the run**, with the reason as its error (exit 2): no
//!   scheduler listening within the timeout, no reply within it, a reply
//!   that is not the protocol's, an allocation the engine could not carry
//!   out (a busy or unknown resource, the wrong count, a job not waiting),
//!   and the requests schedscope does not support (`REJECT_JOB`: every
//!   job of the workload runs; dynamic registration; power states;
//!   queries). Batsim stops on the same faults; carrying on would leave
//!   the scheduler and the engine disagreeing about what runs where.
//! * A scheduler drives one run at a time: one replication, one sweep
//!   point per scheduler process, in force from the run's start.
//! * With the parameter `command`, schedscope starts the scheduler itself
//!   for each run, on a free port, and stops it when the run ends (see
//!   [`process`]): replications and parallel sweep points each get their
//!   own, and `endpoint` is ignored.

mod external;
pub mod link;
pub mod process;
pub mod wire;
pub mod zmtp;

pub use external::External;
use schedscope_policies::policy::catalog::{self, Param, ParamKind, PolicyEntry};
use schedscope_protocol::model::Platform;
use schedscope_protocol::sched::{PolicyName, PolicySpec};
use std::time::Duration;

/// The policy's name in scenarios, commands and the picker.
pub const NAME: PolicyName = PolicyName::new("external");

/// Where a scheduler listens by default (pybatsim's own default port).
pub const ENDPOINT: &str = "tcp://127.0.0.1:28000";

/// Its parameters.
pub const PARAMS: &[Param] = &[
    Param {
        key: "endpoint",
        title: "endpoint",
        hint: "the scheduler's ZeroMQ REP socket",
        kind: ParamKind::Text {
            default: ENDPOINT,
            check: None,
        },
    },
    Param {
        key: "command",
        title: "command",
        hint: "starts a scheduler for each run, {port} replaced by a free port \
               (e.g. pybatsim easyBackfill -s tcp://*:{port} -t 0); endpoint is then ignored",
        kind: ParamKind::Text {
            default: "",
            check: Some(process::check_command),
        },
    },
    Param {
        key: "timeout",
        title: "timeout (s)",
        hint: "how long to wait for the scheduler to listen and to reply",
        kind: ParamKind::Number {
            min: 0.1,
            max: 3600.0,
            step: 1.0,
            default: 10.0,
        },
    },
];

/// Its catalog entry.
pub fn entry() -> PolicyEntry {
    PolicyEntry {
        name: NAME,
        summary: "a scheduler written for Batsim (pybatsim, batsched) decides, \
                  over Batsim's protocol on a ZeroMQ socket",
        params: PARAMS,
        // The catalog adds the parameters set (`[endpoint …]`).
        label: |_| "external".to_string(),
        build: |spec, platform: &Platform| {
            match command(spec) {
                Some(c) => process::check_command(&c)?,
                None => link::check_endpoint(&endpoint(spec))?,
            }
            let timeout = catalog::number(spec, "timeout").unwrap_or(10.0);
            Ok(Box::new(External::new(
                spec.clone(),
                platform,
                endpoint(spec),
                command(spec),
                Duration::from_secs_f64(timeout),
            )))
        },
    }
}

fn endpoint(spec: &PolicySpec) -> String {
    catalog::choice(spec, "endpoint").unwrap_or_else(|| ENDPOINT.to_string())
}

/// The command that starts a scheduler for each run, if one is set.
fn command(spec: &PolicySpec) -> Option<String> {
    catalog::choice(spec, "command").filter(|c| !c.trim().is_empty())
}

/// Adds `external` to schedscope's catalog (once; later calls do
/// nothing).
pub fn register() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if let Err(e) = catalog::register(entry()) {
            tracing::warn!(error = %e, "the external policy was not registered");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedscope_policies::policy::SharedParams;
    use schedscope_protocol::sched::ParamValue;

    /// The endpoint and the timeout are set and checked through the
    /// catalog like any policy's parameters, and read by the builder.
    #[test]
    fn parameters_are_the_catalogs() {
        register();
        register(); // once is enough; again does nothing
        let mut spec = PolicySpec {
            name: NAME,
            ..PolicySpec::fcfs()
        };
        assert_eq!(endpoint(&spec), ENDPOINT);
        let [at, command_at, timeout] = PARAMS else {
            unreachable!()
        };
        catalog::set(&mut spec, at, ParamValue::Text("tcp://10.0.0.1:5".into())).unwrap();
        catalog::set(&mut spec, timeout, ParamValue::Float(0.5)).unwrap();
        assert_eq!(endpoint(&spec), "tcp://10.0.0.1:5");
        assert_eq!(catalog::number(&spec, "timeout"), Some(0.5));
        assert!(catalog::check(&spec).is_ok());
        let empty = catalog::set(&mut spec, at, ParamValue::Text(String::new()));
        assert!(empty.unwrap_err().contains("params.endpoint"));
        for bad in ["garbage", "tcp://:5", "tcp://h:0", "tcp://h:x", "ipc://a"] {
            catalog::set(&mut spec, at, ParamValue::Text(bad.into())).unwrap();
            let refused = (entry().build)(&spec, &Platform::default()).err();
            assert!(refused.unwrap().contains("tcp://HOST:PORT"), "{bad}");
        }
        catalog::set(&mut spec, at, ParamValue::Text("tcp://10.0.0.1:5".into())).unwrap();
        let slow = catalog::set(&mut spec, timeout, ParamValue::Float(0.0));
        assert!(slow.unwrap_err().contains("params.timeout"));
        assert_eq!(
            catalog::label(&spec),
            "external [endpoint tcp://10.0.0.1:5, timeout 0.5]"
        );
        // A command must say where to listen; with one, the endpoint is
        // not read.
        assert_eq!(command(&spec), None);
        let nowhere = catalog::set(&mut spec, command_at, ParamValue::Text("pybatsim x".into()));
        assert!(nowhere.unwrap_err().contains("params.command"));
        let starts = "pybatsim easyBackfill -s tcp://*:{port} -t 0";
        catalog::set(&mut spec, command_at, ParamValue::Text(starts.into())).unwrap();
        catalog::set(&mut spec, at, ParamValue::Text("garbage".into())).unwrap();
        assert_eq!(command(&spec).as_deref(), Some(starts));
        assert!(catalog::check(&spec).is_ok());
        assert!((entry().build)(&spec, &Platform::default()).is_ok());
    }
}
