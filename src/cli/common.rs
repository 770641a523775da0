//! Helpers shared by the subcommands: thread pool set-up, progress bars, summaries, the
//! argument groups and value enums several subcommands take, the interrupt handler.
//!
//! Every flag's default is the library's (the `Default` of the configuration or named
//! options it maps to, read in `default_value_t`), never written here; `cli::tests` checks
//! that a command line without flags gives the library's defaults.

use std::io::IsTerminal;

/// Configures the global rayon pool (`None` = all cores). Call once, before any work.
pub fn init_threads(threads: Option<usize>) -> anyhow::Result<()> {
    if let Some(t) = threads {
        anyhow::ensure!(t >= 1, "--threads must be at least 1");
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()?;
    }
    Ok(())
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub fn progress(len: Option<u64>, msg: &'static str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = match len {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    pb.set_message(msg);
    pb
}

use std::path::PathBuf;

use fimdup::corpus::{CorpusConfig, DuplicateIds, Format};
use fimdup::shingle::ShingleConfig;
use fimdup::sketch::pipeline::PipelineConfig;
use fimdup::sketch::{PipelineOptions, Scheme, SketchConfig, Weighting};
use fimdup::spill::MemoryBudget;
use fimdup::text::{Lang, Normalization, TextConfig, Tokenizer, Unit};

/// How the corpus is read.
#[derive(clap::Args, Debug, Clone)]
pub struct CorpusArgs {
    /// Input format (guessed from the extension when absent; `.gz` and `.zst` are
    /// decompressed; a directory holding `*.parquet` files is read as one Parquet corpus,
    /// any other directory as `dir`).
    #[arg(long, value_name = "jsonl|csv|tsv|lines|dir|warc|parquet")]
    pub format: Option<Format>,
    /// JSONL field holding the text.
    #[arg(long, default_value_t = CorpusConfig::default().text_field)]
    pub text_field: String,
    /// JSONL field holding the id ("" = line number).
    #[arg(long, default_value_t = CorpusConfig::default().id_field)]
    pub id_field: String,
    /// CSV/TSV/Parquet column holding the text (Parquet: a struct field as a.b).
    #[arg(long, default_value_t = CorpusConfig::default().text_column)]
    pub text_column: String,
    /// CSV/TSV/Parquet column holding the id ("" = line number; Parquet: row number across
    /// the corpus; a struct field as a.b).
    #[arg(long, default_value_t = CorpusConfig::default().id_column)]
    pub id_column: String,
    /// Skip (and count) malformed JSONL/CSV lines instead of stopping.
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// A repeated external id: stop with an error naming both places, or rename the 2nd,
    /// 3rd, ... occurrence of X to X#2, X#3, ... (counted in the summary).
    #[arg(
        long,
        value_enum,
        default_value_t = CorpusConfig::default().duplicate_ids,
        value_name = "error|suffix"
    )]
    pub duplicate_ids: DuplicateIds,
    /// The largest document (a JSONL or text line, a file of a directory, a WARC record):
    /// larger ones are skipped and counted; a larger CSV/TSV row is an error.
    #[arg(
        long,
        default_value_t = MemoryBudget(CorpusConfig::default().max_doc_bytes),
        value_name = "SIZE",
        value_parser = parse_size
    )]
    pub max_doc_bytes: MemoryBudget,
}

/// What the one-line summaries add about the input when there is something to say:
/// `; N ids renamed, M oversized documents skipped` (each part only when not zero).
pub fn input_notes(s: &fimdup::corpus::CorpusStats) -> String {
    let mut out = String::new();
    if s.renamed_ids > 0 {
        out.push_str(&format!("; {} repeated ids renamed", s.renamed_ids));
    }
    if s.skipped_oversized > 0 {
        out.push_str(&format!(
            "; {} oversized documents skipped",
            s.skipped_oversized
        ));
    }
    out
}

/// A size such as `64MiB`, `1G` or `65536` (bytes).
fn parse_size(s: &str) -> Result<MemoryBudget, String> {
    s.parse::<MemoryBudget>()
        .map_err(|_| format!("expected a size such as 64MiB, 1GiB or 65536, not {s:?}"))
}

