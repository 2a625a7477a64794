//! Gemini `streamGenerateContent?alt=sse` responses.
//!
//! Parts carry text, thoughts (`thought: true`) and function calls. A call arrives either whole
//! (`args` object) or, on Gemini 3 with streamed arguments, as a start (`name`, `willContinue`),
//! then `partialArgs` pieces addressed by `jsonPath` with typed values (a string value may be
//! continued over several pieces), then a piece without `willContinue` (usually `{}`). The
//! parser rebuilds the object and emits it as [`ArgumentsDelta::Whole`] when the call ends; a
//! call the body leaves unfinished is [`ArgumentsDelta::Truncated`].
//!
//! Gemini calls have no id (the assembler makes one) and no index: the parser numbers them.
//! `thoughtSignature` on a call goes with the call; on any other part it is emitted as a
//! [`ModelEvent::TextSignature`], to be echoed back on the turn's text.

use serde_json::{Map, Value};

use super::usage::gemini_usage;
use super::{invalid_payload, non_empty_str, normalise_finish, parse_object, provider_error};
use crate::core::json_read::member_at;
use crate::core::model_event::{ArgumentsDelta, FinishReason, ModelEvent, ToolCallDelta, Usage};
use crate::core::text::parse_unsigned;

/// Far beyond any real argument array; stops a hostile path from allocating a huge one.
const MAX_ARRAY_INDEX: usize = 4096;
/// Far beyond any real argument nesting; a deeper value could overflow the stack when dropped.
const MAX_PATH_DEPTH: usize = 64;

#[derive(Debug, Default)]
pub(super) struct GeminiParser {
    calls_started: u32,
    streamed_call: Option<StreamedCall>,
    last_usage: Option<Usage>,
}

#[derive(Debug)]
struct StreamedCall {
    index: u32,
    arguments: Value,
    /// The path whose string value the previous piece said it would continue.
    continued_path: Option<String>,
}

impl GeminiParser {
    pub(super) fn parse(&mut self, payload: &str, out: &mut Vec<ModelEvent>) {
        let Some(response) = parse_object(payload, out) else {
            return;
        };
        if let Some(error) = response.get("error") {
            out.push(provider_error(error));
            return;
        }
        let candidate = response
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|candidates| {
                candidates.iter().find(|candidate| {
                    candidate.get("index").and_then(Value::as_u64).unwrap_or(0) == 0
                })
            });
        if let Some(candidate) = candidate {
            let parts = member_at(Some(candidate), "content.parts").and_then(Value::as_array);
            for part in parts.map(Vec::as_slice).unwrap_or_default() {
                self.parse_part(part, payload, out);
            }
            if let Some(reason) = non_empty_str(candidate, "finishReason") {
                out.push(ModelEvent::Finish(normalise_finish(
                    finish_reason(reason),
                    self.calls_started > 0,
                )));
            }
        } else if member_at(Some(&response), "promptFeedback.blockReason").is_some() {
            out.push(ModelEvent::Finish(FinishReason::ContentFilter));
        }
        if let Some(usage) = response.get("usageMetadata").filter(|usage| {
            usage.get("promptTokenCount").is_some() || usage.get("candidatesTokenCount").is_some()
        }) {
            let usage = gemini_usage(usage);
            if self.last_usage != Some(usage) {
                self.last_usage = Some(usage);
                out.push(ModelEvent::Usage(usage));
            }
        }
    }

    /// A call still streaming when the body ends is truncated; what arrived of it is kept as its
    /// raw arguments.
    pub(super) fn finish(&mut self, out: &mut Vec<ModelEvent>) {
        if let Some(call) = self.streamed_call.take() {
            let index = Some(call.index);
            for arguments in [
                ArgumentsDelta::Whole(call.arguments),
                ArgumentsDelta::Truncated,
            ] {
                out.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                    index,
                    arguments: Some(arguments),
                    ..ToolCallDelta::default()
                }));
            }
        }
    }

    fn parse_part(&mut self, part: &Value, payload: &str, out: &mut Vec<ModelEvent>) {
        let signature = non_empty_str(part, "thoughtSignature").map(str::to_owned);
        if let Some(call) = part.get("functionCall") {
            self.parse_function_call(call, signature, payload, out);
            return;
        }
        if let Some(text) = non_empty_str(part, "text") {
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                out.push(ModelEvent::ReasoningDelta(text.to_owned()));
            } else {
                out.push(ModelEvent::TextDelta(text.to_owned()));
            }
        }
        if let Some(signature) = signature {
            out.push(ModelEvent::TextSignature(signature));
        }
    }

    fn parse_function_call(
        &mut self,
        call: &Value,
        thought_signature: Option<String>,
        payload: &str,
        out: &mut Vec<ModelEvent>,
    ) {
        let will_continue = call.get("willContinue").and_then(Value::as_bool) == Some(true);
        let whole_arguments = call.get("args").filter(|args| !args.is_null());
        if let Some(name) = non_empty_str(call, "name") {
            self.end_streamed_call(out);
            let index = self.calls_started;
            self.calls_started += 1;
            let streamed = will_continue && whole_arguments.is_none();
            out.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                index: Some(index),
                id: non_empty_str(call, "id").map(str::to_owned),
                name: Some(name.to_owned()),
                arguments: match whole_arguments {
                    Some(args) => Some(ArgumentsDelta::Whole(args.clone())),
                    None if streamed => None,
                    None => Some(ArgumentsDelta::Whole(Value::Object(Map::new()))),
                },
                thought_signature,
            }));
            if streamed {
                self.streamed_call = Some(StreamedCall {
                    index,
                    arguments: Value::Object(Map::new()),
                    continued_path: None,
                });
                self.apply_partial_arguments(call, payload, out);
            }
            return;
        }
        let Some(streamed_call) = &self.streamed_call else {
            return;
        };
        if thought_signature.is_some() {
            out.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                index: Some(streamed_call.index),
                thought_signature,
                ..ToolCallDelta::default()
            }));
        }
        self.apply_partial_arguments(call, payload, out);
        if !will_continue {
            self.end_streamed_call(out);
        }
    }

    fn apply_partial_arguments(&mut self, call: &Value, payload: &str, out: &mut Vec<ModelEvent>) {
        let Some(streamed_call) = &mut self.streamed_call else {
            return;
        };
        let pieces = call.get("partialArgs").and_then(Value::as_array);
        for piece in pieces.map(Vec::as_slice).unwrap_or_default() {
            if apply_piece(streamed_call, piece).is_none() {
                out.push(invalid_payload(
                    "unusable partial argument in a streamed function call",
                    payload,
                ));
            }
        }
    }

    fn end_streamed_call(&mut self, out: &mut Vec<ModelEvent>) {
        if let Some(call) = self.streamed_call.take() {
            out.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                index: Some(call.index),
                arguments: Some(ArgumentsDelta::Whole(call.arguments)),
                ..ToolCallDelta::default()
            }));
        }
    }
}

