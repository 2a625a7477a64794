//! The official MCP conformance harness against the crate's own client, built for Node
//! (testing/mcp-conformance-client.mjs), one scenario at a time (`sse-retry` is graded on timing).

use std::path::Path;
use std::process::Command;

use serde::Deserialize;

use crate::process::run;

/// Every non-auth client scenario of the pinned harness, with the checks each must pass. The auth
/// scenarios (OAuth) are not implemented by the client yet.
const SCENARIOS: &[(&str, usize)] = &[
    ("initialize", 1),
    ("tools_call", 1),
    ("elicitation-sep1034-client-defaults", 5),
    ("sse-retry", 3),
];

#[derive(Deserialize)]
struct Check {
    status: String,
    description: String,
}

/// Runs every scenario and judges it by its checks, not only the exit code (a client that does
/// nothing still gets "0/0 passed").
pub fn run_scenarios(root: &Path) -> Result<(), String> {
    let shared = root.join("../shared/conformance");
    let out = root.join("target/conformance");
    let _ = std::fs::remove_dir_all(&out);
    let cli = root.join("testing/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    for (scenario, expected_successes) in SCENARIOS {
        let scenario_out = out.join(scenario);
        run(Command::new("node")
            .current_dir(root)
            .arg("--import")
            .arg(shared.join("node20-compat.mjs"))
            .arg(&cli)
            .args([
                "client",
                "--command",
                "node testing/mcp-conformance-client.mjs",
            ])
            .args(["--scenario", scenario, "-o"])
            .arg(&scenario_out)
            .env(
                "NODE_OPTIONS",
                format!("--import={}", shared.join("loopback-guard.mjs").display()),
            )
            .env("MCP_AGENT_WASM_NODE_PKG", root.join("pkg/nodejs")))?;
        let checks = read_checks(&scenario_out)?;
        let failures: Vec<&Check> = checks
            .iter()
            .filter(|check| !matches!(check.status.as_str(), "INFO" | "SUCCESS"))
            .collect();
        let successes = checks
            .iter()
            .filter(|check| check.status == "SUCCESS")
            .count();
        println!(
            "  conformance {scenario}: {successes} checks passed, {} failed",
            failures.len()
        );
        if let Some(failure) = failures.first() {
            return Err(format!(
                "{scenario}: {} {}",
                failure.status, failure.description
            ));
        }
        if successes < *expected_successes {
            return Err(format!(
                "{scenario}: {successes} checks passed, {expected_successes} expected"
            ));
        }
    }
    Ok(())
}

fn read_checks(scenario_out: &Path) -> Result<Vec<Check>, String> {
    let run_dir = std::fs::read_dir(scenario_out)
        .map_err(|error| format!("{}: {error}", scenario_out.display()))?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .find(|path| path.join("checks.json").exists())
        .ok_or_else(|| format!("no checks.json under {}", scenario_out.display()))?;
    let text =
        std::fs::read_to_string(run_dir.join("checks.json")).map_err(|error| error.to_string())?;
    serde_json::from_str(&text).map_err(|error| format!("invalid checks.json: {error}"))
}
