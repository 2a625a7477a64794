//! The `new Agent({...})` options, checked once so that a bad configuration throws at once.

use serde::de::Error;
use serde_json::Value;

use crate::core::agent_loop::MissingIdStrategy;
use crate::core::json_read::{
    boolean, known_member, list, named, object, optional, string, unsigned,
};
use crate::core::mcp::session::roots_list;
use crate::core::provider::{ProviderConfig, RetryPolicy, ToolChoice};

/// Tool rounds before the last call without tools (issue #8: default 10).
const DEFAULT_MAX_ROUNDS: u32 = 10;
/// Per-call MCP timeout, restarted by each progress notification.
const DEFAULT_TOOL_TIMEOUT_MS: u64 = 120_000;
/// Silence of a provider after which its call is given up (a stalled connection never ends).
const DEFAULT_IDLE_TIMEOUT_MS: u64 = 60_000;
/// Characters of one tool result the model sees (about 25k tokens); the UI gets everything.
const DEFAULT_MAX_TOOL_RESULT_CHARS: usize = 100_000;

/// The options as `new Agent(options)` takes them (camelCase in JS). Unknown members are refused,
/// so that a misspelt option is not silently ignored.
pub struct AgentOptions {
    pub provider: ProviderConfig,
    /// The `mcpServers` entries as written, each read by
    /// [`server_options`](crate::core::mcp::server_options::server_options) where its error can
    /// say which server it concerns.
    pub mcp_servers: Vec<Value>,
    pub max_rounds: u32,
    /// False: a run that reaches `max_rounds` ends with the last round's results, without the
    /// last call without tools.
    pub answer_after_max_rounds: bool,
    pub system_prompt: Option<String>,
    pub tool_prompt: bool,
    pub allow_insecure_local_urls: bool,
    pub tool_timeout_ms: u64,
    /// Longest silence of the provider (before its answer starts, or within a stream) before the
    /// run fails with `provider_idle_timeout`.
    pub idle_timeout_ms: u64,
    /// Longer tool results are cut to this many characters for the model, with a note.
    pub max_tool_result_chars: usize,
    /// An IANA zone for the tool prompt's date; the browser's own when absent.
    pub time_zone: Option<String>,
    /// At most this many tool calls of a round run at once; no limit when absent.
    pub max_concurrent_tools: Option<usize>,
    /// For models without native function calling: tools described in the system prompt.
    pub prompt_tool_mode: bool,
    /// False for a model that cannot take `tools`: plain generation.
    pub tools_supported: bool,
    pub missing_id_strategy: MissingIdStrategy,
    /// The tool use the first model call of a run asks for (later rounds: `auto`).
    pub tool_choice: ToolChoice,
    /// Retries of a model call refused with a retryable status or unreachable (the AI SDK's
    /// `maxRetries`, also 2 by default).
    pub max_retries: u32,
    /// The roots every server may work in, sent to its `roots/list`.
    pub roots: Option<Value>,
}

const AGENT_OPTIONS: &[&str] = &[
    "provider",
    "mcpServers",
    "maxRounds",
    "answerAfterMaxRounds",
    "systemPrompt",
    "toolPrompt",
    "allowInsecureLocalUrls",
    "toolTimeoutMs",
    "idleTimeoutMs",
    "maxToolResultChars",
    "timeZone",
    "maxConcurrentTools",
    "promptToolMode",
    "toolsSupported",
    "missingIdStrategy",
    "toolChoice",
    "maxRetries",
    "roots",
    // Functions, which `JSON.stringify` leaves out: read from the JS object by `Agent::new`.
    "approveToolCall",
    "approveSampling",
    "onElicitation",
    "onNotification",
    // Functions within: read from the JS object by `Agent::new` too.
    "tools",
];

/// Read by hand (`core::json_read`) from the options as JSON, with serde's error texts: a
/// `Deserialize` impl would compile serde_json's reader once more for its type.
pub fn agent_options<E: Error>(value: Value) -> Result<AgentOptions, E> {
    let mut provider = None;
    let mut options = AgentOptions {
        provider: ProviderConfig::default(),
        mcp_servers: Vec::new(),
        max_rounds: DEFAULT_MAX_ROUNDS,
        answer_after_max_rounds: true,
        system_prompt: None,
        tool_prompt: true,
        allow_insecure_local_urls: false,
        tool_timeout_ms: DEFAULT_TOOL_TIMEOUT_MS,
        idle_timeout_ms: DEFAULT_IDLE_TIMEOUT_MS,
        max_tool_result_chars: DEFAULT_MAX_TOOL_RESULT_CHARS,
        time_zone: None,
        max_concurrent_tools: None,
        prompt_tool_mode: false,
        tools_supported: true,
        missing_id_strategy: MissingIdStrategy::default(),
        tool_choice: ToolChoice::Auto,
        max_retries: RetryPolicy::default().max_retries,
        roots: None,
    };
    for (key, value) in object::<E>(value, "struct AgentOptions")? {
        known_member::<E>(&key, AGENT_OPTIONS)?;
        match key.as_str() {
            "provider" => provider = Some(ProviderConfig::from_json(value)?),
            "mcpServers" => options.mcp_servers = list(value, Ok)?,
            "maxRounds" => options.max_rounds = unsigned(value, "u32")?,
            "answerAfterMaxRounds" => options.answer_after_max_rounds = boolean(value)?,
            "systemPrompt" => options.system_prompt = optional(value, string)?,
            "toolPrompt" => options.tool_prompt = boolean(value)?,
            "allowInsecureLocalUrls" => options.allow_insecure_local_urls = boolean(value)?,
            "toolTimeoutMs" => options.tool_timeout_ms = unsigned(value, "u64")?,
            "idleTimeoutMs" => options.idle_timeout_ms = unsigned(value, "u64")?,
            "maxToolResultChars" => options.max_tool_result_chars = unsigned(value, "usize")?,
            "timeZone" => options.time_zone = optional(value, string)?,
            "maxConcurrentTools" => {
                options.max_concurrent_tools = optional(value, |n| unsigned(n, "usize"))?;
            }
            "promptToolMode" => options.prompt_tool_mode = boolean(value)?,
            "toolsSupported" => options.tools_supported = boolean(value)?,
            "missingIdStrategy" => {
                options.missing_id_strategy =
                    named(value, MissingIdStrategy::NAMES, &MissingIdStrategy::ALL)?;
            }
            "toolChoice" => options.tool_choice = ToolChoice::from_json(value)?,
            "maxRetries" => options.max_retries = unsigned(value, "u32")?,
            "roots" => options.roots = Some(roots_list(value).map_err(E::custom)?),
            // Read from the JS object by `Agent::new`, with its own messages: JSON loses functions.
            "approveToolCall" | "approveSampling" | "onElicitation" | "onNotification"
            | "tools" => {}
            _ => {} // refused by `known_member` above
        }
    }
    options.provider = provider.ok_or_else(|| E::missing_field("provider"))?;
    Ok(options)
}