/// Applies one `partialArgs` piece; `None` when its path or value is unusable.
fn apply_piece(call: &mut StreamedCall, piece: &Value) -> Option<()> {
    let path = piece.get("jsonPath").and_then(Value::as_str)?;
    let segments = parse_json_path(path)?;
    let continues = piece.get("willContinue").and_then(Value::as_bool) == Some(true);
    let slot = slot_at_path(&mut call.arguments, &segments)?;
    if let Some(text) = piece.get("stringValue").and_then(Value::as_str) {
        match slot {
            Value::String(existing) if call.continued_path.as_deref() == Some(path) => {
                existing.push_str(text);
            }
            _ => *slot = Value::String(text.to_owned()),
        }
    } else if let Some(number) = piece.get("numberValue").filter(|value| value.is_number()) {
        *slot = number.clone();
    } else if let Some(flag) = piece.get("boolValue").filter(|value| value.is_boolean()) {
        *slot = flag.clone();
    } else if piece.get("nullValue").is_some() {
        *slot = Value::Null;
    } else {
        return None;
    }
    call.continued_path = continues.then(|| path.to_owned());
    Some(())
}

#[derive(Debug, PartialEq)]
enum PathSegment {
    Key(String),
    Index(usize),
}

/// Parses the JSONPath subset Gemini uses: `$`, `.name`, `['name']`, `["name"]`, `[3]`.
fn parse_json_path(path: &str) -> Option<Vec<PathSegment>> {
    let mut rest = path.strip_prefix('$')?;
    let mut segments = Vec::new();
    while !rest.is_empty() {
        if segments.len() == MAX_PATH_DEPTH {
            return None;
        }
        if let Some(after_dot) = rest.strip_prefix('.') {
            let end = after_dot.find(['.', '[']).unwrap_or(after_dot.len());
            if end == 0 {
                return None;
            }
            segments.push(PathSegment::Key(after_dot[..end].to_owned()));
            rest = &after_dot[end..];
        } else if let Some(inside) = rest.strip_prefix('[') {
            let quote = inside.chars().next().filter(|c| *c == '\'' || *c == '"');
            if let Some(quote) = quote {
                let quoted = &inside[1..];
                let end = quoted.find(quote)?;
                segments.push(PathSegment::Key(quoted[..end].to_owned()));
                rest = quoted[end + 1..].strip_prefix(']')?;
            } else {
                let end = inside.find(']')?;
                let index: usize = parse_unsigned(&inside[..end], 10)?;
                if index > MAX_ARRAY_INDEX {
                    return None;
                }
                segments.push(PathSegment::Index(index));
                rest = &inside[end + 1..];
            }
        } else {
            return None;
        }
    }
    Some(segments)
}

/// The value at `segments` under `root`, creating objects, arrays and null slots on the way.
/// `None` when the path runs through a value of another kind.
fn slot_at_path<'a>(root: &'a mut Value, segments: &[PathSegment]) -> Option<&'a mut Value> {
    let mut current = root;
    for segment in segments {
        current = match segment {
            PathSegment::Key(key) => {
                if current.is_null() {
                    *current = Value::Object(Map::new());
                }
                current
                    .as_object_mut()?
                    .entry(key.clone())
                    .or_insert(Value::Null)
            }
            PathSegment::Index(index) => {
                if current.is_null() {
                    *current = Value::Array(Vec::new());
                }
                let array = current.as_array_mut()?;
                if array.len() <= *index {
                    array.resize(index + 1, Value::Null);
                }
                &mut array[*index]
            }
        };
    }
    Some(current)
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "STOP" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            FinishReason::ContentFilter
        }
        other => FinishReason::Other(other.to_owned()),
    }
}
