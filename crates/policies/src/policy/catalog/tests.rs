//! Unit tests of the catalog: every entry builds and is found, specs are
//! checked against their entries, parameters read, listed and labelled.

use super::*;
use crate::policy::{BackfillOrder, Machines, MaxJumps, PlacementName};
use crate::policy::{SharedParams, names};
use crate::sched::ParamValue;

#[test]
fn every_entry_builds_on_a_platform_of_its_own_and_is_found_by_name() {
    assert!(POLICIES.len() >= 4);
    for e in POLICIES {
        assert!(std::ptr::eq(find(e.name).unwrap(), e));
        assert_eq!(PolicyName::intern(e.name.as_str()), e.name);
        let spec = PolicySpec::named(e.name);
        assert!(spec.build(&Platform::uniform(1, 8)).is_ok(), "{}", e.name);
        assert!(!spec.label().is_empty());
    }
}

#[test]
fn unknown_names_and_parameters_are_refused_with_what_is_known() {
    let spec = PolicySpec::named(PolicyName::intern("easyy"));
    let e = spec.build(&Platform::uniform(1, 8)).err().unwrap();
    assert!(
        e.contains("must be one of \"fcfs\", \"fpfs\", \"easy\", \"conservative\""),
        "{e}"
    );
    assert!(e.contains("found \"easyy\""), "{e}");
    let mut spec = PolicySpec::fcfs();
    spec.params.insert("threshold".into(), ParamValue::Int(3));
    let e = spec.build(&Platform::uniform(1, 8)).err().unwrap();
    assert!(e.contains("fcfs has no parameter params.threshold"), "{e}");
    assert!(e.contains("(it reads: placement)"), "{e}");
    let spec = PolicySpec::fcfs().with_machines(Machines::Pinned);
    let e = spec.build(&Platform::uniform(1, 8)).err().unwrap();
    assert!(
        e.contains("machines = \"pinned\" is for easy and conservative, not fcfs"),
        "{e}"
    );
}

#[test]
fn parameter_values_are_checked_against_their_kind_and_range() {
    let check = |name: &str, key: &str, v: ParamValue| {
        let mut spec = PolicySpec::named(PolicyName::intern(name));
        spec.params.insert(key.into(), v);
        check(&spec).map(|_| ())
    };
    let text = |t: &str| ParamValue::Text(t.into());
    // A count: whole numbers from its min to its max.
    for ok in [1, 86_400] {
        assert_eq!(check("ar", "interval", ParamValue::Int(ok)), Ok(()));
    }
    for bad in [
        ParamValue::Int(0),
        ParamValue::Int(86_401),
        ParamValue::Float(60.0),
    ] {
        assert_eq!(
            check("ar", "interval", bad.clone()),
            Err(format!(
                "params.interval must be a whole number from 1 to 86400, found {bad}"
            ))
        );
    }
    // A number: whole or not, from its min to its max.
    for ok in [
        ParamValue::Float(0.0),
        ParamValue::Int(3),
        ParamValue::Float(1e6),
    ] {
        assert_eq!(check("grid-1", "threshold", ok), Ok(()));
    }
    for bad in [
        ParamValue::Float(-0.5),
        ParamValue::Float(1e6 + 1.0),
        text("3"),
    ] {
        assert_eq!(
            check("grid-1", "threshold", bad.clone()),
            Err(format!(
                "params.threshold must be a number from 0 to 1000000, found {bad}"
            ))
        );
    }
    // A choice: one of its words.
    assert_eq!(check("ar", "independent", text("easy")), Ok(()));
    for bad in [text("sjf"), ParamValue::Int(1)] {
        assert_eq!(
            check("ar", "independent", bad.clone()),
            Err(format!(
                "params.independent must be one of \"fcfs\", \"easy\", found {bad}"
            ))
        );
    }
}

