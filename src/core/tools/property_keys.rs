//! Property keys Anthropic accepts (`^[a-zA-Z0-9_.-]{1,64}$`), and the way back to the keys a
//! tool takes.
//!
//! Anthropic refuses the whole request (every tool of it) when one key of a tool's top-level
//! `input_schema.properties` breaks that pattern, and MCP servers generated from REST APIs send
//! such keys (`filter[id]`, `$top`, `@microsoft.graph.conflictBehavior`, keys with spaces or
//! longer than 64 characters). Only the top level is checked (the error names
//! `input_schema.properties`; nested offenders pass), so only the top level is renamed, and a
//! call's arguments are renamed back at their top level only.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::names::with_name_characters;
use crate::core::json_read::strings_in;
use crate::core::text::owned;

/// The longest property key Anthropic accepts.
const MAX_PROPERTY_KEY_LENGTH: usize = 64;

/// A top-level property key renamed for the provider, and the tool's own key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenamedProperty {
    /// The key the provider sees and the model sends.
    pub sent: String,
    /// The key in the tool's `inputSchema`, which its server expects.
    pub original: String,
}

fn is_valid_property_key(key: &str) -> bool {
    (1..=MAX_PROPERTY_KEY_LENGTH).contains(&key.len())
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'-'))
}

/// `key` in the characters of function names (every other one made `_`, the `.` Anthropic would
/// also take included: one rule is less wasm than two), cut to `max` characters; `_` for an
/// empty key.
fn property_key_base(key: &str, max: usize) -> String {
    let mut base = with_name_characters(key);
    base.truncate(max);
    if base.is_empty() {
        base.push('_');
    }
    base
}

/// Renames the keys of `root`'s `properties` that Anthropic refuses, in place and in order, and
/// the names `required` gives them. A renamed key is unique among the object's keys:
/// `filter[id]` becomes `filter_id_`, or `filter_id__2`, `_3`… when that is taken (the suffix
/// kept whole within 64 characters). Deterministic: the same properties in the same order get
/// the same keys. Other keywords that name properties (`dependentRequired`, …) are left: they
/// constrain the arguments, which are checked against the original schema.
pub(super) fn rename_property_keys(root: &mut Map<String, Value>) -> Vec<RenamedProperty> {
    // A name `required` gives without a property is an argument key too: a renamed key must not
    // become it (`required` would name one key twice, which Anthropic refuses).
    let required_names = match root.get("required") {
        Some(Value::Array(required)) => owned(&strings_in(required)),
        _ => Vec::new(),
    };
    let Some(Value::Object(properties)) = root.get_mut("properties") else {
        return Vec::new();
    };
    let mut renamed: Vec<RenamedProperty> = Vec::new();
    for key in properties.keys().filter(|key| !is_valid_property_key(key)) {
        let mut sent = property_key_base(key, MAX_PROPERTY_KEY_LENGTH);
        let mut counter = 1;
        // `sent` is valid, so only a key kept as it is, a required name or a key renamed before
        // can be the same.
        while properties.keys().any(|other| *other == sent)
            || required_names.contains(&sent)
            || renamed.iter().any(|other| other.sent == sent)
        {
            counter += 1;
            let suffix = format!("_{counter}");
            sent = property_key_base(key, MAX_PROPERTY_KEY_LENGTH - suffix.len()) + &suffix;
        }
        renamed.push(RenamedProperty {
            sent,
            original: key.clone(),
        });
    }
    if renamed.is_empty() {
        return renamed;
    }
    *properties = with_keys_renamed(std::mem::take(properties), &renamed, Direction::ToSent);
    if let Some(Value::Array(required)) = root.get_mut("required") {
        for name in required {
            if let Value::String(text) = name {
                if let Some(renamed) = renamed.iter().find(|renamed| renamed.original == *text) {
                    text.clone_from(&renamed.sent);
                }
            }
        }
    }
    renamed
}

#[derive(Clone, Copy)]
enum Direction {
    ToSent,
    ToOriginal,
}

/// `members` in the same order, each key found in `renamed` replaced. One function for both
/// directions: each place that fills a map by hand costs the wasm its own copy of the hashing.
fn with_keys_renamed(
    members: Map<String, Value>,
    renamed: &[RenamedProperty],
    direction: Direction,
) -> Map<String, Value> {
    let mut result = Map::new();
    for (key, value) in members {
        let key = renamed
            .iter()
            .map(|renamed| match direction {
                Direction::ToSent => (&renamed.original, &renamed.sent),
                Direction::ToOriginal => (&renamed.sent, &renamed.original),
            })
            .find(|(from, _)| **from == key)
            .map_or(key, |(_, to)| to.clone());
        result.insert(key, value);
    }
    result
}

/// The property keys renamed in the tools as one provider was sent them, per function name:
/// the way back from the keys a model sends to the keys each tool takes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArgumentKeys {
    /// Only the tools with a renamed key, a handful at most.
    tools: Vec<(String, Vec<RenamedProperty>)>,
}

impl ArgumentKeys {
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Notes the keys renamed in `function_name`'s schema (nothing when none were).
    pub fn insert(&mut self, function_name: &str, renamed: Vec<RenamedProperty>) {
        if !renamed.is_empty() {
            self.tools.push((function_name.to_owned(), renamed));
        }
    }

    /// `arguments` for `function_name` with the top-level keys the provider was sent renamed
    /// back to the tool's own; anything else (other keys, nested objects, a non-object) as is.
    pub fn restore(&self, function_name: &str, arguments: Value) -> Value {
        let Some((_, renamed)) = self.tools.iter().find(|(name, _)| name == function_name) else {
            return arguments;
        };
        let Value::Object(members) = arguments else {
            return arguments;
        };
        Value::Object(with_keys_renamed(members, renamed, Direction::ToOriginal))
    }
}
