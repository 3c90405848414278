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
    colours.iter().map(|c| bar_spans(svg, c).len()).sum()
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
        text(&o.stderr).contains("`policy.placement` also takes several values"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn the_lines_and_the_x_axis_are_two_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let d = swept(
        tmp.path(),
        &[
            "scenarios/teach-jumping.toml",
            "--vary",
            "policy.name=fcfs,fpfs",
            "--vary",
            "policy.placement=worst-fit,first-fit",
        ],
    );
    let stem = tmp.path().join("f");
    let o = schedscope(&[
        "plot",
        &d,
        "--x",
        "policy.name",
        "--series",
        "policy.name",
        "-o",
        stem.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--series policy.name is the x axis's key too"),
        "{}",
        text(&o.stderr)
    );
}

/// Runs a sweep into a result folder under `tmp` and returns the folder.
fn swept(tmp: &Path, args: &[&str]) -> String {
    let dir = tmp.join("out");
    let d = dir.to_str().unwrap().to_string();
    let mut all = vec!["sweep"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", &d, "--shard", "0/1"]);
    let o = schedscope(&all);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    d
}

/// A small maxJumps sweep with two splitting approaches, three
/// replications each.
const MAXJUMPS: &[&str] = &[
    "scenarios/ngubiri-maxjumps.toml",
    "--set",
    "run.jobs=600",
    "--set",
    "run.warmup_jobs=100",
    "--replications",
    "3",
    "--vary",
    "policy.max_jumps=0,2,5",
    "--vary",
    "workload.split.approach=random,phased",
];

#[test]
fn axis_and_legend_labels_can_be_set_in_words() {
    let tmp = tempfile::tempdir().unwrap();
    let d = swept(tmp.path(), MAXJUMPS);
    let stem = tmp.path().join("labelled");
    let o = schedscope(&[
        "plot",
        &d,
        "-o",
        stem.to_str().unwrap(),
        "--xlabel",
        "jumps allowed past a job",
        "--ylabel",
        "average response time (s)",
        "--series-label",
        "random=random splitting",
        "--series-label",
        "phased=phased, τ = 1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let svg = std::fs::read_to_string(stem.with_extension("svg")).unwrap();
    for label in [
        ">\njumps allowed past a job\n<",
        ">\naverage response time (s)\n<",
        ">\nrandom splitting\n<",
        ">\nphased, τ = 1\n<",
        // The default title follows the y axis's words.
        ">\nngubiri-maxjumps: average response time (s)\n<",
    ] {
        assert!(svg.contains(label), "no text {label:?}");
    }
    for gone in ["policy.max_jumps", "workload.split.approach", "ART (s)"] {
        assert!(!svg.contains(gone), "{gone:?} is still drawn");
    }

    // `sweep --plot` takes the same flags.
    let stem = tmp.path().join("swept");
    let mut args = vec!["sweep"];
    args.extend_from_slice(&MAXJUMPS[..7]);
    args.extend_from_slice(&[
        "--vary",
        "policy.max_jumps=0,2",
        "--plot",
        stem.to_str().unwrap(),
        "--xlabel",
        "maxJumps",
        "--series-label",
        "ART (s)=FPFS",
    ]);
    let o = schedscope(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let svg = std::fs::read_to_string(stem.with_extension("svg")).unwrap();
    assert!(svg.contains(">\nmaxJumps\n<"), "no x label");
    assert!(svg.contains(">\nFPFS\n<"), "the single line is renamed");

    // A label for a line that is not there is a mistake, said as one.
    let o = schedscope(&[
        "plot",
        &d,
        "-o",
        stem.to_str().unwrap(),
        "--series-label",
        "phase=phased splitting",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("--series-label phase=phased splitting: no line is named `phase`")
            && err.contains("random, phased"),
        "{err}"
    );
    let o = schedscope(&[
        "plot",
        &d,
        "-o",
        stem.to_str().unwrap(),
        "--series-label",
        "phased",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("expected OLD=NEW"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn labels_that_restate_the_defaults_draw_the_same_bytes() {
    // The defaults are the labels drawn without the flags: a figure
    // without them is the figure it was before they existed.
    let tmp = tempfile::tempdir().unwrap();
    let d = swept(tmp.path(), MAXJUMPS);
    let plain = tmp.path().join("plain");
    let o = schedscope(&["plot", &d, "-o", plain.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let restated = tmp.path().join("restated");
    let o = schedscope(&[
        "plot",
        &d,
        "-o",
        restated.to_str().unwrap(),
        "--xlabel",
        "policy.max_jumps",
        "--ylabel",
        "ART (s)",
        "--series-label",
        "random=workload.split.approach = random",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    for ext in ["svg", "png"] {
        assert!(
            std::fs::read(plain.with_extension(ext)).unwrap()
                == std::fs::read(restated.with_extension(ext)).unwrap(),
            "the {ext} differs"
        );
    }
}

/// (value, y pixel) of the y axis's tick labels (right-aligned text).
fn y_ticks(svg: &str) -> Vec<(f64, f64)> {
    svg.split("<text")
        .skip(1)
        .filter(|t| t.contains("text-anchor=\"end\""))
        .filter_map(|t| {
            let y: f64 = t.split("y=\"").nth(1)?.split('"').next()?.parse().ok()?;
            let v: f64 = t.split(">\n").nth(1)?.split('\n').next()?.parse().ok()?;
            Some((v, y))
        })
        .collect()
}

/// The y pixel ranges (top, bottom) of the vertical confidence bars drawn
/// in `colour`.
fn bar_spans(svg: &str, colour: &str) -> Vec<(f64, f64)> {
    svg.split("<polyline")
        .skip(1)
        .filter(|p| p.contains("stroke-width=\"1\"") && p.contains(&format!("stroke=\"{colour}\"")))
        .filter_map(|p| {
            let pts: Vec<(f64, f64)> = p
                .split("points=\"")
                .nth(1)?
                .split('"')
                .next()?
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            (pts.len() == 2 && pts[0].0 == pts[1].0)
                .then(|| (pts[0].1.min(pts[1].1), pts[0].1.max(pts[1].1)))
        })
        .collect()
}

#[test]
fn confidence_bars_of_a_wait_stop_at_zero() {
    // 80 jobs at low load, two replications: the mean wait is a second or
    // two, and its 95 % half-width (t = 12.7 on one degree of freedom)
    // well over ten seconds. A wait cannot be negative: the bars end at
    // zero, and so does the y axis.
    let tmp = tempfile::tempdir().unwrap();
    let stem = tmp.path().join("wait");
    let o = schedscope(&[
        "sweep",
        "scenarios/ngubiri-maxjumps.toml",
        "--set",
        "run.jobs=80",
        "--set",
        "run.warmup_jobs=0",
        "--set",
        "workload.mean_interarrival=0.45",
        "--replications",
        "2",
        "--vary",
        "policy.max_jumps=0,5",
        "--metric",
        "mean_wait",
        "--format",
        "csv",
        "--plot",
        stem.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // The premise: some half-width exceeds its mean.
    let csv = text(&o.stdout);
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (m, h) = (col("mean_wait"), col("mean_wait_half_width"));
    assert!(
        csv.lines().skip(1).any(|l| {
            let f: Vec<f64> = l.split(',').map(|v| v.parse().unwrap_or(0.0)).collect();
            f[h] > f[m]
        }),
        "no half-width exceeds its mean:\n{csv}"
    );

    let svg = std::fs::read_to_string(stem.with_extension("svg")).unwrap();
    let ticks = y_ticks(&svg);
    assert!(ticks.len() >= 3, "{ticks:?}");
    assert!(
        ticks.iter().all(|&(v, _)| v >= 0.0),
        "a tick below zero: {ticks:?}"
    );
    // Pixel to value, from the lowest and highest ticks.
    let (lo, hi) = (ticks[0], ticks[ticks.len() - 1]);
    let value = |y: f64| lo.0 + (y - lo.1) * (hi.0 - lo.0) / (hi.1 - lo.1);
    let spans = bar_spans(&svg, &lines(&svg)[0].0);
    assert_eq!(spans.len(), 2, "{spans:?}");
    let per_pixel = (hi.0 - lo.0) / (lo.1 - hi.1);
    for &(top, bottom) in &spans {
        assert!(value(top) > 0.0);
        assert!(
            value(bottom) > -per_pixel,
            "a bar reaches {} below zero",
            value(bottom)
        );
    }
    // The cut bar reaches zero itself, and the note says it was cut.
    assert!(spans.iter().any(|&(_, b)| value(b).abs() <= per_pixel));
    assert!(
        svg.contains("bars: 95 % confidence intervals over 2 replications, cut at zero"),
        "the note does not say the bars are cut"
    );
}

/// The objects of a PDF by its cross-reference table: checks that
/// `startxref` points at the table and each entry at its object, and
/// returns how many objects there are.
fn pdf_objects(pdf: &[u8]) -> usize {
    let find_last = |what: &[u8]| pdf.windows(what.len()).rposition(|w| w == what);
    let tail = text(&pdf[find_last(b"startxref").expect("a startxref")..]);
    let at: usize = tail.lines().nth(1).unwrap().trim().parse().unwrap();
    let table = text(&pdf[at..]);
    assert!(table.starts_with("xref"), "startxref points at the table");
    let mut rows = table.lines().skip(1);
    let header: Vec<usize> = rows
        .next()
        .unwrap()
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let (first, count) = (header[0], header[1]);
    for (i, row) in rows.take(count).enumerate() {
        let f: Vec<&str> = row.split_whitespace().collect();
        if f[2] == "n" {
            let off: usize = f[0].parse().unwrap();
            let id = first + i;
            assert!(
                pdf[off..].starts_with(format!("{id} 0 obj").as_bytes()),
                "object {id} is not where the table says"
            );
        }
    }
    count
}

#[test]
fn a_pdf_figure_is_valid_embeds_its_font_and_is_reproducible() {
    let tmp = tempfile::tempdir().unwrap();
    let d = swept(tmp.path(), MAXJUMPS);
    let draw = |name: &str| {
        let path = tmp.path().join(name);
        let o = schedscope(&["plot", &d, "-o", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        if name.ends_with(".pdf") {
            let said = format!("{}.svg, ", path.with_extension("").display());
            assert!(text(&o.stderr).contains(&said), "{}", text(&o.stderr));
        }
        path
    };
    let a = draw("a.pdf");
    let b = draw("b.pdf");
    let pdf = std::fs::read(&a).unwrap();
    assert!(pdf.starts_with(b"%PDF-"), "a PDF header");
    assert!(
        pdf.trim_ascii_end().ends_with(b"%%EOF"),
        "a PDF ends in %%EOF"
    );
    assert!(pdf_objects(&pdf) > 5);
    let raw = String::from_utf8_lossy(&pdf);
    // The SVG's 1000 × 640 pixels at 96 to the inch, in points.
    assert!(raw.contains("/MediaBox [0 0 750 480]"), "the page size");
    // DejaVu Sans is embedded (a subset, as TrueType outlines).
    assert!(raw.contains("DejaVuSans"), "the font is named");
    assert!(raw.contains("/FontFile2"), "the font is embedded");
    // The same figure, the same bytes.
    assert!(
        pdf == std::fs::read(&b).unwrap(),
        "two PDFs of one figure differ"
    );
    // The SVG and PNG beside it are those drawn without a PDF.
    let plain = draw("plain");
    for ext in ["svg", "png"] {
        assert!(
            std::fs::read(a.with_extension(ext)).unwrap()
                == std::fs::read(plain.with_extension(ext)).unwrap(),
            "the {ext} beside the PDF differs"
        );
    }
    // The SVG names the font it was drawn with, and says it is not in it.
    let svg = std::fs::read_to_string(plain.with_extension("svg")).unwrap();
    assert!(svg.contains("font-family=\"DejaVu Sans, sans-serif\""));
    assert!(!svg.contains("font-family=\"sans-serif\""));
    assert!(svg.contains("DejaVu Sans, which this file names but does not embed"));
}

#[test]
fn the_ending_of_a_format_not_drawn_is_refused_by_its_flag() {
    let o = schedscope(&[
        "sweep",
        "scenarios/teach-jumping.toml",
        "--vary",
        "policy.max_jumps=0,1",
        "--plot",
        "fig.jpg",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("--plot fig.jpg: figures are drawn as SVG, PNG and PDF, not .jpg"),
        "{err}"
    );
    assert!(o.stdout.is_empty(), "refused before any point ran");
    let o = schedscope(&["plot", "no-such-folder", "-o", "fig.EPS"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--out fig.EPS: figures are drawn as SVG, PNG and PDF, not .eps"),
        "{}",
        text(&o.stderr)
    );
}
