//! The one path for values between JS and Rust: JSON text, read and written by `serde_json` on
//! this side and by the engine's `JSON` on the other. A second serde format (a JS-value
//! serializer) would instantiate every config, message and event type twice in the wasm. MCP
//! replies and tool results, which may be megabytes, are the exception: [`value_from_js`] and
//! [`value_to_js`].

use js_sys::{Array, Object, Reflect};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use wasm_bindgen::{JsCast, JsValue};

use super::error::{js_error, js_error_message, set_property};
use crate::core::json_text::replace_lone_surrogate_escapes;

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

fn without_position(error: &serde_json::Error) -> String {
    let message = error.to_string();
    match message.rsplit_once(" at line ") {
        Some((reason, _)) => reason.to_owned(),
        None => message,
    }
}

/// Plain JS objects and arrays for `value`. Our own types always serialize; an error would be a
/// bug, reported with code `internal`.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    parsed_in_js(serde_json::to_string(value))
}

/// The written text parsed by the engine: not generic, like [`json_text_of`].
fn parsed_in_js(text: Result<String, serde_json::Error>) -> Result<JsValue, JsValue> {
    let internal =
        |message: String| js_error("internal", &format!("cannot convert to JS: {message}"));
    let text = text.map_err(|error| internal(error.to_string()))?;
    js_sys::JSON::parse(&text).map_err(|error| internal(js_error_message(&error)).into())
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
pub fn object_of(members: &[(&str, JsValue)]) -> JsValue {
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
    content_key: &str,
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
