//! `cargo xtask bench`: this package side by side with the libraries a web developer would use
//! instead, in one run on one machine, written to BENCHMARKS.md and bench/chart.svg.
//!
//! Benchmarks are not tests: they run only here. Everything runs under `nice -n 10` (the machines
//! are shared) and talks to 127.0.0.1 only. `--skip-build` reuses the packages already in pkg/.

use std::path::Path;
use std::process::Command;

use crate::config::Config;
use crate::process::run as run_command;
use crate::setup::ensure_tools;

/// Native workloads whose instruction counts are recorded: stable across runs, unlike timings.
/// Small bodies on purpose: callgrind runs some 50 times slower than native code.
const CALLGRIND_WORKLOADS: [(&str, &str); 8] = [
    ("core_stream", "sse/openai-text"),
    ("core_stream", "decode+assemble/openai-text"),
    ("core_stream", "decode+assemble/xai-tool-call"),
    ("core_stream", "decode+assemble/openai-parallel-tool-calls"),
    ("core_sanitize", "sanitize/openai/500-tools"),
    ("core_sanitize", "tools/parse+table/500-tools"),
    ("core_sanitize", "request/openai/500-tools/sanitized"),
    ("core_sanitize", "request/openai/500-tools/prepared"),
];
const NATIVE_BENCHES: [&str; 2] = ["core_stream", "core_sanitize"];

pub fn run(root: &Path) -> Result<(), String> {
    let skip_build = std::env::args().any(|argument| argument == "--skip-build");
    let output = root.join("target/bench");
    std::fs::create_dir_all(&output).map_err(|error| error.to_string())?;

    let config = Config::load(root)?;
    if skip_build {
        println!("==> reusing pkg/ (--skip-build)");
        // Chromium and playwright-core (testing/) for the parallel-tools runs in a page.
        ensure_tools(root, &config)?;
    } else {
        println!("==> building the package (pkg/web, pkg/bundler, pkg/nodejs)");
        crate::tasks::build(root)?;
    }
    ensure_bench_packages(root)?;

    println!("\n==> native core (cargo bench)");
    for bench in NATIVE_BENCHES {
        let json = output.join(format!("{bench}.json"));
        run_command(
            niced("cargo")
                .current_dir(root)
                .args(["bench", "-p", "mcp-agent-wasm", "--bench", bench, "--"])
                .arg("--json")
                .arg(&json),
        )?;
    }

    println!("\n==> native core instruction counts (valgrind --tool=callgrind)");
    let counts = callgrind_counts(root)?;
    std::fs::write(output.join("callgrind.json"), counts_json(&counts))
        .map_err(|error| error.to_string())?;

    for (script, package, result) in [
        ("bench/size.mjs", "pkg/web", "size.json"),
        ("bench/stream.mjs", "pkg/nodejs", "stream.json"),
        ("bench/parallel.mjs", "pkg/nodejs", "parallel.json"),
    ] {
        println!("\n==> node {script}");
        run_command(
            niced("node")
                .current_dir(root)
                .arg(script)
                .arg(package)
                .arg(output.join(result))
                .env("CHROMIUM_BINARY", &config.chromium.binary)
                .env("CHROMIUM_ARGS", config.chromium.args.join(" ")),
        )?;
    }

    println!("\n==> BENCHMARKS.md and bench/chart.svg");
    run_command(
        Command::new("node")
            .current_dir(root)
            .arg("bench/report.mjs")
            .arg(&output),
    )
}

fn niced(program: &str) -> Command {
    let mut command = Command::new("nice");
    command.args(["-n", "10", program]);
    command
}

/// `npm ci` into bench/ when its packages are missing (exact versions from bench/package-lock.json).
fn ensure_bench_packages(root: &Path) -> Result<(), String> {
    if root.join("bench/node_modules/.package-lock.json").exists() {
        return Ok(());
    }
    run_command(Command::new("npm").current_dir(root).args([
        "ci",
        "--prefix",
        "bench",
        "--no-audit",
        "--no-fund",
    ]))
}

/// Instructions of one run of each workload, collected only inside the bench's
/// `callgrind_measured_run` (reading or generating the input is not the workload).
fn callgrind_counts(root: &Path) -> Result<Vec<(String, u64)>, String> {
    let mut binaries = Vec::new();
    for bench in NATIVE_BENCHES {
        binaries.push((bench, bench_binary(root, bench)?));
    }
    let mut counts = Vec::new();
    for (bench, workload) in CALLGRIND_WORKLOADS {
        let (_, binary) = binaries
            .iter()
            .find(|(built, _)| *built == bench)
            .ok_or_else(|| format!("bench {bench} is not one of {NATIVE_BENCHES:?}"))?;
        let count = instructions(binary, workload)?;
        println!("  {workload:<48} {count:>14} instructions");
        counts.push((workload.to_owned(), count));
    }
    Ok(counts)
}

/// The path of a built bench binary, from cargo's JSON messages (built first if needed).
fn bench_binary(root: &Path, bench: &str) -> Result<String, String> {
    let output = Command::new("cargo")
        .current_dir(root)
        .args([
            "bench",
            "-p",
            "mcp-agent-wasm",
            "--no-run",
            "--bench",
            bench,
        ])
        .args(["--message-format", "json"])
        .output()
        .map_err(|error| format!("cannot run cargo bench --no-run: {error}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .filter(|line| line.contains(&format!("\"name\":\"{bench}\"")))
        .find_map(|line| json_string_field(line, "executable"))
        .ok_or_else(|| format!("cargo did not report an executable for bench {bench}"))
}

/// The value of a string field in one line of cargo's JSON output (paths have no quotes).
fn json_string_field(line: &str, field: &str) -> Option<String> {
    let start = line.find(&format!("\"{field}\":\""))? + field.len() + 4;
    let length = line[start..].find('"')?;
    Some(line[start..start + length].replace("\\\\", "\\"))
}

fn instructions(binary: &str, workload: &str) -> Result<u64, String> {
    let output = Command::new("nice")
        .args(["-n", "10", "valgrind", "--tool=callgrind"])
        .arg("--callgrind-out-file=/dev/null")
        .arg("--toggle-collect=*callgrind_measured_run*")
        .args([binary, "--once", workload])
        .output()
        .map_err(|error| format!("cannot run valgrind (is it installed?): {error}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("callgrind {workload} failed: {stderr}"));
    }
    stderr
        .lines()
        .find_map(|line| line.split("Collected :").nth(1))
        .and_then(|count| count.trim().parse().ok())
        .ok_or_else(|| format!("no instruction count in callgrind's output: {stderr}"))
}

fn counts_json(counts: &[(String, u64)]) -> String {
    let entries: Vec<String> = counts
        .iter()
        .map(|(name, count)| format!("  {{\"name\": \"{name}\", \"instructions\": {count}}}"))
        .collect();
    format!("[\n{}\n]\n", entries.join(",\n"))
}
