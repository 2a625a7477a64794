//! `cargo xtask fuzz [seconds]`: every cargo-fuzz target of `fuzz/`, one after the other, for the
//! given seconds each (default 30), at the lowest CPU priority and on one core, so that it can run
//! beside other work. Prints executions, speed and coverage per target; fails on the first crash.
//!
//! Built without a sanitizer (`-s none`: the core has no `unsafe`, and speed buys executions) but
//! with debug assertions (`-a`), so that integer overflows count as crashes too. New inputs go to
//! `fuzz/target/corpus/<target>`; the committed seeds in `fuzz/corpus/<target>` are only read.
//!
//! Targets run on a 1 MiB main stack (`ulimit -s 1024`), the size of a wasm instance's stack, so
//! that recursion too deep for a page fails here; libFuzzer's usual 8 MiB hid one such overflow.

use std::path::Path;
use std::process::Command;

use crate::process::{output_of, run};

const DEFAULT_SECONDS: u64 = 30;

pub fn fuzz(root: &Path, seconds: Option<&str>) -> Result<(), String> {
    let seconds = match seconds {
        None => DEFAULT_SECONDS,
        Some(text) => text
            .parse::<u64>()
            .ok()
            .filter(|&seconds| seconds > 0)
            .ok_or_else(|| format!("seconds must be a positive whole number, not {text:?}"))?,
    };
    ensure_cargo_fuzz()?;
    let fuzz_dir = root.join("fuzz");
    let listed = output_of(
        Command::new("cargo")
            .args(["+nightly", "fuzz", "list"])
            .current_dir(&fuzz_dir),
    )
    .ok_or("`cargo +nightly fuzz list` failed")?;
    let targets: Vec<&str> = listed
        .lines()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    // Built first, at the usual stack size: only the fuzzing runs get the small stack.
    run(Command::new("cargo")
        .args(["+nightly", "fuzz", "build", "-s", "none", "-a"])
        .current_dir(&fuzz_dir))?;
    let mut summary = Vec::new();
    for target in &targets {
        println!("xtask fuzz: {target} for {seconds} s");
        let new_inputs = fuzz_dir.join("target").join("corpus").join(target);
        std::fs::create_dir_all(&new_inputs).map_err(|error| error.to_string())?;
        let seeds = fuzz_dir.join("corpus").join(target);
        std::fs::create_dir_all(&seeds).map_err(|error| error.to_string())?;
        // `-jobs=1` makes libFuzzer write its output to fuzz-0.log in the working directory.
        let log = fuzz_dir.join("fuzz-0.log");
        let _ = std::fs::remove_file(&log);
        let result = run(Command::new("sh")
            .args([
                "-c",
                "ulimit -s 1024 && exec \"$@\"",
                "sh",
                "nice",
                "-n",
                "19",
                "cargo",
                "+nightly",
                "fuzz",
                "run",
                "-s",
                "none",
                "-a",
            ])
            .arg(target)
            .arg(&new_inputs)
            .arg(&seeds)
            .arg("--")
            .args([
                "-jobs=1",
                "-workers=1",
                "-rss_limit_mb=2048",
                "-timeout=10",
                "-print_final_stats=1",
            ])
            .arg(format!("-max_total_time={seconds}"))
            .current_dir(&fuzz_dir));
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Err(message) = result {
            println!("{text}");
            return Err(format!(
                "fuzz target {target} failed (reproducer in fuzz/artifacts/{target}/): {message}"
            ));
        }
        summary.push(format!("{target:<20} {}", stats_line(&text)));
    }
    println!("target               execs      exec/s  cov    ft");
    for line in summary {
        println!("{line}");
    }
    Ok(())
}

fn ensure_cargo_fuzz() -> Result<(), String> {
    output_of(Command::new("cargo").args(["+nightly", "--version"])).ok_or(
        "the nightly toolchain is missing: `rustup toolchain install nightly --profile minimal`",
    )?;
    if output_of(Command::new("cargo").args(["+nightly", "fuzz", "--version"])).is_none() {
        println!("xtask fuzz: installing cargo-fuzz");
        run(Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]))?;
    }
    Ok(())
}

/// Executions, speed and coverage from libFuzzer's log: the final stats and the last status line
/// (`#N DONE cov: C ft: F ...`).
fn stats_line(log: &str) -> String {
    let stat = |name: &str| {
        log.lines()
            .rev()
            .find_map(|line| line.strip_prefix(name))
            .map(|value| value.trim().to_owned())
            .unwrap_or_else(|| "?".to_owned())
    };
    let status_value = |key: &str| {
        log.lines()
            .rev()
            .filter(|line| line.starts_with('#'))
            .find_map(|line| {
                let mut words = line.split_whitespace();
                words.find(|word| *word == key)?;
                words.next().map(str::to_owned)
            })
            .unwrap_or_else(|| "?".to_owned())
    };
    format!(
        "{:<10} {:<7} {:<6} {}",
        stat("stat::number_of_executed_units:"),
        stat("stat::average_exec_per_sec:"),
        status_value("cov:"),
        status_value("ft:")
    )
}
