//! A figure's files: where `--plot NAME` writes (SVG and PNG, and PDF when
//! asked for), each drawn and written atomically.

use super::{FONT_NOTE, Figure, PDF_DPI, PlotError, SIZE, draw, fonts};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Endings of other image and document formats, refused rather than
/// taken as part of a file's stem (`fig.jpg.svg`); other endings are the
/// stem's own (`run.v2` draws `run.v2.svg`).
const OTHER_FORMATS: [&str; 16] = [
    "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp", "avif", "eps", "ps", "svgz", "emf", "wmf",
    "pgf", "tex", "html",
];

/// The files a figure is written to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paths {
    pub svg: PathBuf,
    pub png: PathBuf,
    /// Only when the name ends in `.pdf`.
    pub pdf: Option<PathBuf>,
}

impl Paths {
    /// Every file, in the order written.
    pub fn all(&self) -> Vec<&Path> {
        let mut v = vec![self.svg.as_path(), self.png.as_path()];
        v.extend(self.pdf.as_deref());
        v
    }
}

/// The files a figure named `name` is written to: `stem.svg` and
/// `stem.png`, and `stem.pdf` too when `name` ends in `.pdf` (an `.svg`,
/// `.png` or `.pdf` ending is dropped to make the stem). The ending of
/// another image format is an error, which `flag` names.
pub fn paths(flag: &str, name: &Path) -> Result<Paths, PlotError> {
    let ext = name
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let stem = match ext.as_deref() {
        Some("svg" | "png" | "pdf") => name.with_extension(""),
        Some(e) if OTHER_FORMATS.contains(&e) => {
            return Err(PlotError::Spec(format!(
                "{flag} {}: figures are drawn as SVG, PNG and PDF, not .{e}: end the name in .svg or .png (both are written) or in .pdf (all three)",
                name.display()
            )));
        }
        _ => name.to_path_buf(),
    };
    let with = |ext: &str| {
        let mut s = stem.clone().into_os_string();
        s.push(ext);
        PathBuf::from(s)
    };
    Ok(Paths {
        svg: with(".svg"),
        png: with(".png"),
        pdf: (ext.as_deref() == Some("pdf")).then(|| with(".pdf")),
    })
}

/// The figure as SVG text.
pub fn svg(fig: &Figure) -> Result<String, PlotError> {
    fonts();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
        draw(&root, fig).map_err(|e| PlotError::Draw {
            path: "SVG".into(),
            message: e.to_string(),
        })?;
    }
    // The note goes after the opening tag, which ends the first line.
    if let Some(i) = text.find('\n') {
        text.insert_str(i + 1, &format!("{FONT_NOTE}\n"));
    }
    Ok(text)
}

/// The figure as a one-page PDF of [`PDF_DPI`]'s size, with the glyphs of
/// DejaVu Sans it uses embedded (as selectable text). It has no creation
/// date or document id, so the same figure gives the same bytes.
pub fn pdf(fig: &Figure) -> Result<Vec<u8>, PlotError> {
    let fail = |m: String| PlotError::Draw {
        path: "PDF".into(),
        message: m,
    };
    let text = svg(fig)?;
    let mut options = svg2pdf::usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_font_data(dejavu::sans::regular().to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    let tree = svg2pdf::usvg::Tree::from_str(&text, &options).map_err(|e| fail(e.to_string()))?;
    let page = svg2pdf::PageOptions { dpi: PDF_DPI };
    svg2pdf::to_pdf(&tree, svg2pdf::ConversionOptions::default(), page)
        .map_err(|e| fail(e.to_string()))
}

/// The figure as a PNG: drawn into an RGB buffer, then encoded with fast
/// compression and a filter chosen per row.
fn png(fig: &Figure) -> Result<Vec<u8>, String> {
    let (w, h) = SIZE;
    let mut pixels = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area();
        draw(&root, fig).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, h);
    e.set_color(png::ColorType::Rgb);
    e.set_depth(png::BitDepth::Eight);
    e.set_compression(png::Compression::Fast);
    e.set_filter(png::FilterType::Sub);
    e.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut writer = e.write_header().map_err(|e| e.to_string())?;
    writer
        .write_image_data(&pixels)
        .map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// Writes the figure to the files of `paths`, each atomically, with the
/// mode new files get (the umask's).
pub fn write(fig: &Figure, paths: &Paths) -> Result<(), PlotError> {
    let (svg_path, png_path) = (&paths.svg, &paths.png);
    let fail = |p: &Path, m: String| PlotError::Draw {
        path: p.display().to_string(),
        message: m,
    };
    if let Some(dir) = svg_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| fail(dir, e.to_string()))?;
    }
    let text = svg(fig)?;
    crate::report::write_atomic(svg_path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| fail(svg_path, e.to_string()))?;
    let bytes = png(fig).map_err(|m| fail(png_path, m))?;
    crate::report::write_atomic(png_path, |w| w.write_all(&bytes))
        .map_err(|e| fail(png_path, e.to_string()))?;
    if let Some(pdf_path) = &paths.pdf {
        let bytes = pdf(fig)?;
        crate::report::write_atomic(pdf_path, |w| w.write_all(&bytes))
            .map_err(|e| fail(pdf_path, e.to_string()))?;
    }
    Ok(())
}
