//! Whole tool calls out of streamed [`ToolCallDelta`]s, whatever the provider's habits.
//!
//! A delta belongs to the call with the same `id`; failing that, to the latest call at the same
//! `index` (unless that call already has a different id: some servers put every call at index
//! 0); failing that, to the latest call. Calls stay open until [`ToolCallAssembler::finish`]:
//! arguments that already parse may still be incomplete, so nothing is decided mid-stream.
//! A whole value followed by fragments was a placeholder (like Anthropic's `input: {}`): the
//! fragments win. A call's id is the one given by the delta that names it or before: the page
//! is shown calls from their name on ([`ToolInputTracker`]), under the id the loop will use
//! ([`ToolCallAssembler::call_ids`]).

use std::mem;

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
    name: String,
    arguments: ReceivedArguments,
    truncated: bool,
    thought_signature: Option<String>,
}

/// A call's `index` and `id`, as far as its deltas have given them, and once a delta has named
/// it, the id the loop and the page give it.
#[derive(Debug, Default)]
struct CallKey {
    index: Option<u32>,
    id: Option<String>,
    loop_id: Option<String>,
}

/// Which call of a round each delta belongs to (the rule of the module's doc), for the
/// assembler and for [`ToolInputTracker`] alike, so that both see the same calls.
#[derive(Debug)]
struct CallRouter {
    /// The loop's round, in the ids it makes up.
    round: u32,
    keys: Vec<CallKey>,
}

impl CallRouter {
    fn new(round: u32) -> Self {
        CallRouter {
            round,
            keys: Vec::new(),
        }
    }

    /// The position of the call `delta` belongs to, `keys.len()` before the push when it opens
    /// one; the call takes the index it did not have yet, and the id it did not have until the
    /// delta that names it: the page is shown a call from then on, under that id or the one
    /// the loop makes up, and its `toolCall` must carry the same.
    fn route(&mut self, delta: &ToolCallDelta) -> usize {
        let given_id = delta.id.as_deref().filter(|id| !id.is_empty());
        let position = match self.find(given_id, delta.index) {
            Some(position) => position,
            None => {
                self.keys.push(CallKey::default());
                self.keys.len() - 1
            }
        };
        let key = &mut self.keys[position];
        if key.id.is_none() && key.loop_id.is_none() {
            key.id = given_id.map(str::to_owned);
        }
        if key.index.is_none() {
            key.index = delta.index;
        }
        let names = delta.name.as_deref().is_some_and(|name| !name.is_empty());
        if names && key.loop_id.is_none() {
            let id = unique_id(self.candidate_id(position), &|id| self.is_loop_id(id));
            self.keys[position].loop_id = Some(id);
        }
        position
    }

    /// The id the call at `position` would have, before it is made unique: the one given by
    /// the time it was named, else `call_<round>_<position>`.
    fn candidate_id(&self, position: usize) -> String {
        match &self.keys[position].id {
            Some(id) => id.clone(),
            None => synthesized_call_id(self.round, position),
        }
    }

    fn is_loop_id(&self, id: &str) -> bool {
        self.keys
            .iter()
            .any(|key| key.loop_id.as_deref() == Some(id))
    }

    /// Every call's id for the loop, by position: a named call's is decided when it is named
    /// (the page shows it under that id), a call never named takes its candidate, made unique
    /// among all the others and those before it ([`unique_id`]).
    fn call_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::with_capacity(self.keys.len());
        for (position, key) in self.keys.iter().enumerate() {
            let id = match &key.loop_id {
                Some(id) => id.clone(),
                None => unique_id(self.candidate_id(position), &|id| {
                    self.is_loop_id(id) || ids.iter().any(|taken| taken == id)
                }),
            };
            ids.push(id);
        }
        ids
    }

    fn find(&self, given_id: Option<&str>, index: Option<u32>) -> Option<usize> {
        if let Some(id) = given_id {
            let same_id = self
                .keys
                .iter()
                .position(|key| key.id.as_deref() == Some(id));
            if same_id.is_some() {
                return same_id;
            }
        }
        if let Some(index) = index {
            return self
                .keys
                .iter()
                .rposition(|key| key.index == Some(index))
                .filter(|&position| given_id.is_none() || self.keys[position].id.is_none());
        }
        if given_id.is_some() {
            return None;
        }
        self.keys.len().checked_sub(1)
    }
}

/// `candidate`, or with the first `_<n>` suffix that is not `taken`: a provider may send ids of
/// the form the loop makes up (`call_2_4`), and two calls of a round must not share one. The
/// ids are a round's calls, a few to a few hundred: plain lists are smaller in wasm than sets.
fn unique_id(candidate: String, taken: &dyn Fn(&str) -> bool) -> String {
    if !taken(&candidate) {
        return candidate;
    }
    (1..)
        .map(|suffix| format!("{candidate}_{suffix}"))
        .find(|id| !taken(id))
        .unwrap_or(candidate)
}

/// Collects deltas for one model round. Calls are finalised only by [`ToolCallAssembler::finish`].
#[derive(Debug)]
pub struct ToolCallAssembler {
    router: CallRouter,
    /// The calls, at the router's positions.
    calls: Vec<OpenCall>,
}

