//! The tasks behind `cargo xtask`: each a list of timed phases that stops at the first failure.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::process::{run, Servers};
use crate::servers::{start_all, ServerSpec, TEST_SERVERS};
use crate::setup::ensure_tools;

/// Runs named phases in order, printing how long each took, and stops at the first failure.
struct Phases {
    timings: Vec<(String, Duration)>,
}

impl Phases {
    fn new() -> Self {
        Phases {
            timings: Vec::new(),
        }
    }

    fn run(
        &mut self,
        name: &str,
        phase: impl FnOnce() -> Result<(), String>,
    ) -> Result<(), String> {
        println!("\n==> {name}");
        let started = Instant::now();
        let result = phase();
        let elapsed = started.elapsed();
        self.timings.push((name.to_owned(), elapsed));
        println!(
            "<== {name}: {} in {elapsed:.1?}",
            if result.is_ok() { "ok" } else { "FAILED" }
        );
        result.map_err(|message| format!("phase `{name}`: {message}"))
    }

    fn report(&self) {
        println!("\nphase timings:");
        for (name, elapsed) in &self.timings {
            println!("  {name:<28} {:>8.1}s", elapsed.as_secs_f64());
        }
        println!("phases: {} passed, 0 failed", self.timings.len());
    }
}

/// Tool paths first on PATH: npm's binaryen `wasm-opt` (Debian's v108 output fails to load).
fn with_tool_path(root: &Path, mut command: Command) -> Command {
    let npm_bin = root.join("testing/node_modules/.bin");
    let cargo_bin = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cargo"))
        .join("bin");
    let path = std::env::var("PATH").unwrap_or_default();
    command.current_dir(root).env(
        "PATH",
        format!("{}:{}:{path}", npm_bin.display(), cargo_bin.display()),
    );
    command
}

fn cargo(root: &Path, args: &[&str]) -> Result<(), String> {
    let mut command = with_tool_path(root, Command::new("cargo"));
    run(command.args(args))
}

pub fn setup(root: &Path) -> Result<(), String> {
    let config = Config::load(root)?;
    ensure_tools(root, &config)
}

/// `wasm-pack build` for one target into pkg/<target>/, with the pinned release nightly.
fn wasm_pack_build(root: &Path, config: &Config, target: &str) -> Result<(), String> {
    let toolchain = &config.release_toolchain;
    let mut command = with_tool_path(root, Command::new("wasm-pack"));
    command
        .env("RUSTUP_TOOLCHAIN", &toolchain.channel)
        .env("CARGO_UNSTABLE_BUILD_STD", toolchain.build_std.join(","))
        .env(
            "CARGO_UNSTABLE_BUILD_STD_FEATURES",
            toolchain.build_std_features.join(","),
        )
        .env("RUSTFLAGS", toolchain.rustflags.join(" "));
    run(command.args([
        "build",
        "--mode",
        "no-install",
        &format!("--{}", config.build.profile),
        "--target",
        target,
        "--out-dir",
        &format!("pkg/{target}"),
        "--no-pack",
    ]))
}

/// One target as it ships: wasm-pack's output with the bindings' names shortened, and without
/// the `.gitignore` that would keep it out of the npm package (the demo builds only this way).
fn build_target(root: &Path, config: &Config, target: &str) -> Result<(), String> {
    wasm_pack_build(root, config, target)?;
    let target_dir = root.join("pkg").join(target);
    crate::package::remove_wasm_pack_gitignore(&target_dir)?;
    let shortened = crate::binding_names::shorten(&target_dir, crate::package::CRATE)?;
    println!(
        "  {target}: {} imports and {} exports renamed, wasm {} -> {} bytes",
        shortened.imports, shortened.exports, shortened.bytes_before, shortened.bytes_after
    );
    Ok(())
}

pub fn build(root: &Path) -> Result<(), String> {
    let config = Config::load(root)?;
    ensure_tools(root, &config)?;
    build_package(root, &config)
}

/// Every wasm-pack target of wasm-pack.toml, then the npm package around them in pkg/.
fn build_package(root: &Path, config: &Config) -> Result<(), String> {
    for target in &config.build.targets {
        build_target(root, config, target)?;
    }
    crate::package::assemble(root)
}

