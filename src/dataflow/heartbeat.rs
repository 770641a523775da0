//! Heartbeats between the processes of a run, so that a frozen peer (stopped by `SIGSTOP`,
//! hung in the kernel, cut off by the network) is found: a connection to such a peer stays
//! open, and without them the others would wait for its data for ever.
//!
//! Each process binds a UDP socket on its own `host:port` (the port of its TCP listener;
//! UDP ports are a namespace of their own) and sends every peer a small datagram each
//! [`Heartbeat::interval`] (magic, kind, process index, the job's digest). A peer not heard
//! from for the peer timeout is recorded in [`Losses`] ("sent no heartbeat for N s") and its
//! TCP connection is shut down, which ends timely's threads waiting on it; the run then
//! fails stop as for a lost connection, naming the peer. A process that leaves the run
//! normally says so ("bye", sent a few times), and is not waited for after that.
//!
//! Invariants: datagrams of another job (digest) or another program (magic) are ignored; a
//! peer is reported at most once; the threads end when the [`Heartbeat`] is dropped, at
//! once (not after an interval's wait).

use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::net::Losses;
use super::Topology;
use crate::{Error, Result};

/// The first bytes of every heartbeat datagram.
const MAGIC: &[u8; 8] = b"fimdupHB";
/// Kind byte: alive.
const BEAT: u8 = 1;
/// Kind byte: leaving the run normally.
const BYE: u8 = 2;
/// Bytes of a datagram: magic, kind, process (u64), digest (u64).
const LEN: usize = 8 + 1 + 8 + 8;

/// The heartbeat threads of one process (stopped, after saying bye, when dropped).
pub struct Heartbeat {
    stop: Arc<AtomicBool>,
    socket: UdpSocket,
    peers: Vec<Option<SocketAddr>>,
    packet_bye: [u8; LEN],
    threads: Vec<JoinHandle<()>>,
}

impl Heartbeat {
    /// How often a process sends its heartbeat for a peer timeout of `timeout`: six times
    /// within it, at least every 5 s and at most every 50 ms.
    pub fn interval(timeout: Duration) -> Duration {
        (timeout / 6).clamp(Duration::from_millis(50), Duration::from_secs(5))
    }

    /// Starts the heartbeats of this process of `topo` (job `digest`): sending to every
    /// peer, and watching them; a peer silent for `topo.peer_timeout()` is recorded in
    /// `losses` and its connection in `tcp` (one per process, `None` at this one) shut down.
    pub fn start(
        topo: &Topology,
        digest: u64,
        losses: Losses,
        tcp: Vec<Option<TcpStream>>,
    ) -> Result<Heartbeat> {
        let me = topo.process();
        let hosts = topo.hosts();
        let resolve = |p: usize| -> Result<SocketAddr> {
            hosts[p]
                .to_socket_addrs()
                .ok()
                .and_then(|mut a| a.next())
                .ok_or_else(|| {
                    Error::Distributed(format!("{}: cannot resolve the address", topo.name_of(p)))
                })
        };
        let socket = UdpSocket::bind(resolve(me)?).map_err(|e| {
            Error::Distributed(format!(
                "{}: cannot bind the heartbeat socket (UDP) on {}: {e}",
                topo.name_of(me),
                hosts[me]
            ))
        })?;
        let peers: Vec<Option<SocketAddr>> = (0..topo.processes())
            .map(|p| {
                if p == me {
                    Ok(None)
                } else {
                    resolve(p).map(Some)
                }
            })
            .collect::<Result<_>>()?;
        let timeout = topo.peer_timeout();
        let interval = Self::interval(timeout);
        let packet = |kind: u8| {
            let mut b = [0u8; LEN];
            b[..8].copy_from_slice(MAGIC);
            b[8] = kind;
            b[9..17].copy_from_slice(&(me as u64).to_le_bytes());
            b[17..25].copy_from_slice(&digest.to_le_bytes());
            b
        };
        let stop = Arc::new(AtomicBool::new(false));
        let fail = |e: std::io::Error| Error::Distributed(format!("heartbeat socket: {e}"));
        let sender = {
            let (socket, peers, stop, beat) = (
                socket.try_clone().map_err(fail)?,
                peers.clone(),
                stop.clone(),
                packet(BEAT),
            );
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    for a in peers.iter().flatten() {
                        // A datagram that cannot be sent now is sent again next time.
                        let _ = socket.send_to(&beat, a);
                    }
                    // Woken early by the drop, which unparks this thread.
                    std::thread::park_timeout(interval);
                }
            })
        };
        let watcher = {
            let socket = socket.try_clone().map_err(fail)?;
            socket.set_read_timeout(Some(interval)).map_err(fail)?;
            let stop = stop.clone();
            let n = topo.processes();
            std::thread::spawn(move || {
                let start = Instant::now();
                let mut seen = vec![start; n];
                // Peers that said bye or were reported: not watched any more.
                let mut done: Vec<bool> = (0..n).map(|p| p == me).collect();
                let mut buf = [0u8; 64];
                while !stop.load(Ordering::Relaxed) {
                    if let Ok((len, _)) = socket.recv_from(&mut buf) {
                        if let Some((kind, p)) = parse(&buf[..len], digest, n) {
                            seen[p] = Instant::now();
                            if kind == BYE {
                                done[p] = true;
                            }
                        }
                    }
                    for p in 0..n {
                        if !done[p] && seen[p].elapsed() > timeout {
                            done[p] = true;
                            losses.record(
                                p,
                                format!(
                                    "sent no heartbeat for {} s (stopped, frozen or cut off; \
                                     --peer-timeout sets the wait)",
                                    timeout.as_secs_f64()
                                ),
                            );
                            if let Some(s) = &tcp[p] {
                                // Ends timely's threads that wait on this connection.
                                let _ = s.shutdown(Shutdown::Both);
                            }
                        }
                    }
                }
            })
        };
        Ok(Heartbeat {
            stop,
            socket,
            peers,
            packet_bye: packet(BYE),
            threads: vec![sender, watcher],
        })
    }
}

