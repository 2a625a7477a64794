//! Anthropic Messages stream events.
//!
//! The payload's own `type` decides (the SSE event name is only a fallback). Thinking blocks are
//! kept whole for the next turn: their text as reasoning deltas, then their `signature`;
//! `redacted_thinking` data is passed through. A `tool_use` block that never got its
//! `content_block_stop` (the response hit `max_tokens`) is reported with
//! [`ArgumentsDelta::Truncated`] at `message_stop` or at the end of the body.

use serde_json::Value;

use super::usage::update_anthropic_usage;
use super::{non_empty_str, normalise_finish, parse_object, provider_error};
use crate::core::json_read::member_at;
use crate::core::model_event::{ArgumentsDelta, FinishReason, ModelEvent, ToolCallDelta, Usage};

#[derive(Debug, Default)]
pub(super) struct AnthropicParser {
    /// Content block indexes of `tool_use` blocks started and not yet stopped.
    open_tool_blocks: Vec<u32>,
    /// Input tokens come in `message_start`, output tokens later in `message_delta`.
    usage: Usage,
    saw_tool_call: bool,
}

impl AnthropicParser {
    pub(super) fn parse(&mut self, event_type: &str, payload: &str, out: &mut Vec<ModelEvent>) {
        let Some(event) = parse_object(payload, out) else {
            return;
        };
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event_type);
        match kind {
            "message_start" => {
                if let Some(usage) = member_at(Some(&event), "message.usage") {
                    update_anthropic_usage(&mut self.usage, usage);
                    out.push(ModelEvent::Usage(self.usage));
                }
            }
            "content_block_start" => self.start_block(&event, out),
            "content_block_delta" => self.block_delta(&event, out),
            "content_block_stop" => {
                let index = block_index(&event);
                self.open_tool_blocks.retain(|&open| Some(open) != index);
            }
            "message_delta" => {
                let reason = member_at(Some(&event), "delta.stop_reason").and_then(Value::as_str);
                if let Some(reason) = reason {
                    out.push(ModelEvent::Finish(normalise_finish(
                        finish_reason(reason),
                        self.saw_tool_call,
                    )));
                }
                if let Some(usage) = event.get("usage") {
                    update_anthropic_usage(&mut self.usage, usage);
                    out.push(ModelEvent::Usage(self.usage));
                }
            }
            "message_stop" => self.truncate_open_calls(out),
            "error" => out.push(provider_error(event.get("error").unwrap_or(&event))),
            _ => {}
        }
    }

    pub(super) fn finish(&mut self, out: &mut Vec<ModelEvent>) {
        self.truncate_open_calls(out);
    }

    fn truncate_open_calls(&mut self, out: &mut Vec<ModelEvent>) {
        for index in self.open_tool_blocks.drain(..) {
            out.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                index: Some(index),
                arguments: Some(ArgumentsDelta::Truncated),
                ..ToolCallDelta::default()
            }));
        }
    }

    fn start_block(&mut self, event: &Value, out: &mut Vec<ModelEvent>) {
        let Some(block) = event.get("content_block") else {
            return;
        };
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(text) = non_empty_str(block, "text") {
                    out.push(ModelEvent::TextDelta(text.to_owned()));
                }
            }
            Some("thinking") => {
                if let Some(thinking) = non_empty_str(block, "thinking") {
                    out.push(ModelEvent::ReasoningDelta(thinking.to_owned()));
                }
                if let Some(signature) = non_empty_str(block, "signature") {
                    out.push(ModelEvent::ReasoningSignature(signature.to_owned()));
                }
            }
            Some("redacted_thinking") => {
                if let Some(data) = non_empty_str(block, "data") {
                    out.push(ModelEvent::RedactedReasoning(data.to_owned()));
                }
            }
            Some("tool_use") => {
                let index = block_index(event);
                if let Some(index) = index {
                    self.open_tool_blocks.push(index);
                }
                self.saw_tool_call = true;
                let input = block
                    .get("input")
                    .filter(|input| input.as_object().is_some_and(|input| !input.is_empty()));
                out.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                    index,
                    id: non_empty_str(block, "id").map(str::to_owned),
                    name: non_empty_str(block, "name").map(str::to_owned),
                    arguments: input.map(|input| ArgumentsDelta::Whole(input.clone())),
                    thought_signature: None,
                }));
            }
            _ => {}
        }
    }

    fn block_delta(&mut self, event: &Value, out: &mut Vec<ModelEvent>) {
        let Some(delta) = event.get("delta") else {
            return;
        };
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                if let Some(text) = non_empty_str(delta, "text") {
                    out.push(ModelEvent::TextDelta(text.to_owned()));
                }
            }
            Some("thinking_delta") => {
                if let Some(thinking) = non_empty_str(delta, "thinking") {
                    out.push(ModelEvent::ReasoningDelta(thinking.to_owned()));
                }
            }
            Some("signature_delta") => {
                if let Some(signature) = non_empty_str(delta, "signature") {
                    out.push(ModelEvent::ReasoningSignature(signature.to_owned()));
                }
            }
            Some("input_json_delta") => {
                let index = block_index(event);
                if index.is_some_and(|index| self.open_tool_blocks.contains(&index)) {
                    let fragment = delta
                        .get("partial_json")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    out.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                        index,
                        arguments: Some(ArgumentsDelta::Fragment(fragment.to_owned())),
                        ..ToolCallDelta::default()
                    }));
                }
            }
            _ => {}
        }
    }
}

fn block_index(event: &Value) -> Option<u32> {
    event
        .get("index")
        .and_then(Value::as_u64)
        .and_then(|index| u32::try_from(index).ok())
}

/// A `stop_reason` of the Messages API, streamed or in a whole response.
pub(crate) fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        // `pause_turn`: a long-running server tool paused the turn; the answer so far stands, as
        // the AI SDK's Anthropic provider names it.
        "end_turn" | "stop_sequence" | "pause_turn" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        // The answer reached the model's context window: cut as by `max_tokens`.
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "refusal" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}
