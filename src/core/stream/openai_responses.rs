//! OpenAI's Responses API (`POST /responses`): its streamed events and its whole response.
//!
//! A stream is typed events, one per SSE payload; the payload's `type` decides (some compatible
//! servers send no `event:` line). Text comes in `response.output_text.delta` (and a refusal in
//! `response.refusal.delta`, the model's answer too), reasoning in
//! `response.reasoning_summary_text.delta` or, from open-weight models,
//! `response.reasoning_text.delta`; its parts are set apart by a blank line. A function call is
//! announced by `response.output_item.added` (the call id is the item's `call_id`, not its `id`),
//! its arguments follow in `response.function_call_arguments.delta`, and
//! `response.output_item.done` closes it. A done item whose content never came in deltas (some
//! servers send only done items) gives its content then. A done `reasoning` item's
//! `encrypted_content` closes the reasoning before it ([`ModelEvent::EncryptedReasoning`]), echoed
//! back as a reasoning input item. A call never closed when the response ends is
//! [`ArgumentsDelta::Truncated`]. The stream ends with `response.completed`, `response.incomplete`
//! (why: `incomplete_details.reason`) or `response.failed`.
//!
//! Field names checked against OpenAI's API reference ("Streaming events" of Responses) and the
//! captured streams of vercel/ai (`packages/openai/src/responses/__fixtures__/*.chunks.txt`).

use serde_json::Value;

use super::usage::responses_usage;
use super::{non_empty_str, normalise_finish, parse_object, provider_error};
use crate::core::json_read::member_at;
use crate::core::json_text::to_json_text;
use crate::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ProviderStreamError, ToolCallDelta,
};

/// Reads a Responses API stream, one typed event per SSE payload.
#[derive(Debug, Default)]
pub(crate) struct ResponsesParser {
    /// Output indexes of the items whose content came in deltas: their done item repeats it.
    streamed_items: Vec<u32>,
    /// Output indexes of the function calls announced (added, or done without being added).
    calls: Vec<u32>,
    /// Output indexes of the function calls added whose done item has not come.
    open_calls: Vec<u32>,
    reasoning: ReasoningParts,
    /// An `error` event came: the `response.failed` after it reports the same failure.
    reported_error: bool,
}

