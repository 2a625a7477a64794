//! The one path for values between JS and Rust: JSON text read by `serde_json` on this side from
//! what the engine's `JSON` writes on the other. A second serde format (a JS-value deserializer)
//! would instantiate every config type twice in the wasm. Values going to JS are built there
//! member by member ([`value_to_js`], [`messages_to_js`]); MCP replies, which may be megabytes,
//! come in through [`value_from_js`].

use js_sys::{Array, Object, Reflect};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use wasm_bindgen::{JsCast, JsValue};

use super::error::{js_error_message, set_property};
use super::static_js_str;
use crate::core::json_text::replace_lone_surrogate_escapes;
use crate::core::message::{ChatMessage, ContentPart, MessageContent, ThinkingBlock};

/// Reads `value` as `T`, as `JSON.stringify` sees it (`undefined` members are left out,
/// `undefined` itself reads as `null`, a lone UTF-16 surrogate as U+FFFD). The error is serde's
/// message without a text position, which would point into JSON the caller never wrote.
pub fn from_js<T: DeserializeOwned>(value: &JsValue) -> Result<T, String> {
    let text = json_text_of(value)?;
    serde_json::from_str(&replace_lone_surrogate_escapes(&text))
        .map_err(|error| without_position(&error))
}

/// `value` as `JSON.stringify` writes it. This and the error texts are not generic, so that each
/// type read adds only its own parsing to the wasm.
fn json_text_of(value: &JsValue) -> Result<String, String> {
    // `JSON.stringify` answers `undefined` (no string) for `undefined` itself.
    let text = js_sys::JSON::stringify(value)
        .map_err(|error| format!("not JSON data ({})", js_error_message(&error)))?
        .as_string();
    Ok(text.unwrap_or_else(|| "null".to_owned()))
}

/// serde_json's message without the ` at line {line} column {column}` its `Display` ends it with
/// when the error has a line, cut by its length: a search for the words from the end compiled
/// std's reverse substring searcher into the wasm for this alone.
fn without_position(error: &serde_json::Error) -> String {
    let mut message = error.to_string();
    if error.line() != 0 {
        let digits = |mut number: usize| {
            let mut count = 1;
            while number >= 10 {
                number /= 10;
                count += 1;
            }
            count
        };
        let position = " at line  column ".len() + digits(error.line()) + digits(error.column());
        message.truncate(message.len().saturating_sub(position));
    }
    message
}

/// The conversation as JS, with the members `ChatMessage`'s `Serialize` writes, in its order,
/// built member by member: serializing it to JSON text for `JSON.parse` compiled the derived
/// serializers of every message type into the wasm for this alone.
pub fn messages_to_js(messages: &[ChatMessage]) -> JsValue {
    let array = Array::new();
    for message in messages {
        array.push(&message_to_js(message));
    }
    array.into()
}

fn message_to_js(message: &ChatMessage) -> Object {
    let object = Object::new();
    set_property(&object, "role", &static_js_str(message.role.name()));
    match &message.content {
        None => {}
        Some(MessageContent::Text(text)) => {
            set_property(&object, "content", &JsValue::from_str(text));
        }
        Some(MessageContent::Parts(parts)) => {
            let array = Array::new();
            for part in parts {
                let part = match part {
                    ContentPart::Text { text } => texts_object(&[("type", "text"), ("text", text)]),
                    ContentPart::ImageUrl { image_url } => {
                        let url = texts_object(&[("url", &image_url.url)]);
                        set_optional_text(&url, "detail", image_url.detail.as_deref());
                        let part = texts_object(&[("type", "image_url")]);
                        set_property(&part, "image_url", &url);
                        part
                    }
                };
                array.push(&part);
            }
            set_property(&object, "content", &array);
        }
    }
    if let Some(calls) = &message.tool_calls {
        let array = Array::new();
        for call in calls {
            let object = texts_object(&[("id", &call.id), ("type", &call.call_type)]);
            let function = &call.function;
            let function =
                texts_object(&[("name", &function.name), ("arguments", &function.arguments)]);
            set_property(&object, "function", &function);
            set_optional_text(
                &object,
                "thought_signature",
                call.thought_signature.as_deref(),
            );
            array.push(&object);
        }
        set_property(&object, "tool_calls", &array);
    }
    set_optional_text(&object, "tool_call_id", message.tool_call_id.as_deref());
    set_optional_text(&object, "name", message.name.as_deref());
    set_optional_text(
        &object,
        "reasoning_content",
        message.reasoning_content.as_deref(),
    );
    if let Some(blocks) = &message.thinking_blocks {
        let array = Array::new();
        for block in blocks {
            array.push(&thinking_block_to_js(block));
        }
        set_property(&object, "thinking_blocks", &array);
    }
    object
}

