//! `fimdup mine`: maximal / closed / all frequent itemsets of a FIMI file.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use fimdup::fimi::{read_transactions, FimiOptions};
use fimdup::mine::{self, MinSupport, MineConfig, Target};

/// Mine maximal (default), closed or all frequent itemsets of a FIMI transaction file.
///
/// Output: one itemset per line, `i1 i2 ... (support)`, items ascending, lines in a
/// deterministic order (independent of --threads).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup mine chess.dat --minsup 60% --count
  fimdup mine mushroom.dat --minsup 813 --target closed --out closed.txt
  fimdup context out/default.img --out ctx.dat && fimdup mine ctx.dat --minsup 100   # concept clusters")]
pub struct Args {
    /// FIMI input (`-` for stdin, `*.gz` decompressed).
    pub input: PathBuf,
    /// Minimum support: a count (`1918`) or a percentage of the transactions (`60%`).
    #[arg(long)]
    pub minsup: MinSupport,
    /// What to mine.
    #[arg(
        long,
        default_value_t = Target::default().to_string(),
        value_parser = ["maximal", "closed", "all"]
    )]
    pub target: String,
    /// Write the itemsets to this file (atomically) instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print only the number of itemsets.
    #[arg(long)]
    pub count: bool,
    /// Stop with an error when more than N itemsets would be produced.
    #[arg(long, value_name = "N")]
    pub max_itemsets: Option<u64>,
    /// Print the summary as JSON on standard output (with --count or --out).
    #[arg(long)]
    pub json: bool,
}

/// Runs `fimdup mine`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let cfg = MineConfig {
        minsup: args.minsup,
        target: args.target.parse::<Target>()?,
        max_itemsets: args.max_itemsets,
    };
    cfg.validate()?;
    anyhow::ensure!(
        !(args.json && !args.count && args.out.is_none()),
        "--json needs --count or --out (standard output holds the itemsets otherwise)"
    );
    let t0 = Instant::now();
    let t = read_transactions(&args.input, FimiOptions::default())?;
    let parse_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let stats = if args.count {
        mine::count_stats(&t, &cfg)?
    } else if let Some(path) = &args.out {
        let mut f = fimdup::io::AtomicFile::create(path)?;
        let stats = mine::write_itemsets(&t, &cfg, &mut f, path)?;
        f.commit()?;
        stats
    } else {
        let stdout = std::io::stdout();
        let mut lock = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
        mine::write_itemsets(&t, &cfg, &mut lock, std::path::Path::new("<stdout>"))?
    };
    let mine_s = t1.elapsed().as_secs_f64();
    eprintln!(
        "fimdup mine: {} transactions, {} items, {} frequent items (minsup {}), {} {} itemsets; parse {:.3} s, mine {:.3} s",
        stats.transactions,
        stats.items,
        stats.frequent_items,
        stats.minsup,
        stats.itemsets,
        cfg.target,
        parse_s,
        mine_s
    );
    if args.count && !args.json {
        println!("{}", stats.itemsets);
    }
    if args.json {
        let v = serde_json::json!({
            "input": args.input,
            "target": cfg.target,
            "transactions": stats.transactions,
            "items": stats.items,
            "frequent_items": stats.frequent_items,
            "minsup": stats.minsup,
            "itemsets": stats.itemsets,
            "parse_seconds": parse_s,
            "mine_seconds": mine_s,
        });
        println!("{}", serde_json::to_string(&v).context("json summary")?);
    }
    Ok(())
}