impl CorpusArgs {
    pub fn config(&self) -> CorpusConfig {
        CorpusConfig {
            format: self.format,
            text_field: self.text_field.clone(),
            id_field: self.id_field.clone(),
            text_column: self.text_column.clone(),
            id_column: self.id_column.clone(),
            skip_bad_lines: self.skip_bad_lines,
            duplicate_ids: self.duplicate_ids,
            max_doc_bytes: self.max_doc_bytes.bytes(),
            texts: None,
        }
    }
}

/// Canonical text and shingles.
#[derive(clap::Args, Debug, Clone)]
pub struct TextArgs {
    /// Shingle unit: words or characters.
    #[arg(long, default_value_t = PipelineOptions::default().unit, value_name = "word|char")]
    pub unit: Unit,
    /// Shingle length w in units [default: 5 for words, 9 for characters]. `sweep` also
    /// takes a comma list (2,3,4,5): every length is swept in turn, each row of results.csv
    /// carries its length, and --cv chooses the length with the threshold.
    #[arg(long, value_name = "W", value_parser = parse_lens)]
    pub shingle_len: Option<ShingleLens>,
    /// Distance between the starts of two consecutive shingles (IK09).
    #[arg(long, default_value_t = PipelineOptions::default().offset, value_name = "O")]
    pub offset: usize,
    /// Strip HTML (tags, comments, script/style; entities decoded; alt text kept).
    #[arg(long)]
    pub html: bool,
    /// Keep case (the default folds it).
    #[arg(long)]
    pub keep_case: bool,
    /// Words: `unicode` (UAX #29 words: `_` joins, `.` and `'` join two letters or two
    /// digits, `,` joins digits), `alnum` (runs of Unicode letters, digits and combining
    /// marks; everything else, `_` and `.` too, separates) or `whitespace` (runs of
    /// non-whitespace, punctuation kept).
    #[arg(
        long,
        default_value_t = PipelineOptions::default().tokenizer,
        value_name = "unicode|alnum|whitespace"
    )]
    pub tokenizer: Tokenizer,
    /// Unicode normalization before case folding: `nfkc` makes full-width and compatibility
    /// forms equal to plain ones and composes accents; `nfc` only composes.
    #[arg(
        long,
        default_value_t = PipelineOptions::default().normalize,
        value_name = "none|nfc|nfkc"
    )]
    pub normalize: Normalization,
    /// Language of `--stem` and of `--stopwords lang` (ISO 639-1 code or English name:
    /// ar da de el en es fi fr hu it nl no pt ro ru sv ta tr have Snowball stemmers; az id kk
    /// ne sl tg have stop words only).
    #[arg(long, default_value_t = PipelineOptions::default().lang, value_name = "CODE")]
    pub lang: Lang,
    /// Drop stop words: `lang` (the built-in NLTK list of `--lang`), a language (`english`,
    /// `de`), or a file with one word per line.
    #[arg(long, value_name = "lang|LANGUAGE|FILE")]
    pub stopwords: Option<String>,
    /// Snowball stemming in `--lang` (English: Porter 2).
    #[arg(long)]
    pub stem: bool,
}

/// The value of `--shingle-len`: one length, or a comma list of them (sweep only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShingleLens(pub Vec<usize>);

