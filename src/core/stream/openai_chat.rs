//! OpenAI Chat Completions chunks (`chat.completion.chunk`) and the compatible servers' variants
//! (DeepSeek, xAI, Groq, Mistral, OpenRouter, Gemini's and Anthropic's OpenAI layers, vLLM…).
//!
//! Only choice 0 is followed (a request with `n > 1` interleaves choices). Reasoning comes as
//! `reasoning_content` (DeepSeek, xAI), `reasoning` (OpenRouter, Ollama /v1) or `reasoning_text`;
//! the first non-empty one of a delta is taken, since some servers send the same text twice.
//!
//! Almost every chunk has one common shape (text, reasoning or argument pieces), and it is read
//! into the typed structs below: members not needed are skipped, not built, which halves the
//! cost of a chunk against a `Value` tree. Any chunk outside that shape (content parts, whole
//! arguments, usage, errors, unexpected types, invalid JSON) goes through the general `Value`
//! reading, which stays the reference: both give the same events where both apply, with one
//! exception: a member that is skipped is checked as JSON but a lone UTF-16 surrogate escape in
//! it (`"\ud800"`) is not refused, so such a chunk still gives its events.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
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
        match common_chunk(payload) {
            Some(chunk) => self.push_common(chunk, out),
            None => self.parse_value(payload, out),
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
            .or_else(|| chunk.pointer("/x_groq/usage"));
        if let Some(usage) = usage.filter(|usage| usage.is_object()) {
            out.push(ModelEvent::Usage(usage_of(usage)));
        }
    }

    /// The events of a chunk of the common shape, in the order [`Self::parse_choice`] gives them.
    fn push_common(&mut self, chunk: CommonChunk, out: &mut Vec<ModelEvent>) {
        let Some(ObjectOnly(choice)) = chunk
            .choices
            .into_iter()
            .flatten()
            .find(|ObjectOnly(choice)| choice.index.unwrap_or(0) == 0)
        else {
            return;
        };
        if let Some(ObjectOnly(delta)) = choice.delta {
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
            for ObjectOnly(call) in delta.tool_calls.into_iter().flatten() {
                self.saw_tool_call = true;
                let (name, arguments) = match call.function {
                    Some(ObjectOnly(function)) => (function.name, function.arguments),
                    None => (None, None),
                };
                out.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                    index: call.index.and_then(|index| u32::try_from(index).ok()),
                    id: call.id.filter(|id| !id.is_empty()),
                    name: name.filter(|name| !name.is_empty()),
                    arguments: arguments.map(ArgumentsDelta::Fragment),
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

/// A chunk of the common shape. Members that only the `Value` reading handles (`usage`, `error`,
/// Groq's `x_groq`) are only noted, so that such a chunk can be handed over to it.
#[derive(Deserialize)]
struct CommonChunk {
    choices: Option<Vec<ObjectOnly<CommonChoice>>>,
    usage: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
    x_groq: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct CommonChoice {
    index: Option<u64>,
    delta: Option<ObjectOnly<CommonDelta>>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct CommonDelta {
    content: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    reasoning_text: Option<String>,
    refusal: Option<String>,
    tool_calls: Option<Vec<ObjectOnly<CommonToolCall>>>,
}

#[derive(Deserialize)]
struct CommonToolCall {
    index: Option<u64>,
    id: Option<String>,
    function: Option<ObjectOnly<CommonFunction>>,
    /// Gemini's thought signature lives here: such a call is left to the `Value` reading.
    extra_content: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct CommonFunction {
    name: Option<String>,
    arguments: Option<String>,
}

/// The payload read as a chunk of the common shape, or `None` when it is not one.
fn common_chunk(payload: &str) -> Option<CommonChunk> {
    let ObjectOnly(chunk) = serde_json::from_str::<ObjectOnly<CommonChunk>>(payload).ok()?;
    let only_common = chunk.usage.is_none()
        && chunk.error.is_none()
        && chunk.x_groq.is_none()
        && chunk.choices.iter().flatten().all(|ObjectOnly(choice)| {
            choice.delta.as_ref().is_none_or(|ObjectOnly(delta)| {
                delta
                    .tool_calls
                    .iter()
                    .flatten()
                    .all(|ObjectOnly(call)| call.extra_content.is_none())
            })
        });
    only_common.then_some(chunk)
}

/// A struct read from a JSON object only. Derived structs also accept an array of their fields
/// in order, where the `Value` reading sees no object and ignores the member.
struct ObjectOnly<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = T;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }

        deserializer
            .deserialize_map(ObjectVisitor(PhantomData))
            .map(ObjectOnly)
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
    let reasoning_counted_apart =
        reasoning_tokens > 0 && total_tokens == input_tokens + completion_tokens + reasoning_tokens;
    Usage {
        input_tokens,
        output_tokens: if reasoning_counted_apart {
            completion_tokens + reasoning_tokens
        } else {
            completion_tokens
        },
    }
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
    const EDGE_PAYLOADS: [&str; 25] = [
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

    #[test]
    fn a_lone_surrogate_in_a_skipped_member_does_not_lose_the_chunk() {
        let payload = r#"{"id":"\ud800","choices":[{"delta":{"content":"kept"}}]}"#;
        let (parsed, referenced, _) = both_readings(&[payload.to_owned()]);
        assert_eq!(parsed, [[ModelEvent::TextDelta("kept".to_owned())]]);
        assert!(matches!(referenced[0][..], [ModelEvent::Error(_)]));
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
            "not json",
        ];
        for payload in outside {
            assert!(common_chunk(payload).is_none(), "{payload}");
        }
        let inside = r#"{"id":"x","choices":[{"index":0,"delta":{"content":"hi"},"logprobs":null}],"usage":null}"#;
        assert!(common_chunk(inside).is_some());
    }
}