/// Prints raw and gzip -9 sizes of pkg/web's shipped files and fails above the wasm budget.
fn check_size(root: &Path, config: &Config) -> Result<(), String> {
    let pkg = root.join("pkg/web");
    let wasm = pkg.join("mcp_agent_wasm_bg.wasm");
    let glue = pkg.join("mcp_agent_wasm.js");
    let mut total_gzip = 0;
    for file in [&wasm, &glue] {
        let raw = std::fs::metadata(file)
            .map_err(|error| format!("{}: {error}", file.display()))?
            .len();
        let gzip = gzip_size(file)?;
        total_gzip += gzip;
        println!(
            "  {:<28} {raw:>9} bytes raw {gzip:>9} bytes gzip -9",
            file.file_name().unwrap_or_default().to_string_lossy()
        );
    }
    println!("  shipped total (wasm + glue), gzip -9: {total_gzip} bytes");
    let wasm_gzip = gzip_size(&wasm)?;
    if wasm_gzip > config.build.max_wasm_gzip_bytes {
        return Err(format!(
            "{} is {wasm_gzip} bytes gzipped, over the budget of {} bytes (wasm-pack.toml)",
            wasm.display(),
            config.build.max_wasm_gzip_bytes
        ));
    }
    Ok(())
}

fn gzip_size(file: &Path) -> Result<u64, String> {
    let output = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(file)
        .output()
        .map_err(|error| format!("cannot run gzip: {error}"))?;
    Ok(output.stdout.len() as u64)
}

/// Test files by naming convention: `tests/web_*.rs` run in Chromium, `tests/node_*.rs` in Node.
fn wasm_test_targets(root: &Path, prefix: &str) -> Result<Vec<String>, String> {
    let mut targets: Vec<String> = std::fs::read_dir(root.join("tests"))
        .map_err(|error| error.to_string())?
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter_map(|name| {
            name.strip_suffix(".rs")
                .filter(|stem| stem.starts_with(prefix))
                .map(str::to_owned)
        })
        .collect();
    targets.sort();
    Ok(targets)
}

fn wasm_pack_test(
    root: &Path,
    mode_args: &[&str],
    targets: &[String],
    env: &[(String, String)],
    extra_env: &[(&str, String)],
) -> Result<(), String> {
    if targets.is_empty() {
        return Err("no wasm test files found".to_owned());
    }
    let mut command = with_tool_path(root, Command::new("wasm-pack"));
    command
        .args(["test", "--mode", "no-install"])
        .args(mode_args);
    command.arg("--");
    for target in targets {
        command.args(["--test", target]);
    }
    command.envs(env.iter().map(|(name, value)| (name, value)));
    command.envs(extra_env.iter().map(|(name, value)| (name, value)));
    run(&mut command)
}

fn static_server() -> ServerSpec {
    ServerSpec {
        name: "static-server",
        url_variable: "DEMO_URL",
        path: "/",
        node_args: &["testing/static-server.mjs", "www", "pkg/web"],
    }
}

