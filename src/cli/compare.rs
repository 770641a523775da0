//! `fimdup compare`: resemblance and containment of two documents.

use std::path::PathBuf;

use fimdup::shingle::{containment, resemblance, shingle_set};
use fimdup::sketch::{estimate_containment, estimate_resemblance, Scheme, Sketcher};
use fimdup::text::Canonicalizer;

use super::common::{print_json, SchemeArgs, TextArgs};

/// Resemblance and containment of two files (each file is one document).
///
/// Without --exact, resemblance is estimated from the two images (--scheme, --size) and
/// containment from mod-m images (--modulus); with --exact both are computed from the full
/// shingle sets. Containment is that of A in B, |S(A) n S(B)| / |S(A)|.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup compare a.txt b.txt --exact --shingle-len 3
  fimdup compare a.html b.html --html --scheme k-mins --size 256 --json")]
pub struct Args {
    /// First document (a file).
    pub a: PathBuf,
    /// Second document (a file).
    pub b: PathBuf,
    #[command(flatten)]
    pub text: TextArgs,
    #[command(flatten)]
    pub scheme: SchemeArgs,
    /// Exact values from the full shingle sets instead of estimates from images.
    #[arg(long)]
    pub exact: bool,
    /// Print the result as a JSON object.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let canon = Canonicalizer::new(args.text.text_config()?)?;
    let shingle = args.text.shingle_config(args.scheme.seed)?;
    let read = |p: &PathBuf| -> anyhow::Result<_> {
        let bytes = fimdup::io::read_all(p)?;
        Ok(canon.canonicalize(&String::from_utf8_lossy(&bytes)))
    };
    let (ca, cb) = (read(&args.a)?, read(&args.b)?);
    let (sa, sb) = (shingle_set(&ca, &shingle), shingle_set(&cb, &shingle));
    let (r, c_ab, c_ba) = if args.exact {
        (
            resemblance(&sa, &sb),
            Some(containment(&sa, &sb)),
            Some(containment(&sb, &sa)),
        )
    } else {
        let cfg = args.scheme.sketch_config()?;
        let sk = Sketcher::new(shingle, cfg)?;
        let r = estimate_resemblance(&sk.sketch(&ca), &sk.sketch(&cb), &cfg);
        let mcfg = fimdup::sketch::SketchConfig {
            scheme: Scheme::ModM,
            bits: None,
            ..cfg
        };
        let mk = Sketcher::new(shingle, mcfg)?;
        let (ma, mb) = (mk.sketch(&ca), mk.sketch(&cb));
        // An empty mod-m sample says nothing about containment: report it as unknown.
        let c = |x: &fimdup::sketch::Image, y| -> anyhow::Result<Option<f64>> {
            Ok((!x.is_empty()).then_some(estimate_containment(x, y, &mcfg)?))
        };
        (r, c(&ma, &mb)?, c(&mb, &ma)?)
    };
    if args.json {
        print_json(&serde_json::json!({
            "resemblance": r,
            "containment": c_ab,
            "containment_ba": c_ba,
            "exact": args.exact,
            "shingles_a": sa.len(),
            "shingles_b": sb.len(),
        }))?;
    } else {
        println!("resemblance     {r:.6}");
        let show = |c: Option<f64>| {
            c.map_or(
                "n/a (no shingle of the mod-m sample; lower --modulus)".into(),
                |c| format!("{c:.6}"),
            )
        };
        println!("containment     {}  (A in B)", show(c_ab));
        println!("containment_ba  {}  (B in A)", show(c_ba));
        eprintln!(
            "{} shingles of {} {}s in A, {} in B ({})",
            sa.len(),
            shingle.len,
            args.text.unit.name(),
            sb.len(),
            if args.exact {
                "exact"
            } else {
                "estimated from images"
            }
        );
    }
    Ok(())
}