impl ResponsesParser {
    /// Kept out of `Parser::parse`, which is compiled for speed: reading each payload into a
    /// `Value` costs far more time than this code, which would cost the wasm 0.5 KB gzip there.
    #[inline(never)]
    pub(crate) fn parse(&mut self, payload: &str, out: &mut Vec<ModelEvent>) {
        // Gateways copying Chat Completions have ended Responses streams with it too (bifrost
        // did until its pull request #1000).
        if payload.trim() == "[DONE]" {
            return;
        }
        let Some(event) = parse_object(payload, out) else {
            return;
        };
        let index = output_index(&event);
        let delta = non_empty_str(&event, "delta");
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "response.output_text.delta" | "response.refusal.delta" => {
                if let Some(delta) = delta {
                    self.mark_streamed(index);
                    out.push(ModelEvent::TextDelta(delta.to_owned()));
                }
            }
            kind @ ("response.reasoning_summary_text.delta" | "response.reasoning_text.delta") => {
                if let Some(delta) = delta {
                    let summary = kind == "response.reasoning_summary_text.delta";
                    let part_key = if summary {
                        "summary_index"
                    } else {
                        "content_index"
                    };
                    let part = event.get(part_key).and_then(Value::as_u64).unwrap_or(0);
                    self.mark_streamed(index);
                    self.reasoning.push((index, part, summary), delta, out);
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(delta) = delta.filter(|_| self.open_calls.contains(&index)) {
                    self.mark_streamed(index);
                    out.push(arguments_delta(
                        index,
                        ArgumentsDelta::Fragment(delta.to_owned()),
                    ));
                }
            }
            "response.output_item.added" => {
                if let Some(item) = event.get("item") {
                    self.item_added(index, item, out);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = event.get("item") {
                    self.item_done(index, item, out);
                }
            }
            kind @ ("response.completed" | "response.incomplete") => {
                self.truncate_open_calls(out);
                let response = event.get("response").unwrap_or(&Value::Null);
                let reason = if kind == "response.completed" {
                    FinishReason::Stop
                } else {
                    incomplete_reason(response)
                };
                let saw_tool_call = !self.calls.is_empty();
                out.push(ModelEvent::Finish(normalise_finish(reason, saw_tool_call)));
                push_usage(response, out);
            }
            "response.failed" => {
                self.truncate_open_calls(out);
                if !self.reported_error {
                    let response = event.get("response").unwrap_or(&Value::Null);
                    out.push(failure(response.get("error").unwrap_or(&Value::Null)));
                }
            }
            "error" => {
                self.reported_error = true;
                out.push(error_event(&event));
            }
            _ => {}
        }
    }

    pub(crate) fn finish(&mut self, out: &mut Vec<ModelEvent>) {
        self.truncate_open_calls(out);
    }

    fn mark_streamed(&mut self, index: u32) {
        if !self.streamed_items.contains(&index) {
            self.streamed_items.push(index);
        }
    }

    fn item_added(&mut self, index: u32, item: &Value, out: &mut Vec<ModelEvent>) {
        if item.get("type").and_then(Value::as_str) != Some("function_call")
            || self.calls.contains(&index)
        {
            return;
        }
        self.calls.push(index);
        self.open_calls.push(index);
        let call = call_delta(index, item);
        if call.arguments.is_some() {
            self.mark_streamed(index);
        }
        out.push(ModelEvent::ToolCallDelta(call));
    }

    fn item_done(&mut self, index: u32, item: &Value, out: &mut Vec<ModelEvent>) {
        let streamed = self.streamed_items.contains(&index);
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                if let Some(position) = self.open_calls.iter().position(|open| *open == index) {
                    self.open_calls.remove(position);
                    if !streamed {
                        if let Some(arguments) = non_empty_str(item, "arguments") {
                            out.push(arguments_delta(
                                index,
                                ArgumentsDelta::Fragment(arguments.to_owned()),
                            ));
                        }
                    }
                } else if !self.calls.contains(&index) {
                    self.calls.push(index);
                    out.push(ModelEvent::ToolCallDelta(call_delta(index, item)));
                }
            }
            Some("reasoning") => {
                if !streamed {
                    self.reasoning.push_item(index, item, out);
                }
                push_encrypted_reasoning(item, out);
            }
            Some("message") if !streamed => push_message_text(item, out),
            _ => {}
        }
    }

    fn truncate_open_calls(&mut self, out: &mut Vec<ModelEvent>) {
        for index in self.open_calls.drain(..) {
            out.push(arguments_delta(index, ArgumentsDelta::Truncated));
        }
    }
}

/// Where the reasoning text last emitted belongs, so that a new part starts after a blank line
/// instead of running on from the one before.
#[derive(Debug, Default)]
struct ReasoningParts {
    /// Output index, part index, and whether the part is a summary (or raw reasoning text).
    current: Option<(u32, u64, bool)>,
}

impl ReasoningParts {
    fn push(&mut self, part: (u32, u64, bool), text: &str, out: &mut Vec<ModelEvent>) {
        if text.is_empty() {
            return;
        }
        let delta = match self.current {
            Some(current) if current != part => format!("\n\n{text}"),
            _ => text.to_owned(),
        };
        self.current = Some(part);
        out.push(ModelEvent::ReasoningDelta(delta));
    }

    /// A whole `reasoning` item's text: its summary parts, or when it has none its raw
    /// `reasoning_text` parts.
    fn push_item(&mut self, index: u32, item: &Value, out: &mut Vec<ModelEvent>) {
        let events_before = out.len();
        for (key, summary) in [("summary", true), ("content", false)] {
            let parts = item.get(key).and_then(Value::as_array);
            for (part, entry) in parts
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                if let Some(text) = entry.get("text").and_then(Value::as_str) {
                    self.push((index, part as u64, summary), text, out);
                }
            }
            if out.len() > events_before {
                return;
            }
        }
    }
}

