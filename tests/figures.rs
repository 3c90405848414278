//! Figures of sweeps: `sweep --plot` and `plot DIR` draw an SVG and a PNG
//! of the promised size, with both axes labelled, one legend entry and one
//! line per series, and a confidence bar per point.

use std::path::Path;
use std::process::{Command, Output};

fn schedscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// (width, height) from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The drawn lines (stroke width 2) per stroke colour, with their points.
fn lines(svg: &str) -> Vec<(String, usize)> {
    svg.split("<polyline")
        .skip(1)
        .filter(|p| p.contains("stroke-width=\"2\""))
        .map(|p| {
            let colour = p.split("stroke=\"").nth(1).unwrap()[..7].to_string();
            let points = p
                .split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            (colour, points.split_whitespace().count())
        })
        .collect()
}

/// The confidence bars: vertical polylines of width 1 in a line's colour.
fn bars(svg: &str, colours: &[String]) -> usize {
    svg.split("<polyline")
        .skip(1)
        .filter(|p| p.contains("stroke-width=\"1\""))
        .filter(|p| {
            colours
                .iter()
                .any(|c| p.contains(&format!("stroke=\"{c}\"")))
        })
        .filter(|p| {
            let pts: Vec<&str> = p
                .split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .split_whitespace()
                .collect();
            pts.len() == 2 && pts[0].split(',').next() == pts[1].split(',').next()
        })
        .count()
}

#[test]
fn a_sweep_figure_has_its_size_labels_legend_and_one_line_per_series() {
    let tmp = tempfile::tempdir().unwrap();
    let stem = tmp.path().join("fig/maxjumps");
    let o = schedscope(&[
        "sweep",
        "scenarios/ngubiri-maxjumps.toml",
        "--set",
        "run.jobs=1500",
        "--set",
        "run.warmup_jobs=100",
        "--replications",
        "3",
        "--vary",
        "policy.max_jumps=0,1,2,5,10",
        "--vary",
        "workload.split.approach=random,phased",
        "--plot",
        stem.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let svg = std::fs::read_to_string(stem.with_extension("svg")).unwrap();
    let png = std::fs::read(stem.with_extension("png")).unwrap();

    assert_eq!(png_size(&png), (1000, 640));
    assert!(
        png.len() > 20_000,
        "a PNG with something drawn: {} bytes",
        png.len()
    );
    assert!(svg.starts_with("<svg width=\"1000\" height=\"640\""));

    for label in [
        "policy.max_jumps",                 // x axis
        "ART (s)",                          // y axis
        "workload.split.approach = random", // legend
        "workload.split.approach = phased",
        "bars: 95 % confidence intervals over 3 replications",
    ] {
        assert!(svg.contains(label), "no text {label:?}");
    }
    let drawn = lines(&svg);
    assert_eq!(drawn.len(), 2, "one line per series: {drawn:?}");
    assert_ne!(drawn[0].0, drawn[1].0, "in two colours");
    assert!(
        drawn.iter().all(|(_, n)| *n == 5),
        "five points each: {drawn:?}"
    );
    let colours: Vec<String> = drawn.iter().map(|(c, _)| c.clone()).collect();
    assert_eq!(bars(&svg, &colours), 10, "a confidence bar per point");
}

#[test]
fn group_figures_and_plots_of_a_result_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    let d = dir.to_str().unwrap();
    let o = schedscope(&[
        "sweep",
        "scenarios/ngubiri-fpfs10.toml",
        "--set",
        "run.jobs=1500",
        "--set",
        "run.warmup_jobs=100",
        "--replications",
        "2",
        "--vary",
        "policy.name=fcfs,fpfs",
        "--out",
        d,
        "--shard",
        "0/1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stem = tmp.path().join("groups.svg");
    let o = schedscope(&[
        "plot",
        d,
        "--metric",
        "groups.size.*.art",
        "-o",
        stem.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(Path::new(&tmp.path().join("groups.png")).exists());
    let svg = std::fs::read_to_string(&stem).unwrap();
    for label in [
        "size group",
        "ART (s) by size group",
        "policy.name = fcfs",
        "policy.name = fpfs",
        ">\nS1\n<",
        ">\nS4\n<",
    ] {
        assert!(svg.contains(label), "no text {label:?}");
    }
    let drawn = lines(&svg);
    assert_eq!(drawn.len(), 2, "{drawn:?}");
    assert!(
        drawn.iter().all(|(_, n)| *n == 4),
        "four size groups: {drawn:?}"
    );

    // A figure must say what it holds: an unknown figure or key is refused.
    let o = schedscope(&[
        "plot",
        d,
        "--metric",
        "nonsense",
        "-o",
        stem.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("no figure `nonsense`"),
        "{}",
        text(&o.stderr)
    );
    let o = schedscope(&["plot", d, "--x", "seed", "-o", stem.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("not a varied key"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_third_varied_key_must_be_pinned() {
    let o = schedscope(&[
        "sweep",
        "scenarios/teach-jumping.toml",
        "--vary",
        "policy.name=fcfs,fpfs",
        "--vary",
        "policy.max_jumps=0,1",
        "--vary",
        "policy.placement=worst-fit,first-fit",
        "--plot",
        "/nonexistent/never",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("`policy.placement` also take several values"),
        "{}",
        text(&o.stderr)
    );
}
