//! Installs every tool the project needs, skipping what is already present at the pinned version.

use std::path::Path;
use std::process::Command;

use crate::config::Config;
use crate::process::{output_of, run};

pub fn ensure_tools(root: &Path, config: &Config) -> Result<(), String> {
    ensure_apt_packages(config)?;
    ensure_wasm_target()?;
    ensure_release_toolchain(&config.release_toolchain.channel)?;
    ensure_cargo_tool("wasm-pack", "wasm-pack", &config.tools.wasm_pack, true)?;
    // wasm-bindgen-cli's own lockfile wants a crate version the registry does not serve.
    ensure_cargo_tool(
        "wasm-bindgen-cli",
        "wasm-bindgen",
        &config.tools.wasm_bindgen_cli,
        false,
    )?;
    ensure_npm_packages(root, config)
}

fn ensure_apt_packages(config: &Config) -> Result<(), String> {
    let chromium_ready = Path::new(&config.chromium.binary).exists()
        && output_of(Command::new("chromedriver").arg("--version")).is_some();
    if chromium_ready {
        return Ok(());
    }
    println!("  installing {} with apt-get", config.tools.apt.join(" "));
    run(Command::new("apt-get").arg("update").arg("-qq"))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "-qq", "--no-install-recommends"])
        .args(&config.tools.apt)
        .env("DEBIAN_FRONTEND", "noninteractive"))
}

fn ensure_wasm_target() -> Result<(), String> {
    let installed = output_of(Command::new("rustup").args(["target", "list", "--installed"]))
        .unwrap_or_default();
    if installed
        .lines()
        .any(|line| line == "wasm32-unknown-unknown")
    {
        return Ok(());
    }
    run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
}

/// The pinned nightly of the release build, with the std sources that `build-std` compiles.
fn ensure_release_toolchain(channel: &str) -> Result<(), String> {
    let installed = output_of(Command::new("rustup").args([
        "component",
        "list",
        "--installed",
        "--toolchain",
        channel,
    ]))
    .unwrap_or_default();
    let ready = ["rust-src", "rust-std-wasm32-unknown-unknown"]
        .iter()
        .all(|component| installed.lines().any(|line| line == *component));
    if ready {
        return Ok(());
    }
    println!("  installing the release toolchain {channel} with rustup");
    run(Command::new("rustup").args([
        "toolchain",
        "install",
        channel,
        "--profile",
        "minimal",
        "--component",
        "rust-src",
        "--target",
        "wasm32-unknown-unknown",
        "--no-self-update",
    ]))
}

fn ensure_cargo_tool(
    crate_name: &str,
    binary: &str,
    version: &str,
    locked: bool,
) -> Result<(), String> {
    let present = output_of(Command::new(binary).arg("--version")).unwrap_or_default();
    if present.split_whitespace().nth(1) == Some(version) {
        return Ok(());
    }
    println!("  installing {crate_name} {version} with cargo (found: {present:?})");
    let mut command = Command::new("cargo");
    command.args(["install", crate_name, "--version", version, "--force"]);
    if locked {
        command.arg("--locked");
    }
    run(&mut command)
}

/// `npm ci` in testing/ unless its node_modules already matches its lockfile; the pins in
/// testing/package.json must equal wasm-pack.toml's `[npm]` table.
fn ensure_npm_packages(root: &Path, config: &Config) -> Result<(), String> {
    let testing = root.join("testing");
    let manifest = std::fs::read_to_string(testing.join("package.json"))
        .map_err(|error| format!("cannot read testing/package.json: {error}"))?;
    for (name, version) in &config.npm {
        let pin = format!("\"{name}\": \"{version}\"");
        if !manifest.contains(&pin) {
            return Err(format!(
                "testing/package.json must pin {pin} as wasm-pack.toml [npm] does"
            ));
        }
    }
    let lock = testing.join("package-lock.json");
    let installed = testing.join("node_modules/.package-lock.json");
    let fresh = match (std::fs::metadata(&lock), std::fs::metadata(&installed)) {
        (Ok(lock), Ok(installed)) => installed.modified().ok() >= lock.modified().ok(),
        _ => false,
    };
    if fresh {
        return Ok(());
    }
    println!("  installing npm packages into testing/ (npm ci)");
    run(Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&testing))
}
