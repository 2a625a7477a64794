//! OpenAI Chat Completions chunks (`chat.completion.chunk`) and the compatible servers' variants
//! (DeepSeek, xAI, Groq, Mistral, OpenRouter, Gemini's and Anthropic's OpenAI layers, vLLM…).
//!
//! Only choice 0 is followed (a request with `n > 1` interleaves choices). Reasoning comes as
//! `reasoning_content` (DeepSeek, xAI), `reasoning` (OpenRouter, Ollama /v1) or `reasoning_text`;
//! the first non-empty one of a delta is taken, since some servers send the same text twice.
//! OpenRouter also sends `reasoning_details`, the blocks it must get back unchanged with the
//! answer on the next request: they are joined (see [`join_reasoning_details`]) and given as one
//! event when the body ends, their text having come as `reasoning` already.
//!
//! Almost every chunk has one common shape (text, reasoning or argument pieces), and it is read
//! by a scanner that walks the payload in place and skips the members not needed, which costs
//! far less than building a `Value` tree. Any chunk outside that shape (content parts, whole
//! arguments, usage, errors, unexpected types, invalid JSON) goes through the general `Value`
//! reading, which stays the reference: both give the same events wherever the scanner answers.

use serde_json::Value;

use super::json_scan::JsonScanner;
use super::usage::openai_usage;

use super::{non_empty_str, normalise_finish, parse_object, provider_error, ModelEvent};
use crate::core::json_read::member_at;
use crate::core::model_event::{ArgumentsDelta, FinishReason, ToolCallDelta};

const REASONING_KEYS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

#[derive(Debug, Default)]
pub(super) struct OpenAiChatParser {
    done: bool,
    saw_tool_call: bool,
    reasoning_details: Vec<Value>,
}

impl OpenAiChatParser {
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn parse(&mut self, payload: &str, out: &mut Vec<ModelEvent>) {
        if self.done {
            return;
        }
        if payload.trim() == "[DONE]" {
            self.done = true;
            return;
        }
        match common_chunk(payload) {
            Some(chunk) => self.push_common(chunk, out),
            None => self.parse_value(payload, out),
        }
    }

    /// The body ended: the reasoning details kept, if any.
    pub(super) fn finish(&mut self, out: &mut Vec<ModelEvent>) {
        if !self.reasoning_details.is_empty() {
            out.push(ModelEvent::ReasoningDetails(std::mem::take(
                &mut self.reasoning_details,
            )));
        }
    }

    /// The general reading, through a `Value` tree.
    fn parse_value(&mut self, payload: &str, out: &mut Vec<ModelEvent>) {
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
            .or_else(|| member_at(Some(&chunk), "x_groq.usage"));
        if let Some(usage) = usage.filter(|usage| usage.is_object()) {
            out.push(ModelEvent::Usage(openai_usage(usage)));
        }
    }

