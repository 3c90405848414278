//! The Standard Task Graph (STG) format of Kasahara's group
//! (<https://www.kasahara.cs.waseda.ac.jp/schedule/>), as in
//! `kasahara_msp/50/rand0000.stg`:
//!
//! ```text
//!          50                      <- n, the number of real subtasks
//!           0   0   0              <- dummy entry: id, time, #preds
//!           1   9   1   0          <- id, processing time, #preds, preds…
//!          …
//!          51   0  11   3 17 …     <- dummy exit (id n+1)
//! # Standard Task Graph Set Project
//! #   Tasks             : 50 (+dummy tasks : 2)
//! #   Edges             : 96 / 1225 (+dummy edges : 23)
//! # CP Length           : 55
//! ```
//!
//! The set is for multiprocessor scheduling *without* communication: the
//! files carry no edge weights, so every edge read here costs 0. The two
//! dummy subtasks (entry 0 and exit n+1, both of time 0) and their edges
//! are dropped: real subtask `i` (1 ≤ i ≤ n) becomes subtask `i − 1`. The
//! optimal-value tables (`Optimal_values/Case50_4_OPT.csv`) hold one line
//! per graph, `50/rand0000.stg,4,66`, or with a lower and an upper bound
//! where the optimum is not known, `50/rand0009.stg,4,132,134`.

use super::TaskGraph;
use std::path::{Path, PathBuf};

/// A file that cannot be read, with the place and the field at fault.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{file}:{line}: {field}: {message}")]
pub struct StgError {
    pub file: String,
    /// 1-based line number (0 when the file itself cannot be opened).
    pub line: usize,
    pub field: String,
    pub message: String,
}

/// What the file's comment lines say about the graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StgComments {
    pub tasks: Option<usize>,
    pub edges: Option<usize>,
    pub dummy_edges: Option<usize>,
    pub cp_length: Option<u64>,
}

/// One STG file.
#[derive(Clone, Debug)]
pub struct StgGraph {
    pub graph: TaskGraph,
    /// Edges to and from the dummy subtasks, dropped from `graph`.
    pub dummy_edges: usize,
    pub comments: StgComments,
}

/// Reads an STG file.
pub fn read_path(path: &Path) -> Result<StgGraph, StgError> {
    let text = std::fs::read_to_string(path).map_err(|e| StgError {
        file: path.display().to_string(),
        line: 0,
        field: "file".into(),
        message: e.to_string(),
    })?;
    parse(&text, &path.display().to_string())
}

/// Parses the text of an STG file; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<StgGraph, StgError> {
    let err = |line: usize, field: &str, message: String| StgError {
        file: file.to_string(),
        line,
        field: field.to_string(),
        message,
    };
    let mut comments = StgComments::default();
    // Data lines with their 1-based numbers; comments read on the way.
    let mut data: Vec<(usize, Vec<&str>)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(c) = line.strip_prefix('#') {
            read_comment(c, &mut comments);
        } else if !line.is_empty() {
            data.push((i + 1, line.split_whitespace().collect()));
        }
    }
    let Some((first_line, head)) = data.first() else {
        return Err(err(1, "task count", "the file has no data lines".into()));
    };
    if head.len() != 1 {
        return Err(err(
            *first_line,
            "task count",
            format!(
                "the first line must hold only the number of subtasks, found {} fields",
                head.len()
            ),
        ));
    }
    let n: usize = number(head[0], *first_line, "task count", file)?;
    let rows = &data[1..];
    if rows.len() != n + 2 {
        let line = rows.last().map_or(*first_line, |r| r.0);
        return Err(err(
            line,
            "task lines",
            format!(
                "{n} subtasks need {} task lines (with the dummy entry and exit), found {}",
                n + 2,
                rows.len()
            ),
        ));
    }
    let mut weights = Vec::with_capacity(n);
    let mut edges = Vec::new();
    let mut dummy_edges = 0;
    for (id, (line, fields)) in rows.iter().enumerate() {
        let line = *line;
        if fields.len() < 3 {
            return Err(err(
                line,
                "task line",
                format!(
                    "needs id, processing time and predecessor count, found {} fields",
                    fields.len()
                ),
            ));
        }
        let got: usize = number(fields[0], line, "task id", file)?;
        if got != id {
            return Err(err(line, "task id", format!("expected {id}, found {got}")));
        }
        let w: u64 = number(fields[1], line, "processing time", file)?;
        let np: usize = number(fields[2], line, "predecessor count", file)?;
        if fields.len() != 3 + np {
            return Err(err(
                line,
                "predecessor count",
                format!(
                    "says {np} predecessors, the line lists {}",
                    fields.len() - 3
                ),
            ));
        }
        let dummy = id == 0 || id == n + 1;
        if dummy && w != 0 {
            return Err(err(
                line,
                "processing time",
                format!("the dummy subtask {id} must take 0, found {w}"),
            ));
        }
        if id == 0 && np != 0 {
            return Err(err(
                line,
                "predecessor count",
                "the dummy entry has no predecessors".into(),
            ));
        }
        if !dummy {
            weights.push(w);
        }
        for f in &fields[3..] {
            let p: usize = number(f, line, "predecessor", file)?;
            if p >= id {
                return Err(err(
                    line,
                    "predecessor",
                    format!(
                        "{p} is not an earlier subtask than {id} (the format lists subtasks in topological order)"
                    ),
                ));
            }
            if p == 0 || id == n + 1 {
                dummy_edges += 1;
            } else if edges.iter().any(|&(a, b, _)| a == p - 1 && b == id - 1) {
                return Err(err(line, "predecessor", format!("{p} is listed twice")));
            } else {
                edges.push((p - 1, id - 1, 0));
            }
        }
    }
    let graph = TaskGraph::new(weights, &edges).map_err(|e| err(0, "graph", e.to_string()))?;
    Ok(StgGraph {
        graph,
        dummy_edges,
        comments,
    })
}