/// `3` or `2,3,4,5`.
fn parse_lens(s: &str) -> Result<ShingleLens, String> {
    s.split(',')
        .map(|w| {
            w.trim().parse::<usize>().map_err(|_| {
                format!("expected a shingle length or a comma list of them (2,3,4,5), not {s:?}")
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(ShingleLens)
}

impl TextArgs {
    /// Refuses a list of shingle lengths: every command but `sweep` takes one.
    fn one_length(&self) -> anyhow::Result<()> {
        match &self.shingle_len {
            Some(l) if l.0.len() > 1 => anyhow::bail!(
                "--shingle-len takes one length here; a list ({}) is for sweep",
                l.0.iter()
                    .map(|w| w.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            _ => Ok(()),
        }
    }

    pub fn text_config(&self) -> anyhow::Result<TextConfig> {
        self.one_length()?;
        Ok(pipeline_options(self, &SchemeArgs::default()).text()?)
    }

    pub fn shingle_config(&self, seed: u64) -> anyhow::Result<ShingleConfig> {
        self.one_length()?;
        let scheme = SchemeArgs {
            seed,
            ..SchemeArgs::default()
        };
        Ok(pipeline_options(self, &scheme).shingle()?)
    }
}

/// The library's named options for these flags.
fn pipeline_options(text: &TextArgs, scheme: &SchemeArgs) -> PipelineOptions {
    PipelineOptions {
        scheme: scheme.scheme,
        size: scheme.size,
        modulus: scheme.modulus,
        seed: scheme.seed,
        weighting: scheme.weighting.map(Weighting::from),
        b_bit: scheme.b_bit,
        unit: text.unit,
        shingle_len: text.shingle_len.as_ref().map(|l| l.0[0]),
        offset: text.offset,
        html: text.html,
        keep_case: text.keep_case,
        tokenizer: text.tokenizer,
        normalize: text.normalize,
        stopwords: text.stopwords.clone(),
        stem: text.stem,
        lang: text.lang,
    }
}

/// The image scheme.
#[derive(clap::Args, Debug, Clone)]
pub struct SchemeArgs {
    /// How the image is chosen from the shingles [default: bottom-k; k-mins for the lsh and
    /// super-shingle methods].
    #[arg(long, value_name = "bottom-k|k-mins|one-permutation|mod-m|icws")]
    pub scheme: Option<Scheme>,
    /// Image size n (bottom-k, k-mins, one-permutation).
    #[arg(long, default_value_t = PipelineOptions::default().size, value_name = "N")]
    pub size: usize,
    /// Modulus m (mod-m keeps the hashes that are 0 mod m).
    #[arg(long, default_value_t = PipelineOptions::default().modulus, value_name = "M")]
    pub modulus: u64,
    /// Seed of the shingle hash and the permutations.
    #[arg(long, default_value_t = PipelineOptions::default().seed, value_name = "S")]
    pub seed: u64,
    /// Bag images over (shingle, occurrence) pairs, or tf-idf weighted bags (H00).
    #[arg(long, value_name = "bag|tfidf")]
    pub weighting: Option<WeightingArg>,
    /// b-bit minwise hashing: keep B bits (1, 2, 4 or 8) of each value of a positional
    /// image (k-mins, one-permutation, icws); images b/64 of the size, resemblance
    /// corrected for chance agreement.
    #[arg(long, value_name = "B")]
    pub b_bit: Option<u8>,
}

/// The values of `--weighting`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightingArg {
    /// Every occurrence of a shingle counts.
    Bag,
    /// tf-idf weights from a first pass, normalized to 100 pairs.
    #[value(alias = "tf-idf")]
    Tfidf,
}

impl From<WeightingArg> for Weighting {
    fn from(w: WeightingArg) -> Self {
        match w {
            WeightingArg::Bag => Weighting::Bag,
            WeightingArg::Tfidf => Weighting::TfIdf { total: 100 },
        }
    }
}

impl Default for SchemeArgs {
    fn default() -> Self {
        let d = PipelineOptions::default();
        SchemeArgs {
            scheme: d.scheme,
            size: d.size,
            modulus: d.modulus,
            seed: d.seed,
            weighting: None,
            b_bit: d.b_bit,
        }
    }
}

impl Default for TextArgs {
    fn default() -> Self {
        let d = PipelineOptions::default();
        TextArgs {
            unit: d.unit,
            shingle_len: d.shingle_len.map(|w| ShingleLens(vec![w])),
            offset: d.offset,
            html: d.html,
            keep_case: d.keep_case,
            tokenizer: d.tokenizer,
            normalize: d.normalize,
            lang: d.lang,
            stopwords: d.stopwords,
            stem: d.stem,
        }
    }
}

impl SchemeArgs {
    pub fn sketch_config(&self) -> anyhow::Result<SketchConfig> {
        Ok(pipeline_options(&TextArgs::default(), self).sketch(Scheme::BottomK)?)
    }
}

/// Every option from a corpus to images.
#[derive(clap::Args, Debug, Clone)]
pub struct PipelineArgs {
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub text: TextArgs,
    #[command(flatten)]
    pub scheme: SchemeArgs,
}

impl PipelineArgs {
    pub fn config(&self) -> anyhow::Result<PipelineConfig> {
        self.config_or(Scheme::BottomK)
    }

    /// The library's named options for these flags.
    pub fn options(&self) -> PipelineOptions {
        pipeline_options(&self.text, &self.scheme)
    }

    /// The pipeline configuration, with `default` as the scheme when none was given.
    pub fn config_or(&self, default: Scheme) -> anyhow::Result<PipelineConfig> {
        self.text.one_length()?;
        Ok(self.options().config(self.corpus.config(), default)?)
    }

    /// A sweep's pipeline (at the first shingle length given) and its grid of lengths
    /// (empty unless two or more are given).
    pub fn sweep_config(&self) -> anyhow::Result<(PipelineConfig, Vec<usize>)> {
        let cfg = self
            .options()
            .config(self.corpus.config(), Scheme::BottomK)?;
        let lens = match &self.text.shingle_len {
            Some(l) if l.0.len() > 1 => l.0.clone(),
            _ => Vec::new(),
        };
        Ok((cfg, lens))
    }
}

/// Prints a JSON value on stdout.
pub fn print_json(v: &serde_json::Value) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

/// Prints a job's memory plan (`memory_plan` of its summary) on stderr: the budget, each
/// planned stage's share beside what it was handed and its measured peak.
pub fn print_plan(p: &serde_json::Value) {
    let mib = |v: &serde_json::Value| {
        v.as_u64()
            .map_or("-".to_string(), |b| format!("{:.0}", b as f64 / 1048576.0))
    };
    eprintln!(
        "memory plan: budget {} MiB, {} workers, {} processes",
        mib(&p["budget_bytes"]),
        p["workers"],
        p["processes"]
    );
    eprintln!(
        "  {:<14} {:>12} {:>12}  how",
        "stage", "carried MiB", "given MiB"
    );
    for s in p["stages"].as_array().into_iter().flatten() {
        eprintln!(
            "  {:<14} {:>12} {:>12}  {}",
            s["stage"].as_str().unwrap_or("?"),
            mib(&s["carried_bytes"]),
            mib(&s["given_bytes"]),
            s["how"].as_str().unwrap_or("")
        );
    }
    if let Some(r) = p["stages"]["refused"].as_str() {
        eprintln!(
            "  refused at {r}: needs {} MiB",
            mib(&p["stages"]["need_bytes"])
        );
    }
    eprintln!("  {:<14} {:>12} {:>6}", "handed to", "largest MiB", "times");
    for s in p["handed_out"].as_array().into_iter().flatten() {
        eprintln!(
            "  {:<14} {:>12} {:>6}",
            s["stage"].as_str().unwrap_or("?"),
            mib(&s["largest_bytes"]),
            s["times"]
        );
    }
    eprintln!("  {:<14} {:>12}", "phase", "peak MiB");
    for s in p["measured"].as_array().into_iter().flatten() {
        eprintln!(
            "  {:<14} {:>12}",
            s["stage"].as_str().unwrap_or("?"),
            mib(&s["peak_rss_bytes"])
        );
    }
}

/// The `(doc_id, external_id)` table path written beside an output.
pub fn id_table_for(output: &std::path::Path) -> PathBuf {
    fimdup::corpus::id_table_path(output)
}

/// Memory budget and temporary directory for the stages that can spill to disk.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SpillArgs {
    /// Bound on the run's memory, e.g. 4GiB, 512MiB: what does not fit (images, context rows,
    /// pair counts, sets to verify) goes to sorted runs and files in --tmp-dir; peak RSS stays
    /// within the budget plus about 64 MiB, and a budget below what the run needs is refused
    /// before it starts (exit 2) [default: no limit, except that concept and union-find on a
    /// corpus hold at most 512 MiB of images (about 450k documents) and write the keys of the
    /// rest to --tmp-dir, and exact verification reads its sets in batches]. The output is
    /// the same either way.
    #[arg(long, value_name = "SIZE")]
    pub memory_budget: Option<fimdup::spill::MemoryBudget>,
    /// Directory for the spilled runs (removed on success, on error and on Ctrl-C)
    /// [default: the system temporary directory].
    #[arg(long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,
}

impl SpillArgs {
    /// The validated spill configuration, to pass to the library.
    pub fn config(&self) -> anyhow::Result<fimdup::spill::SpillConfig> {
        Ok(fimdup::spill::SpillConfig::new(
            self.memory_budget,
            self.tmp_dir.clone(),
        )?)
    }
}

/// Set by the interrupt handler before it removes anything: an error that the main thread
/// meets afterwards (a spill file vanishing under it) is the interrupt's, not the input's.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether SIGINT / SIGTERM has arrived. The caller that sees an error while this holds
/// leaves the exit to the handler (which exits 130 once the cleanup is done).
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// On SIGINT / SIGTERM: removes the spill directories and the temporary files of outputs
/// being written, then exits with code 130.
pub fn install_interrupt_handler() {
    // A second installation (never done) or an unsupported platform only loses the cleanup.
    let _ = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        // Closes the gate for new temporary files first, so nothing appears after this.
        fimdup::cleanup::shut_down_and_clean();
        eprintln!("fimdup: interrupted; temporary files removed");
        std::process::exit(130);
    });
}

/// Many processes on timely dataflow (timely's `-n`, `-p`, `-h`, `-w`).
#[cfg(feature = "distributed")]
#[derive(clap::Args, Debug, Clone, Default)]
#[command(next_help_heading = "Many processes")]
pub struct DistArgs {
    /// Run on N processes (each started with the same command line but its own
    /// --process). A divided run: each process writes its parts of the outputs into
    /// --out (clusters.part-00000.jsonl, ...: in process order, concatenated, the
    /// one-process files), process 0 summary.json; a gathered run: process 0 writes the
    /// output, the others nothing.
    #[arg(long, value_name = "N")]
    pub processes: Option<usize>,
    /// This process, 0..N.
    #[arg(long, value_name = "P", requires = "processes")]
    pub process: Option<usize>,
    /// One host:port per line, process 0 first (needed with more than one process).
    #[arg(long, value_name = "FILE", requires = "processes")]
    pub hosts: Option<PathBuf>,
    /// Worker threads per process, each reading and sketching its share.
    #[arg(long, value_name = "W")]
    pub workers: Option<usize>,
    /// Seconds to wait for the other processes to connect.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = fimdup::dataflow::DEFAULT_CONNECT_TIMEOUT.as_secs(),
        requires = "processes"
    )]
    pub connect_timeout: u64,
    /// Seconds a connected process may send no heartbeat before the others stop the run
    /// with exit 2 naming it (a process stopped, frozen or cut off).
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = fimdup::dataflow::DEFAULT_PEER_TIMEOUT.as_secs_f64(),
        requires = "processes"
    )]
    pub peer_timeout: f64,
    /// A divided run keeps what identifies it and each worker's checkpoint after the
    /// pairs stage in DIR/process-00000/, ... (a fresh run empties its process's
    /// directory first).
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,
    /// Restart the failed run recorded in --run-dir after the last stage every worker
    /// completed (the same outputs); refused when the input, options, processes or
    /// workers differ from the record.
    #[arg(long)]
    pub resume: bool,
    /// What a divided run sends to find the pairs of concept, union-find and exact: rows
    /// (every element of the representatives, to count document frequencies and apply
    /// --max-df) or prefix (only each document's prefix in element order, then the
    /// candidates' lists; smaller, takes no --max-df, and summary.json's context_rows,
    /// dropped_rare and dropped_common are null). The other methods exchange their keys'
    /// rows either way. The output is the same.
    #[arg(
        long,
        value_name = "rows|prefix",
        default_value_t = fimdup::dataflow::Exchange::default()
    )]
    pub exchange: fimdup::dataflow::Exchange,
    /// Who mines a giant group of a divided concept run (one of at least half a worker's
    /// share of the documents, and 1,024): its owner, or every worker a part of its search
    /// (the owner sends the group's large components to every worker: worth it when the
    /// processes have cores of their own and the mining outweighs the sending). The
    /// output is the same.
    #[arg(
        long,
        value_name = "owner|divided",
        default_value_t = fimdup::dataflow::GiantGroups::default()
    )]
    pub giant_groups: fimdup::dataflow::GiantGroups,
}

