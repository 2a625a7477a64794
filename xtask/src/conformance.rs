//! The official MCP conformance harness against the crate's own client, built for Node
//! (testing/mcp-conformance-client.mjs), one scenario at a time (`sse-retry` is graded on timing).

use std::path::Path;
use std::process::Command;

use serde::Deserialize;

use crate::process::run;

/// The client scenarios of the pinned harness, with the checks each must pass: all but the two
/// `auth/client-credentials-*` ones (an extension for machine-to-machine clients holding a
/// private key or a secret, which a web page cannot keep). The auth/* ones run `browserOAuth`
/// with an `authorize` that follows the harness's redirects (testing/mcp-conformance-client.mjs).
const SCENARIOS: &[(&str, usize)] = &[
    ("initialize", 1),
    ("tools_call", 1),
    ("elicitation-sep1034-client-defaults", 5),
    ("sse-retry", 3),
    ("auth/metadata-default", 13),
    ("auth/metadata-var1", 13),
    ("auth/metadata-var2", 13),
    ("auth/metadata-var3", 13),
    ("auth/basic-cimd", 13),
    ("auth/scope-from-www-authenticate", 14),
    ("auth/scope-from-scopes-supported", 14),
    ("auth/scope-omitted-when-undefined", 14),
    ("auth/scope-step-up", 22),
    ("auth/scope-retry-limit", 10),
    ("auth/token-endpoint-auth-basic", 18),
    ("auth/token-endpoint-auth-post", 18),
    ("auth/token-endpoint-auth-none", 18),
    ("auth/pre-registration", 13),
    ("auth/2025-03-26-oauth-metadata-backcompat", 12),
    ("auth/2025-03-26-oauth-endpoint-fallback", 7),
    ("auth/resource-mismatch", 2),
    ("auth/offline-access-scope", 12),
    ("auth/offline-access-not-supported", 14),
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
        let scenario_out = out.join(scenario.replace('/', "-"));
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

/// The checks the harness wrote under `scenario_out`: in `<run>/checks.json`, or one level
/// deeper for a scenario whose name has a `/` (`auth/…` runs are written to `client-auth/…`).
fn read_checks(scenario_out: &Path) -> Result<Vec<Check>, String> {
    let subdirectories = |dir: &Path| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|entry| entry.ok())
                    .map(|entry| entry.path())
                    .collect()
            })
            .unwrap_or_default()
    };
    let file = subdirectories(scenario_out)
        .into_iter()
        .flat_map(|run| {
            let mut candidates = vec![run.join("checks.json")];
            candidates.extend(
                subdirectories(&run)
                    .into_iter()
                    .map(|inner| inner.join("checks.json")),
            );
            candidates
        })
        .find(|candidate| candidate.exists())
        .ok_or_else(|| format!("no checks.json under {}", scenario_out.display()))?;
    let text = std::fs::read_to_string(&file).map_err(|error| error.to_string())?;
    serde_json::from_str(&text).map_err(|error| format!("invalid checks.json: {error}"))
}