    /// The events of a chunk of the common shape, in the order [`Self::parse_choice`] gives them.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn push_common(&mut self, chunk: CommonChunk, out: &mut Vec<ModelEvent>) {
        let Some(choice) = chunk.first_choice else {
            return;
        };
        if let Some(delta) = choice.delta {
            let reasoning = [
                delta.reasoning_content,
                delta.reasoning,
                delta.reasoning_text,
            ]
            .into_iter()
            .flatten()
            .find(|text| !text.is_empty());
            if let Some(reasoning) = reasoning {
                out.push(ModelEvent::ReasoningDelta(reasoning));
            }
            for text in [delta.content, delta.refusal].into_iter().flatten() {
                if !text.is_empty() {
                    out.push(ModelEvent::TextDelta(text));
                }
            }
            for call in delta.tool_calls {
                self.saw_tool_call = true;
                out.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                    index: call.index.and_then(|index| u32::try_from(index).ok()),
                    id: call.id.filter(|id| !id.is_empty()),
                    name: call.name.filter(|name| !name.is_empty()),
                    arguments: call.arguments.map(ArgumentsDelta::Fragment),
                    thought_signature: None,
                }));
            }
        }
        if let Some(reason) = choice.finish_reason.filter(|reason| !reason.is_empty()) {
            self.push_finish(&reason, out);
        }
    }

    fn parse_choice(&mut self, choice: &Value, out: &mut Vec<ModelEvent>) {
        if let Some(delta) = choice.get("delta").filter(|delta| delta.is_object()) {
            if let Some(Value::Array(pieces)) = delta.get("reasoning_details") {
                join_reasoning_details(&mut self.reasoning_details, pieces);
            }
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
            self.push_finish(reason, out);
        }
    }

    fn push_finish(&self, reason: &str, out: &mut Vec<ModelEvent>) {
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

/// A chunk of the common shape.
#[derive(Default)]
struct CommonChunk {
    /// The first choice with index 0 (or none); the others are read and dropped, so that a
    /// chunk costs no list of choices.
    first_choice: Option<CommonChoice>,
}

#[derive(Default)]
struct CommonChoice {
    index: Option<u64>,
    delta: Option<CommonDelta>,
    finish_reason: Option<String>,
}

#[derive(Default)]
struct CommonDelta {
    content: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    reasoning_text: Option<String>,
    refusal: Option<String>,
    tool_calls: Vec<CommonToolCall>,
}

#[derive(Default)]
struct CommonToolCall {
    index: Option<u64>,
    id: Option<String>,
    name: Option<String>,
    arguments: Option<String>,
}

/// The payload read as a chunk of the common shape, or `None` when it is not one: a member
/// that only the `Value` reading handles (`usage`, `error`, Groq's `x_groq`, Gemini's
/// `extra_content`) that is not `null`, a known member twice or of another type, or anything the
/// scanner leaves to serde_json.
#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn common_chunk(payload: &str) -> Option<CommonChunk> {
    let mut json = JsonScanner::new(payload);
    let mut chunk = CommonChunk::default();
    read_object(&mut json, |json, key, seen| match key {
        "choices" => {
            first_time(seen, 0)?;
            read_array(json, |json| {
                let choice = read_choice(json)?;
                if chunk.first_choice.is_none() && choice.index.unwrap_or(0) == 0 {
                    chunk.first_choice = Some(choice);
                }
                Some(())
            })
        }
        "usage" | "error" | "x_groq" => json.null()?.then_some(()),
        _ => json.skip_value(),
    })?;
    json.at_end().then_some(chunk)
}

#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn read_choice(json: &mut JsonScanner) -> Option<CommonChoice> {
    let mut choice = CommonChoice::default();
    read_object(json, |json, key, seen| match key {
        "index" => {
            first_time(seen, 0)?;
            choice.index = optional_unsigned(json)?;
            Some(())
        }
        "delta" => {
            first_time(seen, 1)?;
            if !json.null()? {
                choice.delta = Some(read_delta(json)?);
            }
            Some(())
        }
        "finish_reason" => {
            first_time(seen, 2)?;
            choice.finish_reason = optional_string(json)?;
            Some(())
        }
        _ => json.skip_value(),
    })?;
    Some(choice)
}

#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn read_delta(json: &mut JsonScanner) -> Option<CommonDelta> {
    let mut delta = CommonDelta::default();
    read_object(json, |json, key, seen| {
        let (bit, text) = match key {
            "content" => (0, &mut delta.content),
            "reasoning_content" => (1, &mut delta.reasoning_content),
            "reasoning" => (2, &mut delta.reasoning),
            "reasoning_text" => (3, &mut delta.reasoning_text),
            "refusal" => (4, &mut delta.refusal),
            "tool_calls" => {
                first_time(seen, 5)?;
                return read_array(json, |json| {
                    delta.tool_calls.push(read_tool_call(json)?);
                    Some(())
                });
            }
            // OpenRouter's reasoning pieces: rare enough for the `Value` reading.
            "reasoning_details" => return json.null()?.then_some(()),
            _ => return json.skip_value(),
        };
        first_time(seen, bit)?;
        *text = optional_string(json)?;
        Some(())
    })?;
    Some(delta)
}

