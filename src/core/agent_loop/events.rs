//! The vocabulary of the agent loop: its configuration, the actions it asks the driver to
//! perform, the events it reports to the user, and its final outcome.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::core::json_read::deserialize_named;
use crate::core::message::ChatMessage;
use crate::core::model_event::Usage;

/// How the loop works around calls that arrived without an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum MissingIdStrategy {
    /// Use ids made up by the loop (unique within the run).
    #[default]
    Synthesize,
    /// Ask for the same round again without streaming (chat-ui's approach), then make up ids
    /// only if that answer lacks them too. The re-request starts no new round and its text is
    /// shown only if it turns out to be the final answer (the streamed try was already shown).
    ReRequestWithoutStreaming,
}

impl MissingIdStrategy {
    /// The names JSON writes, in the order of [`MissingIdStrategy::ALL`].
    pub const NAMES: &'static [&'static str] = &["synthesize", "reRequestWithoutStreaming"];
    pub const ALL: [MissingIdStrategy; 2] = [
        MissingIdStrategy::Synthesize,
        MissingIdStrategy::ReRequestWithoutStreaming,
    ];
}

impl<'de> Deserialize<'de> for MissingIdStrategy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_named(deserializer, Self::NAMES, &Self::ALL)
    }
}

/// What a run may do. Time zone and "now" are already part of `system_prompt`: the loop never
/// reads a clock.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopConfig {
    /// Tool rounds allowed before one last call without tools (which ends as `exhausted`).
    /// 0 offers no tools at all: the run is a plain generation.
    pub max_rounds: u32,
    /// False: the run ends after its last allowed tool round, with the results and without the
    /// last call (as the AI SDK's `stopWhen: stepCountIs(n)`), reason `exhausted`, no text.
    pub answer_after_max_rounds: bool,
    /// The system prompt as composed by the caller (tool preamble included).
    pub system_prompt: Option<String>,
    /// False for a model marked as not supporting native function calling.
    pub tools_supported: bool,
    /// Opt-in: describe the tools in the system prompt and parse calls from the answer text,
    /// for models without native function calling. Takes precedence over `tools_supported`.
    pub prompt_tool_mode: bool,
    pub missing_id_strategy: MissingIdStrategy,
    /// The provider shows the model images in tool results (Anthropic, Gemini 3): a result's
    /// image blocks go into its tool message as image parts, after the text.
    pub images_in_tool_results: bool,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            max_rounds: 10,
            answer_after_max_rounds: true,
            system_prompt: None,
            tools_supported: true,
            prompt_tool_mode: false,
            missing_id_strategy: MissingIdStrategy::default(),
            images_in_tool_results: false,
        }
    }
}

/// Work the driver must do, in the order [`super::AgentLoop::poll`] hands it out.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Start a model call; feed its events back, then `handle_model_done` or `handle_model_failed`.
    CallModel(ModelRequest),
    /// Stop the model call in flight; feed nothing more from it.
    CancelModel,
    /// Run all these calls concurrently; feed each outcome back as it comes.
    CallTools(Vec<ToolInvocation>),
    /// Stop these calls in flight (by call id); their outcomes are no longer wanted.
    CancelTools(Vec<String>),
    /// Show this to the user.
    Emit(AgentEvent),
    /// The run is over; nothing follows.
    Finish(Outcome),
}

/// One model call as the provider request builder needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// The whole conversation to send, the system prompt first when there is one.
    pub messages: Vec<ChatMessage>,
    /// Whether to send the tool list (`tool_choice: auto`).
    pub with_tools: bool,
    /// False only for the re-request asked by [`MissingIdStrategy::ReRequestWithoutStreaming`].
    pub stream: bool,
    /// The round this call belongs to (1-based); retries of a round keep its number.
    pub round: u32,
}

/// One valid call, ready for the MCP server that owns the tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInvocation {
    pub call_id: String,
    pub function_name: String,
    pub server: String,
    pub tool: String,
    pub arguments: Value,
}

