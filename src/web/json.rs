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
    // `JSON.stringify` answers `undefined` (no string) for `undefined` itself.
    let text = js_sys::JSON::stringify(value)
        .map_err(|error| format!("not JSON data ({})", js_error_message(&error)))?
        .as_string();
    let text = text.as_deref().unwrap_or("null");
    serde_json::from_str(&replace_lone_surrogate_escapes(text)).map_err(|error| {
        let message = error.to_string();
        match message.rsplit_once(" at line ") {
            Some((reason, _)) => reason.to_owned(),
            None => message,
        }
    })
}

/// Plain JS objects and arrays for `value`. Our own types always serialize; an error would be a
/// bug, reported with code `internal`.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let internal =
        |message: String| js_error("internal", &format!("cannot convert to JS: {message}"));
    let text = serde_json::to_string(value).map_err(|error| internal(error.to_string()))?;
    js_sys::JSON::parse(&text).map_err(|error| internal(js_error_message(&error)).into())
}