#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn read_tool_call(json: &mut JsonScanner) -> Option<CommonToolCall> {
    let mut call = CommonToolCall::default();
    read_object(json, |json, key, seen| match key {
        "index" => {
            first_time(seen, 0)?;
            call.index = optional_unsigned(json)?;
            Some(())
        }
        "id" => {
            first_time(seen, 1)?;
            call.id = optional_string(json)?;
            Some(())
        }
        "function" => {
            first_time(seen, 2)?;
            if json.null()? {
                return Some(());
            }
            read_object(json, |json, key, seen| match key {
                "name" => {
                    first_time(seen, 0)?;
                    call.name = optional_string(json)?;
                    Some(())
                }
                "arguments" => {
                    first_time(seen, 1)?;
                    call.arguments = optional_string(json)?;
                    Some(())
                }
                _ => json.skip_value(),
            })
        }
        "extra_content" => json.null()?.then_some(()),
        _ => json.skip_value(),
    })?;
    Some(call)
}

/// Reads an object, handing each member's key to `member`, which must consume its value.
/// `seen` lets `member` refuse a known key given twice (the `Value` reading keeps the last).
#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn read_object(
    json: &mut JsonScanner,
    mut member: impl FnMut(&mut JsonScanner, &str, &mut u8) -> Option<()>,
) -> Option<()> {
    json.begin_object()?;
    let mut first = true;
    let mut seen = 0;
    while let Some(key) = json.next_key(&mut first)? {
        member(json, &key, &mut seen)?;
    }
    Some(())
}

/// Reads an array of objects, each by `element`; `null` counts as empty.
#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn read_array(
    json: &mut JsonScanner,
    mut element: impl FnMut(&mut JsonScanner) -> Option<()>,
) -> Option<()> {
    if json.null()? {
        return Some(());
    }
    json.begin_array()?;
    let mut first = true;
    while json.next_element(&mut first)? {
        element(json)?;
    }
    Some(())
}

#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn first_time(seen: &mut u8, bit: u8) -> Option<()> {
    let mask = 1 << bit;
    let first = *seen & mask == 0;
    *seen |= mask;
    first.then_some(())
}

#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn optional_string(json: &mut JsonScanner) -> Option<Option<String>> {
    if json.null()? {
        return Some(None);
    }
    json.string().map(|text| Some(text.into_owned()))
}

#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn optional_unsigned(json: &mut JsonScanner) -> Option<Option<u64>> {
    if json.null()? {
        return Some(None);
    }
    json.unsigned().map(Some)
}