fn number<T: std::str::FromStr>(
    s: &str,
    line: usize,
    field: &str,
    file: &str,
) -> Result<T, StgError> {
    s.parse().map_err(|_| StgError {
        file: file.to_string(),
        line,
        field: field.to_string(),
        message: format!("must be a whole number, found {s:?}"),
    })
}

/// `Tasks : 50 (+dummy tasks : 2)`, `Edges : 96 / 1225 (+dummy edges : 23)`,
/// `CP Length : 55`.
fn read_comment(c: &str, out: &mut StgComments) {
    let Some((key, value)) = c.split_once(':') else {
        return;
    };
    let first_number = |v: &str| -> Option<u64> {
        v.split(|ch: char| !ch.is_ascii_digit())
            .find(|t| !t.is_empty())
            .and_then(|t| t.parse().ok())
    };
    match key.trim() {
        "Tasks" => out.tasks = first_number(value).map(|v| v as usize),
        "Edges" => {
            out.edges = first_number(value).map(|v| v as usize);
            out.dummy_edges = value
                .split_once("dummy edges")
                .and_then(|(_, rest)| first_number(rest))
                .map(|v| v as usize);
        }
        "CP Length" => out.cp_length = first_number(value),
        _ => {}
    }
}

/// One line of an optimal-value table: the optimum when `lower == upper`,
/// else the best known bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptimalEntry {
    /// The graph's path as the table writes it (`50/rand0000.stg`).
    pub graph: String,
    pub procs: usize,
    pub lower: u64,
    pub upper: u64,
}

impl OptimalEntry {
    /// The optimal makespan, when it is known.
    pub fn optimum(&self) -> Option<u64> {
        (self.lower == self.upper).then_some(self.lower)
    }
}

/// Reads an optimal-value table (`Case50_4_OPT.csv`).
pub fn read_optimal(path: &Path) -> Result<Vec<OptimalEntry>, StgError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| StgError {
        file: file.clone(),
        line: 0,
        field: "file".into(),
        message: e.to_string(),
    })?;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let f: Vec<&str> = raw.split(',').map(str::trim).collect();
        if f.len() != 3 && f.len() != 4 {
            return Err(StgError {
                file,
                line,
                field: "line".into(),
                message: format!(
                    "needs graph,procs,optimum or graph,procs,lower,upper; found {} fields",
                    f.len()
                ),
            });
        }
        let procs = number(f[1], line, "procs", &file)?;
        let lower = number(
            f[2],
            line,
            if f.len() == 3 { "optimum" } else { "lower" },
            &file,
        )?;
        let upper = if f.len() == 4 {
            number(f[3], line, "upper", &file)?
        } else {
            lower
        };
        if upper < lower {
            return Err(StgError {
                file,
                line,
                field: "upper".into(),
                message: format!("{upper} is below the lower bound {lower}"),
            });
        }
        out.push(OptimalEntry {
            graph: f[0].to_string(),
            procs,
            lower,
            upper,
        });
    }
    Ok(out)
}

/// Every `.stg` file under `dir` (recursively), sorted by path.
pub fn find_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "stg") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "  3\n  0 0 0\n  1 2 1 0\n  2 3 1 0\n  3 4 2 1 2\n  4 0 1 3\n\
# Tasks : 3 (+dummy tasks : 2)\n# Edges : 2 / 3 (+dummy edges : 3)\n# CP Length : 7\n";

    #[test]
    fn reads_a_small_graph_and_drops_the_dummies() {
        let g = parse(SMALL, "small.stg").unwrap();
        assert_eq!(g.graph.weights, vec![2, 3, 4]);
        assert_eq!(
            g.graph.edges().collect::<Vec<_>>(),
            vec![(0, 2, 0), (1, 2, 0)]
        );
        assert_eq!(g.dummy_edges, 3);
        assert_eq!(
            g.comments,
            StgComments {
                tasks: Some(3),
                edges: Some(2),
                dummy_edges: Some(3),
                cp_length: Some(7)
            }
        );
        assert_eq!(g.graph.critical_path(), 7);
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let bad = SMALL.replace("  2 3 1 0", "  2 x 1 0");
        let e = parse(&bad, "small.stg").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (4, "processing time"));
        assert_eq!(
            e.to_string(),
            "small.stg:4: processing time: must be a whole number, found \"x\""
        );

        let bad = SMALL.replace("  3 4 2 1 2", "  3 4 3 1 2");
        let e = parse(&bad, "small.stg").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (5, "predecessor count"));

        let bad = SMALL.replace("  3 4 2 1 2", "  3 4 2 1 3");
        let e = parse(&bad, "small.stg").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (5, "predecessor"));

        let bad = SMALL.replace("  4 0 1 3\n", "");
        let e = parse(&bad, "small.stg").unwrap_err();
        assert_eq!(e.field, "task lines");

        let e = parse("", "empty.stg").unwrap_err();
        assert_eq!(e.field, "task count");
    }
}