#[test]
fn a_parameter_reads_as_set_else_as_declared() {
    let mut grid = PolicySpec::named(names::GRID_1);
    assert_eq!(number(&grid, "threshold"), Some(0.0));
    grid.params
        .insert("threshold".into(), ParamValue::Float(2.5));
    assert_eq!(number(&grid, "threshold"), Some(2.5));
    grid.params.insert("threshold".into(), ParamValue::Int(3));
    assert_eq!(number(&grid, "threshold"), Some(3.0));
    assert_eq!(choice(&grid, "idle").as_deref(), Some("not-executing"));
    assert_eq!(number(&grid, "interval"), None, "not a parameter of grid-1");
    let mut ar = PolicySpec::named(PolicyName::new("ar"));
    assert_eq!(count(&ar, "interval"), Some(1_800));
    ar.params.insert("interval".into(), ParamValue::Int(60));
    assert_eq!(count(&ar, "interval"), Some(60));
    assert_eq!(count(&ar, "independent"), None, "a word, not a count");
}

#[test]
fn the_listing_names_every_policy_and_parameter() {
    let text = describe();
    for e in POLICIES {
        assert!(text.contains(&format!("{}\n    {}", e.name.as_str(), e.summary)));
    }
    assert!(
        text.contains("policy.max_jumps: a whole number ≥ 0"),
        "{text}"
    );
    assert!(
        text.contains("policy.machines: \"counted\" or \"pinned\""),
        "{text}"
    );
}

#[test]
fn labels_are_the_ones_reports_have_always_carried() {
    assert_eq!(
        PolicySpec::fpfs(MaxJumps::Limit(10)).label(),
        "FPFS(maxJumps 10) + worst fit"
    );
    assert_eq!(
        PolicySpec::fcfs()
            .with_placement(PlacementName::BestFit)
            .label(),
        "FCFS + best fit"
    );
    let pinned = PolicySpec::named(names::CONSERVATIVE).with_machines(Machines::Pinned);
    assert_eq!(
        pinned.label(),
        "conservative backfilling, pinned processors"
    );
    let sjf = PolicySpec::named(names::EASY).with_order(BackfillOrder::ShortestEstimate);
    assert_eq!(
        sjf.label(),
        "EASY backfilling (shortest estimate first) + worst fit"
    );
}

/// Every parameter of every policy is set and read through its kind
/// alone, the common keys (kept in the spec's own fields) as the others:
/// each value its kind takes comes back as set and passes the spec's
/// check, and one outside its range is refused naming the key.
#[test]
fn every_parameter_is_set_and_read_through_its_kind() {
    let mut seen = 0;
    for e in POLICIES {
        for p in e.params {
            let (good, bad): (Vec<ParamValue>, ParamValue) = match &p.kind {
                ParamKind::Count { min, max, .. } => (
                    vec![ParamValue::Int(*min), ParamValue::Int(*max)],
                    ParamValue::Int(max + 1),
                ),
                ParamKind::Limit { max, .. } => (
                    vec![
                        ParamValue::Int(0),
                        ParamValue::Int(*max),
                        ParamValue::Text(UNLIMITED.into()),
                    ],
                    ParamValue::Int(-1),
                ),
                ParamKind::Number { min, max, .. } => (
                    vec![ParamValue::Float(*min), ParamValue::Float(*max)],
                    ParamValue::Float(max + 1.0),
                ),
                ParamKind::Choice { values, .. } => (
                    values
                        .iter()
                        .map(|v| ParamValue::Text(v.to_string()))
                        .collect(),
                    ParamValue::Text("no-such-word".into()),
                ),
                ParamKind::Text { .. } => (
                    vec![ParamValue::Text("tcp://127.0.0.1:1".into())],
                    ParamValue::Text(" ".into()),
                ),
            };
            for v in good {
                let mut spec = PolicySpec::named(e.name);
                set(&mut spec, p, v.clone()).unwrap();
                assert_eq!(value(&spec, p), v, "{} {}", e.name, p.key);
                check(&spec).unwrap();
                seen += 1;
            }
            let mut spec = PolicySpec::named(e.name);
            let err = set(&mut spec, p, bad).unwrap_err();
            assert!(err.contains(p.key), "{err}");
        }
    }
    // The common keys are among them: FPFS's limit, the backfilling
    // policies' order, placement and processors.
    let fpfs = find(names::FPFS).unwrap();
    let mut spec = PolicySpec::fpfs(MaxJumps::Limit(3));
    set(
        &mut spec,
        param(fpfs, "max_jumps").unwrap(),
        ParamValue::Text(UNLIMITED.into()),
    )
    .unwrap();
    assert_eq!(spec.max_jumps(), MaxJumps::Unlimited);
    let easy = find(names::EASY).unwrap();
    let mut spec = PolicySpec::named(names::EASY);
    set(
        &mut spec,
        param(easy, "order").unwrap(),
        ParamValue::Text("smallest".into()),
    )
    .unwrap();
    set(
        &mut spec,
        param(easy, "placement").unwrap(),
        ParamValue::Text("first-fit".into()),
    )
    .unwrap();
    set(
        &mut spec,
        param(easy, "machines").unwrap(),
        ParamValue::Text("pinned".into()),
    )
    .unwrap();
    assert_eq!(spec.order(), BackfillOrder::Smallest);
    assert_eq!(spec.placement(), PlacementName::FirstFit);
    assert_eq!(spec.machines(), Machines::Pinned);
    assert!(spec.params.is_empty(), "{:?}", spec.params);
    assert!(seen > 30, "{seen}");
}

