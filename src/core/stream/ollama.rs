//! Ollama's native `/api/chat` stream: one JSON object per line.
//!
//! Each tool call arrives whole, `arguments` being an object. Older servers send neither `id`
//! nor `function.index`, newer ones both; the parser numbers the calls itself (their order) so
//! two calls in separate lines never merge, and keeps the id when there is one.

use serde_json::Value;

use super::usage::ollama_usage;
use super::{non_empty_str, normalise_finish, parse_object, provider_error};
use crate::core::model_event::{ArgumentsDelta, FinishReason, ModelEvent, ToolCallDelta};

#[derive(Debug, Default)]
pub(super) struct OllamaParser {
    calls_seen: u32,
}

impl OllamaParser {
    pub(super) fn parse(&mut self, line: &str, out: &mut Vec<ModelEvent>) {
        let Some(chunk) = parse_object(line, out) else {
            return;
        };
        if let Some(error) = chunk.get("error") {
            out.push(provider_error(error));
            return;
        }
        if let Some(message) = chunk.get("message") {
            if let Some(thinking) = non_empty_str(message, "thinking") {
                out.push(ModelEvent::ReasoningDelta(thinking.to_owned()));
            }
            if let Some(content) = non_empty_str(message, "content") {
                out.push(ModelEvent::TextDelta(content.to_owned()));
            }
            let calls = message.get("tool_calls").and_then(Value::as_array);
            for call in calls.map(Vec::as_slice).unwrap_or_default() {
                out.push(ModelEvent::ToolCallDelta(self.tool_call(call)));
            }
        }
        if chunk.get("done").and_then(Value::as_bool) == Some(true) {
            out.push(ModelEvent::Usage(ollama_usage(&chunk)));
            let reason = match non_empty_str(&chunk, "done_reason").unwrap_or("stop") {
                "stop" => FinishReason::Stop,
                "length" => FinishReason::Length,
                other => FinishReason::Other(other.to_owned()),
            };
            out.push(ModelEvent::Finish(normalise_finish(
                reason,
                self.calls_seen > 0,
            )));
        }
    }

    fn tool_call(&mut self, call: &Value) -> ToolCallDelta {
        let index = self.calls_seen;
        self.calls_seen += 1;
        let function = call.get("function");
        let arguments = match function.and_then(|function| function.get("arguments")) {
            Some(Value::String(text)) => ArgumentsDelta::Fragment(text.clone()),
            Some(value) => ArgumentsDelta::Whole(value.clone()),
            None => ArgumentsDelta::Whole(Value::Null),
        };
        ToolCallDelta {
            index: Some(index),
            id: non_empty_str(call, "id").map(str::to_owned),
            name: function
                .and_then(|function| non_empty_str(function, "name"))
                .map(str::to_owned),
            arguments: Some(arguments),
            thought_signature: None,
        }
    }
}
