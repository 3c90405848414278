//! Reports: the JSON summary, the per-job CSV and the text tables, and the
//! result folder they are written into as one unit (`--out`).

pub mod csv;
pub mod json;
pub mod out_dir;
pub mod table;
