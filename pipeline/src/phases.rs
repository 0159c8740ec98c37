//! Where a cook's time went, phase by phase, for `report.json` (`summary.phases_ms`) and
//! the report page: a pack author sees whether an edit waited on its own block or on the
//! cook's fixed work, and the benchmarks read the same figures rather than patching the
//! binary to time it.
//!
//! | phase | from the end of the one before to |
//! |---|---|
//! | `open` | the cache (action log, stat cache) opened and the donors found |
//! | `validate` | every pack's contract checked (the graph's first stage run) |
//! | `plan` | every block's, set's and map's steps planned |
//! | `run` | every step run or found cached |
//! | `materialize` | the set (or render) folders made to hold the cook's outputs |
//!
//! A pass repeated after a damaged cached output adds to the same phases.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

pub const OPEN: &str = "open";
pub const VALIDATE: &str = "validate";
pub const PLAN: &str = "plan";
pub const RUN: &str = "run";
pub const MATERIALIZE: &str = "materialize";

pub struct Phases(Mutex<Clock>);

struct Clock {
    /// When the last phase ended (the cook's start before the first).
    last: Instant,
    /// Each phase's time, in the order the phases first ended.
    spent: Vec<(&'static str, Duration)>,
}

impl Phases {
    pub fn new(started: Instant) -> Phases {
        Phases(Mutex::new(Clock {
            last: started,
            spent: Vec::new(),
        }))
    }

    /// Ends `phase` now: it took the time since the phase before it ended.
    pub fn end(&self, phase: &'static str) {
        let mut clock = self.0.lock().expect("phase clock lock");
        let now = Instant::now();
        let took = now.duration_since(std::mem::replace(&mut clock.last, now));
        match clock.spent.iter_mut().find(|(name, _)| *name == phase) {
            Some((_, total)) => *total += took,
            None => clock.spent.push((phase, took)),
        }
    }

    /// `{phase: milliseconds}`, to the hundredth, in the order the phases ended.
    pub fn to_json(&self) -> Value {
        let clock = self.0.lock().expect("phase clock lock");
        let phases: Map<String, Value> = clock
            .spent
            .iter()
            .map(|(name, took)| {
                let ms = (took.as_secs_f64() * 1e5).round() / 100.0;
                (name.to_string(), Value::from(ms))
            })
            .collect();
        Value::Object(phases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_phase_takes_the_time_since_the_one_before_and_a_repeat_adds_to_it() {
        let phases = Phases::new(Instant::now());
        std::thread::sleep(Duration::from_millis(20));
        phases.end(OPEN);
        phases.end(RUN);
        std::thread::sleep(Duration::from_millis(10));
        phases.end(RUN);
        let json = phases.to_json();
        let order: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(order, [OPEN, RUN], "{json}");
        assert!(json[OPEN].as_f64().unwrap() >= 20.0, "{json}");
        assert!(json[RUN].as_f64().unwrap() >= 10.0, "{json}");
    }
}
