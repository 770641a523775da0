//! The connections between processes, and timely's communication on top of them.
//!
//! The sockets are made here rather than by timely's own `Config::Cluster`, which waits
//! forever for a process that never comes and reports to standard output: here every
//! process binds its own address, connects to the processes before it and accepts those
//! after it (timely's layout), within a timeout, quietly. Each connection starts with a
//! handshake: a magic string, the process index and a digest of the job, so that a process
//! running another job (or another program) on the port is refused. The connected sockets
//! are then handed to timely's communication layer
//! ([`initialize_networking_from_sockets`]), which runs its own send and receive threads.
//!
//! Each process also sends and watches heartbeats ([`Heartbeat`]): a peer that stops sending
//! them is recorded as lost as well, and its connection shut down.
//!
//! Each socket is [`Watched`]: when a read or write of a connection fails or finds it
//! closed, the peer and the cause are recorded in a [`Losses`] list, which the run checks
//! to fail stop with an error naming the lost process (timely's threads panic on a lost
//! connection, and the worker threads then stop; nothing would report it otherwise).
//!
//! Invariants: a process either has a connection to every other process or returns an
//! error naming the ones it could not reach; no byte of the job's data goes over a
//! connection whose handshake did not match.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::zero_copy::stream::Stream;
use timely::communication::allocator::ProcessBuilder;
use timely::communication::{AllocatorBuilder, Hooks};

use super::heartbeat::Heartbeat;
use super::Topology;
use crate::{Error, Result};

/// The first bytes of every connection.
const MAGIC: &[u8; 8] = b"fimdup\x01\x00";

/// Connections found failed or closed: (peer process, what happened, when).
#[derive(Clone, Default, Debug)]
pub struct Losses(Arc<Mutex<Vec<(usize, String, Instant)>>>);

impl Losses {
    pub(super) fn record(&self, peer: usize, what: String) {
        if let Ok(mut v) = self.0.lock() {
            if !v.iter().any(|(p, _, _)| *p == peer) {
                v.push((peer, what, Instant::now()));
            }
        }
    }

    /// The first peer lost at least `grace` ago, with what happened.
    pub fn lost_for(&self, grace: Duration) -> Option<(usize, String)> {
        let v = self.0.lock().ok()?;
        v.iter()
            .find(|(_, _, t)| t.elapsed() >= grace)
            .map(|(p, w, _)| (*p, w.clone()))
    }
}

/// A connection to one peer that records its failure in [`Losses`].
pub struct Watched {
    inner: TcpStream,
    peer: usize,
    losses: Losses,
}

impl Read for Watched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let r = self.inner.read(buf);
        match &r {
            Ok(0) if !buf.is_empty() => self.losses.record(self.peer, "connection closed".into()),
            Err(e) if e.kind() != io::ErrorKind::Interrupted => {
                self.losses.record(self.peer, e.to_string())
            }
            _ => {}
        }
        r
    }
}

impl Write for Watched {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.inner.write(buf);
        if let Err(e) = &r {
            if e.kind() != io::ErrorKind::Interrupted {
                self.losses.record(self.peer, e.to_string());
            }
        }
        r
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl Stream for Watched {
    fn try_clone(&self) -> io::Result<Self> {
        Ok(Watched {
            inner: self.inner.try_clone()?,
            peer: self.peer,
            losses: self.losses.clone(),
        })
    }

    fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        self.inner.set_nonblocking(nonblocking)
    }

    fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.inner.shutdown(how)
    }
}

/// Timely's allocators for this process's workers (connected to every other process), the
/// guard of its communication threads, and the list of lost connections.
pub struct Comms {
    /// One builder per local worker.
    pub builders: Vec<AllocatorBuilder>,
    /// Keeps the communication threads (joined when dropped).
    pub guard: Box<dyn std::any::Any + Send>,
    /// Failed or closed connections, and peers silent past the peer timeout.
    pub losses: Losses,
    /// The heartbeats (none for one process); keep it until the run is over.
    pub heartbeat: Option<Heartbeat>,
}

/// Connects this process to the others of `topo` (none for one process) and builds
/// timely's allocators; `digest` identifies the job (every process must run the same).
pub fn connect(topo: &Topology, digest: u64) -> Result<Comms> {
    let losses = Losses::default();
    let w = topo.workers();
    if topo.processes() == 1 {
        let builders = ProcessBuilder::new_typed_vector(w, Hooks::default().refill, None)
            .into_iter()
            .map(AllocatorBuilder::Process)
            .collect();
        return Ok(Comms {
            builders,
            guard: Box::new(()),
            losses,
            heartbeat: None,
        });
    }
    let sockets = sockets(topo, digest)?;
    let clones = sockets
        .iter()
        .map(|s| s.as_ref().map(TcpStream::try_clone).transpose())
        .collect::<io::Result<Vec<_>>>()
        .map_err(|e| Error::Distributed(format!("a connection: {e}")))?;
    let heartbeat = Heartbeat::start(topo, digest, losses.clone(), clones)?;
    let sockets: Vec<Option<Watched>> = sockets
        .into_iter()
        .enumerate()
        .map(|(peer, s)| {
            s.map(|inner| Watched {
                inner,
                peer,
                losses: losses.clone(),
            })
        })
        .collect();
    let hooks = Hooks::default();
    let local = ProcessBuilder::new_typed_vector(w, hooks.refill.clone(), None);
    let (builders, guard) =
        initialize_networking_from_sockets(local, sockets, topo.process(), w, hooks)
            .map_err(|e| Error::Distributed(format!("starting the connections: {e}")))?;
    Ok(Comms {
        builders: builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
        guard: Box::new(guard),
        losses,
        heartbeat: Some(heartbeat),
    })
}

