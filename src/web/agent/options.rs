//! The `new Agent({...})` options, checked once so that a bad configuration throws at once.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::core::agent_loop::MissingIdStrategy;
use crate::core::mcp::session::TransportMode;
use crate::core::provider::ProviderConfig;

/// Tool rounds before the last call without tools (issue #8: default 10).
const DEFAULT_MAX_ROUNDS: u32 = 10;
/// Per-call MCP timeout, restarted by each progress notification.
const DEFAULT_TOOL_TIMEOUT_MS: u64 = 120_000;
/// Silence on a model stream after which it is given up (a stalled connection never ends).
const DEFAULT_IDLE_TIMEOUT_MS: u64 = 60_000;
/// Characters of one tool result the model sees (about 25k tokens); the UI gets everything.
const DEFAULT_MAX_TOOL_RESULT_CHARS: usize = 100_000;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentOptions {
    pub provider: ProviderConfig,
    #[serde(default)]
    pub mcp_servers: Vec<ServerOptions>,
    #[serde(default = "default_max_rounds")]
    pub max_rounds: u32,
    #[serde(default)]
    pub system_prompt: Option<String>,
    #[serde(default = "enabled")]
    pub tool_prompt: bool,
    #[serde(default)]
    pub allow_insecure_local_urls: bool,
    #[serde(default = "default_tool_timeout_ms")]
    pub tool_timeout_ms: u64,
    /// Longest silence on a model stream before the run fails with `provider_idle_timeout`.
    #[serde(default = "default_idle_timeout_ms")]
    pub idle_timeout_ms: u64,
    /// Longer tool results are cut to this many characters for the model, with a note.
    #[serde(default = "default_max_tool_result_chars")]
    pub max_tool_result_chars: usize,
    /// An IANA zone for the tool prompt's date; the browser's own when absent.
    #[serde(default)]
    pub time_zone: Option<String>,
    /// At most this many tool calls of a round run at once; no limit when absent.
    #[serde(default)]
    pub max_concurrent_tools: Option<usize>,
    /// For models without native function calling: tools described in the system prompt.
    #[serde(default)]
    pub prompt_tool_mode: bool,
    /// False for a model that cannot take `tools`: plain generation.
    #[serde(default = "enabled")]
    pub tools_supported: bool,
    #[serde(default)]
    pub missing_id_strategy: MissingIdStrategy,
}

/// One MCP server.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerOptions {
    pub name: String,
    pub url: String,
    /// Sent to this server only.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub transport: TransportMode,
}

fn default_max_rounds() -> u32 {
    DEFAULT_MAX_ROUNDS
}

fn default_tool_timeout_ms() -> u64 {
    DEFAULT_TOOL_TIMEOUT_MS
}

fn default_idle_timeout_ms() -> u64 {
    DEFAULT_IDLE_TIMEOUT_MS
}

fn default_max_tool_result_chars() -> usize {
    DEFAULT_MAX_TOOL_RESULT_CHARS
}

fn enabled() -> bool {
    true
}
