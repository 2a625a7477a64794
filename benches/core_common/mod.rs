//! What the native core benchmarks share: named workloads, plain wall-clock measurement, a JSON
//! report for `cargo xtask bench`, and a single-run mode for `valgrind --tool=callgrind`.
//!
//! Arguments (after `cargo bench --bench NAME --`):
//! - none: measure every workload and print a table;
//! - `--json PATH`: also write the figures to PATH;
//! - `--once NAME`: prepare workload NAME and run it once, without timing, inside
//!   [`callgrind_measured_run`], the one function whose instructions callgrind collects.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Each measurement repeats batches until at least this much time has passed.
const MEASURE_FOR: Duration = Duration::from_millis(500);
/// Each batch runs the workload until at least this much time has passed.
const BATCH_FOR: Duration = Duration::from_millis(20);

/// One prepared piece of work and how to express its rate.
pub struct Workload {
    /// Units of work in one run, in the unit `rate_unit` counts per second (megabytes for `MB/s`).
    pub units_per_run: f64,
    pub rate_unit: &'static str,
    /// Returns something derived from the work, so that the optimizer cannot drop it.
    pub run: Box<dyn FnMut() -> usize>,
}

/// A workload by stable name (callgrind counts are keyed by it), prepared only when chosen.
pub struct Candidate {
    pub name: String,
    pub prepare: Box<dyn Fn() -> Workload>,
}

impl Candidate {
    pub fn new(name: impl Into<String>, prepare: impl Fn() -> Workload + 'static) -> Self {
        Candidate {
            name: name.into(),
            prepare: Box::new(prepare),
        }
    }
}

enum Mode {
    Measure { json: Option<String> },
    Once(String),
}

/// `cargo bench` adds `--bench` to the arguments of `harness = false` targets: it is ignored.
fn mode() -> Mode {
    let mut arguments = std::env::args()
        .skip(1)
        .filter(|argument| argument != "--bench");
    let mut json = None;
    while let Some(argument) = arguments.next() {
        let value = arguments.next();
        match (argument.as_str(), value) {
            ("--json", Some(path)) => json = Some(path),
            ("--once", Some(name)) => return Mode::Once(name),
            (other, _) => panic!("unknown argument {other:?} (see benches/core_common/mod.rs)"),
        }
    }
    Mode::Measure { json }
}

/// Runs the benchmark binary's workloads in the mode its arguments ask for.
pub fn main(candidates: Vec<Candidate>) {
    match mode() {
        Mode::Measure { json } => measure_all(&candidates, json.as_deref()),
        Mode::Once(name) => {
            let mut workload = (find(&candidates, &name).prepare)();
            black_box(callgrind_measured_run(&mut workload.run));
        }
    }
}

/// The run callgrind counts (`cargo xtask bench` collects only inside this function, by its
/// name): preparing the input is left out, and with it the preparation's run-to-run variation
/// (serde_json's maps hash with a seed drawn per process), which subtracting a prepare-only run
/// left in the count.
#[inline(never)]
fn callgrind_measured_run(run: &mut dyn FnMut() -> usize) -> usize {
    run()
}

fn find<'a>(candidates: &'a [Candidate], name: &str) -> &'a Candidate {
    candidates
        .iter()
        .find(|candidate| candidate.name == name)
        .unwrap_or_else(|| panic!("no workload named {name:?}"))
}

fn measure_all(candidates: &[Candidate], json: Option<&str>) {
    let mut figures = Vec::new();
    for candidate in candidates {
        let mut workload = (candidate.prepare)();
        let seconds_per_run = seconds_per_run(&mut workload.run);
        let value = workload.units_per_run / seconds_per_run;
        let unit = workload.rate_unit;
        println!("{:<64} {value:>14.1} {unit}", candidate.name);
        figures.push(serde_json::json!({
            "name": candidate.name,
            "value": value,
            "unit": unit,
            "unitsPerRun": workload.units_per_run,
            "microsecondsPerRun": seconds_per_run * 1e6,
        }));
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&figures).expect("figures are plain JSON");
        std::fs::write(path, text).unwrap_or_else(|error| panic!("cannot write {path}: {error}"));
    }
}

/// The fastest batch's time per run: on a shared machine, other processes only ever add time.
fn seconds_per_run(run: &mut dyn FnMut() -> usize) -> f64 {
    black_box(run());
    let started = Instant::now();
    let mut fastest = f64::INFINITY;
    while started.elapsed() < MEASURE_FOR {
        let batch_started = Instant::now();
        let mut runs = 0u32;
        while batch_started.elapsed() < BATCH_FOR {
            black_box(run());
            runs += 1;
        }
        fastest = fastest.min(batch_started.elapsed().as_secs_f64() / f64::from(runs));
    }
    fastest
}