/// One connected socket per other process (`None` at this process's own index).
fn sockets(topo: &Topology, digest: u64) -> Result<Vec<Option<TcpStream>>> {
    let me = topo.process();
    let n = topo.processes();
    let deadline = Instant::now() + topo.connect_timeout();
    let hosts = topo.hosts();
    let addrs = hosts[me]
        .to_socket_addrs()
        .map_err(|e| Error::Distributed(format!("{}: cannot resolve: {e}", hosts[me])))?
        .collect::<Vec<_>>();
    let listener = TcpListener::bind(&addrs[..]).map_err(|e| {
        Error::Distributed(format!(
            "{}: cannot listen on {}: {e}",
            topo.name_of(me),
            hosts[me]
        ))
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::Distributed(format!("{}: {e}", hosts[me])))?;
    let mut out: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    let (tx, rx) = std::sync::mpsc::channel();
    // Connect to the processes before this one, in a thread, while accepting the others.
    let earlier: Vec<(usize, String)> = hosts[..me].iter().cloned().enumerate().collect();
    let names: Vec<String> = (0..n).map(|p| topo.name_of(p)).collect();
    let connector = std::thread::spawn(move || {
        for (p, addr) in earlier {
            let r = connect_to(&addr, me, digest, deadline).map_err(|e| (p, e));
            let stop = r.is_err();
            if tx.send(r.map(|s| (p, s))).is_err() || stop {
                return;
            }
        }
    });
    let mut waiting: Vec<usize> = (me + 1..n).collect();
    let mut connected_earlier = 0;
    while !waiting.is_empty() || connected_earlier < me {
        while let Ok(r) = rx.try_recv() {
            match r {
                Ok((p, s)) => {
                    out[p] = Some(s);
                    connected_earlier += 1;
                }
                Err((p, e)) => {
                    return Err(Error::Distributed(format!(
                        "cannot connect to {}: {e}",
                        names[p]
                    )))
                }
            }
        }
        match listener.accept() {
            Ok((s, _)) => {
                if let Some(p) = accept_from(s, me, n, digest, deadline, &mut out)? {
                    waiting.retain(|&q| q != p);
                }
                continue;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => {
                return Err(Error::Distributed(format!(
                    "{}: accepting connections: {e}",
                    hosts[me]
                )))
            }
        }
        if Instant::now() >= deadline {
            let missing: Vec<String> = (0..n)
                .filter(|&p| p != me && out[p].is_none())
                .map(|p| names[p].clone())
                .collect();
            return Err(Error::Distributed(format!(
                "no connection with {} within {} s",
                missing.join(", "),
                topo.connect_timeout().as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = connector.join();
    Ok(out)
}

/// Connects to `addr` (retrying until `deadline`) and makes the handshake as process `me`.
fn connect_to(addr: &str, me: usize, digest: u64, deadline: Instant) -> io::Result<TcpStream> {
    loop {
        match TcpStream::connect(addr) {
            Ok(mut s) => {
                s.set_nodelay(true)?;
                let mut hello = Vec::with_capacity(24);
                hello.extend_from_slice(MAGIC);
                hello.extend_from_slice(&(me as u64).to_le_bytes());
                hello.extend_from_slice(&digest.to_le_bytes());
                s.write_all(&hello)?;
                // The answer: the same digest, or the connection is refused.
                s.set_read_timeout(Some(Duration::from_secs(10)))?;
                let mut answer = [0u8; 8];
                s.read_exact(&mut answer).map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        "the peer closed the connection at the handshake: it runs another job or another program",
                    )
                })?;
                if u64::from_le_bytes(answer) != digest {
                    return Err(io::Error::other(
                        "the peer runs another job (its command line differs)",
                    ));
                }
                s.set_read_timeout(None)?;
                return Ok(s);
            }
            Err(e) => {
                if Instant::now() >= deadline {
                    return Err(e);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// Reads the handshake of an accepted connection; `Some(peer)` when it is one of the
/// processes after `me` running the same job, `None` (connection dropped) for a stranger.
fn accept_from(
    mut s: TcpStream,
    me: usize,
    n: usize,
    digest: u64,
    deadline: Instant,
    out: &mut [Option<TcpStream>],
) -> Result<Option<usize>> {
    let fail = |e: io::Error| Error::Distributed(format!("accepting a connection: {e}"));
    s.set_nonblocking(false).map_err(fail)?;
    s.set_nodelay(true).map_err(fail)?;
    let wait = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(1));
    s.set_read_timeout(Some(wait.min(Duration::from_secs(10))))
        .map_err(fail)?;
    let mut hello = [0u8; 24];
    if s.read_exact(&mut hello).is_err() || &hello[..8] != MAGIC {
        return Ok(None);
    }
    let peer = u64::from_le_bytes(hello[8..16].try_into().expect("8 bytes")) as usize;
    let theirs = u64::from_le_bytes(hello[16..24].try_into().expect("8 bytes"));
    if peer <= me || peer >= n || out[peer].is_some() {
        return Ok(None);
    }
    if theirs != digest {
        let _ = s.write_all(&digest.to_le_bytes());
        return Err(Error::Distributed(format!(
            "process {peer} runs another job (its command line differs from this one's)"
        )));
    }
    s.write_all(&digest.to_le_bytes()).map_err(fail)?;
    s.set_read_timeout(None).map_err(fail)?;
    out[peer] = Some(s);
    Ok(Some(peer))
}