fn thinking_block_to_js(block: &ThinkingBlock) -> Object {
    match block {
        ThinkingBlock::Thinking {
            thinking,
            signature,
        } => texts_object(&[
            ("type", "thinking"),
            ("thinking", thinking),
            ("signature", signature),
        ]),
        ThinkingBlock::RedactedThinking { data } => {
            texts_object(&[("type", "redacted_thinking"), ("data", data)])
        }
        ThinkingBlock::Reasoning {
            summary,
            encrypted_content,
        } => texts_object(&[
            ("type", "reasoning"),
            ("summary", summary),
            ("encrypted_content", encrypted_content),
        ]),
        ThinkingBlock::ThoughtSignature { signature } => {
            texts_object(&[("type", "thought_signature"), ("signature", signature)])
        }
        ThinkingBlock::ReasoningDetails { details } => {
            let block = texts_object(&[("type", "reasoning_details")]);
            let array: Array = details.iter().map(value_to_js).collect();
            set_property(&block, "details", &array);
            block
        }
    }
}

/// A plain object with string `members` in their order.
fn texts_object(members: &[(&'static str, &str)]) -> Object {
    let object = Object::new();
    for (key, text) in members {
        set_property(&object, key, &JsValue::from_str(text));
    }
    object
}

/// `key: text` on `target` when there is a text, as `Serialize` skips a `None`.
pub fn set_optional_text(target: &Object, key: &'static str, text: Option<&str>) {
    if let Some(text) = text {
        set_property(target, key, &JsValue::from_str(text));
    }
}

/// `value` built in JS piece by piece, without its JSON text: a tool result of megabytes would be
/// in wasm memory beside its text, itself written into a buffer that doubles as it grows (up to
/// four times the result at once; wasm memory keeps its peak for the page's life). As
/// `JSON.parse` makes it: members are own properties (`__proto__` too), numbers doubles.
pub fn value_to_js(value: &Value) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(flag) => JsValue::from_bool(*flag),
        Value::Number(number) => JsValue::from_f64(number.as_f64().unwrap_or_default()),
        Value::String(text) => JsValue::from_str(text),
        Value::Array(items) => items.iter().map(value_to_js).collect::<Array>().into(),
        Value::Object(members) => {
            let entries: Array = members
                .iter()
                .map(|(key, member)| Array::of2(&JsValue::from_str(key), &value_to_js(member)))
                .collect();
            // `fromEntries` only throws for entries that are not pairs.
            Object::from_entries(&entries).unwrap_or_default().into()
        }
    }
}

/// A plain object with `members` in their order: results are built in JS member by member, as
/// the run's events are, where serializing each type to JSON text compiled a serializer of its own.
pub fn object_of(members: &[(&'static str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (key, value) in members {
        set_property(&object, key, value);
    }
    object.into()
}

pub fn strings_to_js<Text: AsRef<str>>(strings: &[Text]) -> JsValue {
    let array = Array::new();
    for text in strings {
        array.push(&JsValue::from_str(text.as_ref()));
    }
    array.into()
}

/// `content` (under `content_key`), `structuredContent` when there is some, and `isError`: the
/// members a tool result has in JS, set on `target`; the content through [`value_to_js`].
pub fn set_tool_result_members(
    target: &Object,
    content_key: &'static str,
    content: &[Value],
    structured_content: Option<&Value>,
    is_error: bool,
) {
    let content: Array = content.iter().map(value_to_js).collect();
    set_property(target, content_key, &content);
    if let Some(structured_content) = structured_content {
        set_property(
            target,
            "structuredContent",
            &value_to_js(structured_content),
        );
    }
    set_property(target, "isError", &JsValue::from_bool(is_error));
}

/// How deep [`value_from_js`] reads, as deep as serde_json reads text: a hostile server's
/// nesting must not exhaust the wasm stack, which would end the module for the page.
pub const MAX_DEPTH: u32 = 128;

/// `value`, as `JSON.parse` made it, as a `Value` (`None` when nested deeper than serde_json
/// reads): each string enters wasm memory once, where the reply's text and serde_json's buffer
/// for unescaping a long string would sit beside it (a tool result of megabytes, three or four
/// times). Whole numbers become integers, as in the text; members come in the engine's order
/// (integer-like keys first, as every JS client reads them).
pub fn value_from_js(value: &JsValue) -> Option<Value> {
    value_within(value, MAX_DEPTH)
}

fn value_within(value: &JsValue, depth_left: u32) -> Option<Value> {
    if let Some(text) = value.as_string() {
        return Some(Value::String(text));
    }
    if let Some(number) = value.as_f64() {
        // Beyond 2^53 a double holds no exact integer, as in JS.
        return Some(if number.fract() == 0.0 && number.abs() < 9.0e15 {
            Value::from(number as i64)
        } else {
            Value::from(number)
        });
    }
    if let Some(flag) = value.as_bool() {
        return Some(Value::Bool(flag));
    }
    let depth_left = depth_left.checked_sub(1);
    if let Some(items) = value.dyn_ref::<Array>() {
        let mut values = Vec::new();
        for item in items.iter() {
            values.push(value_within(&item, depth_left?)?);
        }
        return Some(Value::Array(values));
    }
    if value.is_object() {
        let mut members = Map::new();
        for key in Object::keys(value.unchecked_ref::<Object>()).iter() {
            let member = Reflect::get(value, &key).unwrap_or_default();
            let member = value_within(&member, depth_left?)?;
            members.insert(key.as_string().unwrap_or_default(), member);
        }
        return Some(Value::Object(members));
    }
    Some(Value::Null)
}
