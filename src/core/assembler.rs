//! Whole tool calls out of streamed [`ToolCallDelta`]s, whatever the provider's habits.
//!
//! A delta belongs to the call with the same `id`; failing that, to the latest call at the same
//! `index` (unless that call already has a different id: some servers put every call at index
//! 0); failing that, to the latest call. Calls stay open until [`ToolCallAssembler::finish`]:
//! arguments that already parse may still be incomplete, so nothing is decided mid-stream.
//! A whole value followed by fragments was a placeholder (like Anthropic's `input: {}`): the
//! fragments win.

use serde_json::{Map, Value};

use super::json_read::json_kind;
use super::json_text::to_json_text;
use super::model_event::{ArgumentsDelta, ToolCallDelta};

/// A tool call assembled at the end of a model round.
#[derive(Debug, Clone, PartialEq)]
pub struct AssembledToolCall {
    pub id: String,
    /// True when the provider sent no id and this one was made up (unique within the round, and
    /// the same for the same deltas). A loop may re-request without streaming to get real ids.
    pub id_synthesized: bool,
    pub name: String,
    /// The arguments object, or a message saying why there is none (invalid JSON, not an object,
    /// truncated stream). Such a call is never dropped: the loop reports the message to the model.
    pub arguments: Result<Value, String>,
    /// The arguments text as received (for echoing the assistant message); `{}` when none came.
    pub raw_arguments: String,
    pub thought_signature: Option<String>,
}

#[derive(Debug, Default)]
enum ReceivedArguments {
    #[default]
    Nothing,
    Text(String),
    Value(Value),
}

#[derive(Debug, Default)]
struct OpenCall {
    index: Option<u32>,
    id: Option<String>,
    name: String,
    arguments: ReceivedArguments,
    truncated: bool,
    thought_signature: Option<String>,
}

/// Collects deltas for one model round. Calls are finalised only by [`ToolCallAssembler::finish`].
#[derive(Debug, Default)]
pub struct ToolCallAssembler {
    calls: Vec<OpenCall>,
}

impl ToolCallAssembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// True once any delta has been pushed this round.
    pub fn has_calls(&self) -> bool {
        !self.calls.is_empty()
    }

    pub fn push(&mut self, delta: &ToolCallDelta) {
        let given_id = delta.id.as_deref().filter(|id| !id.is_empty());
        let position = match self.find(given_id, delta.index) {
            Some(position) => position,
            None => {
                self.calls.push(OpenCall {
                    index: delta.index,
                    ..OpenCall::default()
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[position];
        if call.id.is_none() {
            call.id = given_id.map(str::to_owned);
        }
        if call.index.is_none() {
            call.index = delta.index;
        }
        if let Some(name) = delta.name.as_deref().filter(|name| !name.is_empty()) {
            name.clone_into(&mut call.name);
        }
        if let Some(signature) = delta.thought_signature.as_deref() {
            call.thought_signature = Some(signature.to_owned());
        }
        match &delta.arguments {
            Some(ArgumentsDelta::Fragment(fragment)) => match &mut call.arguments {
                ReceivedArguments::Text(text) => text.push_str(fragment),
                other => *other = ReceivedArguments::Text(fragment.clone()),
            },
            Some(ArgumentsDelta::Whole(value)) => {
                call.arguments = ReceivedArguments::Value(value.clone());
            }
            Some(ArgumentsDelta::Truncated) => call.truncated = true,
            None => {}
        }
    }

    fn find(&self, given_id: Option<&str>, index: Option<u32>) -> Option<usize> {
        if let Some(id) = given_id {
            let same_id = self
                .calls
                .iter()
                .position(|call| call.id.as_deref() == Some(id));
            if same_id.is_some() {
                return same_id;
            }
        }
        if let Some(index) = index {
            return self
                .calls
                .iter()
                .rposition(|call| call.index == Some(index))
                .filter(|&position| given_id.is_none() || self.calls[position].id.is_none());
        }
        if given_id.is_some() {
            return None;
        }
        self.calls.len().checked_sub(1)
    }

    /// The round's calls, in the order they started.
    pub fn finish(self) -> Vec<AssembledToolCall> {
        // Plain loops: iterator adapters over the calls compiled to functions of their own.
        let mut given_ids = Vec::new();
        for call in &self.calls {
            if let Some(id) = &call.id {
                given_ids.push(id.clone());
            }
        }
        let mut synthesized_ids = Vec::new();
        let mut assembled = Vec::with_capacity(self.calls.len());
        for (position, call) in self.calls.into_iter().enumerate() {
            let (arguments, raw_arguments) = finish_arguments(call.arguments, call.truncated);
            let id_synthesized = call.id.is_none();
            let id = call.id.unwrap_or_else(|| {
                let id = unused_id(position, &given_ids, &synthesized_ids);
                synthesized_ids.push(id.clone());
                id
            });
            assembled.push(AssembledToolCall {
                id,
                id_synthesized,
                name: call.name,
                arguments,
                raw_arguments,
                thought_signature: call.thought_signature,
            });
        }
        assembled
    }
}

/// `call_<position>`, or with a suffix if the provider itself used that id for another call.
/// The id lists are a round's calls, a few to a few hundred: plain lists are smaller in wasm than
/// hash sets.
fn unused_id(position: usize, given: &[String], synthesized: &[String]) -> String {
    let taken = |id: &String| given.contains(id) || synthesized.contains(id);
    let plain = format!("call_{position}");
    if !taken(&plain) {
        return plain;
    }
    (1..)
        .map(|suffix| format!("call_{position}_{suffix}"))
        .find(|id| !taken(id))
        .unwrap_or(plain)
}

fn finish_arguments(
    received: ReceivedArguments,
    truncated: bool,
) -> (Result<Value, String>, String) {
    let raw = match &received {
        ReceivedArguments::Nothing => String::new(),
        ReceivedArguments::Text(text) => text.clone(),
        ReceivedArguments::Value(value) => to_json_text(value),
    };
    if truncated {
        return (
            Err("arguments truncated: the response ended before this call was complete".into()),
            raw,
        );
    }
    let parsed = match received {
        ReceivedArguments::Nothing => Ok(Value::Null),
        ReceivedArguments::Text(text) if text.trim().is_empty() => Ok(Value::Null),
        ReceivedArguments::Text(text) => serde_json::from_str::<Value>(&text)
            .map_err(|error| format!("arguments are not valid JSON: {error}")),
        ReceivedArguments::Value(value) => Ok(value),
    };
    match parsed.and_then(into_arguments_object) {
        Ok(Value::Object(object)) if raw.trim().is_empty() || raw == "null" => {
            (Ok(Value::Object(object)), "{}".to_owned())
        }
        Ok(object) => (Ok(object), raw),
        Err(message) => (Err(message), raw),
    }
}

/// Arguments must be an object. No arguments (`null`, nothing) mean `{}`, and an object encoded a
/// second time as a JSON string (some models do this) is decoded.
fn into_arguments_object(value: Value) -> Result<Value, String> {
    match value {
        Value::Object(_) => Ok(value),
        Value::Null => Ok(Value::Object(Map::new())),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(object)) => Ok(Value::Object(object)),
            _ => Err(format!(
                "arguments are not a JSON object: a string ({} bytes)",
                text.len()
            )),
        },
        other => Err(format!(
            "arguments are not a JSON object: {}",
            json_kind(&other)
        )),
    }
}