#[test]
fn a_spec_holds_the_shared_keys_in_one_order_whatever_built_it() {
    let json = |s: &PolicySpec| serde_json::to_string(s).unwrap();
    assert_eq!(
        json(&PolicySpec::fcfs()),
        r#"{"name":"fcfs","max_jumps":10,"placement":"worst-fit","order":"arrival"}"#
    );
    let pinned = PolicySpec::named(names::EASY)
        .with_machines(Machines::Pinned)
        .with_order(BackfillOrder::Smallest)
        .with_max_jumps(MaxJumps::Unlimited);
    assert_eq!(
        json(&pinned),
        r#"{"name":"easy","max_jumps":"unlimited","placement":"worst-fit","order":"smallest","machines":"pinned"}"#
    );
    // Counted processors are the default: not written, and the same spec.
    let counted = pinned.clone().with_machines(Machines::Counted);
    assert_eq!(
        counted,
        PolicySpec::named(names::EASY)
            .with_order(BackfillOrder::Smallest)
            .with_max_jumps(MaxJumps::Unlimited)
    );
    assert!(!json(&counted).contains("machines"));
    // Keys set in another order, or read from a file, come out the same.
    let mut by_hand = PolicySpec::new(names::EASY);
    by_hand.set_shared("machines", ParamValue::Text("pinned".into()));
    by_hand.set_shared("order", ParamValue::Text("smallest".into()));
    by_hand.set_shared("max_jumps", ParamValue::Text("inf".into()));
    assert_eq!(normalize(by_hand), pinned);
    let read = read(serde_json::json!({
        "machines": "pinned", "order": "smallest", "name": "easy", "max_jumps": "∞"
    }))
    .unwrap();
    assert_eq!(read, pinned);
    assert_eq!(read.max_jumps(), MaxJumps::Unlimited);
    assert_eq!(read.placement(), PlacementName::WorstFit);
}

#[test]
fn the_reader_refuses_what_policy_does_not_take_in_its_own_words() {
    let err = |v: serde_json::Value| read(v).unwrap_err().to_string();
    assert_eq!(
        err(serde_json::json!({"name": "fpfs", "maxjumps": 3})),
        "unknown field `maxjumps`, expected one of `name`, `max_jumps`, `placement`, `order`, `machines`, `params`"
    );
    assert!(
        err(serde_json::json!({"name": "fpfs", "max_jumps": -1}))
            .starts_with("max_jumps must be a whole number ≥ 0 or \"unlimited\", found -1")
    );
    assert!(
        err(serde_json::json!({"name": "easy", "order": "big"})).contains("unknown variant `big`")
    );
    assert!(err(serde_json::json!({"order": "arrival"})).contains("missing field `name`"));
    // A spec built by hand is held to the same by the check.
    let mut odd = PolicySpec::fcfs();
    odd.set_shared("maxjumps", ParamValue::Int(3));
    let (at, m) = check_key(&odd).err().unwrap();
    assert_eq!(at, ["maxjumps"]);
    assert!(
        m.starts_with("unknown key `maxjumps` (allowed: `name`, `max_jumps`"),
        "{m}"
    );
    let mut odd = PolicySpec::fcfs();
    odd.set_shared("placement", ParamValue::Int(3));
    let (at, m) = check_key(&odd).err().unwrap();
    assert_eq!(at, ["placement"]);
    assert!(m.contains("placement must be one of \"worst-fit\""), "{m}");
}
