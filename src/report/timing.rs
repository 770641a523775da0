//! How a sweep measures what a run costs: each timed step (a scheme's sketch, the exact
//! method's shingle sets, a job at a threshold) is repeated ([`Repeat`]: until the
//! repetitions together took [`Repeat::seconds`], at most [`Repeat::max`] times) and kept as
//! the least and the most of its repetitions ([`Spread`]), with the peak resident memory of
//! each repetition.
//!
//! Peak memory is the process's resident high-water mark (`VmHWM` of `/proc/self/status`),
//! reset before each repetition (`/proc/self/clear_refs`) after the allocator's free memory
//! has been handed back ([`crate::spill::release_free_memory`]), so a repetition does not
//! inherit what an earlier one freed. It is the whole process's: what the caller holds
//! during the step counts too. The kernel counts it in kB from approximate per-CPU page
//! counters, so differences below a few hundred KiB are not measured; off Linux there is
//! none.
//!
//! Invariants: a step runs at least once and at most [`Repeat::max`] times, and no further
//! repetition starts once the ones before took [`Repeat::seconds`] together; the value a
//! step returns is its last repetition's, the earlier ones dropped before the next starts;
//! a [`Spread`]'s least is at most its most.

use std::time::Instant;

use crate::spill::{peak_rss_bytes, release_free_memory, reset_peak_rss};
use crate::{Error, Result};

/// How often a sweep runs each timed step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Repeat {
    /// At most this many repetitions (1: every step once, no spread measured).
    pub max: usize,
    /// No further repetition starts once the repetitions together took this many seconds.
    pub seconds: f64,
}

impl Default for Repeat {
    /// Three repetitions, or as many as fit in a quarter of a second.
    fn default() -> Self {
        Repeat {
            max: 3,
            seconds: 0.25,
        }
    }
}

impl Repeat {
    /// Checks that a step runs at least once and that the time is a number of seconds.
    pub fn validate(&self) -> Result<()> {
        if self.max == 0 {
            return Err(Error::config(
                "repeats must be at least 1 (every run is timed at least once)",
            ));
        }
        if !(self.seconds.is_finite() && self.seconds >= 0.0) {
            return Err(Error::config(format!(
                "repeat-seconds must be a number of seconds, at least 0, not {}",
                self.seconds
            )));
        }
        Ok(())
    }
}

/// The least and the most of a step's repetitions, and how many there were.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread<T> {
    /// Repetitions measured.
    pub runs: u32,
    /// The least.
    pub least: T,
    /// The most.
    pub most: T,
}

impl<T: Copy + PartialOrd> Spread<T> {
    /// The spread of `values` (`None` when there are none).
    pub fn of(values: &[T]) -> Option<Spread<T>> {
        let (&first, rest) = values.split_first()?;
        let (least, most) = rest.iter().fold((first, first), |(lo, hi), &v| {
            (if v < lo { v } else { lo }, if v > hi { v } else { hi })
        });
        Some(Spread {
            runs: values.len() as u32,
            least,
            most,
        })
    }
}

impl Spread<f64> {
    /// The spread of two steps run one after the other (a sketch, then a job): least plus
    /// least, most plus most; the runs are this one's (the step the row is about).
    pub fn then(self, after: Spread<f64>) -> Spread<f64> {
        Spread {
            runs: after.runs,
            least: self.least + after.least,
            most: self.most + after.most,
        }
    }
}

/// A step's value (its last repetition's) and what its repetitions measured.
#[derive(Debug)]
pub struct Measured<T> {
    /// What the last repetition returned.
    pub value: T,
    /// Seconds of each repetition, least and most.
    pub seconds: Spread<f64>,
    /// Peak resident bytes of each repetition, least and most (`None` where not measured).
    pub peak: Option<Spread<u64>>,
}

/// Runs `step` as `repeat` says, timing each repetition and reading its peak memory.
pub fn repeated<T>(repeat: &Repeat, mut step: impl FnMut() -> Result<T>) -> Result<Measured<T>> {
    let mut secs = Vec::new();
    let mut peaks = Vec::new();
    let mut last: Option<T> = None;
    let mut total = 0.0;
    while secs.len() < repeat.max.max(1) && (secs.is_empty() || total < repeat.seconds) {
        drop(last.take());
        release_free_memory();
        reset_peak_rss();
        let t0 = Instant::now();
        let value = step()?;
        let s = t0.elapsed().as_secs_f64();
        peaks.extend(peak_rss_bytes());
        secs.push(s);
        total += s;
        last = Some(value);
    }
    Ok(Measured {
        value: last.expect("a step runs at least once"),
        seconds: Spread::of(&secs).expect("a step runs at least once"),
        peak: (peaks.len() == secs.len())
            .then(|| Spread::of(&peaks))
            .flatten(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `repeated` of a step that sleeps `ms` milliseconds, at most `max` times within
    /// `seconds`: how many steps ran, and the measure.
    fn sleeping(max: usize, seconds: f64, ms: u64) -> (u32, Measured<()>) {
        let mut n = 0;
        let m = repeated(&Repeat { max, seconds }, || {
            n += 1;
            std::thread::sleep(std::time::Duration::from_millis(ms));
            Ok(())
        })
        .unwrap();
        (n, m)
    }

    #[test]
    fn repeats_until_the_count_or_the_time() {
        // Quick steps: the count stops them.
        let mut n = 0;
        let m = repeated(
            &Repeat {
                max: 4,
                seconds: 10.0,
            },
            || {
                n += 1;
                Ok(n)
            },
        )
        .unwrap();
        assert_eq!((n, m.value, m.seconds.runs), (4, 4, 4));
        assert!(m.seconds.least <= m.seconds.most);
        // A step longer than the time: once.
        let (n, m) = sleeping(5, 0.01, 15);
        assert_eq!((n, m.seconds.runs), (1, 1));
        assert_eq!(m.seconds.least, m.seconds.most);
        assert!(m.seconds.least >= 0.015);
        // Steps of at least 4 ms with 10 ms: at most three (4, 8, 12 ms: the third passes
        // the time), and every repetition but the last started inside the time.
        let (n, m) = sleeping(7, 0.01, 4);
        assert_eq!(n, m.seconds.runs);
        assert!(n <= 3 && m.seconds.least >= 0.004, "{n} {:?}", m.seconds);
        assert!(
            f64::from(n - 1) * m.seconds.least < 0.01,
            "{n} {:?}",
            m.seconds
        );
        if cfg!(target_os = "linux") {
            let p = m.peak.unwrap();
            assert_eq!(p.runs, n);
            assert!(p.least > 0 && p.least <= p.most);
        }
        // An error ends it.
        let mut n = 0;
        let e = repeated(&Repeat::default(), || {
            n += 1;
            if n == 2 {
                Err(Error::config("second"))
            } else {
                Ok(())
            }
        });
        assert!(e.is_err());
    }

    #[test]
    fn spreads() {
        let s = Spread::of(&[0.3, 0.1, 0.2]).unwrap();
        assert_eq!((s.runs, s.least, s.most), (3, 0.1, 0.3));
        let t = Spread::of(&[1.0, 1.5]).unwrap();
        let both = s.then(t);
        assert_eq!((both.runs, both.least, both.most), (2, 1.1, 1.8));
        assert!(Spread::<u64>::of(&[]).is_none());
        assert!(Repeat {
            max: 0,
            seconds: 1.0
        }
        .validate()
        .is_err());
        assert!(Repeat {
            max: 1,
            seconds: f64::NAN
        }
        .validate()
        .is_err());
        assert!(Repeat::default().validate().is_ok());
    }
}
