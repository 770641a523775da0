//! Which processes take part in a distributed run, which one this is, and how a divided
//! run exchanges its candidate keys ([`Exchange`]); who mines its giant groups
//! ([`GiantGroups`]).
//!
//! Invariants: a [`Topology`] is valid once built ([`Topology::new`] checks it): at least
//! one process and one worker per process, this process among them, and, with more than
//! one process, exactly one `host:port` address per process, process 0 first; a run that
//! resumes has a run directory ([`Topology::with_run_dir`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::{Error, Result};

/// How long processes wait for each other to connect, by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a connected process may send no heartbeat before the others stop the run, by
/// default (a frozen peer is then found within about 24 s: this and one heartbeat
/// interval, [`super::heartbeat::Heartbeat::interval`]).
pub const DEFAULT_PEER_TIMEOUT: Duration = Duration::from_secs(20);

/// What a divided run sends to find the pairs of the prefix-filtered rules (concept and
/// union-find by image elements, exact by full sets; the other rules exchange their keys'
/// rows either way): the output is the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Exchange {
    /// Every `(element, document)` incidence of the representatives goes to the element's
    /// owner, which counts its document frequency and applies `min-df` / `max-df`; each
    /// document's prefix is then taken in the order (document frequency, element).
    #[default]
    Rows,
    /// Only each representative's prefix in element order, the elements frequent on some
    /// worker last (a global order that needs no exchange of rows,
    /// [`crate::context::PrefixFilter::element_prefix`]) goes
    /// to the elements' owners, and the full lists of the candidates only to their pair
    /// owners. Needs a context without document-frequency bounds (`min-df` at most 2, no
    /// `max-df`), and does not count the context's rows.
    Prefix,
}

impl std::fmt::Display for Exchange {
    /// The name [`std::str::FromStr`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Exchange::Rows => "rows",
            Exchange::Prefix => "prefix",
        })
    }
}

impl std::str::FromStr for Exchange {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "rows" => Ok(Exchange::Rows),
            "prefix" => Ok(Exchange::Prefix),
            _ => Err(Error::config(format!(
                "the exchange must be rows or prefix, not {s:?}"
            ))),
        }
    }
}

/// Who mines a giant group of a divided concept run (a group of at least half a worker's
/// share of the documents, and of [`crate::cluster::stages::DIVIDED_MINING_MIN_DOCS`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GiantGroups {
    /// The group's owner alone, on its process's threads.
    #[default]
    Owner,
    /// Every worker mines a part of the search of each of the group's large components
    /// ([`crate::mine::mine_part`]), which the owner sends to every worker: worth it when
    /// the processes have cores of their own and the mining outweighs the sending.
    Divided,
}

impl std::fmt::Display for GiantGroups {
    /// The name [`std::str::FromStr`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GiantGroups::Owner => "owner",
            GiantGroups::Divided => "divided",
        })
    }
}

impl std::str::FromStr for GiantGroups {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "owner" => Ok(GiantGroups::Owner),
            "divided" => Ok(GiantGroups::Divided),
            _ => Err(Error::config(format!(
                "giant groups are mined by their owner or divided, not {s:?}"
            ))),
        }
    }
}

/// The processes of a run, with timely's own meanings: `processes` (`-n`), this
/// `process` (`-p`), the `hosts` (`-h`, one `host:port` per process) and the `workers`
/// per process (`-w`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    processes: usize,
    process: usize,
    workers: usize,
    hosts: Vec<String>,
    connect_timeout: Duration,
    peer_timeout: Duration,
    run_dir: Option<PathBuf>,
    resume: bool,
    exchange: Exchange,
    giant_groups: GiantGroups,
}

