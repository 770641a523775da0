//! Rounds of exchange between the workers of a run: each round is one small timely
//! dataflow (an input, an exchange by a routing function, an operator that collects what
//! arrives), run to completion before the next. A stage of the divided cluster run is
//! ordinary library code between two rounds: it hands out what it made, routed by key,
//! and gets back what the other workers routed to it.
//!
//! Invariants: every worker of the run calls the same rounds in the same order (timely
//! matches dataflows by the order they are made); a round returns only when every
//! worker's input of that round has arrived; what a worker receives is in no particular
//! order (callers sort it); the bytes counted are those of the items sent to workers of
//! other processes, as [`Wire`] sizes them (their encoded payload, not framing).

use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::rc::Rc;
use std::time::Duration;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::{Exchange, Input, Operator, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};

use super::workers::FirstError;

/// The bytes an item takes on the wire (the payload timely's encoding writes).
pub trait Wire {
    fn wire_bytes(&self) -> u64;
}

impl Wire for u64 {
    fn wire_bytes(&self) -> u64 {
        8
    }
}

impl<A: Wire, B: Wire> Wire for (A, B) {
    fn wire_bytes(&self) -> u64 {
        self.0.wire_bytes() + self.1.wire_bytes()
    }
}

impl Wire for usize {
    fn wire_bytes(&self) -> u64 {
        8
    }
}

impl Wire for u32 {
    fn wire_bytes(&self) -> u64 {
        4
    }
}

impl Wire for String {
    fn wire_bytes(&self) -> u64 {
        8 + self.len() as u64
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn wire_bytes(&self) -> u64 {
        8 + self.iter().map(Wire::wire_bytes).sum::<u64>()
    }
}

impl<T: Wire> Wire for Option<T> {
    fn wire_bytes(&self) -> u64 {
        1 + self.as_ref().map_or(0, Wire::wire_bytes)
    }
}

/// Bytes a worker's rounds sent to the workers of each other process (index: process).
#[derive(Clone, Debug, Default)]
pub struct Traffic {
    pub bytes_to: Vec<u64>,
}

impl Traffic {
    /// Bytes sent to other processes.
    pub fn sent(&self) -> u64 {
        self.bytes_to.iter().sum()
    }
}

/// A worker's side of the rounds.
pub struct Rounds<'w> {
    worker: &'w mut timely::worker::Worker,
    /// Workers per process (the process of worker `i` is `i / per_process`).
    per_process: usize,
    /// What the rounds moved since the last [`Rounds::take_traffic`].
    traffic: Traffic,
    /// Where this worker notes its own failure before the round that tells the others.
    first_error: FirstError,
}

/// The target of an item: the index of a worker, `0..peers`.
pub type Target = usize;

impl<'w> Rounds<'w> {
    /// The rounds of `worker`, noting its own failures in `first_error` (shared with the
    /// process's calling thread).
    pub(crate) fn new(
        worker: &'w mut timely::worker::Worker,
        per_process: usize,
        first_error: FirstError,
    ) -> Self {
        Rounds {
            worker,
            per_process: per_process.max(1),
            traffic: Traffic::default(),
            first_error,
        }
    }

    /// Notes this worker's failure, told to the others in the round that follows: if a
    /// peer that learns of it ends before this worker's round is over, the loss of that
    /// peer is not what the process reports.
    pub fn note_failure(&self, message: &str) {
        self.first_error.note(message);
    }

    /// This worker's index among all.
    pub fn index(&self) -> usize {
        self.worker.index()
    }

    /// Number of workers in the run.
    pub fn peers(&self) -> usize {
        self.worker.peers()
    }

    /// What the rounds moved since the last call.
    pub fn take_traffic(&mut self) -> Traffic {
        std::mem::take(&mut self.traffic)
    }

    /// One round: every item goes to worker `route(item)`; returns what was routed here.
    pub fn exchange<T, R>(&mut self, items: Vec<T>, route: R) -> Vec<T>
    where
        T: timely::ExchangeData + Clone + Wire,
        R: Fn(&T) -> Target + Clone + 'static,
    {
        let peers = self.peers();
        let me = self.index();
        let process = me / self.per_process;
        // Left undropped when the round unwinds (a lost peer makes timely panic): closing
        // an input while unwinding would panic again.
        let mut input =
            ManuallyDrop::new(InputHandle::<u64, CapacityContainerBuilder<Vec<T>>>::new());
        let probe = ProbeHandle::new();
        let got: Rc<RefCell<Vec<T>>> = Rc::default();
        let sink = Rc::clone(&got);
        let per_process = self.per_process;
        let r = route.clone();
        self.worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut *input)
                .exchange(move |x: &T| (r(x) % peers) as u64)
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Pipeline,
                    "Collect",
                    |_cap, _info| {
                        move |input, _output| {
                            input.for_each(|_cap, data| {
                                sink.borrow_mut().append(data);
                            })
                        }
                    },
                )
                .probe_with(&probe);
        });
        let processes = peers.div_ceil(per_process);
        if self.traffic.bytes_to.len() < processes {
            self.traffic.bytes_to.resize(processes, 0);
        }
        for (i, x) in items.into_iter().enumerate() {
            let to = route(&x) % peers;
            if to / per_process != process {
                self.traffic.bytes_to[to / per_process] += x.wire_bytes();
            }
            input.send(x);
            if i % 4096 == 4095 {
                self.worker.step();
            }
        }
        drop(ManuallyDrop::into_inner(input));
        while !probe.done() {
            self.worker.step_or_park(Some(Duration::from_millis(20)));
        }
        let v = std::mem::take(&mut *got.borrow_mut());
        v
    }

    /// One round in which every worker's `item` reaches every worker: returns all of them
    /// as `(worker, item)`, sorted by worker.
    pub fn all_gather<T>(&mut self, item: T) -> Vec<(usize, T)>
    where
        T: timely::ExchangeData + Clone + Wire,
    {
        let me = self.index();
        let items: Vec<(usize, (usize, T))> = (0..self.peers())
            .map(|to| (to, (me, item.clone())))
            .collect();
        let mut got: Vec<(usize, T)> = self
            .exchange(items, |x: &(usize, (usize, T))| x.0)
            .into_iter()
            .map(|(_, x)| x)
            .collect();
        got.sort_by_key(|x| x.0);
        got
    }
}