impl ToolCallAssembler {
    /// An assembler for the loop's round `round` (in the ids it makes up, [`Self::call_ids`]).
    pub fn new(round: u32) -> Self {
        ToolCallAssembler {
            router: CallRouter::new(round),
            calls: Vec::new(),
        }
    }

    /// True once any delta has been pushed this round.
    pub fn has_calls(&self) -> bool {
        !self.calls.is_empty()
    }

    /// The ids the loop gives this round's calls, by position, unique within the round: the
    /// ones the page was shown ([`ToolInputTracker`]) for the calls it was shown.
    pub fn call_ids(&self) -> Vec<String> {
        self.router.call_ids()
    }

    pub fn push(&mut self, delta: &ToolCallDelta) {
        let position = self.router.route(delta);
        if position == self.calls.len() {
            self.calls.push(OpenCall::default());
        }
        let call = &mut self.calls[position];
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

    /// The round's calls, in the order they started.
    pub fn finish(self) -> Vec<AssembledToolCall> {
        // Plain loops: iterator adapters over the calls compiled to functions of their own.
        let mut taken_ids = Vec::new();
        for key in &self.router.keys {
            if let Some(id) = &key.id {
                taken_ids.push(id.clone());
            }
        }
        let mut assembled = Vec::with_capacity(self.calls.len());
        let keys = self.router.keys.into_iter();
        for (position, (call, key)) in self.calls.into_iter().zip(keys).enumerate() {
            let (arguments, raw_arguments) = finish_arguments(call.arguments, call.truncated);
            let id_synthesized = key.id.is_none();
            let id = key.id.unwrap_or_else(|| {
                let taken = |id: &str| taken_ids.iter().any(|taken| taken == id);
                let id = unique_id(format!("call_{position}"), &taken);
                taken_ids.push(id.clone());
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

/// The id the loop gives a call of round `round` that came without one.
pub fn synthesized_call_id(round: u32, position: usize) -> String {
    format!("call_{round}_{position}")
}

/// What the page is shown of a streamed call while the model writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolInput {
    /// The call is named: the id its `toolCall` will carry, and the function name.
    Start { id: String, name: String },
    /// Arguments text the call received, in order.
    Delta { id: String, text: String },
}

/// Follows a streamed answer's tool calls as they come, for the page, routing deltas as the
/// assembler does but keeping no arguments. A call starts with the first delta that names it,
/// under the id the loop will give it ([`ToolCallAssembler::call_ids`]: its provider's id or one
/// made up, unique in the round); arguments text received before its name follows the start.
/// Arguments a provider sends whole (Gemini, Ollama) are shown as their JSON text in one piece,
/// as the AI SDK does, so that a call's pieces joined are its arguments for every provider; an
/// empty object or `null` shows nothing, since Anthropic opens each call with `input: {}` before
/// the text that replaces it.
#[derive(Debug)]
pub struct ToolInputTracker {
    router: CallRouter,
    calls: Vec<ShownCall>,
}

#[derive(Debug, Default)]
struct ShownCall {
    /// The id the call is shown under, from its start on.
    id: Option<String>,
    /// Arguments text received before the call was named.
    early_text: String,
}

impl ToolInputTracker {
    pub fn new(round: u32) -> Self {
        ToolInputTracker {
            router: CallRouter::new(round),
            calls: Vec::new(),
        }
    }

    /// What `delta` shows: the start of the call it names first, and the text it adds.
    pub fn push(&mut self, delta: &ToolCallDelta) -> Vec<ToolInput> {
        let position = self.router.route(delta);
        if position == self.calls.len() {
            self.calls.push(ShownCall::default());
        }
        let call = &mut self.calls[position];
        let whole_text;
        let text = match &delta.arguments {
            Some(ArgumentsDelta::Fragment(fragment)) => fragment.as_str(),
            Some(ArgumentsDelta::Whole(value)) if !is_placeholder(value) => {
                whole_text = to_json_text(value);
                whole_text.as_str()
            }
            _ => "",
        };
        if let Some(id) = &call.id {
            return match text {
                "" => Vec::new(),
                text => vec![ToolInput::Delta {
                    id: id.clone(),
                    text: text.to_owned(),
                }],
            };
        }
        // Not shown yet: a delta that names the call gave it its id in the router.
        let named = delta.name.as_deref().filter(|name| !name.is_empty());
        let (Some(name), Some(id)) = (named, &self.router.keys[position].loop_id) else {
            call.early_text.push_str(text);
            return Vec::new();
        };
        let id = id.clone();
        call.id = Some(id.clone());
        let mut text_so_far = mem::take(&mut call.early_text);
        text_so_far.push_str(text);
        let start = ToolInput::Start {
            id: id.clone(),
            name: name.to_owned(),
        };
        match text_so_far.as_str() {
            "" => vec![start],
            _ => vec![
                start,
                ToolInput::Delta {
                    id,
                    text: text_so_far,
                },
            ],
        }
    }

    /// The ids of the calls shown so far, in the answer's order: those of an answer whose
    /// stream was cut and that is asked for again are discarded on the page (a provider names
    /// the calls of the new answer afresh).
    pub fn into_shown_ids(self) -> impl Iterator<Item = String> {
        self.calls.into_iter().filter_map(|call| call.id)
    }
}

/// Whole arguments that say nothing yet: `{}` or `null`.
fn is_placeholder(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(members) => members.is_empty(),
        _ => false,
    }
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