/// Joins OpenRouter's `reasoning_details` pieces to the details `kept`, each to the one it
/// continues: the last of its `type` and `index`. A `reasoning.text` or `reasoning.summary` detail
/// streams in such pieces (Claude's text, then its signature alone), joined as
/// @openrouter/ai-sdk-provider's `doStream` joins them: the text appended, any other member taken
/// where the detail has none yet. An encrypted detail comes whole, so one of the same index is
/// another detail.
pub(crate) fn join_reasoning_details(kept: &mut Vec<Value>, pieces: &[Value]) {
    for piece in pieces {
        let Value::Object(members) = piece else {
            continue;
        };
        let text_key = match members.get("type").and_then(Value::as_str) {
            Some("reasoning.text") => "text",
            Some("reasoning.summary") => "summary",
            _ => "",
        };
        let continued = kept.iter_mut().rev().find(|detail| {
            !text_key.is_empty()
                && detail.get("type") == members.get("type")
                && detail.get("index") == members.get("index")
        });
        let Some(Value::Object(detail)) = continued else {
            kept.push(piece.clone());
            continue;
        };
        for (key, value) in members {
            match (detail.get_mut(key), value) {
                (Some(Value::String(text)), Value::String(more)) if key == text_key => {
                    text.push_str(more)
                }
                (None | Some(Value::Null), value) => {
                    detail.insert(key.clone(), value.clone());
                }
                _ => {}
            }
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
        thought_signature: thought_signature_of(call),
    }
}

/// The signature Gemini's OpenAI-compatible endpoint attaches to a tool call, to be sent back
/// with it.
pub(crate) fn thought_signature_of(call: &Value) -> Option<String> {
    member_at(Some(call), "extra_content.google.thought_signature")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every captured OpenAI-compatible stream in `../shared/fixtures` (see its README for where
    /// each came from), read at compile time: `.chunks.txt` holds one payload a line, `.sse` is a
    /// whole body.
    const FIXTURES: [(&str, &str); 10] = [
        (
            "openai/multiple-choices.sse",
            include_str!("../../../../shared/fixtures/openai/multiple-choices.sse"),
        ),
        (
            "openai/parallel-tool-calls.sse",
            include_str!("../../../../shared/fixtures/openai/parallel-tool-calls.sse"),
        ),
        (
            "openai/text.chunks.txt",
            include_str!("../../../../shared/fixtures/openai/text.chunks.txt"),
        ),
        (
            "openai-compatible/anthropic-compat-index-starts-at-1.sse",
            include_str!("../../../../shared/fixtures/openai-compatible/anthropic-compat-index-starts-at-1.sse"),
        ),
        (
            "openai-compatible/deepseek-reasoner-tool-call.chunks.txt",
            include_str!("../../../../shared/fixtures/openai-compatible/deepseek-reasoner-tool-call.chunks.txt"),
        ),
        (
            "openai-compatible/deepseek-reasoning.chunks.txt",
            include_str!("../../../../shared/fixtures/openai-compatible/deepseek-reasoning.chunks.txt"),
        ),
        (
            "openai-compatible/groq-tool-call.chunks.txt",
            include_str!("../../../../shared/fixtures/openai-compatible/groq-tool-call.chunks.txt"),
        ),
        (
            "openai-compatible/mistral-incremental-tool-call.chunks.txt",
            include_str!("../../../../shared/fixtures/openai-compatible/mistral-incremental-tool-call.chunks.txt"),
        ),
        (
            "openai-compatible/mistral-tool-call.chunks.txt",
            include_str!("../../../../shared/fixtures/openai-compatible/mistral-tool-call.chunks.txt"),
        ),
        (
            "openai-compatible/xai-tool-call.chunks.txt",
            include_str!("../../../../shared/fixtures/openai-compatible/xai-tool-call.chunks.txt"),
        ),
    ];

    fn fixture_payloads() -> Vec<(&'static str, Vec<String>)> {
        FIXTURES
            .iter()
            .map(|(name, text)| {
                let payloads = if name.ends_with(".sse") {
                    text.lines()
                        .filter_map(|line| line.strip_prefix("data:"))
                        .map(|data| data.trim_start().to_owned())
                        .collect()
                } else {
                    text.lines().map(str::to_owned).collect()
                };
                (*name, payloads)
            })
            .collect()
    }

    /// Payloads around the edges of the common shape: each must give the same events either way.
    const EDGE_PAYLOADS: [&str; 31] = [
        r#"{"id":"\ud800","choices":[{"delta":{"content":"lone surrogate elsewhere"}}]}"#,
        r#"{"created":1e400,"choices":[{"delta":{"content":"number out of range elsewhere"}}]}"#,
        r#"{"created":1.5e3,"choices":[{"delta":{"content":"exponent elsewhere"}}]}"#,
        r#"{"choices":[{"delta":{"content":"trailing"}}]} x"#,
        " \r\n{\"choices\":[{\"delta\":{\"content\":\"spaced\"}}]}\t",
        r#"{"choices":[{"delta":{"content":"\ud83d\ude00 pair"},"finish_reason":"tool_calls"}]}"#,
        r#"{"id":"\x","choices":[{"delta":{"content":"bad escape elsewhere"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"a\nb \"q\" \u00e9"}}]}"#,
        r#"{"choices":[{"delta":{"content":""},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":1,"delta":{"content":"second choice"}},{"index":0,"delta":{"content":"first"}}]}"#,
        r#"{"choices":[{"index":0.0,"delta":{"content":"float index"}}]}"#,
        r#"{"choices":[{"index":-1,"delta":{"content":"negative index"}}]}"#,
        r#"{"choices":[{"index":0,"delta":[1,2]}]}"#,
        r#"{"choices":[[0,{"content":"positional"}]]}"#,
        r#"{"choices":{"index":0}}"#,
        r#"{"choices":null,"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
        r#"{"choices":[],"usage":null}"#,
        r#"{"choices":[{"delta":{"content":[{"type":"text","text":"part"}]}}]}"#,
        r#"{"choices":[{"delta":{"content":"x","content":"duplicate"}}]}"#,
        r#"{"choices":[{"delta":{"reasoning_content":"","reasoning":"second key"}}]}"#,
        r#"{"choices":[{"delta":{"reasoning":{"text":"object"}}}]}"#,
        r#"{"choices":[{"delta":{"refusal":"no"},"finish_reason":"content_filter"}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"","function":{"name":"f","arguments":""}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":4294967296,"function":{"arguments":"{"}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":{"a":1}}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"function":"f"}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"id":"c","extra_content":{"google":{"thought_signature":"s"}}}]}}]}"#,
        r#"{"choices":[{"finish_reason":"stop"}],"x_groq":{"usage":{"prompt_tokens":1}}}"#,
        r#"{"error":{"message":"overloaded","type":"server_error"}}"#,
        r#"[{"choices":[]}]"#,
        r#"{"choices":[{"delta":{"content":"cut"#,
    ];

    /// Events of each payload, read as the parser does (common shape first) and through the
    /// `Value` reading only.
    fn both_readings(payloads: &[String]) -> (Vec<Vec<ModelEvent>>, Vec<Vec<ModelEvent>>, usize) {
        let mut parser = OpenAiChatParser::default();
        let mut reference = OpenAiChatParser::default();
        let (mut parsed, mut referenced, mut common) = (Vec::new(), Vec::new(), 0);
        for payload in payloads.iter().filter(|payload| payload.trim() != "[DONE]") {
            common += usize::from(common_chunk(payload).is_some());
            let mut events = Vec::new();
            parser.parse(payload, &mut events);
            parsed.push(events);
            let mut events = Vec::new();
            reference.parse_value(payload, &mut events);
            referenced.push(events);
        }
        (parsed, referenced, common)
    }

    #[test]
    fn common_shape_gives_the_value_readings_events_on_every_fixture() {
        for (name, payloads) in fixture_payloads() {
            let (parsed, referenced, common) = both_readings(&payloads);
            assert_eq!(parsed, referenced, "{name}");
            // The fast reading is the point: all but a stream's first and last chunks fit it.
            assert!(
                common + 3 >= parsed.len(),
                "{name}: {common} of {}",
                parsed.len()
            );
        }
    }

    #[test]
    fn common_shape_gives_the_value_readings_events_at_its_edges() {
        for payload in EDGE_PAYLOADS {
            let (parsed, referenced, _) = both_readings(&[payload.to_owned()]);
            assert_eq!(parsed, referenced, "{payload}");
        }
    }

    /// The details each reading keeps from `payloads`, given when the body ends.
    fn kept_details(payloads: &[&str], common_first: bool) -> Vec<ModelEvent> {
        let mut parser = OpenAiChatParser::default();
        let mut events = Vec::new();
        for payload in payloads {
            if common_first {
                parser.parse(payload, &mut events);
            } else {
                parser.parse_value(payload, &mut events);
            }
        }
        events.clear();
        parser.finish(&mut events);
        events
    }

    /// OpenRouter's `reasoning_details` pieces (its "Reasoning Tokens" docs; the shapes
    /// @openrouter/ai-sdk-provider's `doStream` joins) are kept alike by both readings: a chunk
    /// that carries some is left to the `Value` reading, one whose member is `null` is not.
    #[test]
    fn reasoning_details_are_joined_alike_by_both_readings() {
        let detail = |details: &str| {
            format!(
                r#"{{"choices":[{{"index":0,"delta":{{"content":"","reasoning_details":{details}}}}}]}}"#
            )
        };
        let payloads = [
            detail(r#"[{"type":"reasoning.text","text":"Two","format":"anthropic-claude-v1","index":0}]"#),
            detail(r#"[{"type":"reasoning.text","text":" cities.","signature":null,"index":0}]"#),
            detail(r#"[{"type":"reasoning.text","signature":"EqQB","format":"anthropic-claude-v1","index":0}]"#),
            detail(r#"[{"type":"reasoning.summary","summary":"**Plan","index":1},{"type":"reasoning.summary","summary":"**","index":1}]"#),
            detail(r#"[{"type":"reasoning.encrypted","data":"gAAA","id":"call_1","index":2}]"#),
            detail(r#"[{"type":"reasoning.encrypted","data":"gBBB","id":"call_2","index":2}]"#),
            detail(r#"[{"type":"reasoning.text","text":"Next.","index":3},"not an object",7]"#),
            detail(r#"[{"type":"reasoning.text","text":" More.","index":3}]"#),
            detail(r#"[{"type":"reasoning.unknown","text":"x"},{"type":"reasoning.unknown","text":"y"}]"#),
            detail("null"),
            detail(r#"{"type":"reasoning.text","text":"not a list"}"#),
            r#"{"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.text","text":"dropped"}],"reasoning_details":[]}}]}"#.to_owned(),
        ];
        let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
        assert!(common_chunk(payloads[0]).is_none());
        assert!(common_chunk(payloads[9]).is_some());
        let kept = kept_details(&payloads, true);
        assert_eq!(kept, kept_details(&payloads, false));
        let [ModelEvent::ReasoningDetails(details)] = &kept[..] else {
            panic!("one event: {kept:?}");
        };
        assert_eq!(
            Value::Array(details.clone()),
            serde_json::json!([
                {"type": "reasoning.text", "text": "Two cities.", "format": "anthropic-claude-v1",
                 "index": 0, "signature": "EqQB"},
                {"type": "reasoning.summary", "summary": "**Plan**", "index": 1},
                {"type": "reasoning.encrypted", "data": "gAAA", "id": "call_1", "index": 2},
                {"type": "reasoning.encrypted", "data": "gBBB", "id": "call_2", "index": 2},
                {"type": "reasoning.text", "text": "Next. More.", "index": 3},
                {"type": "reasoning.unknown", "text": "x"},
                {"type": "reasoning.unknown", "text": "y"},
            ])
        );
        assert_eq!(kept_details(&[payloads[9]], true), Vec::new());
    }

    #[test]
    fn payloads_outside_the_common_shape_are_left_to_the_value_reading() {
        let outside = [
            r#"{"choices":[{"delta":{"content":[{"type":"text","text":"part"}]}}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1}}"#,
            r#"{"error":{"message":"overloaded"}}"#,
            r#"{"choices":[{"delta":[1,2]}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":{}}}]}}]}"#,
            r#"[{"choices":[]}]"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"extra_content":{}}]}}]}"#,
            r#"{"choices":[{"index":0,"index":0}]}"#,
            "not json",
        ];
        for payload in outside {
            assert!(common_chunk(payload).is_none(), "{payload}");
        }
        let inside = r#"{"id":"x","choices":[{"index":0,"delta":{"content":"hi"},"logprobs":null}],"usage":null}"#;
        assert!(common_chunk(inside).is_some());
    }
}