/// The kind and process of a datagram of this job among `n` processes.
fn parse(b: &[u8], digest: u64, n: usize) -> Option<(u8, usize)> {
    if b.len() != LEN || &b[..8] != MAGIC || !matches!(b[8], BEAT | BYE) {
        return None;
    }
    let p = u64::from_le_bytes(b[9..17].try_into().ok()?) as usize;
    let d = u64::from_le_bytes(b[17..25].try_into().ok()?);
    (d == digest && p < n).then_some((b[8], p))
}

impl Drop for Heartbeat {
    /// Says bye to every peer (three times: datagrams may be lost) and stops the threads.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for _ in 0..3 {
            for a in self.peers.iter().flatten() {
                let _ = self.socket.send_to(&self.packet_bye, a);
            }
        }
        // Neither thread waits out its interval: the sender is unparked, and the watcher's
        // read is ended by a datagram to its own socket.
        if let Ok(me) = self.socket.local_addr() {
            let _ = self.socket.send_to(&self.packet_bye, me);
        }
        for t in self.threads.drain(..) {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datagrams_of_other_jobs_and_programs_are_ignored() {
        let mut b = [0u8; LEN];
        b[..8].copy_from_slice(MAGIC);
        b[8] = BEAT;
        b[9..17].copy_from_slice(&1u64.to_le_bytes());
        b[17..25].copy_from_slice(&7u64.to_le_bytes());
        assert_eq!(parse(&b, 7, 3), Some((BEAT, 1)));
        assert_eq!(parse(&b, 8, 3), None, "another job");
        assert_eq!(parse(&b, 7, 1), None, "a process outside the run");
        assert_eq!(parse(&b[..LEN - 1], 7, 3), None, "cut short");
        b[0] = b'x';
        assert_eq!(parse(&b, 7, 3), None, "another program");
    }

    #[test]
    fn the_interval_is_a_sixth_of_the_timeout_within_bounds() {
        assert_eq!(
            Heartbeat::interval(Duration::from_secs(30)),
            Duration::from_secs(5)
        );
        assert_eq!(
            Heartbeat::interval(Duration::from_secs(3)),
            Duration::from_millis(500)
        );
        assert_eq!(
            Heartbeat::interval(Duration::from_millis(60)),
            Duration::from_millis(50)
        );
    }
}
