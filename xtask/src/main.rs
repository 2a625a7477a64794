//! Project automation (matklad's xtask convention): `cargo xtask <task>`.
//!
//! - `test`: installs what is missing, then runs every check and test, failing on the first failure.
//! - `demo`: installs what is missing, builds the web target, starts the local servers, serves www/.
//! - `build`: builds the npm package for every target in wasm-pack.toml.
//! - `setup`: only installs the tools.
//! - `bench`: benchmarks side by side with the peers; writes BENCHMARKS.md (not a test).
//! - `fuzz [seconds]`: every cargo-fuzz target for that long (default 30), one after another.

mod bench;
mod binding_names;
mod config;
mod conformance;
mod fuzz;
mod package;
mod process;
mod servers;
mod setup;
mod tasks;

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let task = std::env::args().nth(1).unwrap_or_default();
    let root = project_root();
    let started = Instant::now();
    let result = match task.as_str() {
        "test" => tasks::test(&root),
        "demo" => tasks::demo(&root),
        "build" => tasks::build(&root),
        "setup" => tasks::setup(&root),
        "bench" => bench::run(&root),
        "fuzz" => fuzz::fuzz(&root, std::env::args().nth(2).as_deref()),
        _ => Err(format!(
            "unknown task {task:?}; use one of: test, demo, build, setup, bench, fuzz"
        )),
    };
    match result {
        Ok(()) => println!("xtask {task}: done in {:.0?}", started.elapsed()),
        Err(message) => {
            eprintln!(
                "xtask {task}: FAILED after {:.0?}: {message}",
                started.elapsed()
            );
            std::process::exit(1);
        }
    }
}

fn project_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .expect("xtask lives one folder below the project root")
        .to_path_buf()
}