pub fn test(root: &Path) -> Result<(), String> {
    let mut phases = Phases::new();
    let config = Config::load(root)?;
    phases.run("setup (install missing tools)", || {
        ensure_tools(root, &config)
    })?;
    phases.run("cargo fmt --check", || {
        cargo(root, &["fmt", "--all", "--check"])
    })?;
    phases.run("clippy (native)", || {
        cargo(
            root,
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
        )
    })?;
    // The fuzz crate is a workspace of its own that only `cargo fuzz` builds, so a change to the
    // core's API could break it unseen (it did once); stable checks it without libFuzzer running.
    phases.run("fuzz targets (fmt, clippy)", || {
        let manifest = root.join("fuzz/Cargo.toml");
        let manifest = manifest.to_string_lossy();
        cargo(root, &["fmt", "--manifest-path", &manifest, "--check"])?;
        cargo(
            root,
            &[
                "clippy",
                "--manifest-path",
                &manifest,
                "--bins",
                "--locked",
                "--",
                "-D",
                "warnings",
            ],
        )
    })?;
    phases.run("clippy (wasm32)", || {
        cargo(
            root,
            &[
                "clippy",
                "-p",
                "mcp-agent-wasm",
                "--all-targets",
                "--target",
                "wasm32-unknown-unknown",
                "--",
                "-D",
                "warnings",
            ],
        )
    })?;
    phases.run("cargo test (native)", || {
        cargo(root, &["test", "--workspace"])
    })?;
    phases.run("npm package (release build of every target)", || {
        build_package(root, &config)?;
        check_size(root, &config)
    })?;

    let mut servers = Servers::default();
    let mut env = Vec::new();
    phases.run("start local servers", || {
        env = start_all(root, &mut servers, TEST_SERVERS)?;
        env.extend(start_all(root, &mut servers, &[static_server()])?);
        Ok(())
    })?;
    let webdriver_json = root.join("target/webdriver.json");
    phases.run("wasm tests (headless Chromium)", || {
        std::fs::write(&webdriver_json, config.webdriver_json())
            .map_err(|error| error.to_string())?;
        wasm_pack_test(
            root,
            &[
                "--headless",
                "--chrome",
                "--chromedriver",
                "/usr/bin/chromedriver",
            ],
            &wasm_test_targets(root, "web_")?,
            &env,
            &[
                (
                    "WASM_BINDGEN_TEST_WEBDRIVER_JSON",
                    webdriver_json.display().to_string(),
                ),
                (
                    "WASM_BINDGEN_TEST_TIMEOUT",
                    config.test.browser_file_timeout_secs.to_string(),
                ),
            ],
        )
    })?;
    phases.run("wasm tests (Node)", || {
        let mut command = with_tool_path(root, Command::new("timeout"));
        command
            .arg(config.test.node_timeout_secs.to_string())
            .args(["wasm-pack", "test", "--mode", "no-install", "--node", "--"]);
        for target in wasm_test_targets(root, "node_")? {
            command.args(["--test", &target]);
        }
        run(command.envs(env.iter().map(|(name, value)| (name, value))))
    })?;
    phases.run("page tests (playwright-core, Node test runner)", || {
        let mut command = with_tool_path(root, Command::new("node"));
        run(command
            .args(["--test", "--test-concurrency=1", "testing/tests/"])
            .env("CHROMIUM_BINARY", &config.chromium.binary)
            .env("CHROMIUM_ARGS", config.chromium.args.join(" "))
            .envs(env.iter().map(|(name, value)| (name, value))))
    })?;
    drop(servers);
    phases.run("MCP conformance harness (client scenarios)", || {
        crate::conformance::run_scenarios(root)
    })?;
    phases.report();
    Ok(())
}

/// The servers the demo page uses out of the box: the real MCP server and the scripted model.
const DEMO_SERVER_VARIABLES: &[&str] = &["MCP_EVERYTHING_URL", "DEMO_MODEL_URL"];

pub fn demo(root: &Path) -> Result<(), String> {
    let config = Config::load(root)?;
    ensure_tools(root, &config)?;
    build_target(root, &config, "web")?;
    let mut servers = Servers::default();
    let mut env = Vec::new();
    for spec in TEST_SERVERS
        .iter()
        .filter(|spec| DEMO_SERVER_VARIABLES.contains(&spec.url_variable))
    {
        env.extend(start_all(root, &mut servers, std::slice::from_ref(spec))?);
    }
    // The static server inherits these and serves them to the page as `/demo-config.json`.
    for (variable, url) in &env {
        std::env::set_var(variable, url);
    }
    env.extend(start_all(root, &mut servers, &[static_server()])?);
    for (variable, url) in &env {
        println!("{variable} = {url}");
    }
    let demo_url = env
        .iter()
        .find(|(variable, _)| variable == "DEMO_URL")
        .map(|(_, url)| url.clone())
        .unwrap_or_default();
    println!("\nDemo: open {demo_url}  (Ctrl-C stops every server started here)");
    loop {
        if let Some(name) = servers.first_exited() {
            return Err(format!("{name} stopped; see target/xtask-logs/{name}.log"));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}
