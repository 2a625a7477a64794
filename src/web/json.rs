//! The one path for values between JS and Rust: JSON text, read and written by `serde_json` on
//! this side and by the engine's `JSON` on the other. A second serde format (a JS-value
//! serializer) would instantiate every config, message and event type twice in the wasm.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

use super::error::{js_error, js_error_message};
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