/// The flags of many processes in a build without the `distributed` feature: accepted
/// (hidden from the help) so that giving one is refused with a message saying how to build
/// with it, not an unknown-argument error.
#[cfg(not(feature = "distributed"))]
#[derive(clap::Args, Debug, Clone, Default)]
pub struct DistArgs {
    #[arg(long, value_name = "N", hide = true)]
    processes: Option<usize>,
    #[arg(long, value_name = "P", hide = true)]
    process: Option<usize>,
    #[arg(long, value_name = "FILE", hide = true)]
    hosts: Option<PathBuf>,
    #[arg(long, value_name = "W", hide = true)]
    workers: Option<usize>,
    #[arg(long, value_name = "SECS", hide = true)]
    connect_timeout: Option<u64>,
    #[arg(long, value_name = "SECS", hide = true)]
    peer_timeout: Option<f64>,
    #[arg(long, value_name = "DIR", hide = true)]
    run_dir: Option<PathBuf>,
    #[arg(long, hide = true)]
    resume: bool,
    #[arg(long, value_name = "rows|prefix", hide = true)]
    exchange: Option<String>,
    #[arg(long, value_name = "owner|divided", hide = true)]
    giant_groups: Option<String>,
}

#[cfg(not(feature = "distributed"))]
impl DistArgs {
    /// An error when any flag of many processes was given.
    pub fn refuse(&self) -> anyhow::Result<()> {
        let given = [
            ("--processes", self.processes.is_some()),
            ("--process", self.process.is_some()),
            ("--hosts", self.hosts.is_some()),
            ("--workers", self.workers.is_some()),
            ("--connect-timeout", self.connect_timeout.is_some()),
            ("--peer-timeout", self.peer_timeout.is_some()),
            ("--run-dir", self.run_dir.is_some()),
            ("--resume", self.resume),
            ("--exchange", self.exchange.is_some()),
            ("--giant-groups", self.giant_groups.is_some()),
        ];
        match given.iter().find(|(_, g)| *g) {
            Some((flag, _)) => anyhow::bail!(
                "{flag}: this build of fimdup runs on one process only; build it with the `distributed` \
                 feature (`cargo build --release --features distributed`, or `--features full`)"
            ),
            None => Ok(()),
        }
    }
}