/// What an MCP `tools/call` returned.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The result as text for the model.
    pub text: String,
    /// The MCP content blocks, for the UI.
    pub content: Vec<Value>,
    pub structured_content: Option<Value>,
    /// The server's `isError`: the tool ran and reported a failure.
    pub is_error: bool,
}

/// A tool result, or why the call could not be made at all (transport, timeout, JSON-RPC error)
/// or gave no usable result.
pub type ToolOutcome = Result<ToolResult, ToolFailure>;

/// Why a call gave no result: `message` for the model (`Error: <message>`) and the page, and a
/// stable `code` for the page when the failure has one (an MCP client error's).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFailure {
    pub code: Option<&'static str>,
    pub message: String,
}

impl From<String> for ToolFailure {
    fn from(message: String) -> Self {
        ToolFailure {
            code: None,
            message,
        }
    }
}

/// A model call that failed for good (the driver has already decided against retrying).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFailure {
    /// A stable code from the layer that failed (`provider_http_status`, `provider_network`, …).
    pub code: String,
    pub message: String,
}

/// Why a run ended normally, as the `final` event says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FinalReason {
    /// The model answered without calling tools.
    Completed,
    /// The round cap was reached; the answer comes from one last call without tools, or there
    /// is none (`answer_after_max_rounds: false`).
    Exhausted,
    /// The user aborted.
    Aborted,
}

/// What the user sees, in order. Serialized, this is the JS event union of the public API.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum AgentEvent {
    /// A round (one model call and the tools it asked for) starts.
    Round { round: u32 },
    /// A piece of the answer text.
    Text { text: String },
    /// A piece of the model's reasoning.
    Reasoning { text: String },
    /// The model called a tool. `server` is empty for an unknown function name.
    ToolCall {
        id: String,
        name: String,
        server: String,
        tool: String,
        arguments: Value,
    },
    /// A streamed call, once the model has named it, under the id its `ToolCall` will carry.
    /// Only the driver emits this and `ToolInputDelta`, from the stream as it comes: the loop
    /// sees a round's calls when the answer is complete.
    ToolInputStart { id: String, name: String },
    /// Arguments text a streamed call received (the AI SDK's `tool-input-delta`).
    ToolInputDelta { id: String, delta: String },
    /// A call shown by `ToolInputStart` whose stream was cut: the answer is asked for again,
    /// and no `ToolCall` follows under this id unless the new answer starts it again.
    ToolInputDiscarded { id: String },
    /// Expected duration of a call. The loop knows no durations: only the driver emits this.
    ToolEta { id: String, eta_ms: u64 },
    ToolProgress {
        id: String,
        progress: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    ToolResult {
        id: String,
        text: String,
        content: Vec<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        structured_content: Option<Value>,
        is_error: bool,
    },
    /// The call was not made or did not complete; the model is told `Error: <message>`.
    ToolError {
        id: String,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<&'static str>,
    },
    /// Tokens used so far in the run (summed over model calls).
    Usage(Usage),
    Final {
        text: String,
        reason: FinalReason,
        messages: Vec<ChatMessage>,
        /// Why the run's last finished model call stopped, in the AI SDK's names: a `length`
        /// answer was cut by the token limit, a `content-filter` one by the provider's filter.
        #[serde(skip_serializing_if = "Option::is_none")]
        finish_reason: Option<&'static str>,
    },
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum OutcomeReason {
    Completed,
    Exhausted,
    Aborted,
    /// A model call failed; `code` is the failing layer's stable code.
    Failed {
        code: String,
        message: String,
    },
}

/// The end of a run. `messages` is always the full conversation (the caller's messages and
/// everything the run added), and always complete: every assistant tool call has its result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub reason: OutcomeReason,
    pub messages: Vec<ChatMessage>,
    /// The final answer text (for an abort, the text of the interrupted round).
    pub text: String,
    pub usage: Usage,
}
