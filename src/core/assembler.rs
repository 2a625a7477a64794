//! Whole tool calls out of streamed [`ToolCallDelta`]s.

use serde_json::Value;

use super::model_event::{ArgumentsDelta, ToolCallDelta};

/// A tool call assembled at the end of a model round.
#[derive(Debug, Clone, PartialEq)]
pub struct AssembledToolCall {
    pub id: String,
    /// True when the provider sent no id and this one was made up.
    pub id_synthesized: bool,
    pub name: String,
    /// The parsed arguments, or a message saying why they do not parse.
    pub arguments: Result<Value, String>,
    /// The arguments text as received (for echoing the assistant message).
    pub raw_arguments: String,
    pub thought_signature: Option<String>,
}

#[derive(Debug, Default)]
struct OpenCall {
    index: Option<u32>,
    id: Option<String>,
    name: String,
    fragments: String,
    whole: Option<Value>,
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
        let position = self.find(delta);
        let call = match position {
            Some(position) => &mut self.calls[position],
            None => {
                self.calls.push(OpenCall {
                    index: delta.index,
                    id: delta.id.clone(),
                    ..OpenCall::default()
                });
                self.calls.last_mut().expect("just pushed")
            }
        };
        if let Some(name) = delta.name.as_deref().filter(|name| !name.is_empty()) {
            call.name = name.to_owned();
        }
        if call.id.is_none() {
            call.id = delta.id.clone().filter(|id| !id.is_empty());
        }
        if delta.thought_signature.is_some() {
            call.thought_signature = delta.thought_signature.clone();
        }
        match &delta.arguments {
            Some(ArgumentsDelta::Fragment(text)) => call.fragments.push_str(text),
            Some(ArgumentsDelta::Whole(value)) => call.whole = Some(value.clone()),
            None => {}
        }
    }

    fn find(&self, delta: &ToolCallDelta) -> Option<usize> {
        if let Some(id) = delta.id.as_deref().filter(|id| !id.is_empty()) {
            return self
                .calls
                .iter()
                .position(|call| call.id.as_deref() == Some(id));
        }
        if let Some(index) = delta.index {
            return self.calls.iter().position(|call| call.index == Some(index));
        }
        self.calls.len().checked_sub(1)
    }

    /// The round's calls, in the order they started.
    pub fn finish(self) -> Vec<AssembledToolCall> {
        self.calls
            .into_iter()
            .enumerate()
            .map(|(position, call)| {
                let (arguments, raw_arguments) = match call.whole {
                    Some(value) => (Ok(value.clone()), value.to_string()),
                    None if call.fragments.trim().is_empty() => {
                        (Ok(Value::Object(Default::default())), "{}".to_owned())
                    }
                    None => (
                        serde_json::from_str(&call.fragments)
                            .map_err(|error| format!("arguments are not valid JSON: {error}")),
                        call.fragments,
                    ),
                };
                AssembledToolCall {
                    id_synthesized: call.id.is_none(),
                    id: call.id.unwrap_or_else(|| format!("call_{position}")),
                    name: call.name,
                    arguments,
                    raw_arguments,
                    thought_signature: call.thought_signature,
                }
            })
            .collect()
    }
}