/// What a process other than 0 says when its part is done.
#[cfg(feature = "distributed")]
pub fn share_done(topo: &fimdup::dataflow::Topology, out: &std::path::Path) {
    eprintln!(
        "{}: share done; process 0 writes {} (a divided run: each process its parts there)",
        topo.name_of(topo.process()),
        out.display()
    );
}

#[cfg(feature = "distributed")]
impl DistArgs {
    /// The topology, when the run is distributed (--processes or --workers given).
    pub fn topology(&self) -> anyhow::Result<Option<fimdup::dataflow::Topology>> {
        if self.processes.is_none() && self.workers.is_none() {
            if self.run_dir.is_some() || self.resume {
                anyhow::bail!(
                    "--run-dir and --resume are for a run on many processes or workers: \
                     give --processes N or --workers W"
                );
            }
            return Ok(None);
        }
        let n = self.processes.unwrap_or(1);
        let hosts = match &self.hosts {
            Some(f) => fimdup::dataflow::read_hosts_for(f, n)?,
            None if n > 1 => {
                anyhow::bail!("--processes {n} needs --hosts FILE (one host:port per process)")
            }
            None => Vec::new(),
        };
        let t = fimdup::dataflow::Topology::new(
            n,
            self.process.unwrap_or(0),
            self.workers.unwrap_or(1),
            hosts,
        )?
        .with_connect_timeout(std::time::Duration::from_secs(self.connect_timeout));
        if !(self.peer_timeout.is_finite() && self.peer_timeout > 0.0) {
            anyhow::bail!(
                "--peer-timeout takes a positive number of seconds, not {}",
                self.peer_timeout
            );
        }
        let t = t
            .with_peer_timeout(std::time::Duration::from_secs_f64(self.peer_timeout))
            .with_exchange(self.exchange)
            .with_giant_groups(self.giant_groups)
            .with_run_dir(self.run_dir.clone(), self.resume)?;
        Ok(Some(t))
    }
}
