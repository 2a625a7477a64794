//! The local servers that tests and the demo use, each on a free 127.0.0.1 port.

use std::path::Path;
use std::process::Command;

use crate::process::Servers;

/// One server: how to start it and the environment variable that hands its URL to the tests.
pub struct ServerSpec {
    pub name: &'static str,
    /// The variable wasm tests read at compile time (`option_env!`) and Node tests at run time.
    pub url_variable: &'static str,
    /// Appended to `http://127.0.0.1:PORT`.
    pub path: &'static str,
    /// Arguments to `node`, relative to the project root.
    pub node_args: &'static [&'static str],
}

/// The real MCP server (server-everything), loaded with a preload that binds it to loopback.
const EVERYTHING: &str =
    "testing/node_modules/@modelcontextprotocol/server-everything/dist/index.js";

pub const TEST_SERVERS: &[ServerSpec] = &[
    ServerSpec {
        name: "server-everything-streamable-http",
        url_variable: "MCP_EVERYTHING_URL",
        path: "/mcp",
        node_args: &[EVERYTHING, "streamableHttp"],
    },
    ServerSpec {
        name: "server-everything-sse",
        url_variable: "MCP_EVERYTHING_SSE_URL",
        path: "/sse",
        node_args: &[EVERYTHING, "sse"],
    },
    ServerSpec {
        name: "mcp-test-server",
        url_variable: "MCP_TEST_SERVER_URL",
        path: "",
        node_args: &["testing/mcp-test-server.mjs"],
    },
    ServerSpec {
        name: "provider-server",
        url_variable: "PROVIDER_SERVER_URL",
        path: "",
        node_args: &["testing/provider-server.mjs"],
    },
    ServerSpec {
        name: "stream-server",
        url_variable: "STREAM_SERVER_URL",
        path: "",
        node_args: &["testing/stream-server.mjs"],
    },
];

/// Starts `specs` and returns `(variable, url)` pairs for the processes that need them.
pub fn start_all(
    root: &Path,
    servers: &mut Servers,
    specs: &[ServerSpec],
) -> Result<Vec<(String, String)>, String> {
    let guard = loopback_guard(root)?;
    let log_dir = root.join("target/xtask-logs");
    let mut urls = Vec::new();
    for spec in specs {
        let mut command = Command::new("node");
        command
            .current_dir(root)
            .arg(format!("--import={guard}"))
            .args(spec.node_args);
        let port = servers.start(spec.name, &mut command, &log_dir)?;
        urls.push((
            spec.url_variable.to_owned(),
            format!("http://127.0.0.1:{port}{}", spec.path),
        ));
    }
    Ok(urls)
}

/// The shared preload that binds every listener to 127.0.0.1 and refuses off-loopback sockets.
fn loopback_guard(root: &Path) -> Result<String, String> {
    let guard = root.join("../shared/conformance/loopback-guard.mjs");
    let guard = guard.canonicalize().map_err(|error| {
        format!(
            "missing {} ({error}): it keeps test servers on loopback",
            guard.display()
        )
    })?;
    Ok(format!("file://{}", guard.display()))
}