impl Topology {
    /// `processes` processes of `workers` workers each, this one being `process`, at
    /// `hosts` (one address per process; may be empty for a single process).
    pub fn new(
        processes: usize,
        process: usize,
        workers: usize,
        hosts: Vec<String>,
    ) -> Result<Topology> {
        if processes == 0 {
            return Err(Error::config("--processes must be at least 1"));
        }
        if workers == 0 {
            return Err(Error::config("--workers must be at least 1"));
        }
        if process >= processes {
            return Err(Error::config(format!(
                "--process must be in 0..{processes} (the number of processes), not {process}"
            )));
        }
        if processes > 1 && hosts.len() != processes {
            return Err(Error::config(format!(
                "{processes} processes need {processes} host addresses, one per process, not {}",
                hosts.len()
            )));
        }
        Ok(Topology {
            processes,
            process,
            workers,
            hosts,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            peer_timeout: DEFAULT_PEER_TIMEOUT,
            run_dir: None,
            resume: false,
            exchange: Exchange::default(),
            giant_groups: GiantGroups::default(),
        })
    }

    /// Where each process of a divided run keeps what identifies the run and its workers'
    /// checkpoints (`DIR/process-00000/`, ..., see `dataflow/checkpoint.rs`); with `resume`, the
    /// run restarts after the last stage every worker completed there. `resume` without a
    /// directory is refused.
    pub fn with_run_dir(mut self, dir: Option<PathBuf>, resume: bool) -> Result<Self> {
        if resume && dir.is_none() {
            return Err(Error::config(
                "--resume restarts the run recorded in a run directory: give it with --run-dir DIR",
            ));
        }
        self.run_dir = dir;
        self.resume = resume;
        Ok(self)
    }

    /// The run directory, when the run keeps checkpoints.
    pub fn run_dir(&self) -> Option<&Path> {
        self.run_dir.as_deref()
    }

    /// Whether the run resumes the one recorded in its run directory.
    pub fn resumes(&self) -> bool {
        self.resume
    }

    /// How long to wait for the other processes to connect (default one minute).
    pub fn with_connect_timeout(mut self, t: Duration) -> Self {
        self.connect_timeout = t;
        self
    }

    /// How long a connected process may send no heartbeat before the others stop the run
    /// (default [`DEFAULT_PEER_TIMEOUT`]; at least 100 ms).
    pub fn with_peer_timeout(mut self, t: Duration) -> Self {
        self.peer_timeout = t.max(Duration::from_millis(100));
        self
    }

    /// How long a connected process may send no heartbeat.
    pub fn peer_timeout(&self) -> Duration {
        self.peer_timeout
    }

    /// How a divided run exchanges the keys of the prefix-filtered rules (default
    /// [`Exchange::Rows`]).
    pub fn with_exchange(mut self, e: Exchange) -> Self {
        self.exchange = e;
        self
    }

    /// How a divided run exchanges the keys of the prefix-filtered rules.
    pub fn exchange(&self) -> Exchange {
        self.exchange
    }

    /// Who mines the giant groups of a divided concept run (by default, their owner).
    pub fn with_giant_groups(mut self, g: GiantGroups) -> Self {
        self.giant_groups = g;
        self
    }

    /// Who mines the giant groups of a divided concept run.
    pub fn giant_groups(&self) -> GiantGroups {
        self.giant_groups
    }

    /// Number of processes.
    pub fn processes(&self) -> usize {
        self.processes
    }

    /// This process.
    pub fn process(&self) -> usize {
        self.process
    }

    /// Workers per process.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Workers in all.
    pub fn peers(&self) -> usize {
        self.processes * self.workers
    }

    /// The address of every process (empty for one process).
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// How a process is named in messages: its index and, when known, its address.
    pub fn name_of(&self, p: usize) -> String {
        match self.hosts.get(p) {
            Some(h) => format!("process {p} ({h})"),
            None => format!("process {p}"),
        }
    }

    /// How long to wait for the other processes to connect.
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// True for process 0: it gathers the counts and writes the summary (a gathered run: every output).
    pub fn is_leader(&self) -> bool {
        self.process == 0
    }
}

/// Reads a hosts file for `processes` processes: exactly that many `host:port` lines.
pub fn read_hosts_for(path: &Path, processes: usize) -> Result<Vec<String>> {
    let hosts = read_hosts(path)?;
    if hosts.len() != processes {
        return Err(Error::Format {
            path: path.to_path_buf(),
            msg: format!(
                "{} host:port lines for {processes} processes; expected one line per process, process 0 first",
                hosts.len()
            ),
        });
    }
    Ok(hosts)
}

