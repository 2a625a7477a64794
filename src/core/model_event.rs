//! The one vocabulary every provider stream parser produces, whatever the wire format.
//!
//! Parsers turn bytes into [`ModelEvent`]s; the tool-call assembler turns
//! [`ToolCallDelta`]s into whole calls; the agent loop consumes both.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One thing a streaming model response said.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    /// A piece of the answer text.
    TextDelta(String),
    /// A piece of reasoning ("thinking") text, kept apart from the answer.
    ReasoningDelta(String),
    /// Anthropic: the signature closing the current thinking block, to echo back with it.
    ReasoningSignature(String),
    /// Gemini: the `thoughtSignature` of a part that is not a call (text, or an empty part
    /// closing the answer), echoed on the turn's text.
    TextSignature(String),
    /// Anthropic: a `redacted_thinking` block's opaque data, echoed back verbatim.
    RedactedReasoning(String),
    /// The Responses API: a reasoning item's encrypted content, closing the reasoning since the
    /// last one; the item goes back with it on the next request.
    EncryptedReasoning(String),
    /// OpenRouter: the answer's `reasoning_details` (objects), each detail's streamed pieces
    /// joined, to go back unchanged on the next request.
    ReasoningDetails(Vec<Value>),
    /// A fragment of a tool call.
    ToolCallDelta(ToolCallDelta),
    /// Why the model stopped.
    Finish(FinishReason),
    /// Token counts reported by the provider (possibly partial; later reports replace earlier).
    Usage(Usage),
    /// An error the provider reported inside the stream.
    Error(ProviderStreamError),
}

/// Queues `event`, appending it to the last queued event instead when both are pieces of the same
/// thing: of the answer text, of the reasoning, or of one call's arguments (a piece that names no
/// id, name or signature goes to the same call as the piece before it at the same index, so the
/// assembler gets the same text). Fed the events decoded from one network read, the queue holds
/// one text event where the read carried many SSE events: the loop, the event channel and the
/// page then handle one piece per read rather than one per token, and nothing waits for the
/// merge, since those pieces arrived together. Holding a round's events until its stream ends,
/// the queue keeps a call's arguments as one string, not as an event per piece (a model that
/// streams them a character at a time made each character cost about a hundred bytes). Other
/// events, and the order of everything, stay as they were.
#[cfg_attr(optimize_hot_paths, optimize(speed))]
pub fn queue_merging_pieces(queue: &mut VecDeque<ModelEvent>, event: ModelEvent) {
    match (queue.back_mut(), event) {
        (Some(ModelEvent::TextDelta(text)), ModelEvent::TextDelta(piece))
        | (Some(ModelEvent::ReasoningDelta(text)), ModelEvent::ReasoningDelta(piece)) => {
            text.push_str(&piece)
        }
        (Some(ModelEvent::ToolCallDelta(queued)), ModelEvent::ToolCallDelta(delta))
            if queued.index == delta.index
                && queued.is_bare_fragment()
                && delta.is_bare_fragment() =>
        {
            if let (Some(ArgumentsDelta::Fragment(text)), Some(ArgumentsDelta::Fragment(piece))) =
                (&mut queued.arguments, &delta.arguments)
            {
                text.push_str(piece);
            }
        }
        (_, event) => queue.push_back(event),
    }
}

/// A fragment of one tool call, as a provider streamed it. Every field is optional because
/// providers differ in what they repeat on continuation chunks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCallDelta {
    /// Position of the call in the response, when the provider sends one.
    pub index: Option<u32>,
    pub id: Option<String>,
    /// The function name; an empty string counts as absent.
    pub name: Option<String>,
    pub arguments: Option<ArgumentsDelta>,
    /// Gemini's thought signature for this call.
    pub thought_signature: Option<String>,
}

impl ToolCallDelta {
    /// Only a piece of arguments text: no id, name or signature that could start or name a call
    /// (an empty id or name counts as none, as in the assembler).
    fn is_bare_fragment(&self) -> bool {
        self.id.as_deref().is_none_or(str::is_empty)
            && self.name.as_deref().is_none_or(str::is_empty)
            && self.thought_signature.is_none()
            && matches!(self.arguments, Some(ArgumentsDelta::Fragment(_)))
    }
}

/// Arguments as a provider sends them.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgumentsDelta {
    /// A piece of a JSON text, to be concatenated with the pieces before it.
    Fragment(String),
    /// A whole arguments value (Ollama native, Gemini `args`), replacing anything before it.
    Whole(Value),
    /// The response ended before this call was complete (Anthropic: no `content_block_stop`
    /// for the tool block, typically at `max_tokens`). The call must not run: the assembler turns
    /// it into a call whose `arguments` is an error saying so.
    Truncated,
}

/// Why a model stopped generating, normalised across providers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FinishReason {
    /// A natural end (`stop`, `end_turn`, Gemini `STOP`).
    Stop,
    /// The model asked for tools (`tool_calls`, `tool_use`).
    ToolCalls,
    /// The output token limit was reached (`length`, `max_tokens`, `MAX_TOKENS`).
    Length,
    /// A safety or content filter stopped the output.
    ContentFilter,
    /// Any other reason, as the provider spelled it.
    Other(String),
}

impl FinishReason {
    /// The AI SDK's name for it (`finishReason`), which pages coming from it test against.
    pub fn name(&self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::ToolCalls => "tool-calls",
            FinishReason::Length => "length",
            FinishReason::ContentFilter => "content-filter",
            FinishReason::Other(_) => "other",
        }
    }
}

/// Token counts for one model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of the input, tokens read from the provider's prompt cache (billed lower), when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// Of the output, reasoning tokens, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}

impl Usage {
    /// Both calls' counts summed, saturating (the counts come from the provider, and must not be
    /// able to panic the loop); a part count is reported when either call reported it.
    pub fn plus(self, other: Usage) -> Usage {
        let part = |mine: Option<u64>, theirs: Option<u64>| match (mine, theirs) {
            (None, None) => None,
            _ => Some(mine.unwrap_or(0).saturating_add(theirs.unwrap_or(0))),
        };
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            cached_input_tokens: part(self.cached_input_tokens, other.cached_input_tokens),
            reasoning_tokens: part(self.reasoning_tokens, other.reasoning_tokens),
        }
    }
}

/// An error reported by the provider inside a stream (not an HTTP error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderStreamError {
    /// The provider's own code or type (`overloaded_error`, `429`, …), when it sent one.
    pub code: Option<String>,
    pub message: String,
}