/// A whole (non-streaming) Responses API body as the events its stream would give: the output
/// items in order, then the finish (by `status`) and the usage. A body with an `error` is that
/// error alone.
pub fn response_events(body: &Value) -> Result<Vec<ModelEvent>, String> {
    if let Some(error) = body.get("error").filter(|error| !error.is_null()) {
        return Ok(vec![failure(error)]);
    }
    let items = body
        .get("output")
        .and_then(Value::as_array)
        .ok_or("no `output` array in the response")?;
    let mut events = Vec::new();
    let mut reasoning = ReasoningParts::default();
    let mut index = 0u32;
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("reasoning") => {
                reasoning.push_item(index, item, &mut events);
                push_encrypted_reasoning(item, &mut events);
            }
            Some("message") => push_message_text(item, &mut events),
            Some("function_call") => {
                events.push(ModelEvent::ToolCallDelta(call_delta(index, item)));
            }
            _ => {}
        }
        index = index.saturating_add(1);
    }
    match body.get("status").and_then(Value::as_str) {
        Some("completed") => events.push(ModelEvent::Finish(FinishReason::Stop)),
        Some("incomplete") => events.push(ModelEvent::Finish(incomplete_reason(body))),
        Some("failed") => events.push(failure(&Value::Null)),
        Some(other) => events.push(ModelEvent::Finish(FinishReason::Other(other.to_owned()))),
        None => {}
    }
    push_usage(body, &mut events);
    Ok(events)
}

/// The item an event is about; one without `output_index` (no server seen omits it) counts as
/// the last index there is.
fn output_index(event: &Value) -> u32 {
    event
        .get("output_index")
        .and_then(Value::as_u64)
        .and_then(|index| u32::try_from(index).ok())
        .unwrap_or(u32::MAX)
}

/// A `function_call` item as a call: its `call_id` (the id its result answers), its name, and
/// its arguments when it has some.
fn call_delta(index: u32, item: &Value) -> ToolCallDelta {
    ToolCallDelta {
        index: Some(index),
        id: non_empty_str(item, "call_id").map(str::to_owned),
        name: non_empty_str(item, "name").map(str::to_owned),
        arguments: non_empty_str(item, "arguments")
            .map(|arguments| ArgumentsDelta::Fragment(arguments.to_owned())),
        thought_signature: None,
    }
}

fn arguments_delta(index: u32, arguments: ArgumentsDelta) -> ModelEvent {
    ModelEvent::ToolCallDelta(ToolCallDelta {
        index: Some(index),
        arguments: Some(arguments),
        ..ToolCallDelta::default()
    })
}

/// A `message` item's text parts and refusals, as answer text.
fn push_message_text(item: &Value, out: &mut Vec<ModelEvent>) {
    for part in item
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let key = match part.get("type").and_then(Value::as_str) {
            Some("output_text") => "text",
            Some("refusal") => "refusal",
            _ => continue,
        };
        if let Some(text) = non_empty_str(part, key) {
            out.push(ModelEvent::TextDelta(text.to_owned()));
        }
    }
}

fn push_encrypted_reasoning(item: &Value, out: &mut Vec<ModelEvent>) {
    if let Some(encrypted) = non_empty_str(item, "encrypted_content") {
        out.push(ModelEvent::EncryptedReasoning(encrypted.to_owned()));
    }
}

fn push_usage(response: &Value, out: &mut Vec<ModelEvent>) {
    if let Some(usage) = response.get("usage").filter(|usage| usage.is_object()) {
        out.push(ModelEvent::Usage(responses_usage(usage)));
    }
}

/// Why an incomplete response stopped, from its `incomplete_details.reason`.
fn incomplete_reason(response: &Value) -> FinishReason {
    let reason = member_at(Some(response), "incomplete_details.reason")
        .and_then(Value::as_str)
        .unwrap_or("incomplete");
    match reason {
        "max_output_tokens" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// A failed response's `error` (`{code, message}`), or a message saying it had none.
fn failure(error: &Value) -> ModelEvent {
    if error.is_null() {
        return ModelEvent::Error(ProviderStreamError {
            code: None,
            message: "the response failed without an error message".to_owned(),
        });
    }
    provider_error(error)
}

/// An `error` event: `{code, message, param}` on the event itself, or (as OpenAI sent it in
/// vercel/ai's capture `openai-error.1.chunks.txt`) inside an `error` object.
fn error_event(event: &Value) -> ModelEvent {
    if let Some(error) = event.get("error").filter(|error| error.is_object()) {
        return provider_error(error);
    }
    let code = match event.get("code") {
        Some(Value::String(code)) if !code.is_empty() => Some(code.clone()),
        Some(Value::Number(code)) => Some(code.to_string()),
        _ => None,
    };
    let message = non_empty_str(event, "message")
        .map(str::to_owned)
        .unwrap_or_else(|| to_json_text(event));
    ModelEvent::Error(ProviderStreamError { code, message })
}