/// Reads a hosts file: one `host:port` per line, process 0 first; blank lines and lines
/// starting with `#` are skipped. Errors name the file and line (a malformed line, or an
/// address given twice).
pub fn read_hosts(path: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut hosts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let bad = |what: &str| Error::parse(path, i as u64 + 1, format!("{what}, not {l:?}"));
        let (host, port) = l
            .rsplit_once(':')
            .ok_or_else(|| bad("expected host:port"))?;
        if host.is_empty() || host.contains(char::is_whitespace) {
            return Err(bad("expected a host name or address before ':'"));
        }
        port.parse::<u16>()
            .map_err(|_| bad("expected a port number (0-65535) after ':'"))?;
        if let Some(first) = hosts.iter().position(|h: &String| h == l) {
            return Err(bad(&format!(
                "expected one address per process; process {first} has this one already"
            )));
        }
        hosts.push(l.to_string());
    }
    if hosts.is_empty() {
        return Err(Error::Format {
            path: path.to_path_buf(),
            msg: "no host:port line".into(),
        });
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topology_is_checked() {
        assert!(Topology::new(0, 0, 1, vec![]).is_err());
        assert!(Topology::new(2, 2, 1, vec!["a:1".into(), "b:2".into()]).is_err());
        assert!(Topology::new(2, 1, 0, vec!["a:1".into(), "b:2".into()]).is_err());
        assert!(Topology::new(2, 1, 1, vec!["a:1".into()]).is_err());
        let t = Topology::new(2, 1, 3, vec!["a:1".into(), "b:2".into()]).unwrap();
        assert_eq!(t.peers(), 6);
        assert_eq!(t.name_of(1), "process 1 (b:2)");
        assert!(Topology::new(1, 0, 2, vec![]).unwrap().is_leader());
        let one = Topology::new(1, 0, 1, vec![]).unwrap();
        let e = one
            .clone()
            .with_run_dir(None, true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--run-dir"), "{e}");
        let r = one.with_run_dir(Some("r".into()), true).unwrap();
        assert!(r.resumes() && r.run_dir() == Some(Path::new("r")));
        assert_eq!(t.exchange(), Exchange::Rows);
        for e in [Exchange::Rows, Exchange::Prefix] {
            assert_eq!(e.to_string().parse::<Exchange>().unwrap(), e);
        }
        assert!("df".parse::<Exchange>().is_err());
        assert_eq!(t.giant_groups(), GiantGroups::Owner);
        for g in [GiantGroups::Owner, GiantGroups::Divided] {
            assert_eq!(g.to_string().parse::<GiantGroups>().unwrap(), g);
        }
        assert!("all".parse::<GiantGroups>().is_err());
    }

    #[test]
    fn hosts_files_name_the_bad_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("hosts");
        std::fs::write(&p, "# cluster\n127.0.0.1:4000\n\nnode2:4001\n").unwrap();
        assert_eq!(read_hosts(&p).unwrap(), ["127.0.0.1:4000", "node2:4001"]);
        std::fs::write(&p, "127.0.0.1:4000\nnode2\n").unwrap();
        let e = read_hosts(&p).unwrap_err().to_string();
        assert!(e.contains(":2:") && e.contains("host:port"), "{e}");
        std::fs::write(&p, "127.0.0.1:4000\n127.0.0.1:4000\n").unwrap();
        let e = read_hosts(&p).unwrap_err().to_string();
        assert!(e.contains(":2:") && e.contains("process 0"), "{e}");
        std::fs::write(&p, "a:1\nb:2\n").unwrap();
        let e = read_hosts_for(&p, 3).unwrap_err().to_string();
        assert!(
            e.contains("hosts") && e.contains("2 host:port lines for 3"),
            "{e}"
        );
        std::fs::write(&p, "127.0.0.1:4000\nnode2:99999\n").unwrap();
        let e = read_hosts(&p).unwrap_err().to_string();
        assert!(e.contains(":2:") && e.contains("port"), "{e}");
    }
}
