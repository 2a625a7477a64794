//! OpenAI Chat Completions chunks (`chat.completion.chunk`) and the compatible servers' variants
//! (DeepSeek, xAI, Groq, Mistral, OpenRouter, Gemini's and Anthropic's OpenAI layers, vLLM…).
//!
//! Only choice 0 is followed (a request with `n > 1` interleaves choices). Reasoning comes as
//! `reasoning_content` (DeepSeek, xAI), `reasoning` (OpenRouter, Ollama /v1) or `reasoning_text`;
//! the first non-empty one of a delta is taken, since some servers send the same text twice.

use serde_json::Value;

use super::{
    non_empty_str, normalise_finish, parse_object, provider_error, token_count, ModelEvent,
};
use crate::core::model_event::{ArgumentsDelta, FinishReason, ToolCallDelta, Usage};

const REASONING_KEYS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

#[derive(Debug, Default)]
pub(super) struct OpenAiChatParser {
    done: bool,
    saw_tool_call: bool,
}

impl OpenAiChatParser {
    pub(super) fn parse(&mut self, payload: &str, out: &mut Vec<ModelEvent>) {
        if self.done {
            return;
        }
        if payload.trim() == "[DONE]" {
            self.done = true;
            return;
        }
        let Some(chunk) = parse_object(payload, out) else {
            return;
        };
        if let Some(error) = chunk.get("error").filter(|error| !error.is_null()) {
            out.push(provider_error(error));
            return;
        }
        if let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| {
                choices
                    .iter()
                    .find(|choice| choice.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
            })
        {
            self.parse_choice(choice, out);
        }
        let usage = chunk
            .get("usage")
            .filter(|usage| usage.is_object())
            .or_else(|| chunk.pointer("/x_groq/usage"));
        if let Some(usage) = usage.filter(|usage| usage.is_object()) {
            out.push(ModelEvent::Usage(usage_of(usage)));
        }
    }

    fn parse_choice(&mut self, choice: &Value, out: &mut Vec<ModelEvent>) {
        if let Some(delta) = choice.get("delta").filter(|delta| delta.is_object()) {
            if let Some(reasoning) = REASONING_KEYS
                .iter()
                .find_map(|key| non_empty_str(delta, key))
            {
                out.push(ModelEvent::ReasoningDelta(reasoning.to_owned()));
            }
            match delta.get("content") {
                Some(Value::String(text)) if !text.is_empty() => {
                    out.push(ModelEvent::TextDelta(text.clone()));
                }
                Some(Value::Array(parts)) => push_content_parts(parts, out),
                _ => {}
            }
            if let Some(refusal) = non_empty_str(delta, "refusal") {
                out.push(ModelEvent::TextDelta(refusal.to_owned()));
            }
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                for call in calls {
                    self.saw_tool_call = true;
                    out.push(ModelEvent::ToolCallDelta(tool_call_delta(call)));
                }
            }
        }
        if let Some(reason) = non_empty_str(choice, "finish_reason") {
            let reason = match reason {
                "stop" => FinishReason::Stop,
                "length" => FinishReason::Length,
                "tool_calls" | "function_call" => FinishReason::ToolCalls,
                "content_filter" => FinishReason::ContentFilter,
                other => FinishReason::Other(other.to_owned()),
            };
            out.push(ModelEvent::Finish(normalise_finish(
                reason,
                self.saw_tool_call,
            )));
        }
    }
}

/// Content as an array of parts: text parts are answer text; Mistral's `thinking` parts (a list
/// of text chunks) and `reasoning` parts are reasoning.
fn push_content_parts(parts: &[Value], out: &mut Vec<ModelEvent>) {
    for part in parts {
        match part.get("type").and_then(Value::as_str) {
            Some("text") | None => {
                if let Some(text) = non_empty_str(part, "text") {
                    out.push(ModelEvent::TextDelta(text.to_owned()));
                }
            }
            Some("thinking") | Some("reasoning") => {
                let kind = part.get("type").and_then(Value::as_str).unwrap_or_default();
                let reasoning = match part.get(kind).or_else(|| part.get("text")) {
                    Some(Value::String(text)) => text.clone(),
                    Some(Value::Array(chunks)) => chunks
                        .iter()
                        .filter_map(|chunk| chunk.get("text").and_then(Value::as_str))
                        .collect(),
                    _ => String::new(),
                };
                if !reasoning.is_empty() {
                    out.push(ModelEvent::ReasoningDelta(reasoning));
                }
            }
            Some(_) => {}
        }
    }
}

fn tool_call_delta(call: &Value) -> ToolCallDelta {
    let function = call.get("function");
    let arguments = match function.and_then(|function| function.get("arguments")) {
        Some(Value::String(fragment)) => Some(ArgumentsDelta::Fragment(fragment.clone())),
        Some(Value::Null) | None => None,
        Some(whole) => Some(ArgumentsDelta::Whole(whole.clone())),
    };
    ToolCallDelta {
        index: call
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|index| u32::try_from(index).ok()),
        id: non_empty_str(call, "id").map(str::to_owned),
        name: function
            .and_then(|function| non_empty_str(function, "name"))
            .map(str::to_owned),
        arguments,
        thought_signature: call
            .pointer("/extra_content/google/thought_signature")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// Output tokens include reasoning tokens. OpenAI and DeepSeek count them in
/// `completion_tokens` already; xAI does not, which shows in `total_tokens` being the sum of all
/// three, and then they are added.
fn usage_of(usage: &Value) -> Usage {
    let input_tokens = token_count(usage, "prompt_tokens");
    let completion_tokens = token_count(usage, "completion_tokens");
    let reasoning_tokens = usage
        .get("completion_tokens_details")
        .map_or(0, |details| token_count(details, "reasoning_tokens"));
    let total_tokens = token_count(usage, "total_tokens");
    let reasoning_counted_apart = reasoning_tokens > 0
        && total_tokens
            == input_tokens
                .saturating_add(completion_tokens)
                .saturating_add(reasoning_tokens);
    Usage {
        input_tokens,
        output_tokens: if reasoning_counted_apart {
            completion_tokens.saturating_add(reasoning_tokens)
        } else {
            completion_tokens
        },
    }
}
